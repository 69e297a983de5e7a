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
4. The failure curve (``curves``) is fitted to the group points, every group weighing the
   same: by default the saturating E_inf + (E_0 − E_inf)/(1 + (z/z_0)^α) (``saturating``),
   or the paper's capped min(1, E_inf + A·z^(−α)) by bounded least squares (``powerlaw``).
5. Validity figures (``validity``): grouped R², MAE and the groups' noise ceiling; per-run
   AUC, Brier, the base rate's Brier and the Brier skill, a run's prediction being the curve
   at its own (floored) z. In-sample, and held-out on every axis.
6. Task-level bootstrap (``bootstrap``): tasks resampled with replacement, groups
   recomputed (Σ num and Σ den of the resampled runs), the curve refitted; percentile
   intervals of its parameters, R² and MAE. The median and z_floor stay the full-data ones.
7. Held-out (``heldout``): a task-level cross-validation (``tasks``, always), and each ``--holdout``
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
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from efc_tui.cpus import available_cpus
from efc_tui.errors import InputError
from efc_tui.fitting.bootstrap import (
    CONFIDENCE,
    MIN_GROUPS,
    PIECE_RESAMPLES,
    BootstrapMap,
    BootstrapResult,
    Interval,
    Resampler,
    resample_piece,
    run_bootstrap,
)
from efc_tui.fitting.curves import DEFAULT_CURVE, CurveModel, Law, get_model
from efc_tui.fitting.groups import (
    BINS_MAX,
    BINS_MIN,
    RUNS_PER_BIN,
    Coord,
    Grouping,
    Points,
    floor_of,
    group_points,
    make_grouping,
    quantile_bins,
)
from efc_tui.fitting.heldout import (
    HOLDOUT_PRESETS,
    RUN_AXES,
    TASKS,
    HeldOutGroup,
    Holdout,
    Plan,
    Split,
    holdout_curve,
    holdout_sas,
    holdout_splits,
    parse_holdout,
    task_folds,
)
from efc_tui.fitting.predictors import AUTO_PRIMARY, BY_NAME, PREDICTORS, Predictor
from efc_tui.fitting.sas import SasInputs, SasModel, fit_sas, pick_reference
from efc_tui.fitting.table import MISSING, RunTable, check_axes, require_outcomes
from efc_tui.fitting.validity import GroupFigures, RunFigures, group_figures, run_figures

DEFAULT_GROUP_BY: tuple[str, ...] = ("task_family", "harness", "model", "budget")
#: the default when runs name their benchmark (tau-bench, SWE-bench): the paper's groups are
#: configurations (agent design × model) on one benchmark; a benchmark's task families
#: (SWE-bench's repositories) are tasks of it, not groups
BENCHMARK_GROUP_BY: tuple[str, ...] = ("benchmark", "harness", "model", "budget")


def default_group_by(table: RunTable) -> tuple[str, ...]:
    """benchmark × harness × model × budget when any run names a benchmark other than its
    task family, else task_family × harness × model × budget (docs/fitting.md, "Groups")."""
    bench = table.labels.get("benchmark")
    if bench is not None and bench != table.labels["task_family"]:
        return BENCHMARK_GROUP_BY
    return DEFAULT_GROUP_BY


#: folds of the task-level cross-validation that always runs (held-out axis ``tasks``)
CV_FOLDS = 5


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


def _fit_curve(
    p: Predictor, coord: Coord, s: np.ndarray, tasks: np.ndarray, model: CurveModel
) -> PredictorFit:
    pts = group_points(coord.num, coord.den, s, coord.codes, coord.n_groups, tasks)
    use = np.flatnonzero(pts.n_runs > 0)
    fit = PredictorFit(
        p, "ok", points=pts, n_runs=int(pts.n_runs[use].sum()), fitted=use.tolist(), coord=coord
    )
    zg = pts.z[use]
    z_floor = floor_of(zg)
    if z_floor is None:
        fit.status, fit.reason = "degenerate", "every group has z ≤ 0: no scale to fit a curve on"
        return fit
    fit.z_floor = z_floor
    fit.floored = int((zg <= 0).sum())
    if fit.floored:
        fit.notes.append(
            f"{fit.floored} group{'s' if fit.floored != 1 else ''} with z ≤ 0 floored at "
            f"z_floor = ½ × the smallest positive group z ({z_floor:.4g})"
        )
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


