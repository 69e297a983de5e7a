"""The scalar predictors a scaling fit compares (SPEC §5, paper §3.4).

Each power-law predictor is a run-level figure, or a ratio of two, read from
:class:`~efc_tui.scoring.RunFigures` (or any mapping with the same names). SAS is not a
scalar coordinate: it is a regression over cells (``efc_tui.fitting.sas``); it sits in
the same table but has no curve.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from efc_tui.scoring.figures import BY_KEY as FIGURE


@dataclass(frozen=True, slots=True)
class Predictor:
    """A scalar coordinate z: ``num`` (÷ ``den`` when given) of a run's figures."""

    name: str
    label: str
    #: "raw", "baseline", "efc", "efc/d_task" or "eta": how the docs and table group it
    family: str
    num: str | None
    den: str | None = None
    #: SAS is a cell regression, not a curve over z
    curve: bool = True

    def value(self, figures: Any) -> float | None:
        """z for one run from its figures (a RunFigures or a mapping), or None when the run
        does not have it (no oracle, no fitted D_task, zero denominator, non-finite)."""
        if self.num is None:
            return None
        get = figures.get if isinstance(figures, Mapping) else lambda k: getattr(figures, k, None)
        num = _finite(derived(self.num, get) if self.num in DERIVED else get(self.num))
        if num is None:
            return None
        if self.den is None:
            return num
        den = _finite(get(self.den))
        if den is None or den <= 0:
            return None
        return num / den

    def parts(self, cols: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(numerator, denominator) of z for every row of a run table's float columns, NaN
        in both where the run has no z. A single figure's denominator is 1, so a group's
        z = Σ num / Σ den is the ratio of its means for a ratio and the mean for a figure."""
        if self.num is None:
            raise ValueError(f"{self.name} has no per-run value")
        num = np.asarray(cols[self.num], dtype=float).copy()
        den = (
            np.ones_like(num)
            if self.den is None
            else np.asarray(cols[self.den], dtype=float).copy()
        )
        with np.errstate(invalid="ignore"):
            bad = ~(np.isfinite(num) & np.isfinite(den) & (den > 0))
        num[bad] = np.nan
        den[bad] = np.nan
        return num, den

    def column(self, cols: Mapping[str, np.ndarray]) -> np.ndarray:
        """z for every row of a run table's float columns (NaN where unavailable)."""
        num, den = self.parts(cols)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = num / den
        z[~np.isfinite(z)] = np.nan
        return z

    @property
    def needs_oracle(self) -> bool:
        """Only synthetic traces with oracle blocks have it (a user's own trace cannot)."""
        return "oracle_efc" in (self.num, self.den)


#: run-level figures computed from others (a run table keeps them as columns; a run's
#: RunFigures are read through ``derived``): name -> (numerator, denominator ≥ 1)
DERIVED: dict[str, tuple[str, str]] = {"rf_rate": ("nrs_efc", "events")}


def derived(name: str, get: Any) -> float | None:
    """A derived figure of a run: ``rf_rate`` = NRS-EFC per event (events floored at 1;
    docs/equations.md, "RF rate")."""
    num, den = DERIVED[name]
    a, b = _finite(get(num)), _finite(get(den))
    if a is None or b is None:
        return None
    return a / max(1.0, b)


def _finite(v: Any) -> float | None:
    if v is None or isinstance(v, bool):
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _figure(key: str, family: str) -> Predictor:
    """The predictor over a run figure: its label and, for a ratio, its numerator and
    denominator from ``efc_tui.scoring.figures``."""
    figure = FIGURE[key]
    assert figure.predictor is not None, key
    num, den = figure.ratio or (key, None)
    return Predictor(key, figure.predictor, family, num, den)


def _fitted(p: Predictor) -> Predictor:
    """``p`` over the fitted D_task instead of the hand-designed one."""
    return Predictor(f"{p.name}_fitted", f"{p.label} (fitted)", p.family, p.num, "d_task_fitted")


_ORACLE_X = Predictor("oracle_x", "Oracle-EFC/D_task", "efc/d_task", "oracle_efc", "d_task")
_X_EST = _figure("x_est", "efc/d_task")
_RF_RATE = Predictor("rf_rate", "RF rate", "efc", "rf_rate")

#: every predictor, in the order of the comparison table (the paper's order); those over a
#: run figure take its label and parts from ``efc_tui.scoring.figures``
PREDICTORS: tuple[Predictor, ...] = (
    _figure("tokens", "raw"),
    _figure("tool_calls", "raw"),
    _figure("wall_s", "raw"),
    _figure("ops", "raw"),
    _figure("c_raw", "raw"),
    Predictor("sas", "SAS", "baseline", None, curve=False),
    _figure("oracle_efc", "efc"),
    _ORACLE_X,
    _fitted(_ORACLE_X),
    _figure("est_efc", "efc"),
    _X_EST,
    _fitted(_X_EST),
    _figure("nrs_efc", "efc"),
    _figure("x_nrs", "efc/d_task"),
    _figure("x_nrs_fitted", "efc/d_task"),
    _RF_RATE,
    Predictor("x_rf", f"{_RF_RATE.label}/D_task", "efc/d_task", "rf_rate", "d_task"),
    _figure("eta", "eta"),
    _figure("eta_nrs", "eta"),
)

BY_NAME: dict[str, Predictor] = {p.name: p for p in PREDICTORS}

#: ``--primary auto``: the EFC curve a user's trace can compute that predicts held-out runs best
AUTO_PRIMARY = "auto"


def get_predictor(name: str) -> Predictor:
    """The predictor called ``name`` (its id or its label, case-insensitive)."""
    if name in BY_NAME:
        return BY_NAME[name]
    low = name.strip().lower()
    for p in PREDICTORS:
        if low in (p.name.lower(), p.label.lower()):
            return p
    raise KeyError(name)


def predictor_names() -> str:
    return ", ".join(p.name for p in PREDICTORS)
