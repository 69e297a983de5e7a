"""Calibrate the estimator on traces with oracle blocks (SPEC §3.4, §4, §6, §7).

Split (SPEC §7, "by template family and seed"): a run is *held-out (template)* when its
template (header ``template``; the task family when absent) or its task family is in the
held-out list, *held-out (seed)* when its task id hashes into the held-out share of task
seeds, and *calibration* otherwise. Every fit below uses calibration runs only.

- θ (full) and θ (prefix): least squares on log1p(y_t) = θ0 + θ·phi(e_t) over calibration
  events, closed form (``numpy.linalg.lstsq``). The target y_t is the event's Oracle-EFC,
  κ·I·V·R·M from its oracle block (SPEC §3.1). The prefix fit uses the prefix feature matrix
  (no z, m = the memory-write signal, p from the past) and drops the z column, so its z
  weight is exactly 0.
- Task demand (SPEC §4): for each calibration task solved by at least ``MIN_SOLVED`` runs,
  the demand target is the median Oracle-EFC of its successful runs — the effective
  feedback that task needed. log(target) is regressed on the log demand terms
  (L, H_tool, S_state, 1 + N_obs, 1 − V_ver), each divided by its calibration median first,
  so D_fitted ≈ 1 means "a typical task" and X = EFC / D_fitted ≈ 1 means "enough".
- Adapter W and ε (SPEC §6): chosen on the calibration runs by the ``adapter`` hook, given
  the newly fitted prefix θ (ε is in units of the prefix score that θ produces). The CLI
  passes ``efc_tui.adapter.choose_adapter``; without a hook, or when it finds nothing, the
  file keeps W = 6, ε = 0.02 and says "adapter constants not yet calibrated".

Reported quality: event-level R² of log1p(y) (in-sample and held-out), and run-level R² of
Estimated-EFC against Oracle-EFC, R² = 1 − Σ(O − Ê)² / Σ(O − Ō)², plus the squared
correlation (the R² of a linear fit of O on Ê).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from efc_tui import __version__
from efc_tui.model import Run
from efc_tui.scoring.constants import DEFAULT_SEED_FRACTION, FEATURES, THETA_METHODS
from efc_tui.scoring.demand import COMPONENTS, V_VER_CAP
from efc_tui.scoring.estimator import ESTIMATOR_SCHEMA, Theta
from efc_tui.scoring.factors import oracle_factors
from efc_tui.scoring.features import compute_features

CALIBRATION = "calibration"
HELDOUT_TEMPLATE = "heldout_template"
HELDOUT_SEED = "heldout_seed"
SPLITS = (CALIBRATION, HELDOUT_TEMPLATE, HELDOUT_SEED)

MIN_SOLVED = 3
Z_COLUMN = FEATURES.index("z")
DEFAULT_WINDOW = 6
DEFAULT_EPSILON = 0.02
DIGITS = 6


def _r4(x: float) -> float:
    """Four significant digits: the demand fit is iterative (stable to ~1e-6) and its
    bootstrap intervals are wider than that by far."""
    return float(f"{x:.4g}") if math.isfinite(x) else x


def _r(x: float) -> float:
    """Round for the estimator file: stable bytes across BLAS builds."""
    return float(f"{x:.{DIGITS}g}") if math.isfinite(x) else x


@dataclass(slots=True)
class RunRecord:
    """What calibration keeps of one run: its features, oracle targets and labels."""

    run_id: str
    task_id: str
    family: str
    template: str
    harness: str
    budget: Any
    success: bool | None
    split: str
    phi: np.ndarray  # (T, 9) post-hoc features
    phi_prefix: np.ndarray  # (T, 9) prefix features
    y: np.ndarray  # Oracle-EFC_t
    components: dict[str, float | None]

    @property
    def oracle_efc(self) -> float:
        return float(self.y.sum())


def split_of(run: Run, holdout: Sequence[str], seed_fraction: float) -> str:
    """Which split a run belongs to (module docstring)."""
    template = str(run.extra.get("template") or run.task_family or "")
    if template in holdout or (run.task_family or "") in holdout:
        return HELDOUT_TEMPLATE
    key = f"split:{run.task_id or run.run_id}"
    bucket = int.from_bytes(_digest(key)[:8], "big") / 2**64
    return HELDOUT_SEED if bucket < seed_fraction else CALIBRATION


def _digest(s: str) -> bytes:
    import hashlib

    return hashlib.sha256(s.encode()).digest()


def record(run: Run, split: str) -> RunRecord | None:
    """A run's calibration record, or None when its events lack oracle blocks."""
    f = compute_features(run)
    ofa = oracle_factors(run, f)
    if ofa is None:
        return None
    return RunRecord(
        run_id=run.run_id,
        task_id=run.task_id or run.run_id,
        family=run.task_family or "",
        template=str(run.extra.get("template") or run.task_family or ""),
        harness=run.harness or "",
        budget=(run.budget or {}).get("level"),
        success=run.success,
        split=split,
        phi=f.matrix(prefix=False),
        phi_prefix=f.matrix(prefix=True),
        y=ofa.efc,
        components=run.task_demand.as_dict() if run.task_demand else {},
    )


