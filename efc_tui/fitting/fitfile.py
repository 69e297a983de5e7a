"""The fit file, schema ``efc-fit/1``: what ``efc-tui fit`` writes and ``score --fit`` and
the app's fit panel read.

It holds, per predictor: parameters, figures (R², MAE, groups, runs), bootstrap
intervals, the groups with their points (key, runs, tasks, Ē, mean z, normalized z, Ê),
the normalization median, held-out results, and for SAS its coefficients and dropped
columns. ``primary`` names the curve used when none is asked for. The JSON Schema is
``efc_tui/schemas/efc-fit-1.schema.json``.

    >>> fit = load_fit("fit.json")            # or load_fit() for the package default
    >>> curve = fit.curve()                   # the primary predictor's curve
    >>> pos = curve.predict_figures(ledger.figures)
    >>> pos.success, pos.z_norm, pos.percentile
"""

from __future__ import annotations

import bisect
import hashlib
import math
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from efc_tui import __version__
from efc_tui.errors import InputError
from efc_tui.fitting.corpus import (
    BINS_MAX,
    BINS_MIN,
    CONFIDENCE,
    MIN_GROUPS,
    RUNS_PER_BIN,
    TASKS,
    CorpusFit,
    Holdout,
    PredictorFit,
    describe,
)
from efc_tui.fitting.curves import Law, law_from_params
from efc_tui.fitting.predictors import AUTO_PRIMARY, BY_NAME, Predictor
from efc_tui.fitting.validity import GroupFigures, RunFigures, is_predictive, primary_validity

FIT_SCHEMA = "efc-fit/1"
DEFAULT_FIT = "default_fit.json"
#: the package's fit of the labeled real runs (``make fit-default`` writes both)
DEFAULT_FIT_REAL = "default_fit_real.json"


def _num(x: Any, digits: int = 12) -> float | None:
    """A JSON number (rounded to ``digits`` significant digits), None for NaN/inf/None."""
    if x is None:
        return None
    f = float(x)
    if not math.isfinite(f):
        return None
    return float(f"{f:.{digits}g}")


def _validity(groups: GroupFigures | None, runs: RunFigures | None) -> dict[str, Any]:
    """Grouped and per-run validity figures (efc_tui.fitting.validity) as JSON fields."""
    g = groups or GroupFigures(0, None, None, None)
    r = runs or RunFigures(0, 0, None, None, None, None)
    return {
        "groups": g.groups,
        "r2": _num(g.r2),
        "mae": _num(g.mae),
        "ceiling": _num(g.ceiling),
        "runs": r.runs,
        "successes": r.successes,
        "auc": _num(r.auc),
        "brier": _num(r.brier),
        "brier_base": _num(r.brier_base),
        "skill": _num(r.skill),
    }


def _holdout_doc(h: Holdout, keys: list[dict[str, str]]) -> dict[str, Any]:
    def key(g: int) -> dict[str, str]:
        return dict(keys[g]) if g < len(keys) else {}

    return {
        "name": h.name,
        "axes": list(h.axes),
        **_validity(h.groups, h.runs),
        "notes": list(h.notes),
        "splits": [
            {
                "held_out": dict(sp.held_out),
                "status": sp.status,
                "reason": sp.reason,
                "train_groups": len(sp.train_groups),
                "train_runs": sp.train_runs,
                "test_runs": sp.test_runs,
                "base_rate": _num(sp.base_rate),
                "params": None
                if sp.law is None
                else {k: _num(v) for k, v in sp.law.as_dict().items()},
                "median": _num(sp.median),
                "z_floor": _num(sp.z_floor),
                # the task cross-validation keeps its split summaries only: its held-out groups
                # are every group again, five times over
                "groups": []
                if h.name == TASKS
                else [
                    {
                        "key": key(t.group),
                        "runs": t.runs,
                        "observed_failure": _num(t.observed),
                        "predicted_failure": _num(t.predicted),
                        "observed_success": _num(1.0 - t.observed),
                        "predicted_success": _num(1.0 - t.predicted),
                    }
                    for t in sp.test_groups
                ],
            }
            for sp in h.splits
        ],
    }


