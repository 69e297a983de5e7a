"""The two failure curves a scaling fit can use, behind one interface.

- ``saturating`` (the default, **Decision** in docs/fitting.md):
  E(z) = E_inf + (E_0 − E_inf) / (1 + (z / z_0)^α). Its tail (z ≫ z_0) is the paper's power
  law E_inf + A·z^(−α), A = (E_0 − E_inf)·z_0^α; at z → 0 it tends to E_0, the failure rate
  of a run that got no effective feedback (an agent that only guesses still succeeds
  sometimes), where the paper's curve diverges. ``efc_tui.fitting.saturating``.
- ``power``: the paper's eq. 14 capped at 1, min(1, E_inf + A·z^(−α)).
  ``efc_tui.fitting.powerlaw``.

Both laws offer ``failure(z_norm)`` (the prediction, in [0, 1]), ``curve(z_norm)`` (what the
fit minimizes against), ``as_dict()`` and ``e_inf``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from efc_tui.errors import InputError
from efc_tui.fitting import powerlaw, saturating
from efc_tui.fitting.powerlaw import PowerLaw
from efc_tui.fitting.saturating import SaturatingLaw


class Law(Protocol):
    @property
    def e_inf(self) -> float: ...
    @property
    def alpha(self) -> float: ...
    #: the tail amplitude: E ≈ E_inf + A·z^(−α) at large z
    @property
    def a(self) -> float: ...
    def failure(self, z_norm: np.ndarray | float) -> np.ndarray: ...
    def curve(self, z_norm: np.ndarray | float) -> np.ndarray: ...
    def as_dict(self) -> dict[str, float]: ...


@dataclass(frozen=True)
class CurveModel:
    name: str
    #: parameter names, in the order ``fit_batch`` returns them
    params: tuple[str, ...]
    equation: str
    bounds: dict[str, list[float | None]]

    def fit(self, z_norm: np.ndarray, y: np.ndarray) -> tuple[Any, str, tuple[str, ...]]:
        """(law, method, parameters on a bound) for one set of group points."""
        if self.name == "power":
            res = powerlaw.fit_power_law(z_norm, y)
            return res.law, res.method, res.at_bounds
        law = saturating.fit_saturating(z_norm, y)
        return law, "grid + least_squares", saturating.bounds_hit(law)

    def fit_batch(self, z_norm: np.ndarray, y: np.ndarray, w: np.ndarray) -> list[np.ndarray]:
        """One fit per row of (B, G) arrays: the parameter arrays in ``params`` order."""
        if self.name == "power":
            e, a, al, _ = powerlaw.fit_batch(z_norm, y, w)
            return [e, a, al]
        ei, e0, z0, al, _ = saturating.fit_saturating_batch(z_norm, y, w)
        return [ei, e0, z0, al]

    def law(self, *values: float, z_min: float = 1.0) -> Any:
        """The law of fitted parameter values (``z_min``: the smallest normalized z it is
        used at, for ``powerlaw.snap``)."""
        if self.name == "power":
            return powerlaw.snap(PowerLaw(*(float(v) for v in values)), z_min)
        return SaturatingLaw(*(float(v) for v in values))

    def predict_batch(self, values: list[np.ndarray], z_norm: np.ndarray) -> np.ndarray:
        """The fitted curve of every row at (B, G) points."""
        z = np.asarray(z_norm, dtype=float)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            if self.name == "power":
                e, a, al = (v[:, None] for v in values)
                return np.minimum(1.0, e + a * np.power(np.maximum(z, 1e-12), -al))
            ei, e0, z0, al = (v[:, None] for v in values)
            s = 1.0 / (1.0 + np.power(np.maximum(z, 0.0) / z0, al))
            return np.clip(ei + (e0 - ei) * s, 0.0, 1.0)


POWER = CurveModel(
    "power",
    ("E_inf", "A", "alpha"),
    "E(z) = min(1, E_inf + A * (z / median)^(-alpha))",
    {"E_inf": [0.0, 1.0], "A": [0.0, None], "alpha": [powerlaw.ALPHA_MIN, powerlaw.ALPHA_MAX]},
)
SATURATING = CurveModel(
    "saturating",
    ("E_inf", "E_0", "z_0", "alpha"),
    "E(z) = E_inf + (E_0 - E_inf) / (1 + (z / median / z_0)^alpha)",
    {
        "E_inf": [0.0, 1.0],
        "E_0": [0.0, 1.0],
        "z_0": [0.0, None],
        "alpha": [saturating.ALPHA_MIN, saturating.ALPHA_MAX],
    },
)
MODELS: dict[str, CurveModel] = {m.name: m for m in (SATURATING, POWER)}
DEFAULT_CURVE = "saturating"


def get_model(name: str) -> CurveModel:
    try:
        return MODELS[name]
    except KeyError:
        raise InputError(f"unknown curve {name!r}; choose from {', '.join(MODELS)}") from None


def law_from_params(params: Mapping[str, Any]) -> Any:
    """A law from a fit file's ``params``: saturating when E_0 and z_0 are there."""
    if "E_0" in params and "z_0" in params:
        return SaturatingLaw(
            float(params["E_inf"]),
            float(params["E_0"]),
            float(params["z_0"]),
            float(params["alpha"]),
        )
    return PowerLaw(float(params["E_inf"]), float(params["A"]), float(params["alpha"]))
