"""The fit panel's view of a fit file (efc-fit/1): one success curve per predictor.

A thin adapter over ``efc_tui.fitting.fitfile``: the panel draws each predictor's
:class:`~efc_tui.fitting.fitfile.FitCurve` (SPEC §5, E(z) = E_inf + A·(z/median)^−α),
reads the run's predictor value after every event with the predictor's own definition
(``Predictor.column`` over cumulative figures), and asks the curve where a value sits
(``FitCurve.predict``). When no fit can be loaded the app still runs and the panel says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from efc_tui.errors import EfcError
from efc_tui.fitting.fitfile import (
    DEFAULT_FIT_REAL,
    _load_cached,
    has_default_fit,
    has_real_fit,
    load_fit,
)

if TYPE_CHECKING:
    from efc_tui.fitting.fitfile import CurvePosition, FitCurve, FitFile
    from efc_tui.fitting.predictors import Predictor


@dataclass(slots=True)
class CurveView:
    name: str
    label: str
    curve: FitCurve
    #: the fitted groups: (mean predictor z_i, observed failure rate Ē_i)
    points: list[tuple[float, float]] = field(default_factory=list)
    r2: float | None = None
    #: reads z from figures / prefix columns (None: the fit file names no known predictor)
    predictor: Predictor | None = None

    @property
    def z_median(self) -> float:
        return self.curve.median

    def success(self, z: np.ndarray) -> np.ndarray:
        """Predicted success 1 − Ê(z) at raw (not normalized) predictor values."""
        return 1.0 - np.asarray(self.curve.failure(np.asarray(z, dtype=float)), dtype=float)

    def predict(self, z: float) -> CurvePosition | None:
        """The curve's ``CurvePosition`` for one raw value (None when it has none)."""
        try:
            return self.curve.predict(z)
        except ValueError:
            return None

    def prefix_values(self, cols: Mapping[str, np.ndarray]) -> np.ndarray | None:
        """z after each event, from cumulative figures (``ReplayData.prefix_columns``)."""
        if self.predictor is None:
            return None
        try:
            return np.asarray(self.predictor.column(cols), dtype=float)
        except (KeyError, ValueError):
            return None


@dataclass(slots=True)
class FitView:
    curves: list[CurveView]
    default: str | None
    source: str = ""
    #: why there are no curves (shown in the panel), when there are none
    problem: str | None = None
    #: one line naming the fit: what it was fitted on and how well it predicts
    description: str = ""
    #: the fit file itself (its formats decide extrapolation), when one was loaded
    file: FitFile | None = None
    #: the package's fits by kind ("synthetic", "real") when no file was named: the panel
    #: shows the one that matches the run (``for_run``)
    choices: dict[str, FitView] | None = None

    def curve(self, name: str) -> CurveView | None:
        for c in self.curves:
            if c.name == name:
                return c
        return None

    def for_run(self, run: object | None) -> FitView:
        """The view for one run: itself, or (package default) the fit that matches it: the
        synthetic corpus's for a trace with oracle blocks, the real runs' otherwise."""
        if not self.choices:
            return self
        want = "synthetic" if getattr(run, "simulated", False) else "real"
        return self.choices.get(want) or next(iter(self.choices.values()))

    def extrapolation(self, run: object | None) -> str | None:
        """Why any prediction for ``run`` extrapolates by its format (None: it does not)."""
        if self.file is None or run is None:
            return None
        return self.file.extrapolation(run, None)


def _view(ff: FitFile) -> FitView:
    curves: list[CurveView] = []
    for name in ff.names():
        try:
            c = ff.curve(name)
        except EfcError:
            continue
        if c.predictive is not True:  # no held-out evidence that it predicts: never drawn
            continue
        curves.append(
            CurveView(
                name=c.name,
                label=c.label,
                curve=c,
                points=[(p.z, p.failure) for p in c.points],
                r2=c.r2,
                predictor=c.predictor,
            )
        )
    names = [c.name for c in curves]
    default = ff.primary if ff.primary in names else (names[0] if names else None)
    problem = (
        None
        if curves
        else (
            f"no predictive curve ({ff.no_prediction_reason})"
            if ff.names()
            else "the fit file has no fitted curve"
        )
    )
    return FitView(
        curves, default, source=ff.source, problem=problem, description=ff.describe(), file=ff
    )


def load_fit_view(path: str | Path | None = None) -> FitView:
    """The curves of a fit file; ``None``: the package's fits, the one that matches each run
    (``FitView.for_run``).

    A named file that cannot be read raises ``EfcError`` (the CLI exits 2); a missing or
    broken default fit gives a view with no curves and the reason, so the app still runs.
    """
    if path is not None:
        return _view(load_fit(path))
    if not has_default_fit():
        return FitView([], None, problem="no fit available (the package ships no default fit)")
    choices: dict[str, FitView] = {}
    for kind, which in (("synthetic", None), ("real", DEFAULT_FIT_REAL if has_real_fit() else "")):
        if which == "":
            continue
        try:
            ff = load_fit() if which is None else _load_packaged(which)
        except EfcError as exc:
            choices[kind] = FitView([], None, problem=f"no fit available ({exc})")
            continue
        choices[kind] = _view(ff)
    first = next(iter(choices.values()))
    return FitView(
        first.curves,
        first.default,
        source="package",
        problem=first.problem,
        description=first.description,
        file=first.file,
        choices=choices,
    )


def _load_packaged(name: str) -> FitFile:
    return _load_cached(name)
