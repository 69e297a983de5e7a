"""Validity figures: does a curve predict anything? (docs/fitting.md, "Validity figures")

Two views of the same predictions, both reported in-sample and held-out:

- **grouped**: R² and MAE of predicted against observed group failure rates (SPEC §5), and
  the **noise ceiling** of those groups: the R² a predictor that knew every group's true
  rate would reach in expectation, given that each observed rate is a binomial mean of only
  n_i runs,

      ceiling = 1 − mean_i(v_i) / mean_i((Ē_i − Ē)²),   v_i = Ē_i (1 − Ē_i) / (n_i − 1),

  v_i being the unbiased estimate of the sampling variance p_i(1 − p_i)/n_i of group i's
  observed rate (E[Ē_i(1 − Ē_i)] = p_i(1 − p_i)(1 − 1/n_i)). A group of one run has no such
  estimate; it contributes P(1 − P), P the pooled failure rate of the groups' runs (the
  variance of one Bernoulli draw at the pooled rate; our decision). Ē is the unweighted mean
  of the Ē_i, as in R². The ceiling can be below 0 (noise larger than the spread).
- **per run**: each run's predicted success against its outcome: AUC (the probability that
  a random success is ranked above a random failure; ties count ½), the Brier score
  mean((p − y)²), the Brier score of the base rate (a constant prediction: the training
  runs' success rate) and the Brier skill 1 − Brier / Brier_base (> 0: better than the base
  rate).

Pure numpy, no printing; hand-computed values are in tests/unit/test_validity.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

#: below this total squared spread the groups' rates are "all the same" (R² undefined)
_FLAT = 1e-15


def auc(y: np.ndarray, score: np.ndarray) -> float | None:
    """Area under the ROC curve of ``score`` for outcomes ``y`` (success = y ≥ 0.5).

    The Mann–Whitney statistic with average ranks, so a success and a failure with the same
    score count ½. None when every run has the same outcome (no pair to rank).
    """
    y = np.asarray(y, dtype=float) >= 0.5
    s = np.asarray(score, dtype=float)
    n_pos = int(y.sum())
    n_neg = int(y.size - n_pos)
    if n_pos == 0 or n_neg == 0:
        return None
    order = np.argsort(s, kind="mergesort")
    ss = s[order]
    # average rank (1-based) of each run, ties sharing the mean of their positions
    starts = np.r_[0, np.flatnonzero(np.diff(ss)) + 1]
    ends = np.r_[starts[1:], ss.size]
    mean_rank = (starts + ends + 1) / 2.0
    ranks = np.empty(s.size)
    ranks[order] = np.repeat(mean_rank, ends - starts)
    u = float(ranks[y].sum()) - n_pos * (n_pos + 1) / 2.0
    return u / (n_pos * n_neg)


def brier(y: np.ndarray, p: np.ndarray) -> float:
    """Mean squared difference between predicted probabilities and outcomes."""
    y = np.asarray(y, dtype=float)
    p = np.asarray(p, dtype=float)
    if y.size == 0:
        raise ValueError("no runs")
    return float(np.mean((p - y) ** 2))


def noise_ceiling(observed: np.ndarray, n_runs: np.ndarray) -> float | None:
    """The expected R² of the true group rates (see the module docstring); None when every
    group has the same observed rate (R² is undefined there too) or there are no groups."""
    o = np.asarray(observed, dtype=float)
    n = np.asarray(n_runs, dtype=float)
    if o.size == 0:
        return None
    spread = float(np.mean((o - o.mean()) ** 2))
    if spread * o.size <= _FLAT * max(1.0, o.size):
        return None
    pooled = float(np.sum(o * n) / np.sum(n)) if np.sum(n) > 0 else float(o.mean())
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(n > 1, o * (1.0 - o) / np.maximum(n - 1.0, 1.0), pooled * (1.0 - pooled))
    return 1.0 - float(np.mean(v)) / spread


def r2_mae(observed: np.ndarray, predicted: np.ndarray) -> tuple[float | None, float]:
    """R² = 1 − Σ(Ē_i − Ê_i)² / Σ(Ē_i − Ē)² (None when every Ē_i is equal) and MAE."""
    o = np.asarray(observed, dtype=float)
    p = np.asarray(predicted, dtype=float)
    if o.size == 0:
        raise ValueError("no points")
    ss_res = float(np.sum((o - p) ** 2))
    ss_tot = float(np.sum((o - o.mean()) ** 2))
    mae = float(np.mean(np.abs(o - p)))
    if ss_tot <= _FLAT * max(1.0, o.size):
        return None, mae
    return 1.0 - ss_res / ss_tot, mae


@dataclass(frozen=True, slots=True)
class GroupFigures:
    """Grouped figures of one set of predictions."""

    groups: int
    r2: float | None
    mae: float | None
    ceiling: float | None


@dataclass(frozen=True, slots=True)
class RunFigures:
    """Per-run figures of one set of predictions."""

    runs: int
    successes: int
    auc: float | None
    brier: float | None
    brier_base: float | None
    #: 1 − Brier / Brier_base; None when the base rate is perfect (every run the same)
    skill: float | None

    @property
    def predictive(self) -> bool:
        """Predicts something: Brier strictly below the base rate's, and successes ranked
        above failures more often than chance would (see ``is_predictive``)."""
        return is_predictive(self.brier, self.brier_base, self.auc, self.successes, self.runs)


#: z of the one-sided 97.5% bound on the AUC that ``is_predictive`` requires above ½
AUC_Z = 1.96


def auc_lower_bound(auc: float, successes: int, failures: int) -> float:
    """AUC − 1.96·SE, with the Hanley–McNeil (1982) standard error of an AUC estimated from
    ``successes`` positives and ``failures`` negatives."""
    a = min(max(auc, 1e-9), 1 - 1e-9)
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    n1, n0 = max(successes, 1), max(failures, 1)
    var = (a * (1 - a) + (n1 - 1) * (q1 - a * a) + (n0 - 1) * (q2 - a * a)) / (n1 * n0)
    return auc - AUC_Z * float(np.sqrt(max(var, 0.0)))


def is_predictive(
    brier: float | None,
    brier_base: float | None,
    auc: float | None,
    successes: int | None = None,
    runs: int | None = None,
) -> bool:
    """Brier strictly below the base rate's, and AUC above ½ — by more than chance when the
    counts are known: the 95% lower bound AUC − 1.96·SE (Hanley–McNeil) above ½.
    **Decision** (docs/fitting.md): with a few hundred runs a curve fitted on shuffled
    outcomes beats the base rate by a hair and ranks runs at AUC 0.52 by chance; it must not
    be shown as a prediction. AUC None (one outcome only): the Brier comparison decides."""
    if brier is None or brier_base is None or not brier < brier_base:
        return False
    if auc is None:
        return True
    if successes is not None and runs is not None and 0 < successes < runs:
        return auc_lower_bound(auc, successes, runs - successes) > 0.5
    return auc > 0.5


def group_figures(observed: np.ndarray, predicted: np.ndarray, n_runs: np.ndarray) -> GroupFigures:
    """R², MAE and the noise ceiling of predicted against observed group failure rates."""
    o = np.asarray(observed, dtype=float)
    if o.size == 0:
        return GroupFigures(0, None, None, None)
    r2, mae = r2_mae(o, predicted)
    return GroupFigures(int(o.size), r2, mae, noise_ceiling(o, n_runs))


def run_figures(y: np.ndarray, p_success: np.ndarray, base: np.ndarray | float) -> RunFigures:
    """AUC, Brier, the base rate's Brier and the skill of predicted success ``p_success`` for
    outcomes ``y``; ``base`` is the base-rate prediction (one rate, or one per run when the
    runs come from splits with different training rates)."""
    y = np.asarray(y, dtype=float)
    if y.size == 0:
        return RunFigures(0, 0, None, None, None, None)
    p = np.asarray(p_success, dtype=float)
    b = np.broadcast_to(np.asarray(base, dtype=float), y.shape)
    bs = brier(y, p)
    bb = brier(y, b)
    skill = None if bb <= 1e-15 else 1.0 - bs / bb
    return RunFigures(int(y.size), int((y >= 0.5).sum()), auc(y, p), bs, bb, skill)


__all__ = [
    "GroupFigures",
    "RunFigures",
    "auc",
    "auc_lower_bound",
    "brier",
    "group_figures",
    "is_predictive",
    "noise_ceiling",
    "r2_mae",
    "run_figures",
]


_SUMMARY_KEYS = (
    "groups",
    "r2",
    "ceiling",
    "mae",
    "runs",
    "successes",
    "auc",
    "brier",
    "brier_base",
    "skill",
)


def primary_validity(doc: dict[str, Any]) -> dict[str, Any]:
    """The fit file's ``validity`` block (efc-fit/1): the primary curve's name, its
    ``predictive`` verdict on the selection axis, and its validity figures in sample and on
    every held-out axis (grouped R² with the noise ceiling, per-run AUC, Brier against the
    base rate), for a UI to show beside the curve; with no primary, ``predictive`` is false
    and ``reason`` says why."""
    name = doc.get("primary")
    p = next((q for q in doc.get("predictors", []) if q.get("name") == name), None)
    if name is None or p is None:
        return {"predictor": None, "predictive": False, "reason": doc.get("primary_reason")}
    return {
        "predictor": name,
        "label": p.get("label"),
        "predictive": bool(doc.get("primary_predictive")),
        "selection_axis": (doc.get("selection") or {}).get("axis"),
        "in_sample": {k: p["figures"].get(k) for k in _SUMMARY_KEYS},
        "heldout": {h["name"]: {k: h.get(k) for k in _SUMMARY_KEYS} for h in p.get("holdout", [])},
        "reason": doc.get("primary_reason"),
    }
