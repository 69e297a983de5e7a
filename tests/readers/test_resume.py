"""Reading a growing transcript on from a checkpoint (``parsers/resume.py``, what the live
hook does on every call) gives the events a full read of the same bytes gives, on every
Claude Code transcript we have, grown in random pieces (cut mid-line too)."""

from __future__ import annotations

import pickle
import random
from pathlib import Path

import pytest

from efc_tui.parsers import get_reader, resume
from efc_tui.parsers.base import ReadOptions
from tests import hookgen
from tests.cli.test_hook_replay import TRANSCRIPTS

CLAUDE = [p for name, p in TRANSCRIPTS if name == "claude-code"]


def _grow_and_compare(raw: bytes, live: Path, seed: int) -> int:
    """Write ``raw`` in random pieces; after each, read on from the last checkpoint and
    compare with a full read. Returns how many reads started from a checkpoint."""
    rng = random.Random(seed)
    live.write_bytes(b"")
    cp: resume.Checkpoint | None = None
    kept: list = []  # the events before the checkpoint, as the hook keeps them
    resumed = 0
    pos = 0
    whole = False
    while pos < len(raw):
        pos = min(len(raw), pos + rng.randint(1, max(2, len(raw) // 12)))
        live.write_bytes(raw[:pos])
        try:
            full = next(iter(get_reader("claude-code").read(live, ReadOptions())))
        except Exception as exc:  # nothing readable yet: reading on says so too
            with pytest.raises(type(exc)):
                resume.read_on("claude-code", live, cp)
            continue
        if whole:
            assert resume.full_read("claude-code", live).events == full.events
            continue
        resumed += cp is not None
        try:
            got = resume.read_on("claude-code", live, cp)
        except resume.ReadAgain as again:  # read whole: from now on, or this time
            whole = again.always
            assert resume.full_read("claude-code", live).events == full.events
            continue
        start = cp.carry.index if cp is not None else 0
        assert got.run.events[:1] == [] or got.run.events[0].index == start
        events = kept + got.run.events
        assert events == full.events, (live.name, pos)
        if got.checkpoint is not None and got.checkpoint is not cp:
            kept = events[: got.checkpoint.carry.index]
            cp = pickle.loads(pickle.dumps(got.checkpoint))  # as another process would
    return resumed


@pytest.mark.parametrize("path", CLAUDE, ids=[p.name for p in CLAUDE])
def test_reading_on_in_random_pieces_equals_a_full_read(path: Path, tmp_path: Path) -> None:
    raw = path.read_bytes()
    resumed = _grow_and_compare(raw, tmp_path / path.name, seed=len(raw))
    # 12 pieces or so: all but the first read on from a checkpoint, in a session with tool
    # calls (a tiny transcript may not settle between two pieces)
    assert resumed > 0 or len(raw.splitlines()) < 40


def test_a_long_session_read_on_line_by_line_resumes_every_time(tmp_path: Path) -> None:
    t = hookgen.write_session(tmp_path / "s.jsonl", hookgen.session_calls(30, 4))
    raw = t.read_bytes()
    live = tmp_path / "live.jsonl"
    live.write_bytes(b"")
    cp = None
    for line in raw.splitlines(keepends=True):
        with live.open("ab") as f:
            f.write(line)
        got = resume.read_on("claude-code", live, cp)
        if got.checkpoint is not None:
            cp = got.checkpoint
    # every read after the first tool result starts at the last settled line: a few
    # events, however long the session
    assert cp is not None and cp.carry.index == 1 + 30 + 4  # the prompt and every call
    assert max(len(raw.splitlines()) - cp.lineno, 0) <= 1


def test_a_gzipped_or_unknown_format_is_not_read_on(tmp_path: Path) -> None:
    gz = tmp_path / "s.jsonl.gz"
    gz.write_bytes(b"\x1f\x8b\x08\x00")
    assert not resume.can_resume("claude-code", gz)
    assert not resume.can_resume("codex", tmp_path / "x.jsonl")
