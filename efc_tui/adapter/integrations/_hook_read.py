"""How ``efc-tui hook`` reads a growing transcript, and keeps the adapter's state, so that a
call costs in proportion to the transcript's new lines, not to the session.

- **Reading** (``read``): a reader that can (``parsers/resume.py``: Claude Code) parses
  only the lines after the last *settled* line it saw; its checkpoint is kept in
  ``<session>.reader.pickle`` with the events the next call still needs (those from the
  first undecided one up to the checkpoint). Other transcripts (Codex, gzipped, or one that
  reuses message ids) are read whole.
- **Deciding**: the adapter's per-event state (``live.Monitor.state``, with stable digests)
  is kept in ``<session>.monitor.pickle``; a call steps it over the new events only. When
  it is missing or made with other settings, it is rebuilt from the whole transcript.

Both files are checked against the ``decided`` count of ``state.json`` (written last): a
call that died between the writes finds them inconsistent and starts over from the
transcript, which gives the same decisions.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

from msgspec import Struct


class Read(Struct):
    """A transcript read for one call."""

    #: the run, with the events from ``base`` on
    run: Any
    base: int = 0
    #: the checkpoint of the last settled line (None: none, or a transcript read whole)
    checkpoint: Any = None
    #: events before ``base`` record token usage (``live.complete_events``)
    measured: bool = False


def read(
    path: Path, harness: str, keep_path: Path, state: dict[str, Any], from_start: bool
) -> Read:
    """The transcript from the first event the call needs on (``from_start``: from its
    first event). ``state["whole"]`` is set once it cannot be read on (``ReadAgain``)."""
    from efc_tui.parsers import resume

    if state.get("whole") or not resume.can_resume(harness, path):
        return Read(resume.full_read(harness, path))
    cp, base, kept, measured = None, 0, [], False
    if not from_start:
        try:
            saved = pickle.loads(keep_path.read_bytes())
            cp, base, kept, measured = (
                saved["checkpoint"],
                saved["base"],
                saved["events"],
                saved["measured"],
            )
        except Exception:  # missing, cut short or foreign: read from the start
            cp = None
        consistent = (
            isinstance(cp, resume.Checkpoint)
            and base == min(state["decided"], cp.carry.index)
            and len(kept) == cp.carry.index - base
        )
        if not consistent:
            cp, base, kept, measured = None, 0, [], False
    try:
        got = resume.read_on(harness, path, cp)
    except resume.ReadAgain as again:
        if again.always:
            state["whole"] = True
            keep_path.unlink(missing_ok=True)
        return Read(resume.full_read(harness, path))
    run = got.run
    run.events[:0] = kept
    return Read(run, base, got.checkpoint, measured)


def keep(r: Read, keep_path: Path, decided: int) -> None:
    """Keep the checkpoint of ``r`` and the events the next call needs from this read
    (those from ``decided`` or the checkpoint, whichever comes first, up to it)."""
    from efc_tui.adapter.live import measured_usage

    cp = r.checkpoint
    if cp is None:
        keep_path.unlink(missing_ok=True)
        return
    base = min(decided, cp.carry.index)
    events = r.run.events
    measured = r.measured or any(measured_usage(e) for e in events[: base - r.base])
    saved = {
        "checkpoint": cp,
        "base": base,
        "events": events[base - r.base : cp.carry.index - r.base],
        "measured": measured,
    }
    _write(keep_path, pickle.dumps(saved, protocol=pickle.HIGHEST_PROTOCOL))


def resume_monitor(mon: Any, monitor_path: Path, decided: int) -> bool:
    """Take on the adapter's state of the last call (False when there is none, it is
    unreadable, was made with other settings, or is not at ``decided``)."""
    try:
        saved = pickle.loads(monitor_path.read_bytes())
    except Exception:  # missing, cut short or foreign: rebuilt from the events
        return False
    return bool(isinstance(saved, tuple) and saved[1] == decided and mon.resume(saved))


def save_monitor(mon: Any, monitor_path: Path) -> None:
    _write(monitor_path, pickle.dumps(mon.state(), protocol=pickle.HIGHEST_PROTOCOL))


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
