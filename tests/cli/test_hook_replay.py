"""Backtest = live: `efc-tui hook replay` (a finished transcript fed through the hook call by
call, as the harness would have made the calls) decides every event once, with the decision
`score --adapter` gives on the whole run, on every Claude Code and Codex transcript we have;
and a Monitor fed a real run in pieces decides as the offline adapter does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import efc_tui
from efc_tui.adapter.integrations.hook import HookOptions, replay
from efc_tui.adapter.live import Monitor
from efc_tui.errors import EfcError
from efc_tui.parsers import detect, load
from tests import hookgen
from tests.conftest import FIXTURES, REAL, SHARED


def _transcripts() -> list[tuple[str, Path]]:
    found = []
    roots = [FIXTURES, REAL, SHARED / "real-runs"]
    for root in roots:
        if not root.is_dir():
            continue
        for p in sorted(root.rglob("*")):
            if not p.is_file() or p.suffix not in (".jsonl", ".txt") or "hooks" in p.parts:
                continue
            try:
                name = detect(p).name
            except EfcError:
                continue
            if name in ("claude-code", "codex"):
                found.append((name, p))
    return found


TRANSCRIPTS = _transcripts()


def test_there_are_transcripts_of_both_harnesses() -> None:
    names = {n for n, _ in TRANSCRIPTS}
    assert names == {"claude-code", "codex"}
    assert len(TRANSCRIPTS) >= 10  # tests/fixtures alone: 8 Claude Code, 2 Codex


@pytest.mark.parametrize(("harness", "path"), TRANSCRIPTS, ids=[p.name for _, p in TRANSCRIPTS])
def test_replay_decides_every_event_as_score_adapter(
    harness: str, path: Path, tmp_path: Path
) -> None:
    calls = replay(path, HookOptions(harness=harness), tmp_path)
    assert all("error" not in c.answer.audit for c in calls)
    live = [v for c in calls for v in c.answer.verdicts]
    offline = efc_tui.score(next(iter(load(path)))).decisions
    assert [v.index for v in live] == list(range(len(offline)))
    for v, d in zip(live, offline, strict=True):
        assert v.decision.as_dict() == d.as_dict(), (path.name, v.index)


def test_replay_of_a_loop_stops_where_score_adapter_stops(tmp_path: Path) -> None:
    t = hookgen.write_session(tmp_path / "loop.jsonl", hookgen.session_calls(4, 5))
    calls = replay(t, HookOptions(harness="claude-code", mode="stop"), tmp_path / "w")
    first = next(v for c in calls for v in c.answer.verdicts if v.act)
    assert first.index == efc_tui.score(next(iter(load(t)))).summary.stop_event == 7
    # decided at the PreToolUse of the next call (the last event waits for its successor):
    # that call is where the session ends
    stopping = next(c for c in calls if c.answer.audit.get("answer") == "stop")
    assert stopping.event == "PreToolUse" and stopping.line == 2 + 2 * 7


def test_the_replay_command_prints_each_call(tmp_path: Path) -> None:
    t = hookgen.write_session(tmp_path / "loop.jsonl", hookgen.session_calls(1, 4))
    r = subprocess.run(
        [sys.executable, "-m", "efc_tui", "hook", "replay", str(t), "--mode", "veto", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert [row["hook_event"] for row in rows][-1] == "Stop"
    denied = [row for row in rows if row["answer"] == "deny"]
    assert denied and denied[0]["hook_event"] == "PreToolUse"
    decided = [d["index"] for row in rows for d in row["decisions"]]
    assert decided == list(range(6))


@pytest.mark.skipif(not (SHARED / "real-runs").is_dir(), reason="../shared/real-runs absent")
def test_a_monitor_fed_real_runs_in_pieces_decides_as_the_offline_adapter() -> None:
    """Every real run, fed to a Monitor in three pieces: the same decisions, event for
    event, as the offline adapter on the whole run (the adapter is causal)."""
    runs = list(efc_tui.load_all(SHARED / "real-runs"))
    assert len(runs) >= 200
    for run in runs:
        offline = efc_tui.score(run).decisions
        events = list(run.events)
        mon = Monitor(run=type(run)(run_id=run.run_id, task_demand=run.task_demand))
        T = len(events)
        live = []
        for lo, hi in ((0, T // 3), (T // 3, 2 * T // 3), (2 * T // 3, T)):
            live += mon.feed(events[lo:hi])
        assert [v.decision.as_dict() for v in live] == [d.as_dict() for d in offline], run.run_id
