"""A frozen fit scored on runs it never saw: `efc-tui fit --evaluate FIT.json PATHS...`
(the paper's prospective hold-out; docs/fitting.md, "Evaluating a frozen fit").

Every curve of the fit file predicts the new runs with its frozen parameters,
normalization median and z_floor; nothing is refitted. The new runs are grouped as the fit
grouped its runs (its ``group_by`` axes, or, for a per-run fit, its quantile bins' lower
edges); a group's z is Σ num / Σ den of its runs, a run's z its own num / den. Reported per
curve: grouped R² with the new groups' noise ceiling and MAE; per-run AUC, Brier, the Brier
of the new corpus's own success rate (what a curve is judged against: it is the best
constant guess for these runs) and of the fit's training success rate. The runs compared
are those on which every evaluated curve has a value, as in the fit itself.

SAS cannot be evaluated frozen: its inputs (P_SA, E_c, the capability index) are the
training cells' own outcomes, which new runs do not have.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from efc_tui.errors import InputError
from efc_tui.fitting.corpus import group_points, make_grouping
from efc_tui.fitting.fitfile import FitCurve, FitFile
from efc_tui.fitting.table import RunTable, require_outcomes
from efc_tui.fitting.validity import GroupFigures, RunFigures, brier, group_figures, run_figures

EVAL_SCHEMA = "efc-fit-eval/1"
SAS_NOT_FROZEN = (
    "not evaluable frozen: SAS's inputs (P_SA, E_c, the capability index) are the training "
    "cells' own outcomes; refit it on these runs with `efc-tui fit`"
)


@dataclass(slots=True)
class CurveEvaluation:
    name: str
    label: str
    #: "ok", "unavailable" (no new run has the predictor) or "not_evaluable" (SAS, no curve)
    status: str
    reason: str | None = None
    groups: GroupFigures | None = None
    runs: RunFigures | None = None
    #: the Brier of the fit's training success rate on the new runs
    brier_fit_base: float | None = None
    #: new runs whose z lies outside the fitted groups' range (the curve extrapolates)
    extrapolated: int = 0
    #: new runs raised to the fit's z_floor
    floored: int = 0

    @property
    def predictive(self) -> bool | None:
        """Brier below the new corpus's own base rate's and AUC above ½ (None: not evaluated)."""
        return None if self.runs is None or self.runs.brier is None else self.runs.predictive


@dataclass(slots=True)
class Evaluation:
    fit_source: str
    fit_sha256: str
    group_by: list[str]
    analysis: str
    n_runs: int
    n_labeled: int
    n_compared: int
    n_groups: int
    base_rate: float | None
    fit_base_rate: float | None
    curves: list[CurveEvaluation]
    notes: list[str] = field(default_factory=list)


def evaluate_fit(ff: FitFile, table: RunTable) -> Evaluation:
    """Score every curve of ``ff`` on the runs of ``table`` (see the module docstring)."""
    require_outcomes(table)
    n_total = len(table)
    labeled = np.isfinite(table.floats["success"])
    notes: list[str] = []
    if not labeled.all():
        notes.append(f"{int((~labeled).sum())} of {n_total} runs have no success label: left out")
        table = table.subset(labeled)
    n_labeled = len(table)
    settings = ff.doc.get("settings") or {}
    group_by = [str(a) for a in settings.get("group_by") or []]
    fit_base = (ff.doc.get("corpus") or {}).get("base_rate")
    fit_base = float(fit_base) if isinstance(fit_base, int | float) else None

    rows: list[CurveEvaluation] = []
    curves: list[tuple[CurveEvaluation, FitCurve, np.ndarray, np.ndarray]] = []
    for p in ff.predictors():
        name, label = str(p.get("name")), str(p.get("label") or p.get("name"))
        if p.get("kind") != "power_law":
            rows.append(CurveEvaluation(name, label, "not_evaluable", SAS_NOT_FROZEN))
            continue
        if p.get("status") != "ok" or not p.get("params"):
            rows.append(
                CurveEvaluation(
                    name,
                    label,
                    "not_evaluable",
                    f"the fit file has no curve for it ({p.get('reason') or p.get('status')})",
                )
            )
            continue
        curve = ff.curve(name)
        if curve.predictor is None or curve.predictor.num is None:
            rows.append(
                CurveEvaluation(name, label, "not_evaluable", "unknown predictor definition")
            )
            continue
        num, den = curve.predictor.parts(table.floats)
        row = CurveEvaluation(name, label, "ok")
        rows.append(row)
        if not np.isfinite(num).any():
            row.status, row.reason = "unavailable", "no new run has a value for it"
            continue
        curves.append((row, curve, num, den))
    if not curves:
        raise InputError("no curve of the fit file can be evaluated on these runs")

    common = np.ones(n_labeled, dtype=bool)
    for _, _, num, _ in curves:
        common &= np.isfinite(num)
    if not common.any():
        raise InputError("no run has a value for every curve of the fit file")
    if not common.all():
        short = [
            f"{r.name} ({int((~np.isfinite(num)).sum())})"
            for r, _, num, _ in curves
            if not np.isfinite(num).all()
        ]
        notes.append(
            f"{int((~common).sum())} of {n_labeled} labeled runs lack a value of {', '.join(short)}: "
            "left out for every curve, so all are scored on the same runs"
        )
        table = table.subset(common)
        curves = [(r, c, num[common], den[common]) for r, c, num, den in curves]
    s = table.floats["success"]
    base = float(np.mean(s))
    analysis = ff.analysis
    if analysis == "groups":
        if not group_by:
            raise InputError("the fit file names no grouping axes", ff.source)
        grouping = make_grouping(table, group_by)
        n_groups = grouping.n_groups
        if n_groups < 2:
            notes.append(
                f"{n_groups} group of the fit's grouping ({' × '.join(group_by)}) in these runs: "
                "grouped R² undefined, per-run figures only"
            )

    for row, curve, num, den in curves:
        with np.errstate(divide="ignore", invalid="ignore"):
            z = num / den
        if analysis == "groups":
            codes, G = grouping.codes, grouping.n_groups
        else:
            lower = [
                float(v) for v in ((_entry(ff, row.name).get("bins") or {}).get("lower") or [])
            ]
            if not lower:
                row.status, row.reason = (
                    "not_evaluable",
                    "the per-run fit file has no bin edges for it",
                )
                continue
            codes = np.clip(
                np.searchsorted(np.asarray(lower), z, side="right") - 1, 0, len(lower) - 1
            )
            G = len(lower)
        pts = group_points(num, den, s, codes, G)
        use = np.flatnonzero(pts.n_runs > 0)
        pred = np.asarray(curve.failure(pts.z[use]), dtype=float)
        row.groups = (
            group_figures(pts.failure[use], pred, pts.n_runs[use])
            if len(use) >= 2
            else GroupFigures(len(use), None, None, None)
        )
        p_run = 1.0 - np.asarray(curve.failure(z), dtype=float)
        row.runs = run_figures(s, p_run, base)
        row.brier_fit_base = None if fit_base is None else brier(s, np.full(len(s), fit_base))
        zs = [pt.z for pt in curve.points]
        if zs:
            row.extrapolated = int(np.sum((z < min(zs)) | (z > max(zs))))
        if curve.z_floor is not None:
            row.floored = int(np.sum(z < curve.z_floor))
    if analysis != "groups":
        n_groups = 0
    return Evaluation(
        fit_source=ff.source,
        fit_sha256=ff.sha256,
        group_by=group_by,
        analysis=analysis,
        n_runs=n_total,
        n_labeled=n_labeled,
        n_compared=len(table),
        n_groups=n_groups,
        base_rate=base,
        fit_base_rate=fit_base,
        curves=rows,
        notes=notes,
    )


def _entry(ff: FitFile, name: str) -> dict[str, Any]:
    return next((p for p in ff.predictors() if p.get("name") == name), {})


def _num(x: float | None) -> float | None:
    return None if x is None or not np.isfinite(x) else float(f"{float(x):.12g}")


def evaluation_document(ev: Evaluation, inputs: list[str] | None = None) -> dict[str, Any]:
    """The evaluation as a JSON-ready document (``efc-fit-eval/1``; deterministic)."""
    out = []
    for c in ev.curves:
        g, r = c.groups, c.runs
        out.append(
            {
                "name": c.name,
                "label": c.label,
                "status": c.status,
                "reason": c.reason,
                "predictive": c.predictive,
                "groups": None if g is None else g.groups,
                "r2": _num(g.r2) if g else None,
                "ceiling": _num(g.ceiling) if g else None,
                "mae": _num(g.mae) if g else None,
                "runs": None if r is None else r.runs,
                "successes": None if r is None else r.successes,
                "auc": _num(r.auc) if r else None,
                "brier": _num(r.brier) if r else None,
                "brier_base": _num(r.brier_base) if r else None,
                "skill": _num(r.skill) if r else None,
                "brier_fit_base": _num(c.brier_fit_base),
                "extrapolated_runs": c.extrapolated,
                "floored_runs": c.floored,
            }
        )
    return {
        "schema": EVAL_SCHEMA,
        "fit": {
            "source": ev.fit_source,
            "sha256": ev.fit_sha256,
            "base_rate": _num(ev.fit_base_rate),
        },
        "corpus": {
            "inputs": list(inputs or []),
            "runs": ev.n_runs,
            "runs_labeled": ev.n_labeled,
            "runs_compared": ev.n_compared,
            "groups": ev.n_groups,
            "base_rate": _num(ev.base_rate),
        },
        "grouping": {"analysis": ev.analysis, "group_by": list(ev.group_by)},
        "judged_against": "the new runs' own success rate (brier_base); brier_fit_base is the fit's training rate",
        "notes": list(ev.notes),
        "curves": out,
    }


__all__ = ["EVAL_SCHEMA", "CurveEvaluation", "Evaluation", "evaluate_fit", "evaluation_document"]
