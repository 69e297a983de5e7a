"""Calibration (SPEC §3.4, §4, §6, §7): the closed-form θ fit, the split, the fitted task
demand, held-out quality on the default synthetic corpus, and the shipped estimator being
exactly what `make estimator` produces for the recorded seed."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from efc_tui.cli import app
from efc_tui.model import Event, EventKind, Run, TaskDemand
from efc_tui.scoring import load_estimator
from efc_tui.scoring.calibrate import (
    CALIBRATION,
    HELDOUT_SEED,
    HELDOUT_TEMPLATE,
    RunRecord,
    fit_demand,
    fit_theta,
    r_squared,
    split_of,
)
from efc_tui.scoring.demand import d_task_fitted
from tests.conftest import REPO, SAMPLES
from tests.tolerance import ABS_FIT, REL_FIT, ROUNDED, json_diff

SHIPPED = REPO / "efc_tui" / "data" / "estimator.json"
runner = CliRunner()
STALE = (
    "the shipped estimator is stale: run `make estimator` and commit "
    "efc_tui/data/estimator.json (docs/calibration.md)"
)


# -- unit level ---------------------------------------------------------------------------


def test_fit_theta_recovers_a_known_theta() -> None:
    rng = np.random.default_rng(0)
    phi = rng.random((400, 9))
    theta0, theta = -0.3, np.array([0.2, -0.1, 0.5, 0.0, 0.7, 0.3, -0.2, 1.5, -0.4])
    y = np.expm1(theta0 + phi @ theta)
    for method in ("poisson", "lsq"):
        fit = fit_theta(phi, y, method=method)
        assert fit.theta0 == pytest.approx(theta0) and np.allclose(fit.theta, theta), method
        assert fit.r2 == pytest.approx(1.0)
        # the prefix fit drops z (column 2): its weight is exactly 0, the rest refit
        pre = fit_theta(phi, y, drop=[2], method=method)
        assert pre.theta[2] == 0.0 and pre.r2 < 1.0


def test_poisson_theta_keeps_sums_unbiased_where_log1p_least_squares_does_not() -> None:
    """On a 0-or-κ target (credited or not), exp(E[log1p y]) − 1 is a geometric mean: the
    paper's least squares underestimates run sums; Poisson pseudo-ML does not."""
    rng = np.random.default_rng(3)
    phi = rng.random((4000, 9))
    p_credit = 1 / (1 + np.exp(-(4 * phi[:, 2] - 2)))  # z drives credit
    y = np.where(rng.random(4000) < p_credit, 10.0, 0.0)
    lsq = fit_theta(phi, y, method="lsq")
    poi = fit_theta(phi, y, method="poisson")
    est = lambda f: float(np.maximum(0, np.expm1(f.theta0 + phi @ np.asarray(f.theta))).sum())  # noqa: E731
    assert est(poi) == pytest.approx(y.sum(), rel=1e-6)  # the score equation of the intercept
    assert est(lsq) < 0.8 * y.sum()
    with pytest.raises(ValueError):
        fit_theta(phi, y, method="magic")


def test_r_squared() -> None:
    o = np.array([1.0, 2.0, 3.0, 4.0])
    assert r_squared(o, o) == 1.0
    assert r_squared(o, np.full(4, 2.5)) == 0.0
    assert r_squared(o, o[::-1]) == pytest.approx(-3.0)
    assert math.isnan(r_squared(np.ones(3), np.ones(3)))


def _run(task_id: str, template: str, family: str = "fam") -> Run:
    return Run(run_id=task_id, task_id=task_id, task_family=family, extra={"template": template})


def test_split_by_template_family_and_seed() -> None:
    assert split_of(_run("a-1", "needle/wide"), ("needle/wide",), 0.2) == HELDOUT_TEMPLATE
    assert (
        split_of(_run("a-1", "x", family="rule_filter"), ("rule_filter",), 0.2) == HELDOUT_TEMPLATE
    )
    splits = [
        split_of(_run(f"task-{i}", "needle/small"), ("needle/wide",), 0.2) for i in range(2000)
    ]
    share = splits.count(HELDOUT_SEED) / len(splits)
    assert 0.17 < share < 0.23 and set(splits) == {CALIBRATION, HELDOUT_SEED}
    # by task: every run of a task lands in the same split, on every machine
    assert split_of(_run("task-7", "t"), (), 0.2) == split_of(_run("task-7", "t"), (), 0.2)
    assert split_of(_run("task-7", "t"), (), 0.0) == CALIBRATION