def _predictor_doc(f: PredictorFit, fit: CorpusFit) -> dict[str, Any]:
    p = f.predictor
    g = fit.grouping
    keys = f.coord.keys if f.coord is not None else [g.key_dict(i) for i in range(g.n_groups)]
    figures = {
        **_validity(f.groups_in, f.runs_in),
        "groups": len(f.fitted) if f.status != "unavailable" else 0,
        "runs": f.n_runs,
    }
    doc: dict[str, Any] = {
        "name": p.name,
        "label": p.label,
        "family": p.family,
        "kind": "power_law" if p.curve else "sas_ols",
        "numerator": p.num,
        "denominator": p.den,
        "status": f.status,
        "reason": f.reason,
        "normalization": None
        if f.median is None
        else {"method": "median of the fitted groups' floored z", "median": _num(f.median)},
        "z_floor": _num(f.z_floor),
        "floored_groups": f.floored,
        "params": None if f.law is None else {k: _num(v) for k, v in f.law.as_dict().items()},
        "figures": figures,
        "predictive": f.predictive,
        "description": describe(f, fit.analysis) if f.ok else None,
        "fit": {"method": f.method, "at_bounds": list(f.at_bounds)},
        "intervals": None,
        "bootstrap": None,
        "bins": None
        if f.coord is None or f.coord.bin_lower is None
        else {"lower": [_num(v) for v in f.coord.bin_lower]},
        "groups": [],
        "holdout": [_holdout_doc(h, keys) for h in f.holdouts],
        "notes": list(f.notes),
    }
    if f.bootstrap is not None:
        doc["intervals"] = {k: [_num(v.lo), _num(v.hi)] for k, v in f.bootstrap.intervals.items()}
        doc["bootstrap"] = {
            "resamples": f.bootstrap.n_resamples,
            "ok": f.bootstrap.n_ok,
            "confidence": CONFIDENCE,
            "unit": "task",
        }
    pts = f.points
    if pts is not None and f.predicted is not None:
        for gi, pred in zip(f.fitted, f.predicted, strict=True):
            z = pts.z[gi]
            zf = None if f.z_floor is None or not np.isfinite(z) else max(float(z), f.z_floor)
            doc["groups"].append(
                {
                    "key": dict(keys[gi]),
                    "runs": int(pts.n_runs[gi]),
                    "tasks": None if not np.isfinite(pts.n_tasks[gi]) else int(pts.n_tasks[gi]),
                    "failure": _num(pts.failure[gi]),
                    "z": _num(z),
                    "z_norm": None if f.median is None or zf is None else _num(zf / f.median),
                    "predicted": _num(pred),
                }
            )
    if f.sas is not None:
        doc["sas"] = {
            k: (_num(v) if isinstance(v, float) else v) for k, v in f.sas.as_dict().items()
        }
        for k in ("coefficients", "column_mean", "column_sd"):
            doc["sas"][k] = {t: _num(v) for t, v in doc["sas"][k].items()}
        doc["sas"]["reference_harness"] = fit.sas_reference
    return doc


