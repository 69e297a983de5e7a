"""The paper's controlled experiments on the simulator (`efc-tui experiment`): matched-budget
pairs, module ablations and the η factor scan, on small corpora."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from efc_tui.cli import app
from efc_tui.synthetic.experiments import ablation, eta_scan, matched_budget, mcnemar_exact

runner = CliRunner()


def test_mcnemar_exact_on_hand_computed_values() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 0) == pytest.approx(2 / 32)  # two-sided: 2 · (1/2)^5
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(1, 4) == pytest.approx(2 * (1 + 5) / 32)


def test_matched_budget_pairs_spend_the_same_and_better_feedback_wins() -> None:
    r = matched_budget(runs=6, seed=3)
    low, high = r["conditions"]
    assert r["pairs"] == 18 and low["runs"] == high["runs"] == 18
    assert r["raw_cost_gap_mean_pct"] < 1.0  # matched raw cost
    assert high["success"] > low["success"] + 0.3
    for k in ("I", "R", "M"):
        assert high["factors"][k] > low["factors"][k], k
    assert high["eta"] > 2 * low["eta"]
    assert (
        r["discordant"]["high_only"] > r["discordant"]["low_only"] and r["p_value_mcnemar"] < 0.05
    )


def test_removing_routing_costs_the_most_efficiency() -> None:
    r = ablation(runs=6, seed=3, budgets=(1.0,))
    by = {v["name"]: v for v in r["variants"]}
    assert by["full H5"]["d_eta"] == 0.0
    for name in ("- routing", "- verification", "- memory", "+ noise"):
        assert by[name]["eta"] < by["full H5"]["eta"], name
    assert min(by.values(), key=lambda v: v["eta"])["name"] == "- routing"


def test_eta_scan_signs_follow_the_paper() -> None:
    r = eta_scan(runs=8, seed=3)
    effect = {f["factor"]: f["effect_eta"] for f in r["factors"]}
    assert effect["router quality"] > 0 and effect["observation noise"] < 0
    assert effect["tool entropy"] < 0


def test_experiment_cli(tmp_path: Path) -> None:
    out = tmp_path / "mb.json"
    res = runner.invoke(app, ["experiment", "matched-budget", "-n", "3", "--json", "-o", str(out)])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["experiment"] == "matched-budget" and json.loads(out.read_text()) == doc
    res = runner.invoke(app, ["experiment", "eta-scan", "-n", "2"])
    assert res.exit_code == 0 and "router quality" in res.stdout
    res = runner.invoke(app, ["experiment", "chess"])
    assert res.exit_code == 2 and "unknown experiment 'chess'" in res.output