# -- θ -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ThetaFit:
    theta0: float
    theta: tuple[float, ...]
    r2: float  # event-level, log1p space, on the rows it was fitted on
    n_events: int

    def predict_log(self, phi: np.ndarray) -> np.ndarray:
        return self.theta0 + phi @ np.asarray(self.theta)

    def predict(self, phi: np.ndarray) -> np.ndarray:
        """ÊFC_t = max(0, exp(θ0 + θ·phi) − 1) (SPEC §3.4)."""
        return np.maximum(0.0, np.expm1(np.minimum(self.predict_log(phi), 50.0)))


def r_squared(observed: np.ndarray, predicted: np.ndarray) -> float:
    """1 − Σ(o − p)² / Σ(o − ō)²; nan when the observations do not vary."""
    o = np.asarray(observed, float)
    ss_tot = float(((o - o.mean()) ** 2).sum())
    if o.size < 2 or ss_tot <= 0:
        return float("nan")
    return 1.0 - float(((o - np.asarray(predicted, float)) ** 2).sum()) / ss_tot


def corr_squared(a: np.ndarray, b: np.ndarray) -> float:
    if len(a) < 2 or np.std(a) == 0 or np.std(b) == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1] ** 2)


def fit_theta(
    phi: np.ndarray, y: np.ndarray, *, drop: Sequence[int] = (), method: str = "poisson"
) -> ThetaFit:
    """θ of ÊFC_t = max(0, exp(θ0 + θ·phi) − 1) on [1, phi]; dropped columns get weight 0.

    ``lsq``: closed-form least squares of log1p(y) (SPEC §3.4, the paper's). It estimates
    E[log(1 + y) | phi], so exp(·) − 1 is a geometric, not an arithmetic, mean: on a target
    that is 0 or κ it underestimates every sum by the Jensen gap (a third on the default
    corpus). ``poisson`` (**Decision**, docs/equations.md): Poisson pseudo-maximum
    likelihood of 1 + y with a log link, which estimates E[1 + y | phi] itself, so run sums of
    ÊFC_t are unbiased for sums of y_t. It starts from the least-squares solution.
    """
    keep = [j for j in range(phi.shape[1]) if j not in set(drop)]
    X = np.column_stack([np.ones(len(phi)), phi[:, keep]])
    target = np.log1p(y)
    coef, *_ = np.linalg.lstsq(X, target, rcond=None)
    if method == "poisson" and len(y):
        coef = _poisson(X, 1.0 + y, coef)
    elif method not in THETA_METHODS:
        raise ValueError(f"unknown θ method {method!r}")
    theta = np.zeros(phi.shape[1])
    theta[keep] = coef[1:]
    fit = ThetaFit(float(coef[0]), tuple(float(x) for x in theta), float("nan"), len(y))
    return ThetaFit(fit.theta0, fit.theta, r_squared(target, fit.predict_log(phi)), len(y))