def test_fit_demand_recovers_exponents_by_curve_collapse() -> None:
    """Runs whose success follows a saturating curve of EFC / D_true, with D_true a product of
    powers of the demand terms: the collapse fit finds those powers (within its intervals)."""
    from efc_tui.fitting.saturating import SaturatingLaw

    rng = np.random.default_rng(1)
    beta = np.array([1.2, 0.8, 0.5, 1.0, 0.6])
    law = SaturatingLaw(0.05, 0.85, 1.0, 2.0)
    records = []
    for i in range(150):
        comp: dict[str, float | None] = {
            "L": float(rng.integers(3, 15)),
            "H_tool": float(rng.uniform(1, 3)),
            "S_state": float(rng.uniform(1, 2.5)),
            "N_obs": float(rng.uniform(0, 2)),
            "V_ver": float(rng.uniform(0.0, 0.7)),
        }
        c = {k: float(v or 0.0) for k, v in comp.items()}
        terms = np.array([c["L"], c["H_tool"], c["S_state"], 1 + c["N_obs"], 1 - c["V_ver"]])
        d_true = float(np.exp(np.log(terms) @ beta))
        for k in range(12):
            efc = d_true * float(np.exp(rng.normal(0.0, 1.0)))  # effective feedback varies by run
            success = rng.random() > float(law.failure(efc / d_true))
            records.append(
                RunRecord(
                    run_id=f"r{i}-{k}",
                    task_id=f"t{i}",
                    family="f",
                    template="t",
                    harness="H5",
                    budget=1.0,
                    success=bool(success),
                    split=CALIBRATION,
                    phi=np.zeros((1, 9)),
                    phi_prefix=np.zeros((1, 9)),
                    y=np.array([efc]),
                    components=comp,
                )
            )
    fit = fit_demand(records, bootstrap=30, seed=0)
    assert fit is not None and fit.tasks == 150 and fit.runs == 1800
    assert fit.loglik > fit.loglik_hand  # the fitted exponents beat all-ones
    for name, b in zip(("L", "H_tool", "S_state", "N_obs", "V_ver"), beta, strict=True):
        lo, hi = fit.intervals[name]
        assert lo - 0.1 <= b <= hi + 0.1, (name, b, fit.intervals[name])
    assert np.allclose(fit.beta[1:], beta, atol=0.3)
    # D_fitted is on the hand form's scale at the median task
    spec = {"beta": list(fit.beta), "medians": fit.medians}
    med = {k: fit.medians[k] for k in fit.medians}
    comp_med = {
        "L": med["L"],
        "H_tool": med["H_tool"],
        "S_state": med["S_state"],
        "N_obs": med["N_obs"] - 1,
        "V_ver": 1 - med["V_ver"],
    }
    hand = med["L"] * med["H_tool"] * med["S_state"] * med["N_obs"] * med["V_ver"]
    assert d_task_fitted(comp_med, spec) == pytest.approx(hand, rel=1e-6)


