"""Scaling fits over a corpus: grouping, the predictor comparison, bootstrap, held-out
evaluation and the choice of the primary curve (SPEC §5, paper §3.4 and §6.1).

Protocol (docs/fitting.md says why at each step):

1. Runs without a success label are left out (counted). **One set of runs for every
   predictor**: the labeled runs on which every compared, available predictor has a value
   (a predictor no run has is "unavailable" and does not count). Runs are grouped (default
   task_family × harness × model × budget); group i gives the observed failure rate
   Ē_i = 1 − mean success and z_i = Σ num / Σ den over its runs: the ratio of group means
   for a ratio predictor (NRS-EFC / D_task), the mean for a single figure.
2. **z ≤ 0 is floored**, never dropped: z_floor = ½ × the smallest positive z_i of the
   predictor's training groups, and every z (group or run) is max(z, z_floor).
3. z is median-normalized: z_i / median_i(z_i), the median over the fitted groups.
4. The capped model Ê(z) = min(1, E_inf + A·z^(−α)) is fitted by bounded least squares
   (``powerlaw``), every group weighing the same.
5. Validity figures (``validity``): grouped R², MAE and the groups' noise ceiling; per-run
   AUC, Brier, the base rate's Brier and the Brier skill, a run's prediction being the curve
   at its own (floored) z. In-sample, and held-out on every axis.
6. Task-level bootstrap: tasks resampled with replacement, groups recomputed (Σ num and
   Σ den of the resampled runs), the curve refitted; percentile intervals of E_inf, A, α,
   R², MAE. The median and z_floor stay the full-data ones.
7. Held-out: a task-level cross-validation (``tasks``, always), and each ``--holdout``
   axis: per split the curve is fitted on the training runs alone (their groups, median and
   z_floor) and predicts the held-out runs' groups and the runs themselves; figures pooled
   over splits.
8. The primary curve: among the EFC curves a user's trace can compute (EFC, EFC/D_task, η;
   not Oracle-EFC, SAS or a raw baseline), the best held-out Brier
   skill on the selection axis among those better than the base rate (held-out Brier below
   it, AUC above ½); none when none is.

With fewer than 3 groups (one job: one agent, one model) the analysis is **per run**: each
predictor's runs are binned into quantile bins of z and the curve is fitted on the bins.

SAS is fitted over the same groups (cells) by ``sas.fit_sas``.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from efc_tui.errors import InputError
from efc_tui.fitting.curves import DEFAULT_CURVE, CurveModel, Law, get_model
from efc_tui.fitting.powerlaw import r2_mae_batch
from efc_tui.fitting.predictors import AUTO_PRIMARY, BY_NAME, PREDICTORS, Predictor
from efc_tui.fitting.sas import SasInputs, SasModel, fit_sas, pick_reference, refit_batch
from efc_tui.fitting.table import MISSING, RunTable, check_axes, require_outcomes
from efc_tui.fitting.validity import GroupFigures, RunFigures, group_figures, run_figures

DEFAULT_GROUP_BY: tuple[str, ...] = ("task_family", "harness", "model", "budget")
#: a 3-parameter curve needs at least this many groups
MIN_GROUPS = 3
CONFIDENCE = 0.95
#: folds of the task-level cross-validation that always runs (held-out axis ``tasks``)
CV_FOLDS = 5
TASKS = "tasks"
#: the paper's held-out axes; "combined" leaves out a family, a harness and a model at once
#: (those of them that vary in the corpus); "source" leaves out where runs came from
HOLDOUT_PRESETS: dict[str, tuple[str, ...]] = {
    "task_family": ("task_family",),
    "harness": ("harness",),
    "model": ("model",),
    "budget": ("budget",),
    "source": ("source",),
    "combined": ("task_family", "harness", "model"),
}
#: held-out axes that need not be grouping axes (their held-out groups are the groups of
#: the held-out runs)
RUN_AXES: tuple[str, ...] = ("source",)
#: per-run analysis: runs per quantile bin, and the bounds on the number of bins
RUNS_PER_BIN = 10
BINS_MIN, BINS_MAX = 3, 10


@dataclass(slots=True)
class Grouping:
    by: tuple[str, ...]
    codes: np.ndarray  # group index of each run
    keys: list[tuple[str, ...]]

    @property
    def n_groups(self) -> int:
        return len(self.keys)

    def key_dict(self, g: int) -> dict[str, str]:
        return dict(zip(self.by, self.keys[g], strict=True))


def make_grouping(table: RunTable, by: Sequence[str]) -> Grouping:
    """Group index of every run and the sorted group keys (tuples of labels, one per axis)."""
    by = check_axes(by)
    if len(table) == 0:
        return Grouping(by, np.zeros(0, dtype=np.int64), [])
    combined = np.zeros(len(table), dtype=np.int64)
    values: list[list[str]] = []
    for a in by:
        codes, vals = table.codes(a)
        combined = combined * len(vals) + codes
        values.append(vals)
    uniq, inverse = np.unique(combined, return_inverse=True)
    keys = []
    for u in uniq.tolist():
        parts = []
        for vals in reversed(values):
            u, i = divmod(u, len(vals))
            parts.append(vals[i])
        keys.append(tuple(reversed(parts)))
    return Grouping(by, inverse.astype(np.int64), keys)


@dataclass(slots=True)
class Coord:
    """One predictor on the compared runs: per-run numerator, denominator and z = num/den,
    and the groups its points are made of (the corpus grouping, or its quantile bins in a
    per-run analysis)."""

    num: np.ndarray
    den: np.ndarray
    z: np.ndarray
    codes: np.ndarray
    keys: list[dict[str, str]]
    #: per-run analysis: the lowest z of each bin (how new runs are binned)
    bin_lower: list[float] | None = None

    @property
    def n_groups(self) -> int:
        return len(self.keys)


@dataclass(slots=True)
class Points:
    """Per-group aggregates of one predictor (arrays of length n_groups)."""

    n_runs: np.ndarray
    n_tasks: np.ndarray
    failure: np.ndarray  # Ē_i (NaN for groups without runs)
    z: np.ndarray  # z_i = Σ num / Σ den (NaN for groups without runs)


def group_points(
    num: np.ndarray, den: np.ndarray, success: np.ndarray, codes: np.ndarray, n_groups: int,
    tasks: np.ndarray | None = None, mask: np.ndarray | None = None,
) -> Points:
    """Per-group run counts, task counts (when ``tasks`` is given), Ē_i and
    z_i = Σ num / Σ den over the runs (in ``mask``) where num, den and success are known."""
    G = n_groups
    ok = np.isfinite(num) & np.isfinite(den) & np.isfinite(success)
    if mask is not None:
        ok &= mask
    c = codes[ok]
    n = np.bincount(c, minlength=G).astype(float)
    f = np.bincount(c, weights=1.0 - success[ok], minlength=G)
    ns = np.bincount(c, weights=num[ok], minlength=G)
    ds = np.bincount(c, weights=den[ok], minlength=G)
    nt = np.full(G, np.nan)
    if tasks is not None:
        width = int(tasks.max()) + 1 if len(tasks) else 1
        pairs = np.unique(c * width + tasks[ok])
        nt = np.bincount(pairs // width, minlength=G).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return Points(n, nt, np.where(n > 0, f / n, np.nan), np.where((n > 0) & (ds > 0), ns / ds, np.nan))


def floor_of(z: np.ndarray) -> float | None:
    """z_floor = ½ × the smallest positive value of ``z`` (None when none is positive)."""
    pos = z[np.isfinite(z) & (z > 0)]
    return None if pos.size == 0 else 0.5 * float(pos.min())


@dataclass(slots=True)
class Interval:
    lo: float
    hi: float

    def as_list(self) -> list[float]:
        return [self.lo, self.hi]


@dataclass(slots=True)
class BootstrapResult:
    n_resamples: int
    n_ok: int
    intervals: dict[str, Interval]


@dataclass(slots=True)
class HeldOutGroup:
    group: int
    observed: float  # Ē of the group's held-out runs
    predicted: float  # Ê
    runs: int = 0


@dataclass(slots=True)
class Split:
    held_out: dict[str, str]
    train_groups: list[int]
    test_groups: list[HeldOutGroup]
    status: str = "ok"
    reason: str | None = None
    law: Law | None = None
    median: float | None = None
    z_floor: float | None = None
    train_runs: int = 0
    test_runs: int = 0
    #: the training runs' success rate: the base-rate prediction of this split
    base_rate: float | None = None


@dataclass(slots=True)
class Holdout:
    name: str
    axes: tuple[str, ...]
    splits: list[Split]
    groups: GroupFigures
    runs: RunFigures
    notes: list[str] = field(default_factory=list)

    @property
    def r2(self) -> float | None:
        return self.groups.r2

    @property
    def mae(self) -> float | None:
        return self.groups.mae

    @property
    def n_groups(self) -> int:
        return self.groups.groups


@dataclass(slots=True)
class PredictorFit:
    """One row of the comparison: a predictor's fit, figures, intervals, held-out results."""

    predictor: Predictor
    status: str  # "ok", "degenerate" or "unavailable"
    reason: str | None = None
    law: Law | None = None
    median: float | None = None
    #: ½ × the smallest positive group z: every z below it is raised to it
    z_floor: float | None = None
    #: groups whose z was ≤ 0 (raised to z_floor)
    floored: int = 0
    r2: float | None = None
    mae: float | None = None
    n_runs: int = 0
    #: the groups fitted (index into the predictor's groups) with observed and predicted failure
    fitted: list[int] = field(default_factory=list)
    points: Points | None = None
    predicted: np.ndarray | None = None
    method: str | None = None
    at_bounds: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)
    bootstrap: BootstrapResult | None = None
    holdouts: list[Holdout] = field(default_factory=list)
    sas: SasModel | None = None
    coord: Coord | None = None
    #: in-sample validity figures
    groups_in: GroupFigures | None = None
    runs_in: RunFigures | None = None
    #: the held-out axis the primary curve is chosen on, and whether this curve beats the
    #: base rate there (None: no held-out figures)
    selection: str | None = None
    predictive: bool | None = None

    @property
    def name(self) -> str:
        return self.predictor.name

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def holdout(self, name: str | None) -> Holdout | None:
        return next((h for h in self.holdouts if h.name == name), None)

    @property
    def held(self) -> Holdout | None:
        """The held-out figures on the selection axis."""
        return self.holdout(self.selection)


