"""``--follow`` and a log rotated between two polls (issue 32, item 6): a file truncated,
rewritten or replaced, and already longer than the old offset when the app looks again, must
stop the follow with a notice; it must never be read on from the old offset (a false "not
valid JSON", or the next run's events appended to this one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from efc_tui.app.loading import Events, RunLoader
from efc_tui.app.tail import NativeTail
from tests.app.test_pilot import SIZE, make_app, replay
from tests.conftest import FIXTURES, SHARED
from tests.pilot import pilot_test, settle


def _line(obj: dict[str, object], width: int = 160) -> bytes:
    """One JSON line padded to ``width`` bytes: every line of both runs has the same length,
    so a rewritten file has a line boundary at the old offset (the hard case)."""
    s = json.dumps(obj)
    return (s[:-1] + ', "pad": "' + "x" * (width - len(s) - 11) + '"}\n').encode()


def _run(name: str, steps: int) -> bytes:
    head = _line({"type": "run", "schema": "efc-trace/1", "run_id": name, "task_id": "t"})
    return head + b"".join(
        _line(
            {
                "type": "step",
                "t": t,
                "action": {"kind": "tool", "tool": "bash", "input": f"{name}-cmd-{t:03d}"},
                "observation": {"text": f"{name} output {t:03d}"},
                "usage": {"tokens_in": 100},
            }
        )
        for t in range(steps)
    )


def _events(updates: list[object]) -> list[object]:
    return [e for u in updates if isinstance(u, Events) for e in u.events]


def _truncate_and_write(log: Path, data: bytes) -> None:
    """Copy-truncate rotation: the same file (same inode), emptied and rewritten at once."""
    fd = os.open(log, os.O_WRONLY)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, data)
    finally:
        os.close(fd)


def _replace(log: Path, data: bytes) -> None:
    """Rename rotation: a new file takes the path."""
    new = log.with_name(log.name + ".new")
    new.write_bytes(data)
    os.replace(new, log)


@pytest.mark.parametrize("rotate", [_truncate_and_write, _replace], ids=["truncate", "replace"])
def test_a_rotation_faster_than_the_poll_stops_the_follow(tmp_path: Path, rotate: object) -> None:
    log = tmp_path / "live.jsonl"
    log.write_bytes(_run("run-0", 10))
    loader = RunLoader(log, follow=True)
    assert len(_events(list(loader.updates()))) == 10
    assert loader.poll() is None
    rotate(log, _run("run-1", 15))  # type: ignore[operator]  # longer than before at once
    got = loader.poll()
    assert got is not None and not got.events
    assert "replaced or rewritten" in got.warnings[0] and loader.stopped
    assert loader.poll() is None
    # nothing of the new run reached this one
    assert loader.tail is not None and loader.tail.run is not None
    assert all("run-0" in e.action_text for e in loader.tail.run.events)


def test_a_rewrite_with_other_lines_of_the_same_length_is_seen(tmp_path: Path) -> None:
    """The old offset falls on a line boundary of the new file and the new header has the
    same length: only the bytes before the offset tell the files apart."""
    log = tmp_path / "live.jsonl"
    old = _run("run-0", 10)
    log.write_bytes(old)
    tail = NativeTail(log)
    tail.stat_size()
    while not tail.at_end:
        tail.read()
    assert tail.n_events == 10
    new = old[: len(old) // 2] + _run("run-1", 10)[len(old) // 2 :] + _run("run-1", 5)
    _truncate_and_write(log, new)
    batch = tail.read()
    assert batch.rotated and not batch.events and tail.stopped


def test_appends_are_still_followed(tmp_path: Path) -> None:
    """No false alarm: a log appended to, in pieces that cut lines, is read whole."""
    data = _run("run-0", 40)
    log = tmp_path / "live.jsonl"
    log.write_bytes(data[:500])
    loader = RunLoader(log, follow=True)
    seen = len(_events(list(loader.updates())))
    for cut in range(500, len(data), 333):
        with log.open("ab") as f:
            f.write(data[cut : cut + 333])
        got = loader.poll()
        if got is not None:
            assert not got.warnings
            seen += len(got.events)
    assert seen == 40 and not loader.stopped


def test_a_whole_file_follow_sees_a_replaced_file(tmp_path: Path) -> None:
    """The whole-file follow (Claude Code, Codex) compares file identity, not only size."""
    logs = [FIXTURES / "agents" / "claude_interrupted.jsonl"]
    log = tmp_path / "session.jsonl"
    log.write_bytes(logs[0].read_bytes())
    loader = RunLoader(log, follow=True)
    assert not loader.progressive
    list(loader.updates())
    assert loader.poll() is None
    _replace(log, logs[0].read_bytes() + b"\n")
    got = loader.poll()
    assert got is not None and "replaced or rewritten" in got.warnings[0] and loader.stopped


def test_the_shared_reproducer(tmp_path: Path) -> None:
    """../shared/repro/rotate_mix.py, as the issue ran it."""
    script = SHARED / "repro" / "rotate_mix.py"
    if not script.is_file():
        pytest.skip("../shared/repro is not here")
    log = tmp_path / "live.jsonl"
    subprocess.run([sys.executable, str(script), str(log), "phase0"], check=True)
    loader = RunLoader(log, follow=True)
    assert len(_events(list(loader.updates()))) == 10
    subprocess.run([sys.executable, str(script), str(log), "phase1"], check=True)
    got = loader.poll()
    assert got is not None and not got.events and loader.stopped
    assert loader.tail is not None and loader.tail.run is not None
    assert len(loader.tail.run.events) == 10
    assert all(e.tokens_in == 100 for e in loader.tail.run.events)  # phase0's, not phase1's


@pilot_test
async def test_the_app_stops_following_a_rotated_log(tmp_path: Path) -> None:
    log = tmp_path / "live.jsonl"
    log.write_bytes(_run("run-0", 10))
    app = make_app(log, follow=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = replay(app)
        assert s.data.n_rows == 10
        _truncate_and_write(log, _run("run-1", 15))
        s.poll_follow()
        await settle(pilot)
        assert s.data.n_rows == 10
        assert all("run-0" in e.action_text for e in s.data.events)
        assert any("replaced or rewritten" in w for w in s.data.run.warnings)
