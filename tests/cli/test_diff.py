"""`efc-tui diff A B`: two runs aligned on their actions (issue 15 item 1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from efc_tui import api
from efc_tui.cli import app
from efc_tui.report.compare import action_key, align, compare
from tests.conftest import FIXTURES, SAMPLES, SHARED

runner = CliRunner()
REAL_RUNS = SHARED / "real-runs"
#: one SWE-bench Java task solved by two models with the same harness (labels.csv)
TASK = "multi_swe_bench_java_sweagent/evaluation/java/verified/{}/trajs/fasterxml__jackson-core-1133.traj"
A_REAL = REAL_RUNS / TASK.format("20240825_SWE-agent_deepseek-chat-v2")
B_REAL = REAL_RUNS / TASK.format("20240825_SWE-agent_deepseek-coder-v2")


def invoke(*args: object, width: int = 160):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": str(width)})


def diff_json(a: Path, b: Path, *extra: str) -> dict[str, Any]:
    r = invoke("diff", a, b, "--json", *extra)
    assert r.exit_code == 0, r.output
    doc: dict[str, Any] = json.loads(r.stdout)
    assert doc["schema"] == "efc-diff/1"
    return doc


@pytest.fixture
def real_pair() -> tuple[Path, Path]:
    if not (A_REAL.is_file() and B_REAL.is_file()):
        pytest.skip("../shared/real-runs is not present")
    return A_REAL, B_REAL


def test_a_run_against_itself_does_not_diverge() -> None:
    doc = diff_json(SAMPLES / "repair_loop.jsonl", SAMPLES / "repair_loop.jsonl")
    n = doc["a"]["events"]
    assert doc["first_divergence"] is None
    assert doc["counts"] == {"same": n, "similar": 0, "different": 0, "a only": 0, "b only": 0}
    assert all(s["a"]["event"] == s["b"]["event"] == s["step"] for s in doc["steps"])
    assert all(s["c_raw_gap"] == 0 and s["nrs_efc_gap"] == 0 for s in doc["steps"])
    assert not any(s["feedback_differs"] for s in doc["steps"])
    assert doc["summary"][0] == "both runs failed"  # the outcomes first
    assert doc["summary"][1] == f"the runs take the same {n} actions: no divergence"


def test_a_real_run_against_itself(real_pair: tuple[Path, Path]) -> None:
    a, _ = real_pair
    doc = diff_json(a, a)
    assert doc["first_divergence"] is None and doc["counts"]["same"] == doc["a"]["events"] > 10


def test_two_real_runs_of_one_task(real_pair: tuple[Path, Path]) -> None:
    a, b = real_pair
    doc = diff_json(a, b)
    ra, rb = next(iter(api.load_all(a))), next(iter(api.load_all(b)))
    sa, sb = api.score(ra), api.score(rb)
    steps = doc["steps"]
    # every event of each run is in the alignment once, in order
    assert [s["a"]["event"] for s in steps if s["a"]] == list(range(len(ra.events)))
    assert [s["b"]["event"] for s in steps if s["b"]] == list(range(len(rb.events)))
    # "same" means the same action, whitespace aside; the first step that is not is the divergence
    for s in steps:
        if s["match"] == "same":
            assert action_key(ra.events[s["a"]["event"]].action_text) == action_key(
                rb.events[s["b"]["event"]].action_text
            )
    first = next(s["step"] for s in steps if s["match"] != "same")
    assert doc["first_divergence"] == first and 0 < first < len(steps)
    # the gaps end at the run totals: B - A of C_raw and NRS-EFC
    assert steps[-1]["c_raw_gap"] == pytest.approx(
        sb.ledger.figures.c_raw - sa.ledger.figures.c_raw
    )
    assert steps[-1]["nrs_efc_gap"] == pytest.approx(
        sb.ledger.figures.nrs_efc - sa.ledger.figures.nrs_efc
    )
    assert doc["a"]["stop_event"] == sa.summary.stop_event
    assert doc["a"]["cost_usd"] == ra.cost_usd and doc["b"]["cost_usd"] == rb.cost_usd
    pct = round(
        abs(sb.ledger.figures.c_raw - sa.ledger.figures.c_raw) / sa.ledger.figures.c_raw * 100
    )
    assert any(f"B spent {pct}% less raw cost than A" in line for line in doc["summary"])
    # the table says the same, and no number is cut at 80 columns
    r = invoke("diff", a, b, width=80)
    assert r.exit_code == 0
    assert f"the runs diverge at step {first}" in r.stdout


def test_feedback_one_run_got_and_the_first_pass() -> None:
    a, b = SAMPLES / "repair_loop.jsonl", SAMPLES / "clean_pass.jsonl"
    doc = diff_json(a, b)
    rb = next(iter(api.load_all(b)))
    first_pass = next(e.index for e in rb.events if e.status.value == "passed")
    assert doc["b"]["first_pass"] == first_pass and doc["a"]["first_pass"] is None
    assert f"only B reached a passing check (event {first_pass})" in doc["summary"]
    differs = [s for s in doc["steps"] if s["feedback_differs"]]
    assert differs and all(
        (s["a"] or {}).get("status", "none") != (s["b"] or {}).get("status", "none")
        for s in differs
    )
    step = next(s for s in doc["steps"] if s["b"] and s["b"]["event"] == first_pass)
    assert step["feedback_differs"] and step["b"]["status"] == "passed"


def test_align_pairs_matching_commands_and_keeps_the_rest_one_sided() -> None:
    ra = api.load(SAMPLES / "repair_loop.jsonl")
    rb = api.load(SAMPLES / "clean_pass.jsonl")
    steps = align(ra.events, rb.events)
    assert len([s for s in steps if s[1] is not None]) == len(ra.events)
    assert len([s for s in steps if s[2] is not None]) == len(rb.events)
    assert all(m in ("same", "similar") for m, i, j in steps[:4])  # cat, pytest, edit, pytest
    assert compare(api.score(ra), api.score(ra)).first_divergence is None


def test_a_file_of_several_runs_needs_a_choice() -> None:
    two = FIXTURES / "app" / "two_runs.jsonl"
    r = invoke("diff", two, SAMPLES / "clean_pass.jsonl")
    assert r.exit_code == 2 and "holds 2 runs; choose one with --run-a ID" in r.output
    doc = diff_json(two, two, "--run-a", "pair-0", "--run-b", "pair-1")
    assert doc["a"]["run_id"] == "pair-0" and doc["b"]["run_id"] == "pair-1"
    r = invoke("diff", two, two, "--run-a", "nope")
    assert r.exit_code == 2 and "no run 'nope'" in r.output


def test_diff_warns_on_different_tasks_and_names_the_outcome_before_the_saving() -> None:
    """Issue 30, items 7 and 8: two runs of different tasks are flagged; a cheaper B that
    failed is not read as a saving."""
    ok, failed = SAMPLES / "memory_writes.jsonl", SAMPLES / "noisy_high_budget.jsonl"
    doc = diff_json(failed, ok)
    assert doc["a"]["title"] and doc["a"]["task_id"] != doc["b"]["task_id"]
    assert doc["warnings"][0].startswith("warning: A and B are different tasks")
    assert doc["summary"][0] == doc["warnings"][0]
    assert doc["summary"][1] == "A failed, B succeeded"
    # the same task: no warning; B failed, so its lower cost says so
    doc = diff_json(SAMPLES / "clean_pass.jsonl", SAMPLES / "repair_loop.jsonl")
    assert doc["warnings"] == [] and doc["summary"][0] == "A succeeded, B failed"
    spent = next(s for s in doc["summary"] if s.startswith("B spent"))
    assert "less" not in spent or spent.endswith("but B failed and A succeeded")
    # a B that spent less and failed: the saving is not read as one
    import dataclasses

    from efc_tui import api
    from efc_tui.report.compare import compare

    runs = [api.score(api.load(SAMPLES / n)) for n in ("repair_loop.jsonl", "clean_pass.jsonl")]
    d = compare(*runs)
    d.a = dataclasses.replace(d.a, success=True)
    d.b = dataclasses.replace(d.b, success=False)
    spent = next(s for s in d.summary() if s.startswith("B spent"))
    assert spent.startswith("B spent") and "less" in spent
    assert spent.endswith("but B failed and A succeeded")