@dataclass(slots=True)
class CorpusFit:
    grouping: Grouping
    fits: list[PredictorFit]
    #: the curve `score --fit` and the app use; None when no curve qualifies
    primary: str | None
    n_runs_total: int
    n_runs_labeled: int
    n_tasks: int
    bootstrap: int
    seed: int
    sas_reference: str | None
    notes: list[str] = field(default_factory=list)
    #: why the primary is what it is (chosen, forced, or why there is none)
    primary_reason: str | None = None
    #: "auto" or "forced"
    primary_mode: str = AUTO_PRIMARY
    #: the held-out axis the primary was chosen on
    selection: str | None = None
    #: "groups", or "per_run" (quantile bins of each predictor) when there are < 3 groups
    analysis: str = "groups"
    #: runs compared (labeled, every available predictor known)
    n_runs_compared: int = 0
    n_sources: int = 0
    base_rate: float | None = None
    cv_folds: int = 0
    holdout_names: list[str] = field(default_factory=list)
    #: the failure curve every predictor was fitted with (``efc_tui.fitting.curves``)
    curve: CurveModel = field(default_factory=lambda: get_model(DEFAULT_CURVE))
    #: the reader formats of the compared runs, and whether they carried oracle blocks
    #: ("synthetic") or not ("real"): what a fit says about the runs it fits
    formats: list[str] = field(default_factory=list)
    kind: str = "real"

    def get(self, name: str) -> PredictorFit:
        for f in self.fits:
            if f.name == name:
                return f
        raise KeyError(name)

    @property
    def primary_fit(self) -> PredictorFit | None:
        return None if self.primary is None else self.get(self.primary)


def _unavailable_reason(p: Predictor) -> str:
    fields = {p.num, p.den}
    if "oracle_efc" in fields:
        return "no run has Oracle-EFC (only synthetic traces with oracle blocks do)"
    if "d_task_fitted" in fields:
        return "no run has a fitted D_task (the estimator has no demand exponents; run `efc-tui calibrate`)"
    if "wall_s" in fields:
        return "no run has wall time"
    return f"no run has a finite {p.num}" + (f"/{p.den}" if p.den else "")


