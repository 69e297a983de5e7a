"""Held-out evaluation (docs/fitting.md, "Held-out prediction"): the splits of each held-out
axis and of the task cross-validation, each curve (and SAS) refitted on the training runs
alone and predicting the held-out groups and runs, the figures pooled over splits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from efc_tui.errors import InputError
from efc_tui.fitting.bootstrap import MIN_GROUPS
from efc_tui.fitting.curves import CurveModel, Law
from efc_tui.fitting.groups import Grouping, Points, floor_of, group_points
from efc_tui.fitting.sas import SasInputs, fit_sas
from efc_tui.fitting.table import RunTable, check_axes
from efc_tui.fitting.validity import GroupFigures, RunFigures, group_figures, run_figures

if TYPE_CHECKING:
    from efc_tui.fitting.groups import Coord
    from efc_tui.fitting.sas import SasModel

TASKS = "tasks"
#: the paper's held-out axes; "combined" leaves out a family, a harness and a model at once
#: (those of them that vary in the corpus); "source" leaves out where runs came from
HOLDOUT_PRESETS: dict[str, tuple[str, ...]] = {
    "task_family": ("task_family",),
    "benchmark": ("benchmark",),
    "harness": ("harness",),
    "model": ("model",),
    "budget": ("budget",),
    "source": ("source",),
    "combined": ("task_family", "harness", "model"),
}
#: held-out axes that need not be grouping axes (their held-out groups are the groups of
#: the held-out runs)
RUN_AXES: tuple[str, ...] = ("source",)


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


def parse_holdout(
    spec: str, group_by: Sequence[str], table: RunTable | None = None
) -> tuple[str, tuple[str, ...]]:
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
            raise InputError(
                f"--holdout {spec}: {TASKS} (the task cross-validation) cannot be combined"
            )
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


def holdout_curve(
    c: Coord, s: np.ndarray, name: str, axes: tuple[str, ...], plan: Plan, model: CurveModel
) -> Holdout:
    """Every split of one axis fitted at once (``fit_batch``: one row per split, its
    training groups weighted 1), then the held-out groups and runs predicted."""
    G = c.n_groups
    splits: list[Split] = []
    rows_z, rows_e, rows_w, fit_rows = [], [], [], []
    tests: list[Points] = []
    for held, train_mask, test_mask in plan:
        # training and held-out groups in one pass: held-out runs count as groups G..2G−1
        both = group_points(
            c.num, c.den, s, c.codes + G * test_mask, 2 * G, None, train_mask | test_mask
        )
        tr = Points(*(v[:G] for v in (both.n_runs, both.n_tasks, both.failure, both.z)))
        te = Points(*(v[G:] for v in (both.n_runs, both.n_tasks, both.failure, both.z)))
        tests.append(te)
        train_use = np.flatnonzero(tr.n_runs > 0)
        sp = Split(
            held,
            train_use.tolist(),
            [],
            train_runs=int(train_mask.sum()),
            test_runs=int(test_mask.sum()),
        )
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
            rows_z.append(
                np.where(ok, np.maximum(np.nan_to_num(tr.z, nan=1.0), z_floor), 1.0) / med
            )
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
            sp.test_groups = [
                HeldOutGroup(int(g), float(o), float(pv), int(n))
                for g, o, pv, n in zip(
                    test_use, te.failure[test_use], pred, te.n_runs[test_use], strict=True
                )
            ]
            g_obs.append(te.failure[test_use])
            g_pred.append(pred)
            g_n.append(te.n_runs[test_use])
            runs = np.flatnonzero(test_mask)
            r_y.append(s[runs])
            r_p.append(1.0 - law.failure(np.maximum(c.z[runs], sp.z_floor) / sp.median))
            r_b.append(np.full(len(runs), sp.base_rate))
    return _pool_holdout(name, axes, splits, g_obs, g_pred, g_n, r_y, r_p, r_b)


def _pool_holdout(
    name: str,
    axes: tuple[str, ...],
    splits: list[Split],
    g_obs: list[np.ndarray],
    g_pred: list[np.ndarray],
    g_n: list[np.ndarray],
    r_y: list[np.ndarray],
    r_p: list[np.ndarray],
    r_b: list[np.ndarray],
) -> Holdout:
    notes = []
    bad = [sp for sp in splits if sp.status != "ok"]
    if bad:
        notes.append(
            f"{len(bad)} of {len(splits)} splits could not be fitted ("
            + "; ".join(sorted({sp.reason or "" for sp in bad}))
            + ")"
        )
    cat = np.concatenate if g_obs else (lambda _: np.zeros(0))
    gf = group_figures(cat(g_obs), cat(g_pred), cat(g_n))
    rf = run_figures(*(np.concatenate(v) if v else np.zeros(0) for v in (r_y, r_p, r_b)))
    if gf.groups and gf.r2 is None:
        notes.append("every held-out group has the same failure rate: R² undefined")
    return Holdout(name, axes, splits, gf, rf, notes)


def holdout_sas(
    sas: SasModel | None,
    inputs: SasInputs,
    codes: np.ndarray,
    s: np.ndarray,
    name: str,
    axes: tuple[str, ...],
    plan: Plan,
) -> Holdout:
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
    variant = sas.variant if sas is not None else None
    for i, (held, train_mask, test_mask) in enumerate(plan):
        train_use = np.flatnonzero(wt[i] > 0)
        test_use = np.flatnonzero(we[i] > 0)
        sp = Split(
            held,
            train_use.tolist(),
            [],
            train_runs=int(train_mask.sum()),
            test_runs=int(test_mask.sum()),
        )
        if len(train_use) < MIN_GROUPS or len(test_use) == 0:
            sp.status = "degenerate"
            sp.reason = f"{len(train_use)} training cells, {len(test_use)} held-out cells"
        else:
            model = fit_sas(Xt[i][train_use], ft[i][train_use], variant=variant)
            pred = model.predict(Xe[i][test_use])
            sp.base_rate = float(np.mean(s[train_mask]))
            sp.test_groups = [
                HeldOutGroup(int(g), float(o), float(pv), int(n))
                for g, o, pv, n in zip(
                    test_use, fe[i][test_use], pred, we[i][test_use], strict=True
                )
            ]
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