def test_calibrate_cli_on_a_small_corpus(tmp_path: Path) -> None:
    corpus, out = tmp_path / "c", tmp_path / "e.json"
    assert (
        runner.invoke(
            app,
            [
                "simulate",
                "-o",
                str(corpus),
                "--runs",
                "4",
                "--budgets",
                "1,2",
                "--seed",
                "3",
                "--models",
                "sim-base",
            ],
        ).exit_code
        == 0
    )
    r = runner.invoke(
        app,
        [
            "calibrate",
            str(corpus),
            "-o",
            str(out),
            "--holdout",
            "rule_filter,needle/9",
            "--no-adapter",
            "--json",
            "--demand-bootstrap",
            "5",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "'needle/9' matched no template" in r.output
    figures = json.loads(r.stdout)
    assert figures["full"][HELDOUT_TEMPLATE]["runs"] == 4 * 7 * 2  # every rule_filter run
    est = json.loads(out.read_text())
    assert est["provenance"]["adapter"] == "adapter constants not yet calibrated"
    assert est["adapter"] == {"window": 6, "epsilon": 0.02}
    assert est["provenance"]["corpus"]["manifest"]["seed"] == 3 and est["provenance"]["seed"] == 3
    assert load_estimator(out).full.theta == tuple(est["full"]["theta"])


def test_calibrate_without_oracle_blocks_is_an_input_error(tmp_path: Path) -> None:
    r = runner.invoke(
        app, ["calibrate", str(SAMPLES), "-o", str(tmp_path / "e.json"), "--from", "oracle"]
    )
    assert r.exit_code == 2 and "no calibration runs with oracle blocks" in r.output
    # without oracle blocks, auto means outcomes: four labeled samples are too few
    r = runner.invoke(app, ["calibrate", str(SAMPLES), "-o", str(tmp_path / "e.json")])
    assert r.exit_code == 2 and "needs at least 10 labeled runs" in r.output
    assert not (tmp_path / "e.json").exists()
    r = runner.invoke(
        app, ["calibrate", str(SAMPLES), "-o", str(tmp_path / "e.json"), "--from", "magic"]
    )
    assert r.exit_code == 2 and "--from must be" in r.output


def test_outcome_calibration_gives_harder_tasks_a_larger_demand(tmp_path: Path) -> None:
    """`calibrate --from outcomes` on labeled runs: D per task from how its runs ended. On a
    small synthetic corpus (used here only for its labels and NRS-EFC), tasks that fewer
    runs solve get larger D; the file validates and scores runs of its tasks with it."""
    import jsonschema

    from efc_tui.parsers import expand_paths, load
    from efc_tui.scoring import score_run

    corpus, out = tmp_path / "c", tmp_path / "real.json"
    assert (
        runner.invoke(
            app,
            [
                "simulate",
                "-o",
                str(corpus),
                "--runs",
                "8",
                "--budgets",
                "0.5,2",
                "--models",
                "sim-base",
                "--seed",
                "5",
            ],
        ).exit_code
        == 0
    )
    r = runner.invoke(
        app, ["calibrate", str(corpus), "-o", str(out), "--from", "outcomes", "--json"]
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    schema = json.loads((REPO / "efc_tui" / "schemas" / "efc-estimator-1.schema.json").read_text())
    jsonschema.validate(doc, schema)
    dem = doc["demand"]
    assert (
        dem["kind"] == "task-table"
        and len(dem["tasks"]) == 24
        and doc["provenance"]["kind"] == "real"
    )
    assert json.loads(r.stdout)["runs"] == 24 * 7 * 2
    runs = [run for p in expand_paths([corpus]) for run in load(p)]
    rate: dict[str, list[bool]] = {}
    for run in runs:
        rate.setdefault(run.task_id or "", []).append(bool(run.success))
    solved = {t: float(np.mean(v)) for t, v in rate.items()}
    easy = [dem["tasks"][t]["D"] for t, v in solved.items() if v >= 0.8]
    hard = [dem["tasks"][t]["D"] for t, v in solved.items() if v <= 0.4]
    assert easy and hard and float(np.median(hard)) > float(np.median(easy))
    est = load_estimator(out)
    run = runs[0]
    run.task_demand = None  # metadata would win; a real trace has none
    # a run that helped calibrate its task gets the prior, never its own outcome back
    assert score_run(run, est).demand.source == "prior"
    run.run_id = f"{run.run_id}-new"  # a new run of the same task: the task's demand
    led = score_run(run, est)
    assert led.demand.source == "task" and led.demand.hand == pytest.approx(
        dem["tasks"][run.task_id]["D"]
    )
    run.task_id = "never-seen"  # an unknown task of a known benchmark
    led = score_run(run, est)
    assert led.demand.source == "benchmark"
    assert led.demand.hand == pytest.approx(dem["families"][run.task_family]["D"])


def test_shipped_real_estimator_is_what_make_estimator_real_produces(tmp_path: Path) -> None:
    import jsonschema

    from tests.conftest import SHARED

    real_runs = SHARED / "real-runs"
    grouped = SHARED / "real-runs-grouped"
    if not real_runs.is_dir() or not grouped.is_dir():
        pytest.skip("../shared/real-runs or ../shared/real-runs-grouped is not present")
    shipped_path = REPO / "efc_tui" / "data" / "estimator_real.json"
    shipped = json.loads(shipped_path.read_text())
    schema = json.loads((REPO / "efc_tui" / "schemas" / "efc-estimator-1.schema.json").read_text())
    jsonschema.validate(shipped, schema)
    out = tmp_path / "real.json"
    r = runner.invoke(
        app,
        [
            "calibrate",
            str(real_runs),
            str(grouped),
            "--from",
            "outcomes",
            "--quiet",
            "-o",
            str(out),
            "--note",
            shipped["provenance"]["command"],
        ],
    )
    assert r.exit_code == 0, r.output
    fresh = json.loads(out.read_text())
    for doc in (shipped, fresh):
        doc["provenance"].pop("package_version")
        doc["provenance"]["corpus"] = {}  # the path the corpus was named by
        doc["provenance"]["base_estimator"].pop("source")
    diffs = _diff(shipped, fresh, rel=ROUNDED)
    assert not diffs, (
        "the shipped real estimator is stale: run `make estimator-real` and commit "
        "efc_tui/data/estimator_real.json\n" + "\n".join(diffs[:20])
    )
    assert (
        shipped["full"]
        == json.loads((REPO / "efc_tui" / "data" / "estimator.json").read_text())["full"]
    )


# -- the default corpus: held-out quality and the shipped file -----------------------------


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """`make estimator`, step by step: the default corpus for the shipped seed, calibrated."""
    shipped = json.loads(SHIPPED.read_text())
    seed = shipped["provenance"]["seed"]
    folder = tmp_path_factory.mktemp("estimator-corpus")
    out = folder / "estimator.json"
    r = runner.invoke(
        app, ["simulate", "-o", str(folder / "corpus"), "--seed", str(seed), "--quiet"]
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(
        app,
        [
            "calibrate",
            str(folder / "corpus"),
            "-o",
            str(out),
            "--quiet",
            "--note",
            shipped["provenance"]["command"],
        ],
    )
    assert r.exit_code == 0, r.output
    return dict(json.loads(out.read_text()))


def test_estimated_efc_explains_oracle_efc_on_held_out_template_families(
    regenerated: dict[str, Any],
) -> None:
    figs = regenerated["provenance"]["figures"]
    held = figs["full"][HELDOUT_TEMPLATE]
    pre = figs["prefix"][HELDOUT_TEMPLATE]
    print(
        f"\nheld-out templates {regenerated['provenance']['split']['holdout_templates']}: "
        f"{held['runs']} runs; run-level R² Estimated vs Oracle EFC = {held['run_r2']:.3f} "
        f"(corr² {held['run_corr2']:.3f}; prefix θ {pre['run_r2']:.3f}); "
        f"event-level R² of log1p(y) = {held['event_r2_log1p']:.3f}"
    )
    assert held["runs"] >= 1500
    assert held["run_r2"] >= 0.8
    # without z the prefix score cannot tell a call to an irrelevant tool from a miss
    assert pre["run_r2"] >= 0.55
    assert figs["full"][HELDOUT_SEED]["run_r2"] >= 0.75
    # the fitted demand exponents: every hand-form exponent 1 within (or near) its interval
    dem = regenerated["demand"]
    for k, (lo, hi) in dem["intervals"].items():
        assert lo - 0.1 <= 1.0 <= hi + 0.1, (k, lo, hi)


def test_shipped_estimator_is_what_make_estimator_produces(regenerated: dict[str, Any]) -> None:
    shipped = json.loads(SHIPPED.read_text())
    for doc in (shipped, regenerated):
        doc["provenance"].pop("package_version")  # a release bump alone does not go stale
    diffs = _diff(shipped, regenerated)
    assert not diffs, STALE + "\n" + "\n".join(diffs[:20])


def test_shipped_estimator_is_calibrated_and_loads() -> None:
    est = load_estimator()
    assert not est.provisional and est.provenance["status"] == "calibrated"
    assert est.provenance["seed"] == 7
    assert est.prefix.theta[2] == 0.0  # no z in prefix mode
    assert est.demand is not None and len(est.demand["beta"]) == 6
    assert set(est.demand["medians"]) == {"L", "H_tool", "S_state", "N_obs", "V_ver"}
    assert est.window >= 1 and est.epsilon >= 0
    cal = est.provenance["figures"]["full"][CALIBRATION]
    assert cal["runs"] > 1000 and 0 < cal["event_r2_log1p"] <= 1


def test_scoring_uses_the_calibrated_theta_and_demand_on_fresh_runs() -> None:
    from efc_tui.scoring import score_run
    from efc_tui.scoring.features import compute_features
    from efc_tui.synthetic import CorpusSpec, generate

    est = load_estimator()
    oracle, estimated = [], []
    for run in generate(CorpusSpec(runs=6, budgets=(0.5, 2.0), seed=99)):  # a seed never fitted
        f = score_run(run).figures
        assert f.oracle_efc is not None and f.d_task_fitted is not None
        assert f.est_efc == pytest.approx(
            float(est.full.predict(compute_features(run).matrix()).sum())
        )
        oracle.append(f.oracle_efc)
        estimated.append(f.est_efc)
    assert r_squared(np.array(oracle), np.array(estimated)) > 0.6


def _diff(a: Any, b: Any, rel: float = REL_FIT) -> list[str]:
    """Differences between two estimator files (tests/tolerance.py): numbers agree to
    ``rel``; the demand fit is rounded to 4 digits, so it agrees to ``ROUNDED``."""
    looser = {".demand": ROUNDED, ".provenance.figures.demand": ROUNDED}
    return json_diff(a, b, rel=rel, abs_=ABS_FIT, looser=looser)


def test_events_without_oracle_blocks_are_left_out() -> None:
    from efc_tui.scoring.calibrate import record

    run = Run(
        run_id="r",
        events=[Event(index=0, step=0, kind=EventKind.TOOL)],
        task_demand=TaskDemand(L=1, H_tool=1, S_state=1, N_obs=0, V_ver=0.5),
    )
    assert record(run, CALIBRATION) is None
