"""Reading a growing JSONL log on from where an earlier read stopped (``efc-tui hook``).

A reader that can do it (``RESUMABLE``) offers ``start(path, options)`` (its per-log state
before the first line, and the source), and its state offers ``feed``, ``check``,
``seal`` and ``finish(source, carry)``. At a *settled* line, one after which no later line
can change the drafts before it (Claude Code: every tool call has its result, no text
waits for the call that may follow it), ``seal`` finalizes those drafts and lets go of
them. The state at the last settled line, pickled with the byte offset where that line
ends, is the checkpoint: the next read parses only the lines after it. The events come
out equal to a full read's (``tests/readers/test_resume.py`` compares them on every Claude Code
transcript, read on line by line).

A checkpoint is kept pickled: keep it where only its owner writes (the hook's state folder).
"""

from __future__ import annotations

import pickle
from importlib import import_module
from pathlib import Path

from msgspec import Struct

from efc_tui.model import Event, Run
from efc_tui.parsers._drafts import Carry, ReadAgain
from efc_tui.parsers.base import ReadOptions

__all__ = ["RESUMABLE", "Checkpoint", "ReadAgain", "ReadOn", "can_resume", "full_read", "read_on"]

#: readers whose state can stop at a settled line: format name -> module
RESUMABLE = {"claude-code": "efc_tui.parsers.claude_code"}
#: a checkpoint is taken only at a settled line among the last lines of a read (pickling
#: the state costs more the longer the log, so not at every settled line of a long log)
LAST_LINES = 64
_GZIP = b"\x1f\x8b"


class Checkpoint(Struct):
    """A reader's state at the end of a settled line."""

    #: bytes of the log up to the end of that line, and its line number
    offset: int
    lineno: int
    #: the finalized drafts' state: ``carry.index`` events come before the line's end
    carry: Carry
    #: (reader state, source), pickled
    state: bytes


class ReadOn(Struct):
    """What a read on from a checkpoint gives."""

    #: the run read, with the events from the checkpoint's ``carry.index`` on
    run: Run
    #: the last settled line's checkpoint (the given one when no line after it settled)
    checkpoint: Checkpoint | None


def can_resume(name: str, path: Path) -> bool:
    """Whether ``read_on`` reads this log (a resumable format, not compressed)."""
    if name not in RESUMABLE:
        return False
    try:
        with path.open("rb") as f:
            return f.read(2) != _GZIP
    except OSError:
        return False


def read_on(name: str, path: Path, checkpoint: Checkpoint | None) -> ReadOn:
    """Read the log at ``path`` from ``checkpoint`` on (from its start when None): the
    run of the events after the checkpoint, and the checkpoint of the last settled line.
    Raises ``ReadAgain`` when a line would change an event before a settled line (a log
    that reuses message ids): such a log is read whole (``full_read``)."""
    module = import_module(RESUMABLE[name])
    if checkpoint is None:
        state, source = module.start(path, ReadOptions())
        offset, lineno = 0, 0
        carry: Carry | None = None  # the first drafts count from the run's start
    else:
        state, source = pickle.loads(checkpoint.state)
        carry, offset, lineno = checkpoint.carry, checkpoint.offset, checkpoint.lineno
    with path.open("rb") as f:
        f.seek(offset)
        data = f.read()
    lines = data.splitlines(keepends=True)
    keep_from = len(lines) - LAST_LINES
    sealed: list[Event] = []
    latest = checkpoint
    for i, raw in enumerate(lines):
        lineno += 1
        offset += len(raw)
        obj = source.object(lineno, raw)
        if obj is not None:
            state.feed(lineno, obj, source)
        elif source.truncated_last:
            break
        if not raw.endswith(b"\n"):
            continue
        fin = state.seal(carry)
        if fin is None:
            continue
        sealed += fin.events
        carry = fin.carry
        if i >= keep_from:
            snap = pickle.dumps((state, source), protocol=pickle.HIGHEST_PROTOCOL)
            latest = Checkpoint(offset, lineno, carry, snap)
    state.check(source)
    run = state.finish(source, carry)
    run.events[:0] = sealed
    return ReadOn(run, latest)


def full_read(name: str, path: Path) -> Run:
    """The log read whole by its reader (for a log ``read_on`` cannot go on in)."""
    from efc_tui.parsers import get_reader

    return next(iter(get_reader(name).read(path, ReadOptions())))