def _fit_sas(
    n_runs: int, codes: np.ndarray, s: np.ndarray, inputs: SasInputs | None, per_run: bool
) -> PredictorFit:
    p = BY_NAME["sas"]
    if per_run:
        return PredictorFit(
            p,
            "degenerate",
            "fewer than 3 groups (per-run analysis): SAS is a regression "
            f"over cells and needs at least {MIN_GROUPS}",
        )
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
    return (
        f"{text}, held-out ({h.name}) AUC {auc}, Brier {h.runs.brier:.2f} vs "
        f"{h.runs.brier_base:.2f} base"
    )


def _choose_primary(
    fits: list[PredictorFit], order: list[str], requested: str | None, has_oracle: bool
) -> tuple[str | None, str | None, str, str | None]:
    """(primary, reason, mode, selection axis). See the module docstring, step 8."""
    # the selection axis: the first requested held-out axis on which some curve has
    # held-out runs, else the task cross-validation
    selection = None
    for name in order:
        if any(
            f.holdout(name) is not None and f.holdout(name).runs.runs > 0  # type: ignore[union-attr]
            for f in fits
            if f.ok
        ):
            selection = name
            break
    for f in fits:
        f.selection = selection
        h = f.held
        f.predictive = None if h is None or h.runs.brier is None else h.runs.predictive
    if requested is not None and requested != AUTO_PRIMARY:
        f = next(x for x in fits if x.name == requested)
        if not f.ok:
            return (
                requested,
                f"forced with --primary; it has no curve ({f.reason})",
                "forced",
                selection,
            )
        h = f.held
        if h is None or h.runs.brier is None:
            why = "no held-out figures"
        elif f.predictive:
            why = f"held-out Brier {h.runs.brier:.3f} < base {h.runs.brier_base:.3f}: predictive"
        else:
            why = (
                f"held-out Brier {h.runs.brier:.3f} ≥ base {h.runs.brier_base:.3f}: not predictive"
            )
        return requested, f"forced with --primary; {why}", "forced", selection
    if selection is None:
        return (
            None,
            "no held-out figures to judge a curve by (too few tasks or splits)",
            AUTO_PRIMARY,
            None,
        )
    cands = [
        f for f in fits if f.ok and f.law is not None and _user_computable(f.predictor, has_oracle)
    ]
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
        return (
            None,
            (
                f"no EFC curve a user's trace can compute predicts held-out ({selection}) runs better "
                f"than the base rate; best: {top.name}, Brier {r.brier:.3f} vs {r.brier_base:.3f} base, "
                f"AUC {auc}"
            ),
            AUTO_PRIMARY,
            selection,
        )
    r = best.held.runs  # type: ignore[union-attr]
    return (
        best.name,
        (
            f"best held-out ({selection}) Brier skill {r.skill:.3f} among the EFC curves a user's "
            f"trace can compute that beat the base rate"
        ),
        AUTO_PRIMARY,
        selection,
    )


# ---------------------------------------------------------------- entry point


