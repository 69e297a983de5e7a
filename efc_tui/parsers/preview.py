"""Previews: the runs of a file's first bytes, for showing a large log at once
(``efc-tui open``) while the whole of it is still being read.

A whole-document log (a mini-swe-agent or SWE-agent trajectory, an OpenHands event list,
an Inspect ``.json`` log, an ATIF trajectory, a tau-bench results list) is one JSON value:
no reader can produce its first event before the closing bracket is parsed. A preview
reads only its first ``n`` bytes, cuts them at the last boundary between two elements of
the longest list open at that point (the events, messages or steps), closes every bracket
left open, and hands that smaller, valid document to the same reader. A log read line by
line (Claude Code, Codex, any JSONL) is handed its first ``n`` bytes up to the last whole
line. Nothing is interpreted differently: the preview's events are what the reader makes of
the log's first elements. The last of them may still change once the rest is read (an
action whose result is past the cut, a total shared over every call), so a preview is
always followed by the whole read, and a caller shows the events of the whole read from the
first one that differs.

The limit travels with the reading it applies to: ``preview`` hands the reader
``ReadOptions(preview=PreviewLimit(path, n))``, and the reader passes its options to
``base.open_binary`` / ``base.read_all``, which give whole lines of the file's first bytes,
or the closed document; every other file (a sidecar report, a sub-agent's log) is read
whole. A reader that opens the file some other way (a zip archive) reads it whole, and the
preview is the whole read.

The cut is found by a scan of the structural bytes (strings skipped whole by one regular
expression: no byte-by-byte Python loop), O(n).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct

from efc_tui._lazy_re import LazyPattern
from efc_tui.errors import EfcError
from efc_tui.model import Run

if TYPE_CHECKING:
    from efc_tui.parsers.outcomes import Outcomes


class PreviewLimit(Struct):
    """A preview in force (:func:`preview`): reading ``path`` stops after ``nbytes``."""

    path: Path
    nbytes: int
    #: the file is longer: what was read of it was cut
    cut: bool = False


# a whole string, a bracket or a comma, or the opening quote of a string the prefix cuts
# (compiled on first use: ``base`` imports this module, and most reads never preview)
_TOKEN = LazyPattern(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},]|"', re.DOTALL)
_OPEN = {ord("["): ord("]"), ord("{"): ord("}")}
_QUOTE, _COMMA, _CLOSE_LIST = ord('"'), ord(","), ord("]")


def close_prefix(data: bytes) -> bytes | None:
    """The first bytes of a JSON document as a valid document: cut before the last comma
    of the open list with the most elements so far (else of the outermost object with two
    members), with every bracket open there closed: whole elements of the events' list are
    kept, and nothing past them. None when there is no such cut, or the bytes are not the
    start of a JSON array or object (or close brackets they did not open).

    Pure Python only: 0.7 ms for the first screen's 64 KB, ~100 ms for the 4 MB preview
    that follows it (off the UI thread); a compiled twin (0.05 and 4 ms) was removed, as
    the scan is not on ``score``'s path (docs/speed.md).

    >>> close_prefix(b'{"a": 1, "ev": [{"x": 1}, {"x": 2}, {"x"')
    b'{"a": 1, "ev": [{"x": 1}, {"x": 2}]}'
    """
    closers: list[int] = []  # the closing byte of each open container, outermost first
    commas: list[int] = []  # separators seen so far in each open container
    last: list[int] = []  # where its last separator is
    for m in _TOKEN.rx.finditer(data):
        c = data[m.start()]
        if c == _QUOTE:
            if m.end() - m.start() == 1:
                break  # a string the prefix cuts: the scan ends here
            continue
        if c == _COMMA:
            if not closers:
                return None
            commas[-1] += 1
            last[-1] = m.start()
        elif c in _OPEN:
            closers.append(_OPEN[c])
            commas.append(0)
            last.append(-1)
        else:
            if not closers or closers[-1] != c:
                return None
            closers.pop()
            commas.pop()
            last.pop()
            if not closers:
                return data[: m.end()]  # the whole document is in the prefix
    if not closers:
        return None
    # the open list with the most elements (the outermost on a tie): the events, messages
    # or steps; without a list of two, the outermost object with two members
    lists = [i for i in range(len(closers)) if commas[i] and closers[i] == _CLOSE_LIST]
    objects = [i for i in range(len(closers)) if commas[i] and closers[i] != _CLOSE_LIST]
    if lists:
        k = max(lists, key=lambda i: (commas[i], -i))
    elif objects:
        k = objects[0]
    else:
        return None
    return data[: last[k]] + bytes(reversed(closers[: k + 1]))


class Preview(Struct):
    """The runs read from a file's first bytes."""

    runs: list[Run]
    #: the whole file was read: these runs are final
    complete: bool


def preview(
    path: Path,
    nbytes: int,
    fmt: str | None = None,
    *,
    lenient: bool = False,
    outcomes: Outcomes | None = None,
    max_runs: int = 2,
) -> Preview | None:
    """The runs of the first ``nbytes`` of ``path`` (at most ``max_runs``), read by the
    file's reader as described in the module docstring. When the reader read the file
    whole (it is short, or it is not read through ``base``) the result is ``complete``.
    None when the start does not make a document the reader takes: the caller reads the
    whole file, which reports any problem."""
    from efc_tui.parsers import detect_format, load

    runs: list[Run] = []
    path = Path(path)
    fmt = fmt or detect_format(path)  # on the file's true start
    limit = PreviewLimit(path, nbytes)
    try:
        for run in load(path, fmt, lenient=lenient, outcomes=outcomes, preview=limit):
            runs.append(run)
            if len(runs) >= max_runs:
                break
    except EfcError:
        if not limit.cut:
            raise
        return None
    return Preview(runs, complete=not limit.cut and len(runs) < max_runs)