def fit_document(
    fit: CorpusFit, *, inputs: list[str] | None = None, estimator: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The efc-fit/1 document of a corpus fit (deterministic: no timestamps)."""
    prim = fit.primary_fit
    per_run = fit.analysis == "per_run"
    doc: dict[str, Any] = {
        "schema": FIT_SCHEMA,
        "generator": {"name": "efc-tui", "version": __version__},
        "model": {
            "curve": fit.curve.name,
            "equation": fit.curve.equation,
            "bounds": fit.curve.bounds,
            "predictions": "the fitted curve, in [0, 1]; success = 1 - failure; z below z_floor is raised to it",
        },
        "settings": {
            "group_by": list(fit.grouping.by),
            "bootstrap": fit.bootstrap,
            "seed": fit.seed,
            "confidence": CONFIDENCE,
            "holdout": list(fit.holdout_names),
            "cv_folds": fit.cv_folds,
            "primary": fit.primary_mode if fit.primary_mode == AUTO_PRIMARY else fit.primary,
            "sas_reference": fit.sas_reference,
        },
        "corpus": {
            "inputs": list(inputs or []),
            "runs": fit.n_runs_total,
            "runs_labeled": fit.n_runs_labeled,
            "runs_compared": fit.n_runs_compared,
            "tasks": fit.n_tasks,
            "groups": fit.grouping.n_groups,
            "sources": fit.n_sources,
            "base_rate": _num(fit.base_rate),
            "kind": fit.kind,
            "formats": list(fit.formats),
        },
        "analysis": {
            "kind": fit.analysis,
            "description": (
                f"per run: fewer than {MIN_GROUPS} groups, so each predictor's runs are put in "
                f"quantile bins of z (about {RUNS_PER_BIN} runs a bin, {BINS_MIN} to {BINS_MAX} "
                "bins) and the curve is fitted on the bins"
            )
            if per_run
            else f"groups: {' × '.join(fit.grouping.by)}",
        },
        "estimator": estimator,
        "notes": list(fit.notes),
        "selection": {
            "axis": fit.selection,
            "rule": "the EFC curve a user's trace can compute (not oracle_*, not sas, not a raw baseline) with the best held-out "
            "per-run Brier skill on this axis, among those with held-out Brier below the base "
            "rate's and AUC above 0.5",
        },
        "primary": fit.primary,
        "primary_predictive": None if prim is None else prim.predictive,
        "primary_reason": fit.primary_reason,
        "primary_description": None
        if prim is None or not prim.ok
        else describe(prim, fit.analysis),
        "predictors": [_predictor_doc(f, fit) for f in fit.fits],
    }
    return {**doc, "validity": primary_validity(doc)}


def dumps_fit(doc: dict[str, Any]) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"


# ---------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class CurvePosition:
    """Where a run sits on a fitted curve."""

    z: float  # the run's raw predictor value
    z_norm: float  # z / normalization median: the curve's x
    failure: float  # Ê(z), clipped to [0, 1]
    success: float  # 1 − Ê
    #: share of the fitted groups whose mean z is below the run's (0..1)
    percentile: float
    #: the part of Ê that more effective feedback could still remove: Ê − E_inf (≥ 0)
    reducible: float
    #: z lies outside the range of the fitted groups (the prediction extrapolates)
    extrapolated: bool


@dataclass(frozen=True, slots=True)
class CurvePoint:
    key: dict[str, str]
    runs: int
    failure: float
    z: float
    z_norm: float
    predicted: float


@dataclass(frozen=True, slots=True)
class HeldOut:
    """A curve's held-out validity figures on one axis (what `predictive` is judged on)."""

    axis: str
    groups: int
    r2: float | None
    ceiling: float | None
    mae: float | None
    runs: int
    auc: float | None
    brier: float | None
    brier_base: float | None
    skill: float | None
    successes: int | None = None

    @property
    def predictive(self) -> bool:
        """Held-out Brier strictly below the base rate's and AUC above ½ by more than chance
        (``validity.is_predictive``)."""
        return is_predictive(self.brier, self.brier_base, self.auc, self.successes, self.runs)

    @classmethod
    def from_doc(cls, h: dict[str, Any]) -> HeldOut:
        def f(k: str) -> float | None:
            v = h.get(k)
            return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None

        succ = h.get("successes")
        return cls(
            str(h.get("name")),
            int(h.get("groups") or 0),
            f("r2"),
            f("ceiling"),
            f("mae"),
            int(h.get("runs") or 0) if isinstance(h.get("runs"), int) else 0,
            f("auc"),
            f("brier"),
            f("brier_base"),
            f("skill"),
            succ if isinstance(succ, int) and not isinstance(succ, bool) else None,
        )


@dataclass(frozen=True)
class FitCurve:
    """One predictor's fitted curve, with the groups it was fitted on."""

    name: str
    label: str
    law: Law
    median: float
    r2: float | None
    mae: float | None
    points: tuple[CurvePoint, ...]
    intervals: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)
    predictor: Predictor | None = None
    _sorted_z: tuple[float, ...] = ()
    #: every raw z below it is raised to it (½ × the smallest positive group z); None in
    #: files written before the floor existed
    z_floor: float | None = None
    #: held-out Brier below the base rate's and AUC above ½ on the file's selection axis; None
    #: when the file has no held-out figures for it (written by an older efc-tui)
    predictive: bool | None = None
    #: the held-out figures ``predictive`` was judged on
    heldout: HeldOut | None = None
    #: the noise ceiling of the fitted groups (the R² the true group rates would reach)
    ceiling: float | None = None
    #: a one-line description a UI can show (name, runs, groups, held-out AUC and Brier)
    description: str = ""

    def _floor(self, z: np.ndarray) -> np.ndarray:
        return z if self.z_floor is None else np.maximum(z, self.z_floor)

    def failure(self, z_raw: Any) -> np.ndarray:
        """Ê for raw predictor values (array-friendly; z below z_floor is raised to it)."""
        return self.law.failure(self._floor(np.asarray(z_raw, dtype=float)) / self.median)

    def predict(self, z_raw: float) -> CurvePosition:
        """Predicted failure/success of a run with raw predictor value ``z_raw`` and its
        place on the curve. z below z_floor is raised to it (files without a floor: z ≤ 0
        maps to the curve's top)."""
        z = float(z_raw)
        if not math.isfinite(z):
            raise ValueError(f"{self.name}: predictor value must be finite, got {z_raw!r}")
        zn = float(self._floor(np.asarray(z))) / self.median
        e = float(self.law.failure(max(zn, 0.0)))
        zs = self._sorted_z
        pct = bisect.bisect_left(zs, z) / len(zs) if zs else float("nan")
        out = bool(zs) and (z < zs[0] or z > zs[-1])
        return CurvePosition(z, zn, e, 1.0 - e, pct, max(0.0, e - self.law.e_inf), out)

    def predict_figures(self, figures: Any) -> CurvePosition | None:
        """``predict`` for a run's RunFigures (or a mapping); None when the run lacks the
        predictor (e.g. no oracle, no fitted D_task)."""
        pred = self.predictor or BY_NAME.get(self.name)
        if pred is None:
            return None
        z = pred.value(figures)
        return None if z is None else self.predict(z)

    def curve(self, n: int = 100) -> tuple[np.ndarray, np.ndarray]:
        """(z_norm, Ê) along the fitted range, log-spaced, for drawing."""
        zn = [p.z_norm for p in self.points] or [1.0]
        lo, hi = min(zn), max(zn)
        if hi <= lo:
            hi = lo * 2
        xs = np.geomspace(lo, hi, n)
        return xs, self.law.failure(xs)


