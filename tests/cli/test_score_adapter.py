"""``efc-tui score --adapter / --max-waste / --adapter-sweep / --window / --epsilon /
--repeat`` and
the decisions in ``score --json`` and ``export`` (SPEC §1, §6)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from efc_tui.cli import app
from tests.conftest import FIXTURES, REPO
from tests.helpers import write_trace

runner = CliRunner()
ADAPTER = FIXTURES / "adapter" / "traces"
EST = str(FIXTURES / "adapter" / "estimator.json")
LOOP = ADAPTER / "repair_loop.jsonl"
STEADY = ADAPTER / "steady.jsonl"


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def test_adapter_table_and_corpus_totals() -> None:
    r = invoke("score", ADAPTER, "--adapter", "--estimator", EST)
    assert r.exit_code == 0, r.output
    for run_id in (
        "repair-loop",
        "steady",
        "late-regression",
        "rollouts",
        "productive",
        "pytest_six_times",
    ):
        assert run_id in r.stdout
    assert (
        "EFC-Adapter by run" in r.stdout and "Corpus totals at W=6, ε=0.001, repeat=3" in r.stdout
    )
    assert "max_steps=20" in r.stdout and "after stop" in r.stdout
    # the unlabelled step-limit run: its risk is unknown, in its row and in the totals
    [row] = [line for line in r.stdout.splitlines() if "pytest_six_times" in line]
    assert "unknown" in row and " no " not in row
    assert "0 (+1 unknown)" in r.stdout


def test_adapter_json_document() -> None:
    r = invoke("score", ADAPTER, "--adapter", "--json", "--estimator", EST)
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["schema"] == "efc-adapter/1"
    runs = {x["run_id"]: x for x in doc["runs"]}
    loop = runs["repair-loop"]
    assert loop["stop_event"] == 6 and loop["cost_saved"] > 0 and loop["success_at_risk"] is False
    assert (loop["stop_by"], loop["repeat"], loop["repeat_stop_event"]) == ("repeat", 3, 6)
    six = runs["pytest_six_times"]
    assert six["stop_event"] == 6 and six["success"] is None and six["success_at_risk"] is None
    assert six["at_risk_reason"].startswith("no success label: unknown")
    assert set(loop["waste"]) == {
        "repeated_actions",
        "repeated_errors",
        "redundant_observations",
        "after_stop",
        "any",
    }
    assert runs["steady"]["stop_event"] is None
    assert runs["late-regression"]["rollback_to"] == 3
    total = doc["corpus"]["total"]
    assert total["runs"] == 6 and doc["corpus"]["repeat"] == 3
    assert (total["unlabelled"], total["unlabelled_stopped"], total["successes"]) == (1, 1, 3)
    assert abs(total["cost_saved"] - sum(x["cost_saved"] for x in doc["runs"])) < 1e-9


def test_max_waste_fails_naming_the_run() -> None:
    r = invoke("score", LOOP, STEADY, "--max-waste", "0.5", "--estimator", EST)
    assert r.exit_code == 1
    assert "repair-loop" in r.stderr and "after the adapter's stop at event 6" in r.stderr
    assert "steady" not in r.stderr
    ok = invoke("score", STEADY, "--max-waste", "0.5", "--estimator", EST)
    assert ok.exit_code == 0, ok.output
    # a looser limit, or a window that never fills, passes
    assert invoke("score", LOOP, "--max-waste", "0.99", "--estimator", EST).exit_code == 0
    assert (
        invoke(
            "score",
            LOOP,
            "--max-waste",
            "0",
            "--window",
            "100",
            "--repeat",
            "0",
            "--estimator",
            EST,
        ).exit_code
        == 0
    )


def test_window_epsilon_and_repeat_override() -> None:
    r = invoke("score", LOOP, "--adapter", "--json", "--epsilon", "0", "--estimator", EST)
    [run] = json.loads(r.stdout)["runs"]
    assert run["stop_event"] == 6 and run["stop_by"] == "repeat" and run["epsilon"] == 0
    r = invoke(
        "score", LOOP, "--adapter", "--json", "--epsilon", "0", "--repeat", "0", "--estimator", EST
    )
    [run] = json.loads(r.stdout)["runs"]
    assert run["stop_event"] is None and run["repeat"] == 0
    r = invoke("score", LOOP, "--adapter", "--json", "--repeat", "0", "--estimator", EST)
    [run] = json.loads(r.stdout)["runs"]
    assert run["stop_event"] == 8 and run["stop_by"] == "window"  # the paper's rule alone
    r = invoke(
        "score", LOOP, "--adapter", "--json", "--repeat", "5", "--epsilon", "0", "--estimator", EST
    )
    [run] = json.loads(r.stdout)["runs"]
    assert run["stop_event"] == 10 and run["repeat"] == 5
    r = invoke(
        "score",
        LOOP,
        "--adapter",
        "--json",
        "--window",
        "3",
        "--epsilon",
        "0.5",
        "--estimator",
        EST,
    )
    [run] = json.loads(r.stdout)["runs"]
    assert (run["window"], run["epsilon"]) == (3, 0.5) and run["stop_event"] == 2
    assert invoke("score", LOOP, "--window", "0").exit_code == 2
    assert invoke("score", LOOP, "--epsilon", "-1").exit_code == 2
    assert invoke("score", LOOP, "--repeat", "1").exit_code == 2
    assert invoke("score", LOOP, "--repeat", "-1").exit_code == 2
    assert invoke("score", LOOP, "--adapter", "--csv").exit_code == 2


def test_adapter_sweep_table_and_json() -> None:
    r = invoke("score", ADAPTER, "--adapter-sweep", "--estimator", EST)
    assert r.exit_code == 0, r.output
    assert "Cost saved vs successes at risk over ε" in r.stdout and "0.001 *" in r.stdout
    rj = invoke("score", ADAPTER, "--adapter-sweep", "--json", "--estimator", EST)
    doc = json.loads(rj.stdout)
    assert doc["schema"] == "efc-adapter-sweep/1" and doc["window"] == 6
    eps = [p["epsilon"] for p in doc["points"]]
    assert eps == sorted(eps) and 0.001 in eps and 0.0 in eps
    saved = [p["cost_saved"] for p in doc["points"]]
    risk = [p["successes_at_risk"] for p in doc["points"]]
    assert saved == sorted(saved) and risk == sorted(risk)
    # at ε = 0 only the repetition rule stops: the two identical-failure loops
    assert doc["points"][0]["stopped"] == 2 and saved[0] > 0
    both = json.loads(
        invoke(
            "score", ADAPTER, "--adapter", "--adapter-sweep", "--json", "--estimator", EST
        ).stdout
    )
    assert both["schema"] == "efc-adapter/1" and both["sweep"]["points"] == doc["points"]


def test_score_json_and_export_carry_decisions(tmp_path: Path) -> None:
    r = invoke("score", LOOP, "--json", "--estimator", EST)
    [led] = json.loads(r.stdout)["runs"]
    assert led["adapter"]["stop_event"] == 6
    assert [e["adapter"]["control"] for e in led["events"]][6] == "stop"
    assert [e["adapter"]["repeat_count"] for e in led["events"]][6] == 3
    out = tmp_path / "loop.ledger.json"
    r = invoke("export", LOOP, "-o", out, "--estimator", EST, "-q")
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    assert doc["adapter"]["stop_event"] == 6
    assert all(e["adapter"]["memory_reason"] for e in doc["events"])


def test_hostile_run_id_is_shown_literally(tmp_path: Path) -> None:
    bad = "[bold red]x[/bold red][@click=app.quit]"
    p = write_trace(
        tmp_path / "h.jsonl",
        {"run_id": bad},
        [
            {
                "t": 0,
                "action": {"kind": "tool", "tool": "bash", "input": "ls"},
                "observation": {"text": "a"},
                "usage": {"tokens_in": 10, "tokens_out": 1, "wall_s": 0.1},
            },
        ],
    )
    r = invoke("score", p, "--adapter", "--estimator", EST)
    assert r.exit_code == 0, r.output
    # shown as text (its head and tail when the column is short), never applied as style
    # or action
    assert "[bold red]x[" in r.stdout and "k=app.quit]" in r.stdout


def test_calibrate_with_real_runs_chooses_both_stop_rules(tmp_path: Path) -> None:
    from efc_tui.synthetic import CorpusSpec, write_corpus

    corpus = tmp_path / "corpus"
    write_corpus(CorpusSpec(runs=2, budgets=(1.0,)), corpus)
    out = tmp_path / "est.json"
    r = invoke("calibrate", corpus, "-o", out, "--quiet", "--adapter-real", ADAPTER)
    assert r.exit_code == 0, r.output
    block = json.loads(out.read_text())["adapter"]
    cal = block["calibration"]
    assert cal["repeat"] == 3 and set(cal["corpora"]) == {"calibration", "real"}
    assert cal["corpora"]["real"]["runs"] == 5  # the unlabelled step-limit run takes no part
    plain = tmp_path / "plain.json"
    assert invoke("calibrate", corpus, "-o", plain, "--quiet").exit_code == 0
    assert "corpora" not in json.loads(plain.read_text())["adapter"].get("calibration", {})


def test_score_adapter_uses_the_w_and_epsilon_of_the_estimator_that_matches_each_run() -> None:
    """Without --estimator a real log is decided with the real estimator's W and ε (chosen on
    real runs), a simulated trace with the synthetic one's; --window / --epsilon override."""
    import json as _json

    from efc_tui.scoring.estimator import load_estimator

    real = load_estimator(REPO / "efc_tui" / "data" / "estimator_real.json")
    codex = REPO / "tests" / "fixtures" / "agents" / "codex_session.jsonl"
    r = CliRunner().invoke(app, ["score", str(codex), "--adapter", "--json", "-q"])
    assert r.exit_code == 0, r.output
    run = _json.loads(r.stdout)["runs"][0]
    assert (run["window"], run["epsilon"]) == (real.window, real.epsilon)
    r = CliRunner().invoke(
        app, ["score", str(codex), "--adapter", "--json", "-q", "--window", "4", "--epsilon", "0.5"]
    )
    run = _json.loads(r.stdout)["runs"][0]
    assert (run["window"], run["epsilon"]) == (4, 0.5)
