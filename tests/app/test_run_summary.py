"""Issue 30's items that the app's data answers without a screen: what a run cost (item 2)
and no phantom rescore on a run read once (item 10). Real fixtures from tests/fixtures."""

from __future__ import annotations

from typing import Any

import msgspec

from efc_tui import api
from efc_tui.app.replay_data import ReplayData
from efc_tui.app.widgets.summary import RunSummary
from efc_tui.scoring import load_estimator
from tests.conftest import FIXTURES

FIX = FIXTURES
EST = load_estimator(FIX / "app" / "estimator.json")
HARBOR = FIX / "more" / "harbor_trial" / "hello-world__Ab3xY" / "agent" / "trajectory.json"
CLAUDE = FIX / "agents" / "claude_interrupted.jsonl"


def test_a_run_read_once_never_shows_a_rescore() -> None:
    """Item 10: the app scores a run's first rows while it reads the rest, then the whole;
    that second pass is not a rescore of what a person saw change (no ``~`` marks, no
    "rescored … was" line), whatever the first pass covered."""
    run = api.load(CLAUDE)
    data = ReplayData(run)
    first = msgspec.structs.replace(run, events=run.events[:5])
    data.set_scored(api.score(first, EST))
    data.set_scored(api.score(run, EST))
    assert data.changed == set()
    assert data.prev_figures is None
    summary = RunSummary(data).render_summary().plain
    assert "rescored" not in summary


def test_a_followed_log_still_marks_what_its_growth_changed() -> None:
    run = api.load(CLAUDE)
    data = ReplayData(run)
    data.track_changes = True
    old = api.score(msgspec.structs.replace(run, events=run.events[:5]), EST)
    new = api.score(run, EST)
    data.set_scored(old)
    data.set_scored(new)
    moved = {i for i in range(5) if abs(old.ledger.nr[i] - new.ledger.nr[i]) > 1e-9}
    assert moved and data.changed == moved
    assert data.prev_figures is not None


def test_run_cost_in_tokens_dollars_and_units() -> None:
    """Item 2: the summary's cost line: tokens in / cached / out, the dollars the log
    records, C_raw with its unit, and the waste split."""
    from efc_tui.app.replay_data import TokenTotals

    run = api.load(HARBOR)
    data = ReplayData(run)
    data.set_scored(api.score(run, EST))
    tok = data.tokens
    assert tok == TokenTotals.of(run.events)
    assert tok is not None
    assert (tok.tokens_in, tok.tokens_out) == (
        sum(e.tokens_in for e in run.events),
        sum(e.tokens_out for e in run.events),
    )
    assert tok.cache_read == 100 and tok.usd is not None and abs(tok.usd - 0.022) < 1e-9
    lines = RunSummary(data).render_summary().plain.splitlines()
    assert lines[1].startswith("cost 1,170 tokens (in 1,100, 9% cached, out 70)")
    assert "$0.022 logged" in lines[1]
    assert "units" in lines[1] and "waste" in lines[1] and "after stop" in lines[1]


def test_delta_c_parts_add_up() -> None:
    run = api.load(HARBOR)
    led = api.score(run, EST).ledger
    for i in range(len(run.events)):
        parts = led.cost.parts(i)
        assert abs(sum(parts.values()) - float(led.cost.delta[i])) < 1e-9
    assert abs(sum(led.cost.parts().values()) - led.figures.c_raw) < 1e-9


def test_run_titles_tell_runs_apart() -> None:
    """Item 7: a Claude Code session by its first prompt and start time (UTC), a Harbor
    trial by its task first, then its random suffix."""
    from efc_tui.report.display import run_title

    claude = api.load(CLAUDE)
    assert run_title(claude) == "The tests in calc.py fail, please fix them. · 2025-09-03 10:00"
    assert run_title(api.load(HARBOR)) == "hello-world (Ab3xY)"
    swe = api.load(FIX / "agents" / "swe_agent_1x.traj")
    assert run_title(swe) == "swe_agent_1x"  # its task shows beside it


def test_a_corpus_reads_in_one_line() -> None:
    """Item 8: outcomes, how the runs ended and the dollars the logs record, in one line,
    under the score table and in the picker."""
    from typer.testing import CliRunner

    from efc_tui.cli import app
    from efc_tui.report.display import corpus_line

    rows: list[dict[str, Any]] = [
        {"success": True, "exit_status": "submitted", "cost_usd": 0.5},
        {"success": False, "exit_status": "exit_cost", "cost_usd": 1.25},
        {"success": False, "exit_status": "exit_cost", "cost_usd": None},
        {"success": None, "exit_status": None, "cost_usd": None},
    ]
    assert corpus_line(rows) == (
        "4 runs · 1 succeeded, 2 failed, 1 unknown · ended: 2 exit_cost, 1 submitted"
        " · $1.75 logged (2 runs)"
    )
    out = (
        CliRunner()
        .invoke(
            app,
            ["score", str(HARBOR.parent.parent), str(FIX / "agents" / "swe_agent_1x.traj"), "-q"],
            env={"COLUMNS": "120"},
        )
        .stdout
    )
    assert out.rstrip().splitlines()[-1] == (
        "2 runs · 1 succeeded, 0 failed, 1 unknown · ended: 1 submitted (exit_cost) · $0.07 logged"
    )