#: why a fit written before held-out figures existed gives no prediction
_OLD_FILE = (
    "the fit file has no held-out figures (written by an older efc-tui): refit with `efc-tui fit`"
)


@dataclass(frozen=True)
class FitFile:
    doc: dict[str, Any]
    source: str
    sha256: str

    @property
    def primary(self) -> str | None:
        p = self.doc.get("primary")
        return None if p is None else str(p)

    @property
    def primary_reason(self) -> str | None:
        """Why the primary curve is what it is, or why there is none."""
        r = self.doc.get("primary_reason")
        return None if r is None else str(r)

    @property
    def primary_description(self) -> str | None:
        """One line naming the primary curve with its held-out figures (None: no primary)."""
        d = self.doc.get("primary_description")
        return None if d is None else str(d)

    @property
    def analysis(self) -> str:
        """ "groups" or "per_run" (fewer than 3 groups: quantile bins of each predictor)."""
        return str((self.doc.get("analysis") or {}).get("kind") or "groups")

    def predictors(self) -> list[dict[str, Any]]:
        return list(self.doc.get("predictors", []))

    @property
    def kind(self) -> str | None:
        """ "synthetic" (fitted on runs with oracle blocks) or "real"; None for older files."""
        k = (self.doc.get("corpus") or {}).get("kind")
        return None if k is None else str(k)

    @property
    def formats(self) -> list[str]:
        """The reader formats of the runs the fit was made on (empty for older files)."""
        return [str(f) for f in (self.doc.get("corpus") or {}).get("formats") or []]

    def describe(self) -> str:
        """One line naming the fit a panel or table shows: what it was fitted on and how
        well its primary curve predicts held-out runs, or that it has none."""
        c = self.doc.get("corpus") or {}
        what = {"synthetic": "synthetic runs", "real": "real runs"}.get(str(c.get("kind")), "runs")
        n = c.get("runs_labeled", c.get("runs"))
        head = (
            f"fit: {what}, {n:,} runs, {c.get('groups', '?')} groups"
            if isinstance(n, int)
            else f"fit: {what}"
        )
        curve = self.predictive_curve()
        if curve is None:
            return f"{head}, no predictive curve ({self.no_prediction_reason})"
        h = curve.heldout
        auc = "" if h is None or h.auc is None else f", held-out AUC {h.auc:.2f}"
        return f"{head}: {curve.label}{auc}"

    def extrapolation(self, run: Any, pos: CurvePosition | None) -> str | None:
        """Why a prediction for ``run`` extrapolates (its format is not among the fit's, or
        its z is outside the fitted range), or None."""
        fmt = getattr(run, "source_format", None)
        if self.formats and fmt and fmt not in self.formats:
            return f"format {fmt} not in the fit ({', '.join(self.formats)})"
        if pos is not None and pos.extrapolated:
            return "z outside the fitted range"
        return None

    def names(self) -> list[str]:
        """Predictors that have a usable curve (predictive or not: see ``FitCurve.predictive``)."""
        return [
            p["name"] for p in self.predictors() if p.get("kind") == "power_law" and p.get("params")
        ]

    def predictive_names(self) -> list[str]:
        """Curves whose held-out Brier is below the base rate's (what a UI may draw as a
        prediction)."""
        return [
            p["name"]
            for p in self.predictors()
            if p.get("kind") == "power_law" and p.get("params") and p.get("predictive") is True
        ]

    def curve(self, name: str | None = None) -> FitCurve:
        """The curve of ``name`` (default: the file's primary predictor), predictive or not."""
        want = name or self.primary
        if want is None:
            why = f" ({self.primary_reason})" if self.primary_reason else ""
            raise InputError(
                f"the fit file has no primary curve{why}: name a predictor", self.source
            )
        for p in self.predictors():
            if p.get("name") == want:
                return _curve(p, self.source, self.doc)
        raise InputError(
            f"the fit file has no predictor {want!r} (it has: {', '.join(self.names())})",
            self.source,
        )

    def predictive_curve(self) -> FitCurve | None:
        """The primary curve when it predicts held-out runs better than the base rate; None
        otherwise (``no_prediction_reason`` says why). What `score --fit` predicts with."""
        if self.primary is None or "primary_reason" not in self.doc:
            return None
        try:
            c = self.curve()
        except InputError:
            return None
        return c if c.predictive else None

    @property
    def no_prediction_reason(self) -> str | None:
        """Why ``predictive_curve()`` is None (None when it is not)."""
        if "primary_reason" not in self.doc:
            return _OLD_FILE
        if self.primary is None:
            return self.primary_reason or "the fit file has no primary curve"
        try:
            c = self.curve()
        except InputError as exc:
            return exc.reason
        if c.predictive:
            return None
        if c.heldout is None:
            return f"{c.name} has no held-out figures"
        h = c.heldout
        return (
            f"{c.name} does not predict held-out ({h.axis}) runs better than the base rate "
            f"(Brier {_fmt(h.brier)} vs {_fmt(h.brier_base)} base)"
        )


