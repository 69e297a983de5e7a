"""Calibrate task demand on labeled real runs, against their outcomes (issue 12; SPEC §4).

Real traces have no oracle, so nothing says how much effective feedback an event carried.
What real runs do say is how they ended. We use that to measure the one quantity the paper
leaves to "task metadata" and real logs never carry: D_task, the effective feedback a task
needs. **Decision (docs/calibration.md, "Real runs").**

Model. Every labeled run r of task τ has NRS-EFC e_r (the estimator's θ and the NRS gates,
SPEC §3.4–3.5) and an outcome y_r. Its failure probability follows the saturating collapse
curve of X_r = e_r / D_τ (``efc_tui.fitting.saturating``; z_0 fixed at 1, so D_τ is the
NRS-EFC at which a run of τ is halfway between E_0 and E_inf):

    P(fail_r) = E_inf + (E_0 − E_inf) / (1 + (e_r / D_τ)^α)

log D_τ has a normal prior around its benchmark's mean μ_b (σ = ``SIGMA_TASK``), and μ_b one
around the overall mean μ (σ = ``SIGMA_BENCHMARK``). Maximum a-posteriori estimates of the
curve, every log D_τ and every μ_b are found by alternating exact one-dimensional
maximizations (each log D_τ given the curve; each μ_b given its tasks; the curve given
every D) until the objective stops improving. A task seen in few runs stays near its
benchmark's mean; a task that every agent fails at high NRS-EFC gets a large D.

The result is the estimator file's ``demand`` block of kind ``task-table``: ``tasks``
(task id -> D, runs, the keys of the runs it was calibrated on), ``families`` (benchmark ->
D = exp μ_b, tasks), ``prior`` (exp μ) and the curve. ``scoring.demand`` reads it: a run of
a calibrated task divides by its task's D; a run of an uncalibrated task of a known
benchmark by the benchmark's; any other by the prior; and a run that was itself among a
task's calibration runs by the prior (its own outcome must not shape the D it is scored
with). ``cross_fitted`` scores a labeled corpus so that every run's D comes from the
*other* agents' and models' runs of its task (what `make fit-default` fits the real runs'
default curve on). θ is kept from the base estimator (outcome-fitting θ did not improve held-out
likelihood on the real runs we have: docs/calibration.md).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from efc_tui.model import Run
from efc_tui.scoring.demand import run_key, task_key
from efc_tui.scoring.estimator import Estimator

SIGMA_TASK = 1.0
SIGMA_BENCHMARK = 1.0
#: a benchmark label for runs without a task family
UNKNOWN_BENCHMARK = "?"
_EPS = 1e-6


@dataclass(slots=True)
class OutcomeRow:
    """What outcome calibration keeps of a labeled run."""

    run_id: str
    task: str
    benchmark: str
    source: str
    nrs: float
    success: bool
    #: ``run_key`` of the run: recorded per task so a run is never scored with a D that
    #: its own outcome helped calibrate
    key: str = ""
    #: the run's agent × model (what cross-fitting leaves out)
    group: str = ""


def outcome_rows(runs: Iterable[Run], estimator: Estimator | None = None) -> list[OutcomeRow]:
    """Score every labeled run with ``estimator`` (its θ and the NRS gates)."""
    from efc_tui.scoring.ledger import score_run

    out = []
    for run in runs:
        if run.success is None:
            continue
        led = score_run(run, estimator)
        out.append(
            OutcomeRow(
                run.run_id,
                task_key(run) or f"run:{run.run_id}",
                run.task_family or UNKNOWN_BENCHMARK,
                run.source_format,
                float(led.figures.nrs_efc),
                bool(run.success),
                run_key(run),
                f"{run.harness or '?'} × {run.model or '?'}",
            )
        )
    return out


def _fail_prob(logx: np.ndarray, curve: np.ndarray) -> np.ndarray:
    e_inf, gap, alpha = curve
    s = 1.0 / (1.0 + np.exp(np.clip(alpha * logx, -50.0, 50.0)))
    return np.clip(e_inf + gap * s, _EPS, 1 - _EPS)


def _loglik(logx: np.ndarray, y: np.ndarray, curve: np.ndarray) -> np.ndarray:
    e = _fail_prob(logx, curve)
    return y * np.log1p(-e) + (1 - y) * np.log(e)


@dataclass(slots=True)
class OutcomeCalibration:
    curve: dict[str, float]
    tasks: dict[str, dict[str, Any]]
    families: dict[str, dict[str, Any]]
    prior: float
    runs: int
    loglik: float
    #: log-likelihood with every D at the overall prior (no task knowledge)
    loglik_prior: float

    def demand_block(self) -> dict[str, Any]:
        return {
            "kind": "task-table",
            "scale": "NRS-EFC of the file's theta",
            "target": "maximum a-posteriori D per task under a saturating collapse curve of "
            "NRS-EFC / D fitted to the runs' outcomes (docs/calibration.md)",
            "curve": self.curve,
            "sigma_task": SIGMA_TASK,
            "sigma_benchmark": SIGMA_BENCHMARK,
            "prior": {"D": _r(self.prior)},
            "families": self.families,
            "tasks": self.tasks,
        }


def _r(x: float) -> float:
    return float(f"{x:.4g}")


def calibrate_outcomes(
    rows: list[OutcomeRow], *, iterations: int = 50
) -> OutcomeCalibration | None:
    """MAP task demand and collapse curve (module docstring); None with fewer than 10
    labeled runs or no outcome variety."""
    from scipy.optimize import minimize, minimize_scalar

    if len(rows) < 10 or len({r.success for r in rows}) < 2:
        return None
    y = np.array([float(r.success) for r in rows])
    loge = np.log(np.maximum(np.array([r.nrs for r in rows]), 1e-3))
    tasks = sorted({r.task for r in rows})
    tix = {t: i for i, t in enumerate(tasks)}
    ti = np.array([tix[r.task] for r in rows])
    bench_of = {r.task: r.benchmark for r in rows}
    benches = sorted(set(bench_of.values()))
    bix = {b: i for i, b in enumerate(benches)}
    tb = np.array([bix[bench_of[t]] for t in tasks])
    mu = float(np.median(loge))
    mu_b = np.full(len(benches), mu)
    logd = mu_b[tb].copy()
    curve = np.array([0.05, 0.9, 1.0])  # E_inf, E_0 − E_inf, α

    def objective() -> float:
        ll = _loglik(loge - logd[ti], y, curve).sum()
        ll -= (((logd - mu_b[tb]) / SIGMA_TASK) ** 2).sum() / 2
        ll -= (((mu_b - mu) / SIGMA_BENCHMARK) ** 2).sum() / 2
        return float(ll)

    by_task: dict[int, np.ndarray] = defaultdict(lambda: np.zeros(0, dtype=np.int64))
    for k in range(len(tasks)):
        by_task[k] = np.flatnonzero(ti == k)
    best = -math.inf
    for _ in range(iterations):
        # each task's log D given the curve and its benchmark's mean
        for k, idx in by_task.items():
            m = mu_b[tb[k]]

            def neg(ld: float, idx: np.ndarray = idx, m: float = m, c: np.ndarray = curve) -> float:
                return float(
                    -_loglik(loge[idx] - ld, y[idx], c).sum() + ((ld - m) / SIGMA_TASK) ** 2 / 2
                )

            res = minimize_scalar(
                neg,
                bounds=(m - 6 * SIGMA_TASK, m + 6 * SIGMA_TASK),
                method="bounded",
                options={"xatol": 1e-6},
            )
            logd[k] = float(res.x)
        # each benchmark's mean given its tasks (normal-normal: a precision-weighted mean)
        for b in range(len(benches)):
            ld = logd[tb == b]
            w_t, w_b = len(ld) / SIGMA_TASK**2, 1 / SIGMA_BENCHMARK**2
            mu_b[b] = (w_t * float(ld.mean()) + w_b * mu) / (w_t + w_b)
        mu = float(mu_b.mean())

        # the curve given every D
        def neg_curve(p: np.ndarray) -> float:
            return float(-_loglik(loge - logd[ti], y, p).sum())

        res = minimize(
            neg_curve, curve, method="L-BFGS-B", bounds=[(0.0, 1.0), (0.0, 1.0), (0.05, 8.0)]
        )
        curve = np.array(res.x)
        curve[1] = min(curve[1], 1.0 - curve[0])
        cur = objective()
        if cur - best < 1e-7:
            best = max(best, cur)
            break
        best = cur
    n_runs = np.bincount(ti, minlength=len(tasks))
    keys: dict[int, list[str]] = defaultdict(list)
    for r in rows:
        if r.key:
            keys[tix[r.task]].append(r.key)
    ll_prior = float(_loglik(loge - mu, y, curve).sum())
    return OutcomeCalibration(
        curve={
            "E_inf": _r(curve[0]),
            "E_0": _r(curve[0] + curve[1]),
            "z_0": 1.0,
            "alpha": _r(curve[2]),
        },
        tasks={
            t: {"D": _r(math.exp(logd[i])), "runs": int(n_runs[i]), "run_keys": sorted(keys[i])}
            for i, t in enumerate(tasks)
        },
        families={
            b: {"D": _r(math.exp(mu_b[i])), "tasks": int((tb == i).sum())}
            for i, b in enumerate(benches)
        },
        prior=math.exp(mu),
        runs=len(rows),
        loglik=float(_loglik(loge - logd[ti], y, curve).sum()),
        loglik_prior=ll_prior,
    )


def real_estimator_document(
    base: Estimator,
    cal: OutcomeCalibration,
    rows: list[OutcomeRow],
    *,
    corpus: dict[str, Any] | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """An efc-estimator/1 document for real traces: the base estimator's θ, prefix θ and
    adapter constants, and the task demand calibrated on ``rows``."""
    from efc_tui import __version__
    from efc_tui.scoring.constants import FEATURES
    from efc_tui.scoring.estimator import ESTIMATOR_SCHEMA

    by_source: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        by_source[r.source][0] += 1
        by_source[r.source][1] += int(r.success)
    return {
        "schema": ESTIMATOR_SCHEMA,
        "provenance": {
            "status": "calibrated",
            "kind": "real",
            "package_version": __version__,
            "command": command,
            "corpus": corpus or {},
            "seed": None,
            "base_estimator": {"source": base.source, "sha256": base.sha256},
            "theta": "kept from the base estimator (docs/calibration.md, Real runs)",
            "runs": {
                "labeled": len(rows),
                "successes": sum(int(r.success) for r in rows),
                "by_source": {
                    k: {"runs": v[0], "successes": v[1]} for k, v in sorted(by_source.items())
                },
            },
            "target": "task demand: maximum a-posteriori D per task from the runs' outcomes",
            "figures": {
                "demand": {
                    "loglik": _r(cal.loglik),
                    "loglik_prior": _r(cal.loglik_prior),
                    "runs": cal.runs,
                    "tasks": len(cal.tasks),
                }
            },
        },
        "features": list(FEATURES),
        "full": {"theta0": base.full.theta0, "theta": list(base.full.theta)},
        "prefix": {"theta0": base.prefix.theta0, "theta": list(base.prefix.theta)},
        "demand": cal.demand_block(),
        "adapter": {"window": base.window, "epsilon": base.epsilon},
    }


def cross_fitted(
    runs: list[Run], base: Estimator, by: str = "group", rows: list[OutcomeRow] | None = None
) -> tuple[list[Any], dict[str, int]]:
    """Ledgers of labeled ``runs`` in which every run's task demand was calibrated without
    its own agent × model (``by="group"``) or its own source format (``by="source"``):
    D_task from other agents' runs of the same task. Returns the ledgers (in input order) and
    how many runs each fold scored. ``rows``: ``outcome_rows`` of these runs under ``base``
    when the caller has them (rows of other runs are ignored)."""
    import orjson

    from efc_tui.scoring.estimator import parse_estimator
    from efc_tui.scoring.ledger import score_run

    if rows is None:
        rows = outcome_rows(runs, base)
    wanted = {run_key(r) for r in runs}
    by_key = {r.key: r for r in rows if r.key in wanted}
    fold_of = {
        run_key(r): (f"{r.harness or '?'} × {r.model or '?'}" if by == "group" else r.source_format)
        for r in runs
    }
    folds = sorted(set(fold_of.values()))
    ests: dict[str, Estimator] = {}
    for fold in folds:
        train = [r for k, r in by_key.items() if fold_of.get(k) != fold]
        cal = calibrate_outcomes(train)
        if cal is None:
            ests[fold] = base
            continue
        doc = real_estimator_document(base, cal, train)
        ests[fold] = parse_estimator(
            orjson.dumps(doc), f"{base.source} (cross-fitted without {fold})"
        )
    counts: dict[str, int] = defaultdict(int)
    ledgers = []
    for run in runs:
        fold = fold_of[run_key(run)]
        counts[fold] += 1
        ledgers.append(score_run(run, ests[fold]))
    return ledgers, dict(counts)
