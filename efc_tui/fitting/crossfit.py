"""The held-out protocol for grouped real runs (issue 29; docs/fitting.md, "Grouped real runs").

Every predictor is scored on the same runs and groups (benchmark × harness × model), in
sample and held out by an axis (harness, model, source): for each held-out value, every
fitted quantity, the task demand D_task (``calibrate_outcomes``) and the failure curve, is
fitted on the other runs only, and the held-out runs are predicted. In sample, each run's
D_task comes from a calibration without its own group (other configurations' runs of its
task). Nothing fitted sees the outcomes of the runs it is scored on:
``tests/unit/test_crossfit.py`` perturbs held-out labels and checks their predictions stay put.

Scores per predictor and split: grouped R² with the groups' binomial noise ceiling, per-run
AUC (pooled, within task, within group), Brier against the training base rate.

Predictors are columns of :class:`Rows` (one scoring pass; nothing per event is kept),
divided by a cross-fitted D_task when ``demand`` is set. The length-only baseline is a
logistic regression on log(1 + events), either sign, fitted on the training runs: it is
what a run's length alone can say, the bar a feedback coordinate has to clear per run.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from efc_tui.fitting.saturating import fit_saturating
from efc_tui.fitting.validity import auc, brier, group_figures
from efc_tui.model import Run
from efc_tui.scoring.calibrate_real import OutcomeRow, calibrate_outcomes


@dataclass(frozen=True, slots=True)
class Coordinate:
    """A predictor: ``column`` of the rows, ÷ a D_task calibrated on ``demand`` (a column)
    when given; ``curve`` False: the logistic length baseline (no curve, no groups' z)."""

    name: str
    label: str
    column: str
    demand: str | None = None
    curve: bool = True


@dataclass(slots=True)
class Rows:
    """One scoring pass over labeled runs: labels and figures, columns as arrays."""

    run_id: list[str]
    task: list[str]
    benchmark: list[str]
    harness: list[str]
    model: list[str]
    source: list[str]
    family: list[str]
    y: np.ndarray
    cols: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.run_id)

    @property
    def group(self) -> list[str]:
        return [
            f"{b} | {h} | {m}"
            for b, h, m in zip(self.benchmark, self.harness, self.model, strict=True)
        ]

    def axis(self, name: str) -> list[str]:
        return {"harness": self.harness, "model": self.model, "source": self.source}[name]


def model_label(run: Run) -> str:
    """The model as written, without a leading "@" (litellm's provider spelling of the
    same model: 3 of the 80 SWE-bench trajectories write "@google/...")."""
    return (run.model or "?").lstrip("@")


def group_benchmark(run: Run, source: str) -> str:
    """The benchmark part of a run's group: the benchmark it names (``extra["benchmark"]``),
    else where it came from (``source``): a corpus of runs that name no benchmark (the
    Multi-SWE-bench SWE-agent runs of ../shared/real-runs) is one benchmark per source,
    not one group per repository."""
    b = run.extra.get("benchmark") if isinstance(run.extra, dict) else None
    return b if isinstance(b, str) and b else source


def rows_from(
    runs: Iterable[Run],
    columns: Callable[[Any], dict[str, float]],
    source: Callable[[Run], str],
) -> Rows:
    """Score every labeled run once (the package estimator that matches it) and keep its
    labels and ``columns(ledger)``. Model names are taken as written, except a leading "@"
    (litellm's provider spelling of the same model)."""
    from efc_tui.scoring import score_run
    from efc_tui.scoring.demand import task_key

    lab: dict[str, list[str]] = defaultdict(list)
    ys: list[float] = []
    cols: dict[str, list[float]] = defaultdict(list)
    for run in runs:
        if run.success is None:
            continue
        led = score_run(run)
        lab["run_id"].append(run.run_id)
        lab["task"].append(task_key(run) or f"run:{run.run_id}")
        src = source(run)
        lab["benchmark"].append(group_benchmark(run, src))
        lab["harness"].append(run.harness or "?")
        lab["model"].append(model_label(run))
        lab["source"].append(src)
        lab["family"].append(run.task_family or "?")
        ys.append(float(run.success))
        for k, v in columns(led).items():
            cols[k].append(float(v))
    return Rows(
        run_id=lab["run_id"],
        task=lab["task"],
        benchmark=lab["benchmark"],
        harness=lab["harness"],
        model=lab["model"],
        source=lab["source"],
        family=lab["family"],
        y=np.asarray(ys, dtype=float),
        cols={k: np.asarray(v, dtype=float) for k, v in cols.items()},
    )