def fit_corpus(
    table: RunTable,
    *,
    predictors: Sequence[str] | None = None,
    group_by: Sequence[str] | None = None,
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

    ``group_by``: None is ``default_group_by(table)``.
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
    group_by = check_axes(default_group_by(table) if group_by is None else group_by)
    names = list(predictors) if predictors else [p.name for p in PREDICTORS]
    for n in names:
        if n not in BY_NAME:
            raise InputError(f"unknown predictor {n!r}; choose from {', '.join(BY_NAME)}")
    names = list(dict.fromkeys(names))
    if primary is not None and primary != AUTO_PRIMARY:
        if primary not in BY_NAME:
            raise InputError(
                f"unknown primary predictor {primary!r}; choose from auto, {', '.join(BY_NAME)}"
            )
        if not BY_NAME[primary].curve:
            raise InputError(
                f"{primary} is a regression over cells, not a curve; pick a scalar predictor as primary"
            )
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
        lost_groups = int(
            np.sum(np.bincount(g_before.codes[common], minlength=g_before.n_groups) == 0)
        )
        short = [f"{n} ({int((~have[n]).sum())})" for n in available if not have[n].all()]
        notes.append(
            f"{int((~common).sum())} of {n_labeled} labeled runs lack a value of "
            f"{', '.join(short)}: left out of every predictor's fit, so all compare the same runs"
            + (f" ({lost_groups} groups lost)" if lost_groups else "")
            + "; -p without them keeps those runs"
        )
        table = table.subset(common)
        parts = {n: (num[common], den[common]) for n, (num, den) in parts.items()}
    s = table.floats["success"]
    for a in group_by:
        if all(v == MISSING for v in table.labels[a]):
            notes.append(f"no run names its {a}: every run is in one {a} group")
    grouping = make_grouping(table, group_by)
    tasks, task_names = table.codes("task_id")
    if any(t.startswith("run:") for t in task_names):
        notes.append(
            "runs without a task_id count as their own task in the bootstrap and the task "
            "cross-validation"
        )
    per_run = grouping.n_groups < MIN_GROUPS
    if per_run:
        notes.append(
            f"only {grouping.n_groups} group{'s' if grouping.n_groups != 1 else ''} with labeled runs: "
            f"per-run analysis (each predictor's runs in quantile bins of z, about {RUNS_PER_BIN} "
            f"runs a bin, {BINS_MIN} to {BINS_MAX} bins; the curve is fitted on the bins)"
        )
    group_keys = [grouping.key_dict(g) for g in range(grouping.n_groups)]
    has_oracle = bool(np.isfinite(table.floats["oracle_efc"]).any())

    reference = pick_reference(table, sas_reference) if "sas" in names and not per_run else None
    sas_inputs = (
        SasInputs.build(table, grouping.codes, grouping.n_groups, reference)
        if reference is not None
        else None
    )
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
    workers = workers or min(4, available_cpus())
    if bootstrap > 0:
        curves = [
            (f.name, f.coord, f.fitted, f.median, f.z_floor)
            for f in fits
            if f.ok
            and f.law is not None
            and f.coord is not None
            and f.median is not None
            and f.z_floor is not None
        ]
        sas_fit = next(((f.name, f.sas) for f in fits if f.ok and f.sas is not None), None)
        boot = run_bootstrap(
            curves,
            sas_fit,
            s,
            tasks,
            len(task_names),
            sas_inputs,
            bootstrap,
            seed,
            workers,
            model,
            bootstrap_map,
        )
        for f in fits:
            if (res := boot.get(f.name)) is not None:
                f.bootstrap = res
                if res.n_ok < res.n_resamples:
                    f.notes.append(
                        f"{res.n_resamples - res.n_ok} of {res.n_resamples} bootstrap "
                        "resamples had no curve"
                    )

    plans: list[tuple[str, tuple[str, ...], Plan]] = []
    for h in holdout:
        hname, axes = parse_holdout(h, group_by, table)
        if hname in (p[0] for p in plans):
            continue
        plan = (
            task_folds(tasks, len(task_names), cv_folds or CV_FOLDS, seed)
            if hname == TASKS
            else holdout_splits(table, grouping, axes)
        )
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
                assert f.coord is not None
                f.holdouts.append(holdout_curve(f.coord, s, hname, axes, plan, model))
            elif sas_inputs is not None:
                f.holdouts.append(
                    holdout_sas(f.sas, sas_inputs, grouping.codes, s, hname, axes, plan)
                )
    order = [*requested, *([TASKS] if TASKS not in requested else [])]
    chosen, reason, mode, selection = _choose_primary(fits, order, primary, has_oracle)
    return CorpusFit(
        grouping=grouping,
        fits=fits,
        primary=chosen,
        n_runs_total=n_total,
        n_runs_labeled=n_labeled,
        n_tasks=len(task_names),
        bootstrap=bootstrap,
        seed=seed,
        sas_reference=reference,
        notes=notes,
        primary_reason=reason,
        primary_mode=mode,
        selection=selection,
        analysis="per_run" if per_run else "groups",
        n_runs_compared=len(table),
        n_sources=len(set(table.labels["source"])),
        base_rate=float(np.mean(s)) if len(s) else None,
        cv_folds=cv_folds,
        holdout_names=[p[0] for p in plans],
        curve=model,
        formats=sorted({lab.split(":", 1)[0] for lab in table.labels["source"]} - {MISSING}),
        kind="synthetic" if has_oracle else "real",
    )


def split_names(values: Sequence[str]) -> list[str]:
    """``a,b`` and repeated options alike: ["a", "b"]."""
    return [
        v.strip() for v in itertools.chain.from_iterable(x.split(",") for x in values) if v.strip()
    ]


__all__ = [
    "BENCHMARK_GROUP_BY",
    "CONFIDENCE",
    "CV_FOLDS",
    "DEFAULT_GROUP_BY",
    "HOLDOUT_PRESETS",
    "MIN_GROUPS",
    "PIECE_RESAMPLES",
    "RUN_AXES",
    "TASKS",
    "BootstrapMap",
    "BootstrapResult",
    "Coord",
    "CorpusFit",
    "Grouping",
    "HeldOutGroup",
    "Holdout",
    "Interval",
    "Plan",
    "Points",
    "PredictorFit",
    "Resampler",
    "Split",
    "default_group_by",
    "describe",
    "fit_corpus",
    "floor_of",
    "group_points",
    "holdout_splits",
    "make_grouping",
    "parse_holdout",
    "quantile_bins",
    "resample_piece",
    "split_names",
    "task_folds",
]
