"""Issue 30, item 3: CI gates on what users gate on (dollars, steps, limits hit), messages
that name each run's outcome, and a warning where a threshold on NRS-EFC is not shown to
predict success (real agent logs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from efc_tui.cli import app

FIX = Path(__file__).resolve().parent / "fixtures"
SWE = str(FIX / "agents" / "swe_agent_1x.traj")  # ended submitted (exit_cost), $0.05, 5 events
HARBOR = str(FIX / "more" / "harbor_trial")  # succeeded, $0.022, 6 events
runner = CliRunner()


def _score(*args: str) -> tuple[int, str]:
    r = runner.invoke(app, ["score", *args], env={"COLUMNS": "200"})
    return r.exit_code, r.stderr if hasattr(r, "stderr") else r.output


@pytest.mark.parametrize(
    ("gate", "flagged"),
    [
        (["--fail-on-limit"], {"swe_agent_1x"}),
        (["--max-steps", "5"], {"hello-world__Ab3xY"}),
        (["--max-usd", "0.03"], {"swe_agent_1x"}),
        (["--max-usd", "1"], set()),
    ],
)
def test_gates_on_dollars_steps_and_limits(gate: list[str], flagged: set[str]) -> None:
    code, err = _score(SWE, HARBOR, *gate)
    missed = {
        line.split(": run ", 1)[1].split(" ", 1)[0]
        for line in err.splitlines()
        if "threshold not met" in line
    }
    assert missed == flagged, err
    assert code == (1 if flagged else 0)


def test_gate_messages_name_the_runs_outcome() -> None:
    code, err = _score(SWE, HARBOR, "--fail-on-limit", "--max-steps", "5")
    assert code == 1
    assert "run swe_agent_1x (outcome unknown, ended submitted (exit_cost)): hit a limit" in err
    assert "run hello-world__Ab3xY (succeeded, ended r=1): 6 events > max-steps 5" in err


def test_min_nrs_on_real_logs_warns_that_it_is_not_shown_predictive() -> None:
    _, err = _score(SWE, "--min-nrs", "0")
    assert "--min-nrs: NRS-EFC is not shown to predict success on real agent logs" in err
    _, quiet = _score(SWE)
    assert "not shown to predict" not in quiet
