"""Issue 30, item 3: CI gates on what users gate on (dollars, tokens, steps, limits hit), messages
that name each run's outcome, and a warning where a threshold on NRS-EFC is not shown to
predict success (real agent logs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from efc_tui.cli import app
from tests.conftest import FIXTURES

FIX = FIXTURES
#: ended submitted (exit_cost), $0.05, 5 events, 9,300 tokens (9,000 in, 300 out)
SWE = str(FIX / "agents" / "swe_agent_1x.traj")
#: succeeded, $0.022, 6 events, 1,170 tokens (1,100 in with 100 cached reads, 70 out)
HARBOR = str(FIX / "more" / "harbor_trial")
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
        (["--max-tokens", "1169"], {"swe_agent_1x", "hello-world__Ab3xY"}),
        (["--max-tokens", "1170"], {"swe_agent_1x"}),
        (["--max-tokens", "9300"], set()),
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


def test_the_rows_carry_the_tokens_the_app_shows() -> None:
    """`--jsonl` and `--csv` rows: the run's tokens in (cached reads included), cached reads
    and out, the totals of the app's cost line; `--max-tokens` names the count it gates."""
    import csv
    import io
    import json

    from efc_tui.model import TokenTotals
    from efc_tui.parsers import load

    r = runner.invoke(app, ["score", SWE, HARBOR, "--jsonl", "-q"])
    rows = {row["run_id"]: row for row in map(json.loads, r.stdout.splitlines())}
    for path in (SWE, str(Path(HARBOR) / "hello-world__Ab3xY" / "agent" / "trajectory.json")):
        (run,) = load(path)
        tok = TokenTotals.of(run.events)
        row = rows[run.run_id]
        assert (row["tokens_in"], row["tokens_cached"], row["tokens_out"]) == (
            tok.tokens_in,
            tok.cache_read,
            tok.tokens_out,
        )
    assert rows["hello-world__Ab3xY"]["tokens_cached"] == 100
    r = runner.invoke(app, ["score", SWE, "--csv", "-q"])
    (row,) = csv.DictReader(io.StringIO(r.stdout))
    assert (row["tokens_in"], row["tokens_cached"], row["tokens_out"]) == ("9000", "0", "300")
    code, err = _score(SWE, "--max-tokens", "9000")
    assert code == 1 and "9,300 tokens > max-tokens 9,000" in err