# ------------------------------------------------------------------ cross-fitted demand


def demand_table(rows: Rows, idx: np.ndarray, column: str) -> Callable[[int], float] | None:
    """D_task calibrated on the runs ``idx`` against ``column`` (their outcomes through the
    saturating curve, docs/calibration.md): a function of a run's index giving its task's D
    (else its benchmark's, else the prior). None when the runs cannot calibrate it."""
    vals = rows.cols[column]
    orows = [
        OutcomeRow(
            rows.run_id[i],
            rows.task[i],
            rows.family[i],
            rows.source[i],
            float(vals[i]),
            bool(rows.y[i]),
        )
        for i in idx
    ]
    cal = calibrate_outcomes(orows)
    if cal is None:
        return None
    tasks = {t: float(v["D"]) for t, v in cal.tasks.items()}
    fams = {b: float(v["D"]) for b, v in cal.families.items()}
    prior = float(cal.prior)

    def d_of(i: int) -> float:
        return tasks.get(rows.task[i]) or fams.get(rows.family[i]) or prior

    return d_of


def _z(
    rows: Rows, c: Coordinate, idx: np.ndarray, d_of: Callable[[int], float] | None
) -> tuple[np.ndarray, np.ndarray]:
    num = rows.cols[c.column][idx].astype(float)
    den = np.ones_like(num) if d_of is None else np.array([d_of(int(i)) for i in idx])
    return num, den


# ------------------------------------------------------------------ curves on groups


@dataclass(slots=True)
class Fitted:
    predict: Callable[[np.ndarray, np.ndarray], np.ndarray]  # (num, den) -> P(success) per run
    group_predict: Callable[[float], float]  # a group's Σnum/Σden -> P(success)