def _fmt(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.3f}"


def _curve(p: dict[str, Any], source: str, doc: dict[str, Any] | None = None) -> FitCurve:
    name = str(p.get("name"))
    if p.get("kind") != "power_law":
        raise InputError(f"{name} is a regression over cells, not a curve", source)
    params = p.get("params")
    norm = p.get("normalization") or {}
    if p.get("status") != "ok" or not params:
        raise InputError(
            f"{name} has no fitted curve ({p.get('reason') or p.get('status')})", source
        )
    try:
        law = law_from_params(params)
        median = float(norm["median"])
        z_floor = None if p.get("z_floor") is None else float(p["z_floor"])
    except (KeyError, TypeError, ValueError):
        raise InputError(
            f"{name}: params need E_inf, alpha and A (or E_0 and z_0), and normalization.median",
            source,
        ) from None
    if not (median > 0 and math.isfinite(median)):
        raise InputError(f"{name}: normalization median must be positive", source)
    if z_floor is not None and not (z_floor > 0 and math.isfinite(z_floor)):
        raise InputError(f"{name}: z_floor must be positive", source)
    points = []
    for gpt in p.get("groups") or []:
        try:
            points.append(
                CurvePoint(
                    key=dict(gpt.get("key") or {}),
                    runs=int(gpt.get("runs") or 0),
                    failure=float(gpt["failure"]),
                    z=float(gpt["z"]),
                    z_norm=float(gpt["z_norm"]),
                    predicted=float(gpt["predicted"]),
                )
            )
        except (KeyError, TypeError, ValueError):
            raise InputError(
                f"{name}: a group point lacks failure, z, z_norm or predicted", source
            ) from None
    figs = p.get("figures") or {}
    iv = {
        k: (v[0], v[1])
        for k, v in (p.get("intervals") or {}).items()
        if isinstance(v, list) and len(v) == 2
    }
    pred = BY_NAME.get(name)
    if pred is None and p.get("numerator"):
        pred = Predictor(
            name,
            str(p.get("label") or name),
            str(p.get("family") or ""),
            str(p["numerator"]),
            p.get("denominator"),
        )
    axis = ((doc or {}).get("selection") or {}).get("axis")
    held = next(
        (HeldOut.from_doc(h) for h in p.get("holdout") or [] if h.get("name") == axis), None
    )
    predictive = p.get("predictive")
    return FitCurve(
        name=name,
        label=str(p.get("label") or name),
        law=law,
        median=median,
        r2=figs.get("r2"),
        mae=figs.get("mae"),
        points=tuple(points),
        intervals=iv,
        predictor=pred,
        _sorted_z=tuple(sorted(pt.z for pt in points)),
        z_floor=z_floor,
        predictive=predictive if isinstance(predictive, bool) else None,
        heldout=held,
        ceiling=figs.get("ceiling"),
        description=str(p.get("description") or name),
    )