def _poisson(X: np.ndarray, mu_target: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Poisson pseudo-ML with a log link by Newton–Raphson (IRLS), from ``start``."""
    coef = np.asarray(start, dtype=float).copy()
    n = len(mu_target)

    def loss(c: np.ndarray) -> float:
        eta = np.clip(X @ c, -30.0, 30.0)
        return float((np.exp(eta) - mu_target * eta).sum() / n)

    cur = loss(coef)
    for _ in range(100):
        eta = np.clip(X @ coef, -30.0, 30.0)
        mu = np.exp(eta)
        grad = X.T @ (mu - mu_target) / n
        hess = (X * mu[:, None]).T @ X / n + 1e-9 * np.eye(X.shape[1])
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while t > 1e-6:  # backtracking keeps every step a descent step
            cand = coef - t * step
            new = loss(cand)
            if new <= cur:
                break
            t /= 2
        else:
            break
        coef, done = cand, cur - new < 1e-12
        cur = new
        if done or float(np.abs(t * step).max()) < 1e-10:
            break
    return coef


def _rounded(fit: ThetaFit) -> ThetaFit:
    return ThetaFit(_r(fit.theta0), tuple(_r(x) for x in fit.theta), fit.r2, fit.n_events)


def _stack(records: Iterable[RunRecord], prefix: bool) -> tuple[np.ndarray, np.ndarray]:
    rs = [r for r in records if len(r.y)]
    if not rs:
        return np.zeros((0, len(FEATURES))), np.zeros(0)
    phi = np.vstack([r.phi_prefix if prefix else r.phi for r in rs])
    return phi, np.concatenate([r.y for r in rs])


def theta_quality(fit: ThetaFit, records: list[RunRecord], prefix: bool) -> dict[str, Any]:
    """Event-level R² of log1p(y) and run-level R² of Estimated vs Oracle EFC."""
    if not records:
        return {"runs": 0}
    phi, y = _stack(records, prefix)
    oracle = np.array([r.oracle_efc for r in records])
    est = np.array([float(fit.predict(r.phi_prefix if prefix else r.phi).sum()) for r in records])
    return {
        "runs": len(records),
        "events": len(y),
        "event_r2_log1p": _r(r_squared(np.log1p(y), fit.predict_log(phi))),
        "run_r2": _r(r_squared(oracle, est)),
        "run_corr2": _r(corr_squared(oracle, est)),
        "oracle_mean": _r(float(oracle.mean())),
        "estimated_mean": _r(float(est.mean())),
    }


# -- task demand ---------------------------------------------------------------------------


def demand_terms(components: dict[str, float | None]) -> dict[str, float] | None:
    """The five terms as they enter D_task (SPEC §4), or None when any is unknown."""
    if any(components.get(k) is None for k in COMPONENTS):
        return None
    c = {k: float(components[k]) for k in COMPONENTS}  # type: ignore[arg-type]
    return {
        "L": c["L"],
        "H_tool": c["H_tool"],
        "S_state": c["S_state"],
        "N_obs": 1.0 + c["N_obs"],
        "V_ver": 1.0 - min(c["V_ver"], V_VER_CAP),
    }


@dataclass(slots=True)
class DemandFit:
    beta: tuple[float, ...]
    medians: dict[str, float]
    #: per-run log-likelihood of the collapse curve: fitted exponents, and all exponents 1
    loglik: float
    loglik_hand: float
    runs: int
    tasks: int
    skipped_runs: int
    #: 95% task-bootstrap intervals of β1..β5 (name -> [lo, hi]), when bootstrapped
    intervals: dict[str, list[float]] = field(default_factory=dict)
    resamples: int = 0
    #: the collapse curve (saturating law on Oracle-EFC / D_fitted, median-normalized)
    curve: dict[str, float] = field(default_factory=dict)


def _collapse_nll(
    params: np.ndarray, logx: np.ndarray, T: np.ndarray, y: np.ndarray, w: np.ndarray
) -> tuple[float, np.ndarray]:
    """Negative Bernoulli log-likelihood of success under the saturating collapse curve
    E = E_inf + gap / (1 + exp(α (log z − log z_0))), log z = log x − T·β, and its gradient."""
    k = T.shape[1]
    beta, (e_inf, gap, logz0, alpha) = params[:k], params[k:]
    logz = logx - T @ beta
    d = logz - logz0
    s = 1.0 / (1.0 + np.exp(np.clip(alpha * d, -50.0, 50.0)))
    e = np.clip(e_inf + gap * s, 1e-6, 1 - 1e-6)
    W = float(w.sum())
    nll = float(-(w * (y * np.log1p(-e) + (1 - y) * np.log(e))).sum() / W)
    g = w * (y / (1 - e) - (1 - y) / e) / W  # dNLL/dE per run
    ds = -s * (1 - s)  # ds/du, u = α·d
    grad = np.empty_like(params)
    grad[:k] = T.T @ (g * gap * ds * -alpha)  # du/dβ = −α·T
    grad[k] = g.sum()
    grad[k + 1] = (g * s).sum()
    grad[k + 2] = (g * gap * ds * -alpha).sum()
    grad[k + 3] = (g * gap * ds * d).sum()
    return nll, grad


def _fit_collapse(
    logx: np.ndarray,
    T: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    start: np.ndarray,
    free_beta: bool = True,
    restarts: bool = True,
) -> tuple[np.ndarray, float]:
    from scipy.optimize import minimize

    k = T.shape[1]
    lo = [-3.0] * k + [0.0, 0.0, -12.0, 0.05]
    hi = [5.0] * k + [1.0, 1.0, 12.0, 8.0]
    if not free_beta:
        lo[:k] = hi[:k] = list(start[:k])
    best: tuple[np.ndarray, float] | None = None
    for a0 in (start[-1], 0.7, 2.0) if restarts else (start[-1],):
        x0 = start.copy()
        x0[-1] = a0
        res = minimize(
            _collapse_nll,
            x0,
            args=(logx, T, y, w),
            jac=True,
            method="L-BFGS-B",
            bounds=list(zip(lo, hi, strict=True)),
            options={"ftol": 1e-13, "gtol": 1e-9, "maxiter": 2000},
        )
        if best is None or res.fun < best[1]:
            best = (res.x, float(res.fun))
    assert best is not None
    return best


def fit_demand(records: list[RunRecord], *, bootstrap: int = 0, seed: int = 0) -> DemandFit | None:
    """Exponents β1..β5 of the fitted D_task, fitted for curve collapse (SPEC §4; paper §5.2).

    On calibration runs with every demand component known and a success label, β (and the
    four parameters of a saturating collapse curve, ``efc_tui.fitting.saturating``) maximize
    the Bernoulli likelihood of success given X = Oracle-EFC / D_fitted, with
    D_fitted = exp(β0)·Π (term / median)^β over the terms L, H_tool, S_state, 1 + N_obs,
    1 − V_ver, medians over the calibration runs. β0 = Σ log(median) keeps D_fitted on the
    scale of the hand form at a typical task (it cancels under median normalization).
    ``bootstrap`` task-level resamples give 95% percentile intervals of β1..β5.
    """
    rows = [(r, demand_terms(r.components)) for r in records if r.success is not None]
    usable = [(r, t) for r, t in rows if t is not None and r.oracle_efc > 0]
    skipped = len(records) - len(usable)
    if len(usable) < 20 or len({r.task_id for r, _ in usable}) < len(COMPONENTS) + 2:
        return None
    medians = {k: float(np.median([t[k] for _, t in usable])) for k in COMPONENTS}
    T = np.array(
        [[math.log(max(t[k], 1e-9) / max(medians[k], 1e-9)) for k in COMPONENTS] for _, t in usable]
    )
    x = np.array([r.oracle_efc for r, _ in usable])
    logx = np.log(x / float(np.median(x)))
    y = np.array([float(bool(r.success)) for r, _ in usable])
    w = np.ones(len(y))
    start = np.array([1.0] * len(COMPONENTS) + [0.05, 0.7, 0.0, 1.5])
    hand, nll_hand = _fit_collapse(logx, T, y, w, start, free_beta=False)
    params, nll = _fit_collapse(logx, T, y, w, hand)
    beta = params[: len(COMPONENTS)]
    intervals: dict[str, list[float]] = {}
    if bootstrap > 0:
        tasks = np.array([r.task_id for r, _ in usable])
        uniq, inv = np.unique(tasks, return_inverse=True)
        rng = np.random.default_rng(seed)
        draws = []
        for _ in range(bootstrap):
            counts = np.bincount(rng.integers(0, len(uniq), len(uniq)), minlength=len(uniq))
            wb = counts[inv].astype(float)
            if wb.sum() == 0:
                continue
            pb, _ = _fit_collapse(logx, T, y, wb, params, restarts=False)
            draws.append(pb[: len(COMPONENTS)])
        if draws:
            arr = np.array(draws)
            for j, k in enumerate(COMPONENTS):
                lo, hi = np.percentile(arr[:, j], [2.5, 97.5])
                intervals[k] = [_r4(float(lo)), _r4(float(hi))]
    beta0 = sum(math.log(max(medians[k], 1e-9)) for k in COMPONENTS)
    e_inf, gap, logz0, alpha = params[-4:]
    curve = {
        "E_inf": _r4(float(e_inf)),
        "E_0": _r4(float(e_inf + gap)),
        "z_0": _r4(float(math.exp(logz0))),
        "alpha": _r4(float(alpha)),
    }
    n = len(y)
    return DemandFit(
        (float(beta0), *(float(b) for b in beta)),
        medians,
        -nll * n,
        -nll_hand * n,
        n,
        len({r.task_id for r, _ in usable}),
        skipped,
        intervals,
        bootstrap,
        curve,
    )


# -- the whole calibration -------------------------------------------------------------------


@dataclass
class Calibration:
    """Everything ``calibrate`` produces: the estimator document and its report."""

    estimator: dict[str, Any]
    records: list[RunRecord] = field(repr=False, default_factory=list)
    skipped_runs: int = 0
    #: held-out names that matched no run's template or family (a typo?)
    unmatched_holdout: list[str] = field(default_factory=list)

    @property
    def figures(self) -> dict[str, Any]:
        return dict(self.estimator["provenance"]["figures"])


#: picks W and ε from the calibration runs and the fitted prefix θ (``choose_adapter``)
AdapterChooser = Callable[[list[Run], Theta], dict[str, Any] | None]


def calibrate(
    runs: Iterable[Run],
    *,
    holdout: Sequence[str],
    seed_fraction: float = DEFAULT_SEED_FRACTION,
    corpus: dict[str, Any] | None = None,
    command: str | None = None,
    adapter: AdapterChooser | None = None,
    theta_method: str = "poisson",
    demand_bootstrap: int = 100,
    seed: int = 0,
) -> Calibration:
    """Fit θ (full and prefix), the demand exponents and (when ``adapter`` is given and
    works) the adapter's W and ε; report quality per split and record provenance."""
    records: list[RunRecord] = []
    calib_runs: list[Run] = []
    skipped = 0
    seeds: set[Any] = set()
    for run in runs:
        split = split_of(run, holdout, seed_fraction)
        rec = record(run, split)
        if rec is None:
            skipped += 1
            continue
        records.append(rec)
        if "corpus_seed" in run.extra:
            seeds.add(run.extra["corpus_seed"])
        if split == CALIBRATION and adapter is not None:
            calib_runs.append(run)
    by_split = {s: [r for r in records if r.split == s] for s in SPLITS}
    calib = by_split[CALIBRATION]
    if not calib:
        from efc_tui.errors import InputError

        raise InputError(
            f"no calibration runs with oracle blocks ({len(records)} oracle runs, {skipped} without; "
            "all held out?)"
        )
    # the file carries θ rounded to DIGITS; every figure below describes those numbers
    full = _rounded(fit_theta(*_stack(calib, prefix=False), method=theta_method))
    prefix = _rounded(fit_theta(*_stack(calib, prefix=True), drop=[Z_COLUMN], method=theta_method))
    dem = fit_demand(calib, bootstrap=demand_bootstrap, seed=seed)
    adapter_block: dict[str, Any] = {"window": DEFAULT_WINDOW, "epsilon": DEFAULT_EPSILON}
    adapter_status = "adapter constants not yet calibrated"
    if adapter is not None:
        chosen = adapter(calib_runs, Theta(prefix.theta0, prefix.theta))
        if chosen:
            adapter_block = {
                "window": int(chosen["window"]),
                "epsilon": _r(float(chosen["epsilon"])),
            }
            adapter_status = str(chosen.get("status", "calibrated"))
            extra = {
                k: _r(v) if isinstance(v, float) else v
                for k, v in chosen.items()
                if k not in ("window", "epsilon", "status")
            }
            if extra:
                adapter_block["calibration"] = extra

    figures: dict[str, Any] = {
        "full": {s: theta_quality(full, by_split[s], prefix=False) for s in SPLITS},
        "prefix": {s: theta_quality(prefix, by_split[s], prefix=True) for s in SPLITS},
    }
    if dem is not None:
        figures["demand"] = {
            "loglik": _r4(dem.loglik),
            "loglik_hand": _r4(dem.loglik_hand),
            "runs": dem.runs,
            "tasks": dem.tasks,
            "runs_skipped": dem.skipped_runs,
        }
    provenance: dict[str, Any] = {
        "status": "calibrated",
        "package_version": __version__,
        "command": command,
        "corpus": corpus or {},
        "seed": sorted(seeds)[0] if len(seeds) == 1 else sorted(seeds, key=str),
        "split": {
            "rule": "held out: template (or task family) in the list, or task id hashed into "
            "the held-out seed share; the rest is calibration",
            "holdout_templates": list(holdout),
            "holdout_seed_fraction": seed_fraction,
            "runs": {s: len(by_split[s]) for s in SPLITS},
            "runs_without_oracle": skipped,
        },
        "target": "y_t = Oracle-EFC_t = kappa I V R M from the oracle block (SPEC 3.1); "
        + (
            "1 + y_t = exp(theta0 + theta . phi) by Poisson pseudo-maximum likelihood"
            if theta_method == "poisson"
            else "fit log1p(y_t) = theta0 + theta . phi (closed-form least squares)"
        ),
        "theta_method": theta_method,
        "adapter": adapter_status,
        "figures": figures,
    }
    est: dict[str, Any] = {
        "schema": ESTIMATOR_SCHEMA,
        "provenance": provenance,
        "features": list(FEATURES),
        "full": {"theta0": full.theta0, "theta": list(full.theta)},
        "prefix": {"theta0": prefix.theta0, "theta": list(prefix.theta)},
        "demand": None
        if dem is None
        else {
            "beta": [_r4(b) for b in dem.beta],
            "medians": {k: _r(v) for k, v in dem.medians.items()},
            "intervals": dem.intervals,
            "bootstrap": {"resamples": dem.resamples, "unit": "task", "confidence": 0.95},
            "target": "curve collapse: the exponents maximize the Bernoulli likelihood of "
            "success under a saturating failure curve of Oracle-EFC / D_fitted "
            "on the calibration runs",
            "collapse_curve": dem.curve,
            "terms": "L, H_tool, S_state, 1 + N_obs, 1 - V_ver, each divided by its median",
        },
        "adapter": adapter_block,
    }
    names = {r.template for r in records} | {r.family for r in records}
    return Calibration(est, records, skipped, [h for h in holdout if h not in names])