def quantile_bins(z: np.ndarray) -> tuple[np.ndarray, list[float]]:
    """Per-run analysis: runs binned by z into B = clamp(⌊n / RUNS_PER_BIN⌋, 3, 10) quantile
    bins; runs with equal z share a bin, so there can be fewer. Returns each run's bin index
    (0..k−1, ascending z) and the lowest z of each bin."""
    n = z.size
    B = min(BINS_MAX, max(BINS_MIN, n // RUNS_PER_BIN))
    below = np.searchsorted(np.sort(z), z, side="left")  # runs with a strictly smaller z
    raw = (below * B) // max(n, 1)
    uniq, codes = np.unique(raw, return_inverse=True)
    lower = [float(z[codes == k].min()) for k in range(len(uniq))]
    return codes.astype(np.int64), lower


def _user_computable(p: Predictor, has_oracle: bool) -> bool:
    """Can this curve be the primary, the EFC scaling curve a user's own trace is placed on?
    An EFC coordinate (EFC, EFC/D_task, η) a trace can compute as the fit computed it: not
    Oracle-EFC (synthetic traces only), not SAS (a cell regression), not eta when the corpus
    had oracle blocks (its EFC was then the oracle's), and not a raw-compute baseline
    (**Decision**: the panel shows where a run sits on an effective-feedback curve; a raw
    baseline that predicts better is in the comparison table, not in the panel)."""
    if not p.curve or p.needs_oracle or p.family in ("raw", "baseline"):
        return False
    return not (p.name == "eta" and has_oracle)


# ---------------------------------------------------------------- point fits


def _fit_curve(p: Predictor, coord: Coord, s: np.ndarray, tasks: np.ndarray, model: CurveModel) -> PredictorFit:
    pts = group_points(coord.num, coord.den, s, coord.codes, coord.n_groups, tasks)
    use = np.flatnonzero(pts.n_runs > 0)
    fit = PredictorFit(p, "ok", points=pts, n_runs=int(pts.n_runs[use].sum()), fitted=use.tolist(), coord=coord)
    zg = pts.z[use]
    z_floor = floor_of(zg)
    if z_floor is None:
        fit.status, fit.reason = "degenerate", "every group has z ≤ 0: no scale to fit a curve on"
        return fit
    fit.z_floor = z_floor
    fit.floored = int((zg <= 0).sum())
    if fit.floored:
        fit.notes.append(f"{fit.floored} group{'s' if fit.floored != 1 else ''} with z ≤ 0 floored at "
                         f"z_floor = ½ × the smallest positive group z ({z_floor:.4g})")
    if len(use) < MIN_GROUPS:
        fit.status = "degenerate"
        fit.reason = f"{len(use)} groups; a 3-parameter curve needs at least {MIN_GROUPS}"
        return fit
    zf = np.maximum(zg, z_floor)
    if np.ptp(zf) <= 1e-12 * float(np.max(np.abs(zf))):
        fit.status = "degenerate"
        fit.reason = f"every group has the same z ({zf[0]:.4g}): nothing to fit a curve to"
        return fit
    median = float(np.median(zf))
    law, method, at_bounds = model.fit(zf / median, pts.failure[use])
    pred = law.curve(zf / median)
    fit.law, fit.median, fit.method, fit.at_bounds = law, median, method, at_bounds
    fit.predicted = pred
    fit.groups_in = group_figures(pts.failure[use], pred, pts.n_runs[use])
    fit.r2, fit.mae = fit.groups_in.r2, fit.groups_in.mae
    run_success = 1.0 - law.failure(np.maximum(coord.z, z_floor) / median)
    fit.runs_in = run_figures(s, run_success, float(np.mean(s)))
    if fit.r2 is None:
        fit.notes.append("every group has the same failure rate: R² undefined")
    if len(use) <= 4:
        fit.notes.append(f"only {len(use)} groups: R² of a 3-parameter curve means little")
    if at_bounds:
        fit.notes.append("on a bound: " + ", ".join(at_bounds))
    return fit


def _fit_sas(n_runs: int, codes: np.ndarray, s: np.ndarray, inputs: SasInputs | None, per_run: bool) -> PredictorFit:
    p = BY_NAME["sas"]
    if per_run:
        return PredictorFit(p, "degenerate", "fewer than 3 groups (per-run analysis): SAS is a regression "
                                             f"over cells and needs at least {MIN_GROUPS}")
    if inputs is None or inputs.reference is None:
        return PredictorFit(p, "unavailable", "no harness labels: SAS needs a reference harness")
    ones = np.ones(n_runs)
    X, fail, wsum = inputs.cells(ones, ones)
    use = np.flatnonzero(wsum > 0)
    fit = PredictorFit(p, "ok", n_runs=n_runs, fitted=use.tolist(), notes=list(inputs.notes))
    if len(use) < MIN_GROUPS:
        fit.status, fit.reason = "degenerate", f"{len(use)} cells; SAS needs at least {MIN_GROUPS}"
        return fit
    model = fit_sas(X[use], fail[use])
    pred = model.predict(X[use])
    fit.sas = model
    fit.predicted = pred
    fit.points = Points(wsum, np.full(len(wsum), np.nan), fail, np.full(len(wsum), np.nan))
    fit.groups_in = group_figures(fail[use], pred, wsum[use])
    fit.r2, fit.mae = fit.groups_in.r2, fit.groups_in.mae
    cell_pred = np.full(len(wsum), np.nan)
    cell_pred[use] = pred
    fit.runs_in = run_figures(s, 1.0 - cell_pred[codes], float(np.mean(s)))
    fit.method = f"OLS, SAS-{model.variant}, {1 + len(model.terms)} parameters"
    if fit.r2 is None:
        fit.notes.append("every cell has the same failure rate: R² undefined")
    if not model.terms:
        fit.notes.append("every SAS column was constant or collinear: intercept only")
    return fit


# ---------------------------------------------------------------- bootstrap


def _percentile(values: np.ndarray, conf: float = CONFIDENCE) -> Interval | None:
    v = values[np.isfinite(values)]
    if v.size < 2:
        return None
    lo, hi = np.percentile(v, [50 * (1 - conf), 50 * (1 + conf)])
    return Interval(float(lo), float(hi))


def _chunk_counts(rng: np.random.Generator, n_tasks: int, b: int) -> np.ndarray:
    """(b, n_tasks) multiplicities: each row draws n_tasks tasks with replacement."""
    idx = rng.integers(0, n_tasks, size=(b, n_tasks))
    flat = (idx + (np.arange(b, dtype=np.int64) * n_tasks)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n_tasks).reshape(b, n_tasks).astype(float)


#: runs bootstrap resamples elsewhere (``efc-tui fit --dask``: on Dask workers). Called as
#: ``bootstrap_map(function, resampler, pieces)``; returns ``function(piece, resampler)`` for
#: every piece, in order. Pieces are (resamples × tasks) multiplicity counts (int32).
BootstrapMap = Callable[
    [Callable[[np.ndarray, "Resampler"], dict[str, dict[str, np.ndarray]]], "Resampler",
     Iterator[np.ndarray]],
    Iterable[dict[str, dict[str, np.ndarray]]],
]
#: resamples per piece sent to a bootstrap_map (a multiple of the SAS slice)
PIECE_RESAMPLES = 125


@dataclass(frozen=True)
class _CurveSpec:
    name: str
    offset: int
    n_groups: int
    fitted: np.ndarray
    median: float
    z_floor: float


@dataclass(frozen=True)
class Resampler:
    """Everything a batch of bootstrap resamples needs, and nothing of the run table: it
    pickles, so batches can be fitted in another process (a Dask worker) with the same
    functions, giving the same numbers."""

    M: Any  # sparse (tasks × Σ 4·G_p): per curve, run counts, failures, Σ num, Σ den
    curves: tuple[_CurveSpec, ...]
    sas_name: str | None
    sas_model: SasModel | None
    sas_inputs: SasInputs | None
    tasks: np.ndarray
    sas_slice: int
    #: the failure curve refitted (saturating or power)
    model: CurveModel

    def curve(self, k: int, S: np.ndarray) -> dict[str, np.ndarray]:
        """The curve's parameters, R² and MAE refitted on each resample (NaN: no curve)."""
        spec = self.curves[k]
        G, o = spec.n_groups, spec.offset
        n = S[:, o:o + G]
        fail = S[:, o + G:o + 2 * G]
        num = S[:, o + 2 * G:o + 3 * G]
        den = S[:, o + 3 * G:o + 4 * G]
        use = np.zeros(G, dtype=bool)
        use[spec.fitted] = True
        with np.errstate(invalid="ignore", divide="ignore"):
            e = fail / n
            zn = np.maximum(num / den, spec.z_floor) / spec.median
        w = ((n > 0) & (den > 0) & use).astype(float)
        values = self.model.fit_batch(zn, e, w)
        pred = self.model.predict_batch(values, np.where(w > 0, zn, 1.0))
        r2, mae = r2_mae_batch(e, pred, w)
        # a resample with too few points, or z all equal, has no curve
        npts = w.sum(axis=1)
        zr = np.where(w > 0, zn, np.nan)
        with np.errstate(invalid="ignore"):
            spread = np.nanmax(zr, axis=1) - np.nanmin(zr, axis=1)
        bad = (npts < MIN_GROUPS) | ~(spread > 1e-12)
        return {key: np.where(bad, np.nan, arr)
                for key, arr in (*zip(self.model.params, values, strict=True), ("r2", r2), ("mae", mae))}

    def sas(self, C: np.ndarray) -> dict[str, np.ndarray]:
        """R² and MAE of SAS refitted on each resample, in slices of ``sas_slice``."""
        assert self.sas_model is not None and self.sas_inputs is not None
        r2s, maes = [], []
        for i in range(0, len(C), self.sas_slice):
            W = C[i:i + self.sas_slice, self.tasks]
            X, fail, wsum = self.sas_inputs.cells_batch(W, W)
            w = (wsum > 0).astype(float)
            pred = refit_batch(self.sas_model, X, fail, w)
            r2, mae = r2_mae_batch(np.nan_to_num(fail), pred, w)
            bad = w.sum(axis=1) < MIN_GROUPS
            r2s.append(np.where(bad, np.nan, r2))
            maes.append(np.where(bad, np.nan, mae))
        return {"r2": np.concatenate(r2s), "mae": np.concatenate(maes)}

    def sums(self, C: np.ndarray) -> np.ndarray | None:
        """(b, Σ 4·G_p): every curve's per-group sums under each resample's multiplicities."""
        return None if self.M is None else np.asarray(self.M.T @ C.T).T

    def piece(self, C: np.ndarray) -> dict[str, dict[str, np.ndarray]]:
        """Every predictor refitted on these resamples (one piece of a bootstrap_map)."""
        out: dict[str, dict[str, np.ndarray]] = {}
        S = self.sums(C)
        if S is not None:
            for k, spec in enumerate(self.curves):
                out[spec.name] = self.curve(k, S)
        if self.sas_name is not None:
            out[self.sas_name] = self.sas(C)
        return out


def resample_piece(counts: np.ndarray, resampler: Resampler) -> dict[str, dict[str, np.ndarray]]:
    """A bootstrap_map's function: the resamples of one piece of counts, refitted."""
    return resampler.piece(counts.astype(float))


def _bootstrap(
    fits: list[PredictorFit], s: np.ndarray, tasks: np.ndarray, n_tasks: int,
    sas_inputs: SasInputs | None, n_boot: int, seed: int, workers: int, model: CurveModel,
    bootstrap_map: BootstrapMap | None = None,
) -> None:
    from scipy import sparse

    curve_fits = [f for f in fits if f.ok and f.law is not None and f.coord is not None]
    sas_fit = next((f for f in fits if f.ok and f.sas is not None), None)
    if not curve_fits and sas_fit is None:
        return
    # one sparse (tasks × Σ 4·G_p) matrix: per predictor, run counts, failures, Σ num, Σ den
    blocks = []
    specs = []
    col = 0
    for f in curve_fits:
        c = f.coord
        assert c is not None and f.median is not None and f.z_floor is not None
        G = c.n_groups
        for vals in (np.ones(len(s)), 1.0 - s, c.num, c.den):
            blocks.append(sparse.csr_matrix((vals, (tasks, c.codes)), shape=(n_tasks, G)))
        specs.append(_CurveSpec(f.name, col, G, np.asarray(f.fitted, dtype=np.int64), f.median, f.z_floor))
        col += 4 * G
    # resamples per batch: bounded so the (batch × tasks) counts stay small; SAS works on
    # (batch × runs) weights, in smaller slices that stay in cache
    chunk = max(1, min(n_boot, 4_000_000 // max(n_tasks, 1), 500))
    sas_slice = max(1, min(chunk, 300_000 // max(len(tasks), 1)))
    rs = Resampler(
        sparse.hstack(blocks, format="csr") if blocks else None, tuple(specs),
        sas_fit.name if sas_fit is not None else None, sas_fit.sas if sas_fit is not None else None,
        sas_inputs if sas_fit is not None else None, tasks, sas_slice, model,
    )
    results: dict[str, dict[str, list[np.ndarray]]] = {
        f.name: {k: [] for k in (*model.params, "r2", "mae")} for f in [*curve_fits, *([sas_fit] if sas_fit else [])]
    }
    rng = np.random.default_rng(seed)

    def chunks() -> Iterator[np.ndarray]:
        done = 0
        while done < n_boot:
            b = min(chunk, n_boot - done)
            yield _chunk_counts(rng, n_tasks, b)
            done += b

    if bootstrap_map is not None:
        # the same draws, cut into pieces on SAS slice boundaries: every resample's numbers
        # are computed by the same functions on the same counts
        step = sas_slice * max(1, PIECE_RESAMPLES // sas_slice)
        pieces = (C[i:i + step].astype(np.int32) for C in chunks() for i in range(0, len(C), step))
        for part in bootstrap_map(resample_piece, rs, pieces):
            for name, figures in part.items():
                for key, arr in figures.items():
                    results[name][key].append(arr)
    else:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            for C in chunks():
                S = rs.sums(C)
                jobs = [pool.submit(rs.curve, k, S) for k in range(len(specs))] if S is not None else []
                names = [spec.name for spec in specs]
                if rs.sas_name is not None:
                    jobs.append(pool.submit(rs.sas, C))
                    names.append(rs.sas_name)
                for name, job in zip(names, jobs, strict=True):
                    for key, arr in job.result().items():
                        results[name][key].append(arr)
    for f in [*curve_fits, *([sas_fit] if sas_fit else [])]:
        res = results[f.name]
        intervals: dict[str, Interval] = {}
        n_ok = n_boot
        for key, parts in res.items():
            if not parts:
                continue
            arr = np.concatenate(parts)
            if key in ("mae",):
                n_ok = int(np.isfinite(arr).sum())
            iv = _percentile(arr)
            if iv is not None:
                intervals[key] = iv
        f.bootstrap = BootstrapResult(n_boot, n_ok, intervals)
        if n_ok < n_boot:
            f.notes.append(f"{n_boot - n_ok} of {n_boot} bootstrap resamples had no curve")


# ---------------------------------------------------------------- held-out


def parse_holdout(spec: str, group_by: Sequence[str], table: RunTable | None = None) -> tuple[str, tuple[str, ...]]:
    """``tasks``, ``task_family``, ``harness``, ``model``, ``budget``, ``source``,
    ``combined`` or ``a+b``.

    ``tasks`` is the task-level cross-validation. ``combined`` leaves out a task family, a
    harness and a model at once, keeping only the axes that have more than one value in
    ``table`` (one model: family + harness). A grouping axis must be in ``group_by`` (or the
    groups would mix held-out and training runs); ``source`` need not be.
    """
    name = spec.strip()
    if name == TASKS:
        return TASKS, ()
    if name in HOLDOUT_PRESETS:
        axes = HOLDOUT_PRESETS[name]
        if name == "combined" and table is not None:
            varied = tuple(a for a in axes if len(set(table.labels[a])) > 1)
            axes = varied or axes
    else:
        parts = [p for p in name.replace(",", "+").split("+") if p.strip()]
        if TASKS in (p.strip() for p in parts):
            raise InputError(f"--holdout {spec}: {TASKS} (the task cross-validation) cannot be combined")
        axes = check_axes(parts)
        name = "+".join(axes)
    missing = [a for a in axes if a not in group_by and a not in RUN_AXES]
    if missing:
        raise InputError(
            f"--holdout {spec} leaves out {', '.join(missing)}, which the groups do not "
            f"separate; add it to --group-by (now {','.join(group_by)})"
        )
    return name, axes


#: (held-out values, training-run mask, held-out-run mask) of every split
Plan = list[tuple[dict[str, str], np.ndarray, np.ndarray]]


def holdout_splits(table: RunTable, grouping: Grouping | None, axes: tuple[str, ...]) -> Plan:
    """(held-out values, training-run mask, held-out-run mask) for every split.

    A split holds out the runs with one combination of values of ``axes``; its training
    runs share none of those values (for one axis: every other value of it).
    """
    codes = {a: table.codes(a) for a in axes}
    combo_of_run = np.zeros(len(table), dtype=np.int64)
    for a in axes:
        c, values = codes[a]
        combo_of_run = combo_of_run * len(values) + c
    out = []
    for u in np.unique(combo_of_run).tolist():
        train = np.ones(len(table), dtype=bool)
        held: dict[str, str] = {}
        rest = u
        for a in reversed(axes):
            c, values = codes[a]
            rest, i = divmod(rest, len(values))
            train &= c != i
            held[a] = values[i]
        out.append(({a: held[a] for a in axes}, train, combo_of_run == u))
    return out


def task_folds(tasks: np.ndarray, n_tasks: int, folds: int, seed: int) -> Plan:
    """The task-level cross-validation: tasks dealt into ``folds`` folds in a random order
    (deterministic per seed); each fold's runs are held out once."""
    k = min(folds, n_tasks)
    if k < 2:
        return []
    order = np.random.default_rng([seed, 0xC5]).permutation(n_tasks)
    fold_of_task = np.empty(n_tasks, dtype=np.int64)
    fold_of_task[order] = np.arange(n_tasks) % k
    fold = fold_of_task[tasks]
    return [({TASKS: f"fold {i + 1}/{k}"}, fold != i, fold == i) for i in range(k)]


def _holdout_curve(f: PredictorFit, s: np.ndarray, name: str, axes: tuple[str, ...], plan: Plan,
                   model: CurveModel) -> Holdout:
    """Every split of one axis fitted at once (``fit_batch``: one row per split, its
    training groups weighted 1), then the held-out groups and runs predicted."""
    c = f.coord
    assert c is not None
    G = c.n_groups
    splits: list[Split] = []
    rows_z, rows_e, rows_w, fit_rows = [], [], [], []
    tests: list[Points] = []
    for held, train_mask, test_mask in plan:
        # training and held-out groups in one pass: held-out runs count as groups G..2G−1
        both = group_points(c.num, c.den, s, c.codes + G * test_mask, 2 * G, None, train_mask | test_mask)
        tr = Points(*(v[:G] for v in (both.n_runs, both.n_tasks, both.failure, both.z)))
        te = Points(*(v[G:] for v in (both.n_runs, both.n_tasks, both.failure, both.z)))
        tests.append(te)
        train_use = np.flatnonzero(tr.n_runs > 0)
        sp = Split(held, train_use.tolist(), [], train_runs=int(train_mask.sum()), test_runs=int(test_mask.sum()))
        splits.append(sp)
        z_floor = floor_of(tr.z[train_use])
        if not (te.n_runs > 0).any():
            sp.status, sp.reason = "degenerate", "no held-out run"
        elif len(train_use) < MIN_GROUPS:
            sp.status = "degenerate"
            sp.reason = f"{len(train_use)} training groups left; need at least {MIN_GROUPS}"
        elif z_floor is None:
            sp.status, sp.reason = "degenerate", "every training group has z ≤ 0"
        else:
            zf = np.maximum(tr.z[train_use], z_floor)
            if np.ptp(zf) <= 1e-12 * float(np.max(zf)):
                sp.status, sp.reason = "degenerate", "every training group has the same z"
                continue
            med = float(np.median(zf))
            ok = tr.n_runs > 0
            rows_z.append(np.where(ok, np.maximum(np.nan_to_num(tr.z, nan=1.0), z_floor), 1.0) / med)
            rows_e.append(np.where(ok, tr.failure, 0.0))
            rows_w.append(ok.astype(float))
            sp.median, sp.z_floor = med, z_floor
            sp.base_rate = float(np.mean(s[train_mask]))
            fit_rows.append(len(splits) - 1)
    g_obs: list[np.ndarray] = []
    g_pred: list[np.ndarray] = []
    g_n: list[np.ndarray] = []
    r_y: list[np.ndarray] = []
    r_p: list[np.ndarray] = []
    r_b: list[np.ndarray] = []
    if fit_rows:
        values = model.fit_batch(np.vstack(rows_z), np.vstack(rows_e), np.vstack(rows_w))
        for r, si in enumerate(fit_rows):
            sp = splits[si]
            assert sp.median is not None and sp.z_floor is not None and sp.base_rate is not None
            te = tests[si]
            test_mask = plan[si][2]
            test_use = np.flatnonzero(te.n_runs > 0)
            law = model.law(*(v[r] for v in values), z_min=sp.z_floor / sp.median)
            pred = law.failure(np.maximum(te.z[test_use], sp.z_floor) / sp.median)
            sp.law = law
            sp.test_groups = [HeldOutGroup(int(g), float(o), float(pv), int(n))
                              for g, o, pv, n in zip(test_use, te.failure[test_use], pred, te.n_runs[test_use],
                                                     strict=True)]
            g_obs.append(te.failure[test_use])
            g_pred.append(pred)
            g_n.append(te.n_runs[test_use])
            runs = np.flatnonzero(test_mask)
            r_y.append(s[runs])
            r_p.append(1.0 - law.failure(np.maximum(c.z[runs], sp.z_floor) / sp.median))
            r_b.append(np.full(len(runs), sp.base_rate))
    return _pool_holdout(name, axes, splits, g_obs, g_pred, g_n, r_y, r_p, r_b)


def _pool_holdout(
    name: str, axes: tuple[str, ...], splits: list[Split], g_obs: list[np.ndarray], g_pred: list[np.ndarray],
    g_n: list[np.ndarray], r_y: list[np.ndarray], r_p: list[np.ndarray], r_b: list[np.ndarray],
) -> Holdout:
    notes = []
    bad = [sp for sp in splits if sp.status != "ok"]
    if bad:
        notes.append(f"{len(bad)} of {len(splits)} splits could not be fitted ("
                     + "; ".join(sorted({sp.reason or '' for sp in bad})) + ")")
    cat = np.concatenate if g_obs else (lambda _: np.zeros(0))
    gf = group_figures(cat(g_obs), cat(g_pred), cat(g_n))
    rf = run_figures(*(np.concatenate(v) if v else np.zeros(0) for v in (r_y, r_p, r_b)))
    if gf.groups and gf.r2 is None:
        notes.append("every held-out group has the same failure rate: R² undefined")
    return Holdout(name, axes, splits, gf, rf, notes)


def _holdout_sas(f: PredictorFit, inputs: SasInputs, codes: np.ndarray, s: np.ndarray, name: str,
                 axes: tuple[str, ...], plan: Plan) -> Holdout:
    """SAS on each split: training-fold aggregates (P_SA, E_c, ACI, reference turns) from the
    training runs only, OLS on the training cells (training runs), prediction of the held-out
    cells (held-out runs) and of their runs."""
    splits: list[Split] = []
    g_obs: list[np.ndarray] = []
    g_pred: list[np.ndarray] = []
    g_n: list[np.ndarray] = []
    r_y: list[np.ndarray] = []
    r_p: list[np.ndarray] = []
    r_b: list[np.ndarray] = []
    if not plan:
        return _pool_holdout(name, axes, splits, g_obs, g_pred, g_n, r_y, r_p, r_b)
    Wt = np.vstack([train for _, train, _ in plan]).astype(float)
    We = np.vstack([test for _, _, test in plan]).astype(float)
    (Xt, ft, wt), (Xe, fe, we) = inputs.split_cells(Wt, We)
    variant = f.sas.variant if f.sas is not None else None
    for i, (held, train_mask, test_mask) in enumerate(plan):
        train_use = np.flatnonzero(wt[i] > 0)
        test_use = np.flatnonzero(we[i] > 0)
        sp = Split(held, train_use.tolist(), [], train_runs=int(train_mask.sum()), test_runs=int(test_mask.sum()))
        if len(train_use) < MIN_GROUPS or len(test_use) == 0:
            sp.status = "degenerate"
            sp.reason = f"{len(train_use)} training cells, {len(test_use)} held-out cells"
        else:
            model = fit_sas(Xt[i][train_use], ft[i][train_use], variant=variant)
            pred = model.predict(Xe[i][test_use])
            sp.base_rate = float(np.mean(s[train_mask]))
            sp.test_groups = [HeldOutGroup(int(g), float(o), float(pv), int(n))
                              for g, o, pv, n in zip(test_use, fe[i][test_use], pred, we[i][test_use], strict=True)]
            g_obs.append(fe[i][test_use])
            g_pred.append(pred)
            g_n.append(we[i][test_use])
            cell = np.full(wt.shape[1], np.nan)
            cell[test_use] = pred
            runs = np.flatnonzero(test_mask)
            r_y.append(s[runs])
            r_p.append(1.0 - cell[codes[runs]])
            r_b.append(np.full(len(runs), sp.base_rate))
        splits.append(sp)
    return _pool_holdout(name, axes, splits, g_obs, g_pred, g_n, r_y, r_p, r_b)


# ---------------------------------------------------------------- the primary curve


def describe(f: PredictorFit, analysis: str = "groups") -> str:
    """One line a UI can show: name, label, runs, groups and the held-out figures."""
    n_groups = len(f.fitted)
    unit = "bins (per-run analysis)" if analysis == "per_run" else "groups"
    text = f"{f.name}: {f.predictor.label}, {f.n_runs:,} runs, {n_groups} {unit}"
    h = f.held
    if h is None or h.runs.brier is None or h.runs.brier_base is None:
        return text + ", no held-out figures"
    auc = "n/a" if h.runs.auc is None else f"{h.runs.auc:.2f}"
    return (f"{text}, held-out ({h.name}) AUC {auc}, Brier {h.runs.brier:.2f} vs "
            f"{h.runs.brier_base:.2f} base")


def _choose_primary(
    fits: list[PredictorFit], order: list[str], requested: str | None, has_oracle: bool
) -> tuple[str | None, str | None, str, str | None]:
    """(primary, reason, mode, selection axis). See the module docstring, step 8."""
    # the selection axis: the first requested held-out axis on which some curve has
    # held-out runs, else the task cross-validation
    selection = None
    for name in order:
        if any(f.holdout(name) is not None and f.holdout(name).runs.runs > 0  # type: ignore[union-attr]
               for f in fits if f.ok):
            selection = name
            break
    for f in fits:
        f.selection = selection
        h = f.held
        f.predictive = None if h is None or h.runs.brier is None else h.runs.predictive
    if requested is not None and requested != AUTO_PRIMARY:
        f = next(x for x in fits if x.name == requested)
        if not f.ok:
            return requested, f"forced with --primary; it has no curve ({f.reason})", "forced", selection
        h = f.held
        if h is None or h.runs.brier is None:
            why = "no held-out figures"
        elif f.predictive:
            why = f"held-out Brier {h.runs.brier:.3f} < base {h.runs.brier_base:.3f}: predictive"
        else:
            why = f"held-out Brier {h.runs.brier:.3f} ≥ base {h.runs.brier_base:.3f}: not predictive"
        return requested, f"forced with --primary; {why}", "forced", selection
    if selection is None:
        return None, "no held-out figures to judge a curve by (too few tasks or splits)", AUTO_PRIMARY, None
    cands = [f for f in fits if f.ok and f.law is not None and _user_computable(f.predictor, has_oracle)]
    if not cands:
        return None, "no EFC curve a user's trace can compute was fitted", AUTO_PRIMARY, selection
    best: PredictorFit | None = None
    for f in cands:
        r = f.held.runs if f.held is not None else None
        if r is None or not r.predictive or r.auc is None or r.skill is None:
            continue
        if best is None or r.skill > best.held.runs.skill:  # type: ignore[union-attr, operator]
            best = f
    if best is None:
        scored = [f for f in cands if f.held is not None and f.held.runs.skill is not None]
        if not scored:
            return None, f"no curve has held-out figures on {selection}", AUTO_PRIMARY, selection
        top = max(scored, key=lambda x: x.held.runs.skill)  # type: ignore[union-attr, arg-type, return-value]
        r = top.held.runs  # type: ignore[union-attr]
        auc = "n/a" if r.auc is None else f"{r.auc:.2f}"
        return None, (f"no EFC curve a user's trace can compute predicts held-out ({selection}) runs better "
                      f"than the base rate; best: {top.name}, Brier {r.brier:.3f} vs {r.brier_base:.3f} base, "
                      f"AUC {auc}"), AUTO_PRIMARY, selection
    r = best.held.runs  # type: ignore[union-attr]
    return best.name, (f"best held-out ({selection}) Brier skill {r.skill:.3f} among the EFC curves a user's "
                       f"trace can compute that beat the base rate"), AUTO_PRIMARY, selection


# ---------------------------------------------------------------- entry point


def fit_corpus(
    table: RunTable,
    *,
    predictors: Sequence[str] | None = None,
    group_by: Sequence[str] = DEFAULT_GROUP_BY,
    bootstrap: int = 0,
    seed: int = 0,
    holdout: Sequence[str] = (),
    primary: str | None = None,
    sas_reference: str | None = None,
    workers: int | None = None,
    cv_folds: int = CV_FOLDS,
    bootstrap_map: BootstrapMap | None = None,
    curve: str = DEFAULT_CURVE,
) -> CorpusFit:
    """Fit every predictor on a run table and compare them (SPEC §5).

    ``primary``: None or ``"auto"`` chooses it by held-out performance; a name forces it.
    ``cv_folds``: folds of the task-level cross-validation (0 turns it off; the CLI always
    runs it). ``bootstrap_map``: fits the bootstrap's resamples elsewhere, in pieces (``fit
    --dask``: on Dask workers; the numbers are the same); default: threads here. Raises
    InputError for unusable input (no runs, no success labels, unknown names, no run on
    which the compared predictors all have a value); a predictor that cannot be fitted is
    returned with status "degenerate" or "unavailable" and a reason, never as NaN.
    """
    require_outcomes(table)
    model = get_model(curve)
    group_by = check_axes(group_by)
    names = list(predictors) if predictors else [p.name for p in PREDICTORS]
    for n in names:
        if n not in BY_NAME:
            raise InputError(f"unknown predictor {n!r}; choose from {', '.join(BY_NAME)}")
    names = list(dict.fromkeys(names))
    if primary is not None and primary != AUTO_PRIMARY:
        if primary not in BY_NAME:
            raise InputError(f"unknown primary predictor {primary!r}; choose from auto, {', '.join(BY_NAME)}")
        if not BY_NAME[primary].curve:
            raise InputError(f"{primary} is a regression over cells, not a curve; pick a scalar predictor as primary")
        if primary not in names:
            names.append(primary)
    if bootstrap < 0:
        raise InputError("--bootstrap must be 0 or more")
    if cv_folds < 0 or cv_folds == 1:
        raise InputError("the task cross-validation needs 0 (off) or at least 2 folds")
    requested = list(dict.fromkeys(parse_holdout(h, group_by)[0] for h in holdout))

    n_total = len(table)
    labeled = np.isfinite(table.floats["success"])
    notes: list[str] = []
    if not labeled.all():
        notes.append(f"{int((~labeled).sum())} of {n_total} runs have no success label: left out")
        table = table.subset(labeled)
    n_labeled = len(table)
    for col, count in sorted(table.nonfinite.items()):
        notes.append(f"{count} runs had a non-finite {col} (NaN or infinite): treated as unknown")

    # one set of runs for every predictor: those where every available predictor has a value
    parts = {n: BY_NAME[n].parts(table.floats) for n in names if BY_NAME[n].curve}
    have = {n: np.isfinite(num) for n, (num, _) in parts.items()}
    available = [n for n in parts if have[n].any()]
    common = np.ones(n_labeled, dtype=bool)
    for n in available:
        common &= have[n]
    if available and not common.any():
        raise InputError(
            "no run has a value for every compared predictor ("
            + ", ".join(f"{n}: {int(have[n].sum())} runs" for n in available)
            + "); compare fewer predictors with -p"
        )
    if not common.all():
        g_before = make_grouping(table, group_by)
        lost_groups = int(np.sum(np.bincount(g_before.codes[common], minlength=g_before.n_groups) == 0))
        short = [f"{n} ({int((~have[n]).sum())})" for n in available if not have[n].all()]
        notes.append(f"{int((~common).sum())} of {n_labeled} labeled runs lack a value of "
                     f"{', '.join(short)}: left out of every predictor's fit, so all compare the same runs"
                     + (f" ({lost_groups} groups lost)" if lost_groups else "")
                     + "; -p without them keeps those runs")
        table = table.subset(common)
        parts = {n: (num[common], den[common]) for n, (num, den) in parts.items()}
    s = table.floats["success"]
    for a in group_by:
        if all(v == MISSING for v in table.labels[a]):
            notes.append(f"no run names its {a}: every run is in one {a} group")
    grouping = make_grouping(table, group_by)
    tasks, task_names = table.codes("task_id")
    if any(t.startswith("run:") for t in task_names):
        notes.append("runs without a task_id count as their own task in the bootstrap and the task "
                     "cross-validation")
    per_run = grouping.n_groups < MIN_GROUPS
    if per_run:
        notes.append(f"only {grouping.n_groups} group{'s' if grouping.n_groups != 1 else ''} with labeled runs: "
                     f"per-run analysis (each predictor's runs in quantile bins of z, about {RUNS_PER_BIN} "
                     f"runs a bin, {BINS_MIN} to {BINS_MAX} bins; the curve is fitted on the bins)")
    group_keys = [grouping.key_dict(g) for g in range(grouping.n_groups)]
    has_oracle = bool(np.isfinite(table.floats["oracle_efc"]).any())

    reference = pick_reference(table, sas_reference) if "sas" in names and not per_run else None
    sas_inputs = (SasInputs.build(table, grouping.codes, grouping.n_groups, reference)
                  if reference is not None else None)
    fits: list[PredictorFit] = []
    for n in names:
        p = BY_NAME[n]
        if not p.curve:
            fits.append(_fit_sas(len(table), grouping.codes, s, sas_inputs, per_run))
            continue
        if n not in available:
            fits.append(PredictorFit(p, "unavailable", _unavailable_reason(p)))
            continue
        num, den = parts[n]
        with np.errstate(divide="ignore", invalid="ignore"):
            z = num / den
        if per_run:
            codes, lower = quantile_bins(z)
            k = len(lower)
            coord = Coord(num, den, z, codes, [{"bin": f"{i + 1}/{k}"} for i in range(k)], lower)
        else:
            coord = Coord(num, den, z, grouping.codes, group_keys)
        fits.append(_fit_curve(p, coord, s, tasks, model))
    workers = workers or min(4, os.cpu_count() or 1)
    if bootstrap > 0:
        _bootstrap(fits, s, tasks, len(task_names), sas_inputs, bootstrap, seed, workers, model, bootstrap_map)

    plans: list[tuple[str, tuple[str, ...], Plan]] = []
    for h in holdout:
        hname, axes = parse_holdout(h, group_by, table)
        if hname in (p[0] for p in plans):
            continue
        plan = (task_folds(tasks, len(task_names), cv_folds or CV_FOLDS, seed) if hname == TASKS
                else holdout_splits(table, grouping, axes))
        plans.append((hname, axes, plan))
    if cv_folds and TASKS not in requested:
        plans.append((TASKS, (), task_folds(tasks, len(task_names), cv_folds, seed)))
    for hname, axes, plan in plans:
        if hname == TASKS and not plan:
            notes.append("one task: no task cross-validation")
        elif hname != TASKS and len(plan) == 1:
            only = ", ".join(f"{a}={v}" for a, v in plan[0][0].items())
            notes.append(f"held-out {hname}: one value only ({only}): nothing to hold out")
        for f in fits:
            if not f.ok:
                continue
            if f.predictor.curve:
                f.holdouts.append(_holdout_curve(f, s, hname, axes, plan, model))
            elif sas_inputs is not None:
                f.holdouts.append(_holdout_sas(f, sas_inputs, grouping.codes, s, hname, axes, plan))
    order = [*requested, *([TASKS] if TASKS not in requested else [])]
    chosen, reason, mode, selection = _choose_primary(fits, order, primary, has_oracle)
    return CorpusFit(
        grouping=grouping, fits=fits, primary=chosen, n_runs_total=n_total,
        n_runs_labeled=n_labeled, n_tasks=len(task_names), bootstrap=bootstrap, seed=seed,
        sas_reference=reference, notes=notes, primary_reason=reason, primary_mode=mode,
        selection=selection, analysis="per_run" if per_run else "groups", n_runs_compared=len(table),
        n_sources=len(set(table.labels["source"])), base_rate=float(np.mean(s)) if len(s) else None,
        cv_folds=cv_folds, holdout_names=[p[0] for p in plans], curve=model,
        formats=sorted({lab.split(":", 1)[0] for lab in table.labels["source"]} - {MISSING}),
        kind="synthetic" if has_oracle else "real",
    )


def split_names(values: Sequence[str]) -> list[str]:
    """``a,b`` and repeated options alike: ["a", "b"]."""
    return [v.strip() for v in itertools.chain.from_iterable(x.split(",") for x in values) if v.strip()]


__all__ = [
    "CV_FOLDS", "DEFAULT_GROUP_BY", "HOLDOUT_PRESETS", "MIN_GROUPS", "PIECE_RESAMPLES", "TASKS", "BootstrapMap",
    "Coord", "CorpusFit", "Grouping", "Holdout", "PredictorFit", "Resampler", "Split", "describe", "fit_corpus",
    "floor_of", "group_points", "holdout_splits", "make_grouping", "parse_holdout", "quantile_bins",
    "resample_piece", "split_names", "task_folds",
]