def parse_fit(data: bytes, source: str) -> FitFile:
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"fit file is not valid JSON ({exc.msg})", source) from None
    if not isinstance(doc, dict) or doc.get("schema") != FIT_SCHEMA:
        raise InputError(
            f'not a fit file: needs "schema": "{FIT_SCHEMA}" (write one with `efc-tui fit`)', source
        )
    if not isinstance(doc.get("predictors"), list):
        raise InputError("fit file has no predictors list", source)
    return FitFile(doc, source, hashlib.sha256(data).hexdigest())


@lru_cache(maxsize=8)
def _load_cached(path: str) -> FitFile:
    if path in (DEFAULT_FIT, DEFAULT_FIT_REAL):
        ref = resources.files("efc_tui.data").joinpath(path)
        if not ref.is_file():
            raise InputError(
                "the package ships no default fit yet: pass --fit FIT.json "
                "(write one with `efc-tui fit`)"
            )
        return parse_fit(ref.read_bytes(), f"efc_tui/data/{path}")
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read fit file: {exc.strerror or exc}", p) from None
    return parse_fit(data, str(p))


def load_fit(path: str | Path | None = None) -> FitFile:
    """The fit file at ``path``, or the package default (``efc_tui/data/default_fit.json``,
    the synthetic corpus's)."""
    return _load_cached(DEFAULT_FIT if path is None else str(Path(path).resolve()))


def has_default_fit() -> bool:
    return resources.files("efc_tui.data").joinpath(DEFAULT_FIT).is_file()


@lru_cache(maxsize=1)
def has_real_fit() -> bool:
    return resources.files("efc_tui.data").joinpath(DEFAULT_FIT_REAL).is_file()


def fit_for(run: Any) -> FitFile:
    """The shipped fit that matches a run: the synthetic corpus's for a trace with oracle
    blocks (``efc-tui simulate``), the labeled real runs' for every other trace (when the
    package ships it). `efc-tui fit` on your own labeled runs gives a better one."""
    if run.simulated or not has_real_fit():
        return _load_cached(DEFAULT_FIT)
    return _load_cached(DEFAULT_FIT_REAL)


