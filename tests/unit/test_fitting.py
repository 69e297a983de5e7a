"""Scaling fits (SPEC §5): parameter recovery, R²/MAE by hand, grouping, median
normalization, held-out isolation, the bootstrap, SAS, degenerate inputs, the fit file."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from typing import TypeVar

import jsonschema
import numpy as np
import orjson
import pytest

from efc_tui.errors import InputError
from efc_tui.fitting.corpus import fit_corpus, holdout_splits, make_grouping
from efc_tui.fitting.fitfile import (
    FIT_COLUMNS,
    dumps_fit,
    fit_columns,
    fit_document,
    load_fit,
    parse_fit,
)
from efc_tui.fitting.powerlaw import (
    ALPHA_MAX,
    ALPHA_MIN,
    PowerLaw,
    fit_batch,
    fit_power_law,
    r2_mae,
)
from efc_tui.fitting.predictors import BY_NAME, PREDICTORS
from efc_tui.fitting.sas import TERMS, fit_sas
from efc_tui.fitting.svg import render_svg
from efc_tui.fitting.table import RunTable
from efc_tui.fitting.toy import toy_rows
from tests.conftest import REPO
from tests.helpers import ev, make_run

FIT_SCHEMA = json.loads((REPO / "efc_tui" / "schemas" / "efc-fit-1.schema.json").read_text())


def rows_for(groups: dict[tuple[str, str], list[tuple[float, bool]]]) -> list[dict]:
    """Hand-made rows: {(family, harness): [(x_nrs, success), ...]}; one task per run."""
    out = []
    for (fam, h), runs in groups.items():
        for i, (x, ok) in enumerate(runs):
            out.append(
                {
                    "run_id": f"{fam}-{h}-{i}",
                    "task_id": f"{fam}-t{i}",
                    "task_family": fam,
                    "harness": h,
                    "model": "m",
                    "budget": {"tokens": 1000},
                    "success": ok,
                    "nrs_efc": x,
                    "d_task": 1.0,
                    "tokens": 100.0 * (1 + i),
                }
            )
    return out


# ---------------------------------------------------------------- the curve


@pytest.mark.parametrize(
    "e_inf,a,alpha", [(0.1, 0.5, 0.8), (0.0, 0.3, 2.0), (0.3, 0.2, 0.3), (0.05, 0.4, 3.5)]
)
def test_fit_recovers_known_parameters_from_noisy_points(
    e_inf: float, a: float, alpha: float
) -> None:
    rng = np.random.default_rng(7)
    z = np.geomspace(0.1, 10.0, 80)
    truth = np.minimum(1.0, e_inf + a * z**-alpha)  # a failure rate: the model is capped at 1
    y = truth + rng.normal(0.0, 0.01, z.size)
    res = fit_power_law(z, y)
    law = res.law
    assert res.sse <= np.sum((truth - y) ** 2)  # at least as good as the truth
    assert res.sse == pytest.approx(np.sum((law.curve(z) - y) ** 2))  # the capped curve's SSE
    assert law.e_inf == pytest.approx(e_inf, abs=0.03)
    assert law.a == pytest.approx(a, abs=0.03)
    assert law.alpha == pytest.approx(alpha, rel=0.1, abs=0.05)


def test_fit_is_exact_on_noiseless_points_and_respects_bounds() -> None:
    z = np.geomspace(0.3, 3.0, 12)
    law = fit_power_law(z, np.minimum(1.0, 0.2 + 0.25 * z**-1.3)).law  # the first 2 points capped
    assert (law.e_inf, law.a, law.alpha) == pytest.approx((0.2, 0.25, 1.3), abs=1e-6)
    # rising failure with z: A ≥ 0 forbids a rising curve, so the best bounded fit is flat
    flat = fit_power_law(z, 0.1 + 0.05 * z)
    assert flat.law.a == 0.0 and "A=0" in flat.at_bounds
    # values outside [0, 1] still give parameters inside the bounds
    wild = fit_power_law(z, 3.0 - z).law
    assert 0.0 <= wild.e_inf <= 1.0 and wild.a >= 0 and ALPHA_MIN <= wild.alpha <= ALPHA_MAX


def test_capped_fit_recovers_a_curve_with_a_near_zero_z_group() -> None:
    # one group at z ≈ 0.009 × median, where the curve is far above 1 (0.1 + 0.3·0.009^-0.8
    # ≈ 13): its observed rate is 1. The uncapped curve would bend flat to get near that point
    # (bounded least squares on E_inf + A·z^-α from the truth ends at α ≈ 0.2, R² ≈ 0.68);
    # the capped model min(1, ·) only pays for the rest and recovers the curve.
    from scipy.optimize import least_squares

    rng = np.random.default_rng(3)
    z = np.r_[0.009, np.geomspace(0.3, 4.0, 15)]
    truth = np.minimum(1.0, 0.1 + 0.3 * z**-0.8)
    y = np.clip(truth + rng.normal(0.0, 0.01, z.size), 0.0, 1.0)
    res = fit_power_law(z, y)
    law = res.law
    assert (law.e_inf, law.a) == pytest.approx((0.1, 0.3), abs=0.03)
    assert law.alpha == pytest.approx(0.8, abs=0.08)
    r2, mae = r2_mae(y, law.curve(z))
    assert r2 is not None and r2 > 0.99 and mae < 0.01
    assert float(law.curve(z[0])) == 1.0  # capped where the uncapped curve is ≈ 13
    # the batch fit (bootstrap, held-out) finds the same optimum
    e, a, al, sse = fit_batch(z[None, :], y[None, :])
    assert (e[0], a[0], al[0]) == pytest.approx((law.e_inf, law.a, law.alpha), abs=1e-3)
    assert sse[0] == pytest.approx(res.sse, rel=1e-3)
    # what minimising the uncapped curve's error gives on the same points: flattened
    u = least_squares(
        lambda p: p[0] + p[1] * z ** -p[2] - y,
        [0.1, 0.3, 0.8],
        bounds=([0.0, 0.0, ALPHA_MIN], [1.0, np.inf, ALPHA_MAX]),
    ).x
    r2_u, _ = r2_mae(y, np.minimum(1.0, u[0] + u[1] * z ** -u[2]))
    assert u[2] < 0.4 and r2_u is not None and r2_u < 0.8


def test_batch_fit_matches_single_fits() -> None:
    rng = np.random.default_rng(1)
    z = np.geomspace(0.2, 5.0, 30)
    ys = np.vstack(
        [np.minimum(1.0, 0.1 + 0.4 * z**-0.9) + rng.normal(0, 0.02, z.size) for _ in range(5)]
    )
    e, a, al, _ = fit_batch(np.broadcast_to(z, ys.shape), ys)
    for i in range(5):
        single = fit_power_law(z, ys[i]).law
        assert (e[i], a[i], al[i]) == pytest.approx(
            (single.e_inf, single.a, single.alpha), abs=1e-4
        )


def test_r2_and_mae_match_hand_computed_values() -> None:
    # ss_res = .05² + .05² + 0 = .005; mean .4, ss_tot = .2² + 0 + .2² = .08
    r2, mae = r2_mae(np.array([0.2, 0.4, 0.6]), np.array([0.25, 0.35, 0.6]))
    assert r2 == pytest.approx(1 - 0.005 / 0.08) and mae == pytest.approx(0.1 / 3)
    # worse than the mean: ss_res = .08, ss_tot = .02 -> R² = -3
    r2, mae = r2_mae(np.array([0.2, 0.4]), np.array([0.4, 0.2]))
    assert r2 == pytest.approx(-3.0) and mae == pytest.approx(0.2)
    # every group the same: R² undefined (None), MAE still defined
    r2, mae = r2_mae(np.array([0.3, 0.3]), np.array([0.2, 0.4]))
    assert r2 is None and mae == pytest.approx(0.1)


def test_corpus_r2_is_the_spec_formula_over_the_groups() -> None:
    groups = {
        ("F", "H0"): [(0.5, False)] * 4 + [(0.5, True)],
        ("F", "H1"): [(1.0, False)] * 2 + [(1.0, True)] * 3,
        ("F", "H2"): [(2.0, False)] + [(2.0, True)] * 4,
        ("F", "H3"): [(4.0, True)] * 5,
    }
    fit = fit_corpus(RunTable.from_rows(rows_for(groups)), predictors=["x_nrs"]).get("x_nrs")
    assert fit.ok and fit.points is not None and fit.law is not None and fit.median is not None
    obs = fit.points.failure[fit.fitted]
    assert obs.tolist() == pytest.approx([0.8, 0.4, 0.2, 0.0])
    assert fit.points.z[fit.fitted].tolist() == pytest.approx([0.5, 1.0, 2.0, 4.0])
    assert fit.median == pytest.approx(1.5)  # median of the group means 0.5, 1, 2, 4
    pred = fit.law.curve(np.array([0.5, 1.0, 2.0, 4.0]) / 1.5)
    hand = 1 - np.sum((obs - pred) ** 2) / np.sum((obs - obs.mean()) ** 2)
    assert fit.r2 == pytest.approx(hand) and fit.mae == pytest.approx(np.mean(np.abs(obs - pred)))


def test_in_sample_r2_is_never_below_zero() -> None:
    rng = np.random.default_rng(11)
    for _ in range(20):
        z = np.exp(rng.normal(0, 1, 12))
        y = rng.uniform(0, 1, 12)  # no relation at all
        law = fit_power_law(z, y).law
        r2, _ = r2_mae(y, law.curve(z))
        assert r2 is not None and r2 >= -1e-9


def test_median_normalization_makes_the_fit_scale_free() -> None:
    rows = toy_rows(runs_per_group=10, families=2, harnesses=3, models=1, budgets=1, seed=2)
    big = [dict(r, nrs_efc=r["nrs_efc"] * 1000.0) for r in rows]
    a = fit_corpus(RunTable.from_rows(rows), predictors=["nrs_efc"], curve="power").get("nrs_efc")
    b = fit_corpus(RunTable.from_rows(big), predictors=["nrs_efc"], curve="power").get("nrs_efc")
    assert a.law is not None and b.law is not None and a.median is not None
    assert b.median == pytest.approx(1000.0 * a.median)
    assert (b.law.e_inf, b.law.a, b.law.alpha) == pytest.approx(
        (a.law.e_inf, a.law.a, a.law.alpha), abs=1e-6
    )
    assert b.r2 == pytest.approx(a.r2, abs=1e-9)


def test_fit_over_runs_recovers_the_generating_law() -> None:
    truth = PowerLaw(0.1, 0.3, 0.7)
    rows = toy_rows(truth, runs_per_group=400, noise=0.05, seed=3)
    fit = fit_corpus(
        RunTable.from_rows(rows), predictors=["oracle_x"], bootstrap=200, seed=1, curve="power"
    ).get("oracle_x")
    assert fit.law is not None and fit.bootstrap is not None and fit.r2 is not None
    assert fit.law.e_inf == pytest.approx(0.1, abs=0.04)
    assert fit.law.a == pytest.approx(0.3, abs=0.04)
    assert fit.law.alpha == pytest.approx(0.7, abs=0.1)
    iv = fit.bootstrap.intervals
    for name, true in (("E_inf", 0.1), ("A", 0.3), ("alpha", 0.7)):
        assert iv[name].lo <= true <= iv[name].hi, name
    assert fit.r2 > 0.95


# ---------------------------------------------------------------- grouping and the table


def test_grouping_default_axes_and_missing_labels() -> None:
    rows = [
        {"run_id": "a", "task_family": "F", "harness": "H0", "model": "m", "success": True},
        {"run_id": "b", "task_family": "F", "harness": "H1", "model": "m", "success": True},
        {
            "run_id": "c",
            "task_family": "F",
            "harness": "H1",
            "model": "m",
            "success": False,
            "budget": {"tools": 5, "tokens": 100.0},
        },
        {"run_id": "d", "harness": "H1", "model": "m", "success": False},
    ]
    table = RunTable.from_rows(rows)
    assert table.labels["budget"] == ["?", "?", "tokens=100 tools=5", "?"]
    assert table.labels["task_id"][0] == "run:a"  # no task id: each run its own task
    g = make_grouping(table, ("task_family", "harness", "model", "budget"))
    assert g.n_groups == 4
    g2 = make_grouping(table, ("harness",))
    assert g2.keys == [("H0",), ("H1",)] and g2.codes.tolist() == [0, 1, 1, 1]
    with pytest.raises(InputError, match="unknown grouping axis"):
        make_grouping(table, ("family",))
    odd = RunTable.from_rows(
        [
            {"run_id": "x", "harness": "a\x1fb", "model": "m", "success": True},
            {"run_id": "y", "harness": "a", "model": "m\x1f", "success": True},
        ]
    )
    assert make_grouping(odd, ("harness", "model")).keys == [("a", "m\x1f"), ("a\x1fb", "m")]


def test_run_rows_from_scored_runs_keep_figures_and_sas_quantities() -> None:
    events = [
        ev(0, "tool", tool="bash", action="ls src", obs="a.py b.py", tokens_in=100, tokens_out=10),
        ev(
            1,
            "check",
            "assertion_error",
            tool="pytest",
            action="pytest",
            obs="E AssertionError: 1 != 2",
            tokens_in=200,
            tokens_out=20,
        ),
        ev(2, "repair", tool="edit", action="edit a.py", obs="ok", tokens_in=50, tokens_out=5),
        ev(
            3,
            "check",
            "assertion_error",
            tool="pytest",
            action="pytest",
            obs="E AssertionError: 1 != 2",
            tokens_in=200,
            tokens_out=20,
        ),
        ev(
            4,
            "check",
            "passed",
            tool="pytest",
            action="pytest -x",
            obs="3 passed",
            tokens_in=10,
            tokens_out=1,
        ),
    ]
    run = make_run(
        events,
        run_id="r1",
        task_id="t1",
        task_family="F",
        harness="H0",
        model="m",
        success=True,
        budget={"tokens": 4000},
    )
    table = RunTable.from_runs([run])
    f = table.floats
    assert table.labels["budget"] == ["tokens=4000"] and f["success"][0] == 1.0
    assert f["turns"][0] == 5 and f["tools_used"][0] == 3
    assert np.isnan(f["tools_available"][0]) and np.isnan(f["n_agents"][0])
    # after the first failing verdict: the repair (55) and the repeated failing check (220),
    # and the passing check after the second failure (11)
    assert f["overhead_tokens"][0] == 55 + 220 + 11
    assert f["error_events"][0] == 2
    assert f["tokens"][0] == 616 and f["nrs_efc"][0] > 0


def test_predictor_values_from_figures_and_columns_agree() -> None:
    fig = {
        "nrs_efc": 3.0,
        "d_task": 1.5,
        "d_task_fitted": None,
        "oracle_efc": None,
        "c_raw": 0.0,
        "efc": 2.0,
    }
    assert BY_NAME["x_nrs"].value(fig) == pytest.approx(2.0)
    assert BY_NAME["x_nrs_fitted"].value(fig) is None  # no fitted D_task
    assert BY_NAME["oracle_efc"].value(fig) is None
    assert BY_NAME["eta"].value(fig) is None  # zero raw cost
    assert BY_NAME["nrs_efc"].value({"nrs_efc": float("inf")}) is None
    cols = {"nrs_efc": np.array([3.0, 1.0, np.nan]), "d_task": np.array([1.5, 0.0, 1.0])}
    z = BY_NAME["x_nrs"].column(cols)
    assert z[0] == pytest.approx(2.0) and np.isnan(z[1]) and np.isnan(z[2])
    assert [p.name for p in PREDICTORS][:6] == [
        "tokens",
        "tool_calls",
        "wall_s",
        "ops",
        "c_raw",
        "sas",
    ]


# ---------------------------------------------------------------- held-out


def _toy_table(**kw) -> RunTable:
    return RunTable.from_rows(toy_rows(**{"runs_per_group": 12, "seed": 5, **kw}))


@pytest.mark.parametrize(
    "spec", ["task_family", "harness", "model", "combined", "task_family+harness"]
)
def test_held_out_groups_never_enter_the_fit(spec: str) -> None:
    table = _toy_table()
    result = fit_corpus(table, predictors=["x_nrs", "sas"], holdout=[spec])
    g = result.grouping
    for f in result.fits:
        assert [h.name for h in f.holdouts] == [
            spec,
            "tasks",
        ]  # the task cross-validation always runs
        h = f.holdouts[0]
        assert h.n_groups > 0 and h.runs.runs > 0
        for sp in h.splits:
            test = {t.group for t in sp.test_groups}
            assert test and not (test & set(sp.train_groups))
            for gi in sp.train_groups:  # no training group shares a held-out value
                key = g.key_dict(gi)
                assert all(key[a] != v for a, v in sp.held_out.items())
            for t in sp.test_groups:
                assert all(g.key_dict(t.group)[a] == v for a, v in sp.held_out.items())
    # the split masks themselves: training runs share none of the held-out values
    axes = ("task_family", "harness", "model") if spec == "combined" else tuple(spec.split("+"))
    for held, train, _test in holdout_splits(table, g, axes):
        for a, v in held.items():
            assert not any(lab == v for lab, t in zip(table.labels[a], train, strict=True) if t)


def test_changing_held_out_runs_does_not_change_the_split_fit() -> None:
    rows = toy_rows(runs_per_group=12, seed=5)
    base = fit_corpus(
        RunTable.from_rows(rows), predictors=["x_nrs"], holdout=["harness"], curve="power"
    ).get("x_nrs")
    # flip every outcome and scale every predictor of harness H3's runs
    changed = [
        dict(r, success=1.0 - r["success"], nrs_efc=r["nrs_efc"] * 7) if r["harness"] == "H3" else r
        for r in rows
    ]
    new = fit_corpus(
        RunTable.from_rows(changed), predictors=["x_nrs"], holdout=["harness"], curve="power"
    ).get("x_nrs")
    b = next(sp for sp in base.holdouts[0].splits if sp.held_out == {"harness": "H3"})
    n = next(sp for sp in new.holdouts[0].splits if sp.held_out == {"harness": "H3"})
    assert n.law is not None and b.law is not None
    assert (n.law.e_inf, n.law.a, n.law.alpha, n.median) == pytest.approx(
        (b.law.e_inf, b.law.a, b.law.alpha, b.median)
    )
    # ... while the fits that train on H3 do change
    b0 = next(sp for sp in base.holdouts[0].splits if sp.held_out == {"harness": "H0"})
    n0 = next(sp for sp in new.holdouts[0].splits if sp.held_out == {"harness": "H0"})
    assert b0.law is not None and n0.law is not None
    assert (b0.law.e_inf, b0.law.a, b0.law.alpha) != pytest.approx(
        (n0.law.e_inf, n0.law.a, n0.law.alpha)
    )


def test_held_out_needs_its_axis_in_the_groups_and_reports_too_few_values() -> None:
    table = _toy_table(models=1)
    with pytest.raises(InputError, match="add it to --group-by"):
        fit_corpus(table, group_by=["task_family"], holdout=["harness"])
    combined = (
        fit_corpus(table, predictors=["x_nrs"], holdout=["combined"]).get("x_nrs").holdouts[0]
    )
    assert combined.axes == ("task_family", "harness")  # one model: it cannot be left out
    assert combined.r2 is not None and len(combined.splits) == 3 * 7
    h = fit_corpus(table, predictors=["x_nrs"], holdout=["model"]).get("x_nrs").holdouts[0]
    assert h.r2 is None and h.splits[0].status == "degenerate"
    assert "0 training groups" in (h.splits[0].reason or "")


# ---------------------------------------------------------------- bootstrap


def test_bootstrap_is_deterministic_per_seed_and_resamples_tasks() -> None:
    table = _toy_table()
    a = fit_corpus(table, predictors=["x_nrs", "sas"], bootstrap=50, seed=3)
    b = fit_corpus(table, predictors=["x_nrs", "sas"], bootstrap=50, seed=3)
    c = fit_corpus(table, predictors=["x_nrs"], bootstrap=50, seed=4)
    boots = [r.get("x_nrs").bootstrap for r in (a, b, c)]
    assert all(bs is not None for bs in boots)
    ia, ib, ic = (bs.intervals for bs in boots if bs is not None)
    assert {k: v.as_list() for k, v in ia.items()} == {k: v.as_list() for k, v in ib.items()}
    assert ia["alpha"].as_list() != ic["alpha"].as_list()
    x, sas = a.get("x_nrs"), a.get("sas")
    assert x.bootstrap is not None and sas.bootstrap is not None and x.law is not None
    assert x.bootstrap.n_ok == 50
    assert set(sas.bootstrap.intervals) == {"r2", "mae"}
    assert x.bootstrap.intervals["E_inf"].lo <= x.law.e_inf <= x.bootstrap.intervals["E_inf"].hi


def test_bootstrap_with_one_task_per_group_keeps_going() -> None:
    groups = {("F", f"H{i}"): [(0.5 * (i + 1), i % 2 == 0)] for i in range(5)}
    fit = fit_corpus(RunTable.from_rows(rows_for(groups)), predictors=["x_nrs"], bootstrap=40).get(
        "x_nrs"
    )
    assert fit.ok and fit.bootstrap is not None
    assert 0 < fit.bootstrap.n_ok <= 40  # resamples that draw < 3 groups have no curve


# ---------------------------------------------------------------- SAS


def test_sas_ols_drops_constant_and_collinear_columns_and_fits_exactly() -> None:
    rng = np.random.default_rng(0)
    n = 60
    X = rng.normal(size=(n, len(TERMS)))
    X[:, TERMS.index("log1p_na")] = np.log(2.0)  # single agent: constant
    X[:, TERMS.index("c")] = 0.0
    X[:, TERMS.index("PSA_x_log1p_na")] = X[:, TERMS.index("P_SA")] * np.log(
        2.0
    )  # collinear with P_SA
    y = 0.4 + 0.1 * X[:, TERMS.index("P_SA")] - 0.05 * X[:, TERMS.index("Ec_x_T")]
    model = fit_sas(X, y)
    assert model.variant == "full"
    assert model.dropped["log1p_na"] == "constant" and model.dropped["c"] == "constant"
    assert model.dropped["PSA_x_log1p_na"] == "collinear"
    assert "P_SA" in model.terms and len(model.terms) == len(TERMS) - 3
    assert model.predict(X) == pytest.approx(np.clip(y, 0, 1), abs=1e-9)
    small = fit_sas(X[:10], y[:10])
    assert small.variant == "core" and set(small.terms) <= {
        "P_SA",
        "PSA_x_log1p_na",
        "log1p_T",
        "Ec_x_T",
        "Ae_x_PSA",
        "Ic",
    }


def test_sas_on_single_agent_traces_documents_what_traces_lack() -> None:
    fit = fit_corpus(_toy_table(), predictors=["sas"]).get("sas")
    assert fit.ok and fit.sas is not None and fit.r2 is not None
    notes = " ".join(fit.notes)
    assert (
        "Intelligence Index not in traces" in notes
        and "n_a = 1" in notes
        and "harness: H0" in notes
    )
    for col in ("log1p_na", "c", "R", "R_x_na", "c_x_Ic"):
        assert col in fit.sas.dropped
    assert fit.predicted is not None and all(0.0 <= p <= 1.0 for p in fit.predicted)


# ---------------------------------------------------------------- degenerate inputs


def test_no_success_labels_is_a_clear_input_error() -> None:
    rows = [dict(r, success=None) for r in rows_for({("F", "H0"): [(1.0, True)] * 3})]
    with pytest.raises(InputError, match="no run has a success label"):
        fit_corpus(RunTable.from_rows(rows))
    with pytest.raises(InputError, match="no runs"):
        fit_corpus(RunTable.from_rows([]))


def test_one_group_all_equal_z_and_zero_efc_are_marked_degenerate() -> None:
    one = fit_corpus(
        RunTable.from_rows(rows_for({("F", "H0"): [(1.0, True), (2.0, False)]})),
        predictors=["x_nrs", "sas"],
    )
    assert one.get("x_nrs").status == "degenerate" and "at least 3" in (
        one.get("x_nrs").reason or ""
    )
    assert one.get("sas").status == "degenerate"
    same = rows_for({("F", f"H{i}"): [(1.0, i % 2 == 0), (1.0, True)] for i in range(4)})
    f = fit_corpus(RunTable.from_rows(same), predictors=["x_nrs"]).get("x_nrs")
    assert (
        f.status == "degenerate" and "same z" in (f.reason or "") and f.law is None and f.r2 is None
    )
    zero = rows_for({("F", f"H{i}"): [(0.0, False), (0.0, i > 1)] for i in range(4)})
    z = fit_corpus(RunTable.from_rows(zero), predictors=["x_nrs"]).get("x_nrs")
    assert z.status == "degenerate" and "every group has z ≤ 0" in (z.reason or "")
    # a document of degenerate fits is still valid JSON with no NaN
    for r in zero:
        r["tokens"] = 100.0 * (1 + int(r["harness"][1:]))
    doc = fit_document(
        z_fit := fit_corpus(RunTable.from_rows(zero), predictors=["x_nrs", "tokens"])
    )
    assert z_fit.get("tokens").ok
    json.loads(dumps_fit(doc))
    jsonschema.validate(doc, FIT_SCHEMA)


def test_non_finite_values_are_unknown_not_nan_results() -> None:
    rows = rows_for(
        {("F", f"H{i}"): [(0.5 * (i + 1), True), (0.5 * (i + 1), i < 2)] for i in range(4)}
    )
    rows[0]["nrs_efc"] = float("nan")
    rows[1]["nrs_efc"] = float("inf")
    result = fit_corpus(RunTable.from_rows(rows), predictors=["x_nrs"])
    f = result.get("x_nrs")
    assert f.ok and f.r2 is not None and math.isfinite(f.r2) and f.n_runs == 6
    assert any(n.startswith("2 of 8 labeled runs lack a value of x_nrs (2)") for n in result.notes)
    assert any("non-finite nrs_efc" in n for n in result.notes)


def test_unavailable_predictors_and_unknown_names() -> None:
    rows = rows_for({("F", f"H{i}"): [(0.5 * (i + 1), i < 2)] * 3 for i in range(4)})
    result = fit_corpus(RunTable.from_rows(rows))
    assert result.get("oracle_efc").status == "unavailable"
    assert "Oracle-EFC" in (result.get("oracle_efc").reason or "")
    assert result.get("x_nrs_fitted").status == "unavailable"
    with pytest.raises(InputError, match="unknown predictor"):
        fit_corpus(RunTable.from_rows(rows), predictors=["bogus"])
    with pytest.raises(InputError, match="not a curve"):
        fit_corpus(RunTable.from_rows(rows), primary="sas")


def test_constant_failure_rate_has_no_r2() -> None:
    rows = rows_for({("F", f"H{i}"): [(0.5 * (i + 1), True)] * 3 for i in range(4)})
    f = fit_corpus(RunTable.from_rows(rows), predictors=["x_nrs"]).get("x_nrs")
    assert f.ok and f.r2 is None and f.mae == pytest.approx(0.0, abs=1e-9)
    assert "R² undefined" in " ".join(f.notes)


# ---------------------------------------------------------------- the fit file


def test_fit_file_round_trip_schema_and_curve_predictions(tmp_path) -> None:
    result = fit_corpus(_toy_table(), bootstrap=30, holdout=["harness"], curve="power")
    doc = fit_document(result, inputs=["corpus/"])
    jsonschema.validate(doc, FIT_SCHEMA)
    data = dumps_fit(doc)
    assert b"NaN" not in data and data == dumps_fit(fit_document(result, inputs=["corpus/"]))
    path = tmp_path / "fit.json"
    path.write_bytes(data)
    ff = load_fit(path)
    assert ff.primary == "x_nrs" and "oracle_x" in ff.names() and "sas" not in ff.names()
    curve = ff.curve()
    x = result.get("x_nrs")
    assert x.law is not None and x.median is not None
    assert curve.law.alpha == pytest.approx(x.law.alpha) and curve.median == pytest.approx(x.median)
    z = 0.7 * x.median
    pos = curve.predict(z)
    assert pos.failure == pytest.approx(float(x.law.failure(0.7)))
    assert pos.success == pytest.approx(1 - pos.failure) and pos.z_norm == pytest.approx(0.7)
    zs = sorted(p.z for p in curve.points)
    assert pos.percentile == pytest.approx(sum(v < z for v in zs) / len(zs))
    assert pos.reducible == pytest.approx(max(0.0, pos.failure - curve.law.e_inf))
    assert (
        curve.predict(zs[-1] * 100).extrapolated
        and not curve.predict(zs[len(zs) // 2]).extrapolated
    )
    assert curve.predict(0.0).failure == 1.0 or curve.law.a == 0.0
    figs = {"nrs_efc": z * 2.0, "d_task": 2.0}
    assert curve.predict_figures(figs) == pos
    cols = fit_columns(curve, figs)
    assert list(cols) == list(FIT_COLUMNS) and cols["fit_success"] == pytest.approx(pos.success)
    assert fit_columns(curve, {"nrs_efc": None, "d_task": 1.0}) == dict.fromkeys(FIT_COLUMNS)
    xs, ys = curve.curve(20)
    assert len(xs) == 20 and np.all(np.diff(ys) <= 1e-12)  # failure falls as z grows
    with pytest.raises(InputError, match="regression over cells"):
        ff.curve("sas")
    with pytest.raises(InputError, match="no predictor"):
        ff.curve("nope")


def test_bad_fit_files_are_input_errors(tmp_path) -> None:
    with pytest.raises(InputError, match="not valid JSON"):
        parse_fit(b"{", "x.json")
    with pytest.raises(InputError, match="efc-fit/1"):
        parse_fit(orjson.dumps({"schema": "efc-ledger/1"}), "x.json")
    with pytest.raises(InputError, match="cannot read fit file"):
        load_fit(tmp_path / "missing.json")
    doc = fit_document(fit_corpus(_toy_table(), predictors=["x_nrs"]))
    doc["predictors"][0]["normalization"]["median"] = 0
    with pytest.raises(InputError, match="median must be positive"):
        parse_fit(orjson.dumps(doc), "x.json").curve()


def test_svg_has_a_panel_per_fitted_predictor_and_is_deterministic() -> None:
    result = fit_corpus(_toy_table(), holdout=["harness"])
    doc = fit_document(result)
    svg = render_svg(doc)
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    drawn = sum(1 for f in result.fits if f.ok and f.predictive is not False)
    assert len(root.findall(f"{ns}polyline")) >= drawn  # a curve (or SAS diagonal) per panel
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert any(t and t.startswith("NRS-EFC/D_task") for t in texts)
    assert any(t and "held-out" in t for t in texts)
    assert render_svg(doc) == svg
    # a curve that predicts nothing is not drawn: its panel says so
    for p in doc["predictors"]:
        p["predictive"] = False
    quiet = ET.fromstring(render_svg(doc))
    assert len(quiet.findall(f"{ns}polyline")) == 1 + 1  # SAS's diagonal and the held-out panel's
    curves = sum(1 for f in result.fits if f.ok and f.predictor.curve)
    assert sum("no predictive curve" in (t.text or "") for t in quiet.iter(f"{ns}text")) == curves


# ---------------------------------------------------------------- the fair protocol


T = TypeVar("T")


def some(x: T | None) -> T:
    """``x``, asserted present (the figures below exist whenever the fit is ok)."""
    assert x is not None
    return x


def ratio_rows(groups: dict[str, list[tuple[float, float, bool]]], **extra: float) -> list[dict]:
    """Hand-made rows: {harness: [(nrs_efc, d_task, success), ...]}, two tasks per group."""
    out = []
    for h, runs in groups.items():
        for i, (num, den, ok) in enumerate(runs):
            out.append(
                {
                    "run_id": f"{h}-{i}",
                    "task_id": f"{h}-t{i % 2}",
                    "task_family": "F",
                    "harness": h,
                    "model": "m",
                    "success": ok,
                    "nrs_efc": num,
                    "d_task": den,
                    "tokens": 100.0 * (1 + i) * (1 + int(h[1:])),
                    **extra,
                }
            )
    return out


RATIO_GROUPS = {
    # (NRS-EFC, D_task, success): H0's mean of run ratios is (1/1 + 9/3)/2 = 2, its ratio of
    # means 10/4 = 2.5; the small task no longer dominates
    "H0": [(1.0, 1.0, False), (9.0, 3.0, True), (1.0, 1.0, False), (9.0, 3.0, False)],
    "H1": [(2.0, 1.0, False), (2.0, 1.0, True), (2.0, 1.0, False), (2.0, 1.0, True)],
    "H2": [(8.0, 2.0, True), (4.0, 2.0, True), (8.0, 2.0, True), (4.0, 2.0, False)],
    "H3": [(1.0, 2.0, False), (3.0, 2.0, False), (1.0, 2.0, False), (3.0, 2.0, False)],
    "H4": [(30.0, 5.0, True), (10.0, 5.0, True), (30.0, 5.0, True), (10.0, 5.0, True)],
}


def test_a_group_z_is_the_ratio_of_its_means_and_a_run_keeps_its_own_ratio() -> None:
    table = RunTable.from_rows(ratio_rows(RATIO_GROUPS))
    result = fit_corpus(table, predictors=["x_nrs", "nrs_efc"], cv_folds=0)
    x, n = result.get("x_nrs"), result.get("nrs_efc")
    # Σ NRS-EFC / Σ D_task per group
    assert some(x.points).z.tolist() == pytest.approx([20 / 8, 8 / 4, 24 / 8, 8 / 8, 80 / 20])
    assert some(n.points).z.tolist() == pytest.approx(
        [5.0, 2.0, 6.0, 2.0, 20.0]
    )  # a single figure: the mean
    assert some(x.points).failure.tolist() == pytest.approx([0.75, 0.5, 0.25, 1.0, 0.0])
    # a run's z is its own ratio; its prediction the curve there
    assert some(x.coord).z[:4].tolist() == pytest.approx([1.0, 3.0, 1.0, 3.0])
    s = table.floats["success"]
    p_run = 1 - some(x.law).failure(np.maximum(some(x.coord).z, some(x.z_floor)) / some(x.median))
    assert some(x.runs_in).brier == pytest.approx(np.mean((p_run - s) ** 2))
    assert some(x.runs_in).brier_base == pytest.approx(np.mean((s.mean() - s) ** 2))
    assert (some(x.runs_in).runs, some(x.runs_in).successes) == (20, 10)


def test_the_bootstrap_resamples_sums_of_numerators_and_denominators(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import efc_tui.fitting.bootstrap as bootstrap

    # every resample draws each task once: it is the data itself, so the resampled curves
    # are the point fit, which they are only if the resamples also take ratios of sums
    monkeypatch.setattr(bootstrap, "_chunk_counts", lambda rng, n_tasks, b: np.ones((b, n_tasks)))
    table = RunTable.from_rows(ratio_rows(RATIO_GROUPS))
    x = fit_corpus(table, predictors=["x_nrs"], bootstrap=4, cv_folds=0, curve="power").get("x_nrs")
    iv = some(x.bootstrap).intervals
    assert iv["r2"].lo == pytest.approx(x.r2, abs=1e-4) and iv["r2"].hi == pytest.approx(
        x.r2, abs=1e-4
    )
    assert iv["alpha"].lo == pytest.approx(some(x.law).alpha, rel=1e-3)


def test_held_out_groups_and_runs_are_predicted_from_their_own_sums() -> None:
    table = RunTable.from_rows(ratio_rows(RATIO_GROUPS))
    x = fit_corpus(table, predictors=["x_nrs"], holdout=["harness"], cv_folds=2).get("x_nrs")
    h = some(x.holdout("harness"))
    z_of = dict(zip(["H0", "H1", "H2", "H3", "H4"], [2.5, 2.0, 3.0, 1.0, 4.0], strict=True))
    for sp in h.splits:
        [t] = sp.test_groups
        held = sp.held_out["harness"]
        assert t.runs == 4 and t.predicted == pytest.approx(
            float(some(sp.law).failure(max(z_of[held], some(sp.z_floor)) / some(sp.median)))
        )
        # the split's normalization comes from its training groups only
        train_z = [v for k, v in z_of.items() if k != held]
        assert sp.median == pytest.approx(np.median(train_z)) and sp.z_floor == pytest.approx(
            min(train_z) / 2
        )
        assert sp.base_rate == pytest.approx(
            np.mean([r[2] for k, rs in RATIO_GROUPS.items() if k != held for r in rs])
        )
    assert h.runs.runs == 20 and h.groups.groups == 5
    # the task cross-validation: two folds, each run held out once, groups seen in both
    cv = some(x.holdout("tasks"))
    assert [sp.test_runs for sp in cv.splits] == [10, 10] and cv.runs.runs == 20


def test_every_predictor_is_fitted_on_the_same_groups() -> None:
    rows = ratio_rows(RATIO_GROUPS)
    for r in rows:
        r["tool_calls"] = (
            0.0 if r["harness"] == "H0" else 1.0 + int(r["run_id"][-1])
        )  # H0: a direct answer
        r["wall_s"] = (
            None if r["harness"] == "H4" else 10.0 * (1 + int(r["harness"][1:]))
        )  # H4's log has no times
    result = fit_corpus(
        RunTable.from_rows(rows),
        predictors=["tokens", "tool_calls", "wall_s", "x_nrs", "sas", "oracle_efc"],
    )
    curves = [f for f in result.fits if f.ok and f.predictor.curve]
    assert [f.name for f in curves] == ["tokens", "tool_calls", "wall_s", "x_nrs"]
    assert (
        result.get("oracle_efc").status == "unavailable"
    )  # no run has it: does not shrink the set
    # H4 has no wall time: left out of every predictor (and of SAS), so all compare the same
    # 16 runs in the same 4 groups
    assert any(
        "4 of 20 labeled runs lack a value of wall_s (4)" in n and "1 groups lost" in n
        for n in result.notes
    )
    assert result.grouping.keys == [
        ("F", "H0", "m", "?"),
        ("F", "H1", "m", "?"),
        ("F", "H2", "m", "?"),
        ("F", "H3", "m", "?"),
    ]
    for f in [*curves, result.get("sas")]:
        assert f.fitted == [0, 1, 2, 3] and f.n_runs == 16, f.name
        assert some(f.groups_in).groups == 4 and some(f.runs_in).runs == 16, f.name
        assert some(f.points).failure.tolist() == pytest.approx([0.75, 0.5, 0.25, 1.0]), f.name
    # tool calls are 0 on H0: the group is floored at ½ × the smallest positive group z, not dropped
    tc = result.get("tool_calls")
    assert tc.floored == 1 and tc.z_floor == pytest.approx(2.5 / 2)
    assert any("1 group with z ≤ 0 floored" in n for n in tc.notes)
    assert all(f.floored == 0 for f in curves if f.name != "tool_calls")
    # the ceiling is a property of the groups: the same for every predictor
    assert len({some(f.groups_in).ceiling for f in curves}) == 1


def test_a_curve_that_predicts_nothing_is_never_primary() -> None:
    rows = toy_rows(runs_per_group=12, seed=5, families=2, harnesses=4, models=1)
    rng = np.random.default_rng(0)
    shuffled = [
        dict(r, success=s)
        for r, s in zip(rows, rng.permutation([r["success"] for r in rows]), strict=True)
    ]
    result = fit_corpus(
        RunTable.from_rows(shuffled), predictors=["tokens", "x_nrs", "nrs_efc", "oracle_x"]
    )
    assert result.primary is None and result.selection == "tasks"
    assert "better than the base rate" in (result.primary_reason or "")
    for (
        f
    ) in result.fits:  # no curve a user's trace can compute beats the base rate the right way round
        h = some(f.holdout("tasks"))
        if f.name != "oracle_x":  # (an oracle curve is never a candidate: users have no oracle)
            assert f.predictive is False and not h.runs.predictive
    ff = parse_fit(dumps_fit(fit_document(result)), "x.json")
    assert ff.primary is None and ff.predictive_curve() is None
    assert ff.no_prediction_reason == result.primary_reason
    assert fit_columns(ff.predictive_curve(), {"nrs_efc": 1.0, "d_task": 1.0}) == dict.fromkeys(
        FIT_COLUMNS
    )
    # with the relation intact the best user-computable curve is chosen, never an oracle one
    real = fit_corpus(
        RunTable.from_rows(rows), predictors=["tokens", "x_nrs", "nrs_efc", "oracle_x"]
    )
    prim = real.primary_fit
    assert prim is not None and prim.name in ("x_nrs", "nrs_efc") and prim.predictive
    best = max(
        (f for f in real.fits if f.name != "oracle_x"), key=lambda f: some(some(f.held).runs.skill)
    )
    assert prim is best
    doc = fit_document(real)
    jsonschema.validate(doc, FIT_SCHEMA)
    assert str(doc["primary_description"]).startswith(
        f"{prim.name}: {prim.predictor.label}, 192 runs, 16 groups, held-out (tasks) AUC "
    )
    curve = parse_fit(dumps_fit(doc), "x.json").predictive_curve()
    assert curve is not None and curve.name == prim.name and some(curve.heldout).axis == "tasks"
    assert some(curve.heldout).brier == pytest.approx(some(prim.held).runs.brier)


def test_evaluating_a_fit_on_its_own_runs_gives_its_in_sample_figures() -> None:
    from efc_tui.fitting.evaluate import evaluate_fit

    rows = ratio_rows(RATIO_GROUPS)
    for r in rows:
        r["tool_calls"] = 0.0 if r["harness"] == "H0" else 2.0  # a floored group
    table = RunTable.from_rows(rows)
    result = fit_corpus(table, predictors=["x_nrs", "tool_calls", "sas"])
    ff = parse_fit(dumps_fit(fit_document(result)), "fit.json")
    ev = evaluate_fit(ff, table)
    by = {c.name: c for c in ev.curves}
    assert by["sas"].status == "not_evaluable" and "training cells' own outcomes" in (
        by["sas"].reason or ""
    )
    for name in ("x_nrs", "tool_calls"):
        f, c = result.get(name), by[name]
        assert some(c.groups).r2 == pytest.approx(f.r2, abs=1e-9) and some(
            c.groups
        ).ceiling == pytest.approx(some(f.groups_in).ceiling)
        assert some(c.runs).brier == pytest.approx(some(f.runs_in).brier) and some(
            c.runs
        ).auc == pytest.approx(some(f.runs_in).auc)
        assert some(c.runs).brier_base == pytest.approx(some(f.runs_in).brier_base)
        assert c.brier_fit_base == pytest.approx(some(f.runs_in).brier_base)  # the same rate here
    assert by["tool_calls"].floored == 4  # H0's runs raised to the fit's floor
    # new runs: other outcomes, judged against their own success rate
    flipped = RunTable.from_rows([dict(r, success=not r["success"]) for r in rows])
    c = {x.name: x for x in evaluate_fit(ff, flipped).curves}["x_nrs"]
    assert (
        some(c.runs).brier_base == pytest.approx(0.25)
        and c.predictive is False
        and some(some(c.runs).auc) < 0.5
    )


def test_per_run_bins_keep_ties_together() -> None:
    from efc_tui.fitting.corpus import quantile_bins

    z = np.array([5.0, 1.0, 1.0, 3.0, 2.0, 2.0, 4.0, 0.0, 0.0, 0.0, 6.0, 7.0])
    codes, lower = quantile_bins(z)
    # 12 runs: 3 bins; bin = ⌊3 × (runs with a smaller z) / 12⌋: 0,0,0 → 0; 1,1 (3 below) → 0;
    # 2,2 (5 below) → 1; 3 (7) → 1; 4 (8) → 2; 5, 6, 7 → 2
    assert codes.tolist() == [2, 0, 0, 1, 1, 1, 2, 0, 0, 0, 2, 2]
    assert lower == [0.0, 2.0, 4.0]
    codes, lower = quantile_bins(np.zeros(30))
    assert codes.tolist() == [0] * 30 and lower == [0.0]  # one value: one bin (a degenerate fit)


def test_task_folds_deal_every_task_into_one_fold_per_seed() -> None:
    from efc_tui.fitting.corpus import task_folds

    tasks = np.repeat(np.arange(12), 3)
    plan = task_folds(tasks, 12, 5, seed=0)
    assert [h for h, _, _ in plan] == [{"tasks": f"fold {i}/5"} for i in range(1, 6)]
    held = np.vstack([test for _, _, test in plan])
    assert (held.sum(axis=0) == 1).all()  # each run held out exactly once
    assert sorted(len(set(tasks[t])) for _, _, t in plan) == [2, 2, 2, 3, 3]
    for _, train, test in plan:
        assert not (train & test).any() and (train | test).all()
        assert not set(tasks[train]) & set(tasks[test])  # a task is never on both sides
    again = task_folds(tasks, 12, 5, seed=0)
    other = task_folds(tasks, 12, 5, seed=1)
    assert all((a[2] == b[2]).all() for a, b in zip(plan, again, strict=True))
    assert any((a[2] != b[2]).any() for a, b in zip(plan, other, strict=True))
    assert (
        task_folds(np.zeros(4, dtype=np.int64), 1, 5, seed=0) == []
    )  # one task: nothing to hold out


def test_source_label_is_the_format_and_the_top_level_input_folder(tmp_path) -> None:
    from efc_tui.fitting.table import source_label

    (tmp_path / "runs" / "lab_a" / "job1").mkdir(parents=True)
    deep = tmp_path / "runs" / "lab_a" / "job1" / "t.jsonl"
    flat = tmp_path / "runs" / "x.jsonl"
    for f in (deep, flat):
        f.write_text("")
    roots = [tmp_path / "runs"]
    assert source_label("native", str(deep), roots) == "native:lab_a"
    assert source_label("native", str(flat), roots) == "native:runs"  # directly in the input folder
    assert source_label("atif", str(deep)) == "atif:job1"  # no input known: the file's folder
    assert source_label("native", None) == "native:?"


def test_a_tiny_A_that_lifts_floored_groups_to_the_cap_is_kept() -> None:
    # three groups at z = 0 that always fail, one just above them that always succeeds,
    # four far away: the best curve is a step, A ≈ 3e-19 at α = 5, which z^−α ≈ 1e18 at the
    # floor turns into a lift to 1. Treating that A as round-off flattened the curve (R² −0.47)
    groups = {
        "H0": (0.0, [0, 0, 0, 0]),
        "H1": (0.0, [0, 0, 0, 0]),
        "H2": (0.0, [0, 0, 0, 0]),
        "H3": (0.02, [1, 1, 1, 1]),
        "H4": (90.0, [1, 0, 1, 0]),
        "H5": (100.0, [1, 1, 0, 0]),
        "H6": (110.0, [0, 1, 0, 1]),
        "H7": (120.0, [1, 0, 0, 1]),
    }
    rows = [
        {
            "run_id": f"{h}-{i}",
            "task_id": f"t{i}",
            "task_family": "F",
            "harness": h,
            "model": "m",
            "success": bool(ok),
            "wall_s": z,
        }
        for h, (z, outcomes) in groups.items()
        for i, ok in enumerate(outcomes)
    ]
    f = fit_corpus(RunTable.from_rows(rows), predictors=["wall_s"], cv_folds=0, curve="power").get(
        "wall_s"
    )
    law = some(f.law)
    assert f.floored == 3 and f.z_floor == pytest.approx(0.01)
    assert 0 < law.a < 1e-15 and law.alpha == pytest.approx(5.0)
    assert some(f.predicted)[:3] == pytest.approx(
        [0.9957] * 3, abs=1e-3
    )  # the floored groups: near the cap
    assert some(f.r2) > 0.7
