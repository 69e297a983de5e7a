"""Validity figures (efc_tui/fitting/validity.py) against values computed by hand."""

from __future__ import annotations

import numpy as np
import pytest

from efc_tui.fitting.validity import auc, brier, group_figures, noise_ceiling, r2_mae, run_figures


def test_auc_counts_ties_as_half() -> None:
    # successes score 0.9, 0.7, 0.2; failures 0.9, 0.2, 0.1. Over the 9 (success, failure)
    # pairs: 0.9 beats 0.2 and 0.1 and ties 0.9 (2.5); 0.7 beats 0.2 and 0.1 (2);
    # 0.2 ties 0.2 and beats 0.1 (1.5): 6 / 9
    y = np.array([1, 0, 1, 0, 1, 0])
    s = np.array([0.9, 0.9, 0.7, 0.2, 0.2, 0.1])
    assert auc(y, s) == pytest.approx(6 / 9)
    assert auc(y, -s) == pytest.approx(1 - 6 / 9)  # reversing the order mirrors it
    assert auc(y, np.full(6, 0.5)) == pytest.approx(0.5)  # all tied: chance
    assert auc(np.array([1, 1, 0]), np.array([0.9, 0.8, 0.1])) == 1.0
    assert auc(np.ones(4), np.arange(4.0)) is None  # one class: nothing to rank


def test_brier_base_rate_and_skill() -> None:
    y = np.array([1.0, 0.0, 1.0])
    p = np.array([0.8, 0.3, 0.6])
    # (0.2² + 0.3² + 0.4²) / 3
    assert brier(y, p) == pytest.approx(0.29 / 3)
    f = run_figures(y, p, 2 / 3)
    # base rate 2/3: ((1/3)² + (2/3)² + (1/3)²) / 3 = 2/9
    assert f.brier_base == pytest.approx(2 / 9)
    assert f.skill == pytest.approx(1 - (0.29 / 3) / (2 / 9))
    assert (f.runs, f.successes, f.predictive) == (3, 2, True)
    assert f.auc == 1.0
    # per-run base rates (pooled splits with different training rates)
    g = run_figures(y, p, np.array([0.5, 0.5, 1.0]))
    assert g.brier_base == pytest.approx((0.25 + 0.25 + 0.0) / 3)
    # worse than the base rate: not predictive, negative skill
    bad = run_figures(y, 1 - y, 2 / 3)
    assert bad.brier == 1.0 and bad.skill is not None and bad.skill < 0 and not bad.predictive
    # every run the same outcome: the base rate is perfect, skill undefined
    same = run_figures(np.ones(3), np.full(3, 0.9), 1.0)
    assert (
        same.brier_base == 0.0 and same.skill is None and same.auc is None and not same.predictive
    )
    assert run_figures(np.zeros(0), np.zeros(0), 0.5).runs == 0


def test_noise_ceiling_on_three_groups_by_hand() -> None:
    obs = np.array([0.1, 0.5, 0.9])
    n = np.array([11, 5, 1])
    # spread: mean of (−0.4)², 0, 0.4² = 0.32 / 3
    # v = 0.1·0.9/10, 0.5·0.5/4, and for the 1-run group P(1−P), P the pooled rate
    # (0.1·11 + 0.5·5 + 0.9·1) / 17 = 4.5 / 17
    pooled = 4.5 / 17
    v = [0.09 / 10, 0.25 / 4, pooled * (1 - pooled)]
    hand = 1 - np.mean(v) / (0.32 / 3)
    assert hand == pytest.approx(0.168322, abs=1e-6)
    assert noise_ceiling(obs, n) == pytest.approx(hand)
    figs = group_figures(obs, np.array([0.2, 0.5, 0.8]), n)
    # R²: ss_res = 0.01 + 0 + 0.01, ss_tot = 0.32
    assert (figs.groups, figs.r2, figs.mae, figs.ceiling) == pytest.approx(
        (3, 1 - 0.02 / 0.32, 0.2 / 3, hand)
    )
    assert noise_ceiling(np.array([0.3, 0.3]), np.array([5, 5])) is None  # no spread: undefined
    assert noise_ceiling(np.zeros(0), np.zeros(0)) is None
    assert group_figures(np.zeros(0), np.zeros(0), np.zeros(0)).r2 is None


def test_noise_ceiling_is_the_expected_r2_of_the_true_rates() -> None:
    # simulate observed rates around known true rates: the R² that predicting the truth
    # reaches, averaged over draws, is what the ceiling estimates from one draw
    rng = np.random.default_rng(0)
    p = rng.uniform(0.1, 0.9, 200)
    n = rng.integers(3, 30, 200)
    r2s: list[float] = []
    ceilings: list[float] = []
    for _ in range(300):
        obs = rng.binomial(n, p) / n
        r2, _ = r2_mae(obs, p)
        ceiling = noise_ceiling(obs, n)
        assert r2 is not None and ceiling is not None
        r2s.append(r2)
        ceilings.append(ceiling)
    assert np.mean(ceilings) == pytest.approx(np.mean(r2s), abs=0.01)
    assert 0.3 < np.mean(r2s) < 0.95  # a regime where the noise matters
