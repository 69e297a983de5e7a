"""Estimated-EFC (SPEC §3.4, paper eq. 7-8) and the estimator file that carries θ.

    ÊFC_t = max(0, exp(θ0 + θ·phi(e_t)) − 1),   ÊFC(τ) = Σ_t ÊFC_t

The estimator file (schema ``efc-estimator/1``) holds the full-feature θ, the prefix-only θ
the adapter uses (no z; m is the memory-write signal), the fitted task-demand exponents,
the adapter's window W and threshold ε, and its provenance. The package ships a default;
``efc-tui calibrate`` writes a new one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import orjson
from msgspec import Struct, field

from efc_tui.data import data_bytes, has_data_file
from efc_tui.errors import InputError
from efc_tui.scoring.constants import FEATURES

ESTIMATOR_SCHEMA = "efc-estimator/1"
DEFAULT_ESTIMATOR = "estimator.json"
#: the estimator for real traces: the same θ, task demand calibrated on labeled real runs
REAL_ESTIMATOR = "estimator_real.json"


class Theta(Struct, frozen=True):
    theta0: float
    theta: tuple[float, ...]

    def predict(self, phi: np.ndarray) -> np.ndarray:
        """ÊFC_t for each row of a (T, 9) feature matrix (SPEC §3.4): ``predict_columns``
        of its columns."""
        return self.predict_columns(phi.T)

    def predict_columns(self, phi: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
        """ÊFC_t for each event, from phi's nine columns (``Features.phi``) (SPEC §3.4).

        Element-wise column sums, θ0 + φ[0]·θ[0] + φ[1]·θ[1] + ... in that order, not
        a matrix product: BLAS rounds a row by where it falls in its blocks of rows, by the
        number of threads and by the CPU's kernel, so the same event could score differently
        on another machine or in a longer trace. Here each row's arithmetic is fixed, and
        no BLAS thread starts. A run's columns are read as they are (no (T, 9) matrix is
        built: on a short run that copy costs more than the sums).
        """
        lin = np.full(len(phi[0]), self.theta0, dtype=float)
        for col, w in zip(phi, self.theta, strict=True):
            lin += col * w
        return np.maximum(0.0, np.expm1(np.minimum(lin, 50.0)))


class Estimator(Struct, frozen=True):
    full: Theta
    prefix: Theta
    #: fitted task-demand exponents β0..β5 and normalization (SPEC §4), None until calibrated
    demand: dict[str, Any] | None
    #: adapter window W and threshold ε (SPEC §6)
    window: int
    epsilon: float
    provenance: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    sha256: str = ""

    @property
    def provisional(self) -> bool:
        return self.provenance.get("status") == "provisional"


def _theta(obj: Any, what: str, src: str) -> Theta:
    if not isinstance(obj, dict) or "theta0" not in obj or "theta" not in obj:
        raise InputError(f"estimator: {what} needs theta0 and theta", src)
    theta = obj["theta"]
    if isinstance(theta, dict):
        theta = [theta.get(k, 0.0) for k in FEATURES]
    if not isinstance(theta, list) or len(theta) != len(FEATURES):
        raise InputError(
            f"estimator: {what}.theta needs {len(FEATURES)} weights ({', '.join(FEATURES)})", src
        )
    try:
        return Theta(float(obj["theta0"]), tuple(float(x) for x in theta))
    except (TypeError, ValueError):
        raise InputError(f"estimator: {what} weights must be numbers", src) from None


def parse_estimator(data: bytes, source: str) -> Estimator:
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"estimator file is not valid JSON ({exc.msg})", source) from None
    if not isinstance(obj, dict) or obj.get("schema") != ESTIMATOR_SCHEMA:
        raise InputError(f'estimator file must have "schema": "{ESTIMATOR_SCHEMA}"', source)
    adapter = obj.get("adapter") or {}
    return Estimator(
        full=_theta(obj.get("full"), "full", source),
        prefix=_theta(obj.get("prefix"), "prefix", source),
        demand=obj.get("demand"),
        window=int(adapter.get("window", 6)),
        epsilon=float(adapter.get("epsilon", 0.02)),
        provenance=obj.get("provenance") or {},
        source=source,
        sha256=hashlib.sha256(data).hexdigest(),
    )


@lru_cache(maxsize=8)
def _load_cached(path: str) -> Estimator:
    if path in (DEFAULT_ESTIMATOR, REAL_ESTIMATOR):
        data = data_bytes(path)
        return parse_estimator(data, f"efc_tui/data/{path}")
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read estimator file: {exc.strerror or exc}", p) from None
    return parse_estimator(data, str(p))


def load_estimator(path: str | Path | None = None) -> Estimator:
    """The estimator at ``path``, or the package default (the synthetic calibration)."""
    return _load_cached(DEFAULT_ESTIMATOR if path is None else str(Path(path).resolve()))


@lru_cache(maxsize=1)
def has_real_estimator() -> bool:
    return has_data_file(REAL_ESTIMATOR)


def estimator_for(run: Any) -> Estimator:
    """The shipped estimator that matches a run: the synthetic one for a trace with oracle
    blocks (``efc-tui simulate``), the real one (task demand calibrated on labeled real runs)
    for every other trace, when the package ships it."""
    if run.simulated or not has_real_estimator():
        return _load_cached(DEFAULT_ESTIMATOR)
    return _load_cached(REAL_ESTIMATOR)