def fit_curve(
    num: np.ndarray, den: np.ndarray, y: np.ndarray, groups: Sequence[str]
) -> Fitted | None:
    """The saturating failure curve on the groups' (Σ num / Σ den, failure rate), z floored
    at ½ the smallest positive group z and median-normalized (docs/fitting.md, steps 2–5)."""
    keys = sorted(set(groups))
    if len(keys) < 3:
        return None
    gi = np.array([keys.index(g) for g in groups])
    sn = np.bincount(gi, weights=num)
    sd = np.bincount(gi, weights=den)
    n = np.bincount(gi).astype(float)
    z = sn / sd
    fail = 1 - np.bincount(gi, weights=y) / n
    pos = z[z > 0]
    if pos.size == 0 or np.all(z == z[0]):
        return None
    floor = 0.5 * float(pos.min())
    zf = np.maximum(z, floor)
    med = float(np.median(zf))
    law = fit_saturating(zf / med, fail)

    def predict(nu: np.ndarray, de: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            zz = np.where(de > 0, nu / de, 0.0)
        return 1 - np.asarray(law.failure(np.maximum(zz, floor) / med), dtype=float)

    def group_predict(zg: float) -> float:
        return float(1 - law.failure(max(zg, floor) / med))

    return Fitted(predict, group_predict)


def fit_length(x: np.ndarray, y: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """Logistic regression of success on log(1 + events) (Newton, a tiny ridge)."""
    X = np.column_stack([np.ones_like(x), np.log1p(x)])
    w = np.zeros(2)
    for _ in range(50):
        p = 1 / (1 + np.exp(-X @ w))
        g = X.T @ (y - p) - 1e-6 * w
        h = (X * (p * (1 - p))[:, None]).T @ X + 1e-6 * np.eye(2)
        step = np.linalg.solve(h, g)
        w += step
        if np.abs(step).max() < 1e-10:
            break

    def predict(xx: np.ndarray) -> np.ndarray:
        Z = np.column_stack([np.ones_like(xx), np.log1p(xx)])
        return 1 / (1 + np.exp(-Z @ w))

    return predict


# ------------------------------------------------------------------ the protocol


@dataclass(slots=True)
class Predictions:
    """Per-run predicted success of one predictor on one split (NaN: not predicted), the
    base rate each run is compared with, and the held-out groups' (z) predictions."""

    p: np.ndarray
    base: np.ndarray
    group_p: dict[str, float] = field(default_factory=dict)


def _predict_split(
    rows: Rows,
    c: Coordinate,
    train: np.ndarray,
    test: np.ndarray,
    d_of: Callable[[int], float] | None,
    out: Predictions,
) -> None:
    groups = rows.group
    base = float(rows.y[train].mean())
    out.base[test] = base
    if not c.curve:
        model = fit_length(rows.cols[c.column][train], rows.y[train])
        out.p[test] = model(rows.cols[c.column][test])
        return
    num, den = _z(rows, c, train, d_of)
    fitted = fit_curve(num, den, rows.y[train], [groups[i] for i in train])
    if fitted is None:
        return
    tn, td = _z(rows, c, test, d_of)
    out.p[test] = fitted.predict(tn, td)
    by: dict[str, list[int]] = defaultdict(list)
    for k, i in enumerate(test):
        by[groups[i]].append(k)
    for g, ks in by.items():
        out.group_p[g] = fitted.group_predict(float(tn[ks].sum() / td[ks].sum()))


def in_sample(rows: Rows, coords: Sequence[Coordinate]) -> dict[str, Predictions]:
    """Every curve fitted on every run; each run's D_task calibrated without its own group
    (the other configurations' runs of its task)."""
    n = len(rows)
    groups = np.array(rows.group)
    everything = np.arange(n)
    out: dict[str, Predictions] = {}
    logo: dict[str, np.ndarray] = {}
    for col in sorted({c.demand for c in coords if c.demand}):
        d = np.full(n, np.nan)
        for g in sorted(set(rows.group)):
            test = np.flatnonzero(groups == g)
            d_of = demand_table(rows, np.flatnonzero(groups != g), col)
            if d_of is not None:
                d[test] = [d_of(int(i)) for i in test]
        logo[col] = d
    for c in coords:
        pred = Predictions(np.full(n, np.nan), np.full(n, np.nan))
        d_of = None
        if c.demand:
            arr = logo[c.demand]
            d_of = lambda i, arr=arr: float(arr[i])  # noqa: E731
        _predict_split(rows, c, everything, everything, d_of, pred)
        out[c.name] = pred
    return out


def _logo_demand(rows: Rows, idx: np.ndarray, column: str) -> np.ndarray:
    """D_task of each run of ``idx`` from a calibration on the other runs of ``idx`` outside
    its own group (NaN where none could be calibrated)."""
    groups = np.array(rows.group)
    d = np.full(len(rows), np.nan)
    for g in sorted(set(groups[idx].tolist())):
        own = idx[groups[idx] == g]
        d_of = demand_table(rows, idx[groups[idx] != g], column)
        if d_of is not None:
            d[own] = [d_of(int(i)) for i in own]
    return d


def held_out(
    rows: Rows, coords: Sequence[Coordinate], axis: str, *, cross_fit_training: bool = True
) -> dict[str, Predictions]:
    """For each value of ``axis``: D_task and every curve fitted on the runs with another
    value, the runs with that value predicted. Every run gets one held-out prediction.

    The held-out runs' D comes from a calibration on every training run. The curve is fitted
    on the training runs with D cross-fitted among them (each training group's D calibrated
    without that group, as the shipped real fit is), so the curve meets the same
    out-of-sample D it will be applied to; ``cross_fit_training=False`` divides the
    training runs by the full training calibration instead (their own outcomes shaped it,
    which makes the curve steeper than held-out runs bear out)."""
    n = len(rows)
    vals = np.array(rows.axis(axis))
    out = {c.name: Predictions(np.full(n, np.nan), np.full(n, np.nan)) for c in coords}
    for v in sorted(set(vals.tolist())):
        test = np.flatnonzero(vals == v)
        train = np.flatnonzero(vals != v)
        if len(set(rows.y[train].tolist())) < 2:
            continue
        d = {}
        for col in sorted({c.demand for c in coords if c.demand}):
            table = demand_table(rows, train, col)
            if table is None:
                continue
            arr = _logo_demand(rows, train, col) if cross_fit_training else np.full(n, np.nan)
            for i in train if not cross_fit_training else ():
                arr[i] = table(int(i))
            for i in test:
                arr[i] = table(int(i))
            d[col] = arr
        for c in coords:
            if c.demand and c.demand not in d:
                continue
            dem = d.get(c.demand) if c.demand else None
            d_of = None if dem is None else (lambda i, a=dem: float(a[i]))
            keep = train if dem is None else train[np.isfinite(dem[train])]
            _predict_split(rows, c, keep, test, d_of, out[c.name])
    return out


def within_auc(y: np.ndarray, p: np.ndarray, keys: Sequence[str]) -> float | None:
    """AUC over the (success, failure) pairs that share a key (a task: difficulty held
    fixed; a group: one configuration); ties count ½."""
    by: dict[str, list[int]] = defaultdict(list)
    for i, k in enumerate(keys):
        if math.isfinite(p[i]):
            by[k].append(i)
    num = 0.0
    den = 0
    for idx in by.values():
        yy, pp = y[idx], p[idx]
        s, f = pp[yy == 1], pp[yy == 0]
        if s.size == 0 or f.size == 0:
            continue
        num += float((s[:, None] > f[None, :]).sum() + 0.5 * (s[:, None] == f[None, :]).sum())
        den += s.size * f.size
    return num / den if den else None


def figures(rows: Rows, pred: Predictions) -> dict[str, Any]:
    """Grouped R² (groups: the predicted runs' benchmark × harness × model) with the noise
    ceiling, per-run AUC pooled / within task / within group, Brier and the base rate's."""
    ok = np.isfinite(pred.p)
    if not ok.any():
        return {"runs": 0}
    idx = np.flatnonzero(ok)
    y, p, b = rows.y[idx], pred.p[idx], pred.base[idx]
    groups = [rows.group[i] for i in idx]
    keys = sorted(set(groups))
    gi = np.array([keys.index(g) for g in groups])
    n = np.bincount(gi).astype(float)
    obs = 1 - np.bincount(gi, weights=y) / n
    if pred.group_p:
        gp = np.array([pred.group_p.get(k, math.nan) for k in keys])
        gp = np.where(np.isfinite(gp), gp, np.bincount(gi, weights=p) / n)
    else:
        gp = np.bincount(gi, weights=p) / n
    gf = group_figures(obs, 1 - gp, n)
    bs, bb = brier(y, p), brier(y, b)
    return {
        "runs": len(y),
        "groups": gf.groups,
        "r2": gf.r2,
        "ceiling": gf.ceiling,
        "auc": auc(y, p),
        "auc_task": within_auc(y, p, [rows.task[i] for i in idx]),
        "auc_group": within_auc(y, p, groups),
        "brier": bs,
        "brier_base": bb,
        "skill": 1 - bs / bb if bb > 0 else None,
    }


__all__ = [
    "Coordinate",
    "Fitted",
    "Predictions",
    "Rows",
    "demand_table",
    "figures",
    "fit_curve",
    "fit_length",
    "group_benchmark",
    "held_out",
    "in_sample",
    "model_label",
    "rows_from",
    "within_auc",
]