def _fit_by_source(source: str) -> FitFile:
    """A package fit by the source name ``fit_for`` gave it (``efc_tui/data/<file>``)."""
    name = source.rsplit("/", 1)[-1]
    return _load_cached(name if name in (DEFAULT_FIT, DEFAULT_FIT_REAL) else source)


#: what `score --fit` adds per run: predicted success and the run's place on the curve
FIT_COLUMNS: tuple[str, ...] = (
    "fit_success",
    "fit_z",
    "fit_z_norm",
    "fit_pctl",
    "fit_extrapolated",
)


def fit_columns(
    curve: FitCurve | None, figures: Any, extrapolated: str | None = None
) -> dict[str, Any]:
    """``score --fit`` columns for one run: 1 − Ê, raw z, z / median, the share of the
    fitted groups with a lower z, and whether the prediction extrapolates. All None when the
    run lacks the predictor, or when there is no predictive curve (``curve`` None)."""
    if curve is None:
        return dict.fromkeys(FIT_COLUMNS)
    pos = curve.predict_figures(figures)
    if pos is None:
        return dict.fromkeys(FIT_COLUMNS)
    return {
        "fit_success": pos.success,
        "fit_z": pos.z,
        "fit_z_norm": pos.z_norm,
        "fit_pctl": pos.percentile,
        "fit_extrapolated": bool(extrapolated) or pos.extrapolated,
    }


@dataclass(frozen=True, slots=True)
class Placement:
    """Where ``FitChooser.place`` put one run: the ``score --fit`` columns, the fit's source
    and why the prediction extrapolates (None: it does not)."""

    columns: dict[str, Any]
    source: str
    extrapolation: str | None


class FitChooser:
    """The fit `score --fit` uses for each run: one named file for every run, or (``path``
    None) the package's fit that matches the run (``fit_for``: synthetic or real).

    ``place`` does not change the chooser, so a copy can place runs on other processes (Dask
    workers); the command gives each placement back to ``note`` for its caption and warnings.
    """

    def __init__(self, path: str | Path | None) -> None:
        self.fixed = None if path is None else load_fit(path)
        self.seen: dict[str, FitFile] = {}
        self._extrapolated: dict[str, int] = {}

    def fit(self, run: Any) -> FitFile:
        return self.fixed if self.fixed is not None else fit_for(run)

    def place(self, run: Any, figures: Any) -> Placement:
        ff = self.fit(run)
        curve = ff.predictive_curve()
        pos = curve.predict_figures(figures) if curve is not None else None
        why = ff.extrapolation(run, pos) if curve is not None else None
        return Placement(
            fit_columns(curve, figures, why), ff.source, why if pos is not None else None
        )

    def note(self, source: str, extrapolation: str | None) -> None:
        """Count one placement (from ``place``, here or on a worker)."""
        if source not in self.seen:
            self.seen[source] = (
                self.fixed
                if self.fixed is not None and self.fixed.source == source
                else _fit_by_source(source)
            )
        if extrapolation is not None:
            self._extrapolated[extrapolation] = self._extrapolated.get(extrapolation, 0) + 1

    def describe_run(self, run: Any) -> dict[str, Any]:
        """What ``score --json`` says of the fit a run was placed on."""
        ff = self.fit(run)
        curve = ff.predictive_curve()
        return {
            "fit": ff.source,
            "description": ff.describe(),
            "predictor": curve.name if curve is not None else None,
            "extrapolation": ff.extrapolation(run, None),
        }

    def caption(self) -> str:
        if self.fixed is not None:
            return self.fixed.describe()
        if not self.seen:
            return "fit: the package's fit that matches each run"
        return "; ".join(ff.describe() for ff in self.seen.values())

    def warnings(self) -> list[str]:
        out = []
        for ff in self.seen.values():
            if ff.predictive_curve() is None:
                out.append(
                    f"{ff.source}: no predictive curve ({ff.no_prediction_reason}): no predicted success is shown"
                )
        for why, n in sorted(self._extrapolated.items()):
            out.append(f"{n} run(s) extrapolate the fit: {why}")
        return out
