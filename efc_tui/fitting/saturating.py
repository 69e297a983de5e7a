"""The saturating power law: the paper's failure curve with a finite failure rate at zero
feedback.

    E(z) = E_inf + (E_0 − E_inf) / (1 + (z / z_0)^α),   0 ≤ E_inf ≤ E_0 ≤ 1,  z_0 > 0,  α ∈ [0.05, 8]

For z ≫ z_0 this is E_inf + A·z^(−α) with A = (E_0 − E_inf)·z_0^α, the paper's eq. 14; at
z = 0 it is E_0, the failure rate of a run that got no effective feedback at all (an agent
that only guesses still succeeds sometimes), where the paper's curve diverges and has to be
capped. **Decision** (docs/equations.md): this is the default curve of ``efc-tui fit``; the
paper's capped form stays available and is reported beside it.

Fits here are deterministic: a grid over (log z_0, α) with the two linear parameters
(E_inf, E_0) solved in closed form under their bounds at each grid point, then a bounded
``scipy.optimize.least_squares`` polish from the best grid point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ALPHA_MIN = 0.05
ALPHA_MAX = 8.0
_ALPHAS = np.geomspace(ALPHA_MIN, ALPHA_MAX, 24)
_LOGZ0 = np.linspace(-4.0, 4.0, 33)  # z_0 in units of the normalization median


@dataclass(frozen=True, slots=True)
class SaturatingLaw:
    """E(z) = E_inf + (E_0 − E_inf) / (1 + (z / z_0)^α) (z median-normalized)."""

    e_inf: float
    e_0: float
    z_0: float
    alpha: float

    def failure(self, z_norm: np.ndarray | float) -> np.ndarray:
        z = np.maximum(np.asarray(z_norm, dtype=float), 0.0)
        with np.errstate(over="ignore", divide="ignore"):
            s = 1.0 / (1.0 + np.power(z / self.z_0, self.alpha))
        return np.clip(self.e_inf + (self.e_0 - self.e_inf) * s, 0.0, 1.0)

    def curve(self, z_norm: np.ndarray | float) -> np.ndarray:
        """The fitted curve itself (in [0, 1] by construction): what R² is computed from."""
        return self.failure(z_norm)

    @property
    def a(self) -> float:
        """A of the power-law tail E_inf + A·z^(−α)."""
        return (self.e_0 - self.e_inf) * self.z_0**self.alpha

    def as_dict(self) -> dict[str, float]:
        return {"E_inf": self.e_inf, "E_0": self.e_0, "z_0": self.z_0, "alpha": self.alpha}


def _shape(z: np.ndarray, logz0: float, alpha: float) -> np.ndarray:
    with np.errstate(over="ignore", divide="ignore"):
        return 1.0 / (1.0 + np.power(np.maximum(z, 0.0) / math.exp(logz0), alpha))


def _linear(s: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[float, float, float]:
    """Best (E_inf, E_0) with 0 ≤ E_inf ≤ E_0 ≤ 1 for y ≈ E_inf + (E_0 − E_inf)·s; SSE."""
    best = (0.0, 0.0, math.inf)

    def sse(ei: float, e0: float) -> float:
        r = y - (ei + (e0 - ei) * s)
        return float((w * r * r).sum())

    # unconstrained: y = ei·(1 − s) + e0·s
    A = np.column_stack([1.0 - s, s]) * np.sqrt(w)[:, None]
    b = y * np.sqrt(w)
    try:
        (ei, e0), *_ = np.linalg.lstsq(A, b, rcond=None)
        if 0.0 <= ei <= e0 <= 1.0:
            return float(ei), float(e0), sse(float(ei), float(e0))
    except np.linalg.LinAlgError:
        pass
    # otherwise the optimum is on an edge of the triangle {0 ≤ ei ≤ e0 ≤ 1}
    sw = float(w.sum())
    cands: list[tuple[float, float]] = []
    # ei = 0: y ≈ e0·s
    d = float((w * s * s).sum())
    if d > 0:
        cands.append((0.0, min(1.0, max(0.0, float((w * s * y).sum()) / d))))
    # e0 = 1: y − s ≈ ei·(1 − s)
    d = float((w * (1 - s) ** 2).sum())
    if d > 0:
        cands.append((min(1.0, max(0.0, float((w * (1 - s) * (y - s)).sum()) / d)), 1.0))
    # ei = e0 = c (flat)
    c = float((w * y).sum()) / sw if sw > 0 else 0.0
    cands.append((min(1.0, max(0.0, c)),) * 2)
    for ei, e0 in cands:
        v = sse(ei, e0)
        if v < best[2]:
            best = (ei, e0, v)
    return best


def fit_saturating(z_norm: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> SaturatingLaw:
    """Weighted least-squares fit of the saturating law to points (z, y) (z ≥ 0)."""
    z = np.asarray(z_norm, dtype=float)
    y = np.asarray(y, dtype=float)
    w = np.ones_like(y) if w is None else np.asarray(w, dtype=float)
    best = (math.inf, 0.0, 1.0, 0.0, 1.0)
    for lz in _LOGZ0:
        for a in _ALPHAS:
            ei, e0, v = _linear(_shape(z, lz, a), y, w)
            if v < best[0]:
                best = (v, ei, e0, lz, a)
    _, ei, e0, lz, a = best
    try:
        from scipy.optimize import least_squares

        sw = np.sqrt(w)

        def resid(p: np.ndarray) -> np.ndarray:
            e_i, gap, l0, al = p
            return sw * (e_i + gap * _shape(z, l0, al) - y)

        x0 = np.array([ei, max(0.0, e0 - ei), lz, a])
        lo = np.array([0.0, 0.0, -8.0, ALPHA_MIN])
        hi = np.array([1.0, 1.0, 8.0, ALPHA_MAX])
        sol = least_squares(resid, np.clip(x0, lo, hi), bounds=(lo, hi), method="trf")
        e_i, gap, l0, al = sol.x
        if e_i + gap <= 1.0 + 1e-9 and float((sol.fun**2).sum()) < best[0]:
            ei, e0, lz, a = float(e_i), float(min(1.0, e_i + gap)), float(l0), float(al)
    except Exception:  # the grid optimum stands
        pass
    return SaturatingLaw(float(ei), float(e0), float(math.exp(lz)), float(a))


#: a coarser grid for batches (bootstrap resamples, held-out splits): no polish there
_BATCH_LOGZ0 = np.linspace(-4.0, 4.0, 25)
_BATCH_ALPHAS = np.geomspace(ALPHA_MIN, ALPHA_MAX, 16)


def _solve_rows(
    z: np.ndarray,
    logz: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    lz: np.ndarray,
    a: np.ndarray,
    Sw: np.ndarray,
    Sy: np.ndarray,
    Syy: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """For per-row (log z_0, α), the best (E_inf, E_0) under the bounds and its SSE."""
    B = z.shape[0]
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        d = np.where(z > 0, logz - lz[:, None], -np.inf)
        s = 1.0 / (1.0 + np.exp(np.clip(a[:, None] * d, -50.0, 50.0)))
        Ss, Sss, Ssy = (w * s).sum(axis=1), (w * s * s).sum(axis=1), (w * s * y).sum(axis=1)
        det = Sw * Sss - Ss * Ss
        ei_u = (Sy * Sss - Ss * Ssy) / det
        g_u = (Sw * Ssy - Ss * Sy) / det
    with np.errstate(invalid="ignore"):
        ok_u = np.isfinite(ei_u) & np.isfinite(g_u) & (ei_u >= 0) & (g_u >= 0) & (ei_u + g_u <= 1)
    S1 = (w * (1 - s) ** 2).sum(axis=1)
    e1 = np.clip((w * (1 - s) * (y - s)).sum(axis=1) / np.where(S1 > 0, S1, 1.0), 0.0, 1.0)
    cands = [
        (np.where(ok_u, ei_u, 0.0), np.where(ok_u, g_u, 0.0), ok_u),  # unconstrained
        (np.clip(Sy / np.where(Sw > 0, Sw, 1.0), 0.0, 1.0), np.zeros(B), np.ones(B, bool)),  # flat
        (
            np.zeros(B),
            np.clip(Ssy / np.where(Sss > 0, Sss, 1.0), 0.0, 1.0),
            np.ones(B, bool),
        ),  # E_inf = 0
        (e1, 1.0 - e1, np.ones(B, bool)),  # E_0 = 1
    ]
    best = np.full(B, np.inf)
    ei_b, g_b = np.zeros(B), np.zeros(B)
    for ei, g, ok in cands:
        sse = Syy - 2 * ei * Sy - 2 * g * Ssy + ei * ei * Sw + 2 * ei * g * Ss + g * g * Sss
        v = np.where(ok, sse, np.inf)
        better = v < best
        best = np.where(better, v, best)
        ei_b = np.where(better, ei, ei_b)
        g_b = np.where(better, g, g_b)
    return ei_b, g_b, best


def fit_saturating_batch(
    z_norm: np.ndarray, y: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Fit one saturating law per row of (B, G) arrays at once (weights 0 leave a group out).

    Returns (E_inf, E_0, z_0, α, SSE), each of length B. A coarse (log z_0, α) grid with
    (E_inf, E_0 − E_inf) solved in closed form under 0 ≤ E_inf ≤ E_0 ≤ 1 at every point
    (the unconstrained optimum when feasible, else the best edge of that triangle), then
    each row's best point refined by three rounds of a 5 × 5 local grid, each a third as
    wide as the last.
    """
    z = np.maximum(np.asarray(z_norm, dtype=float), 0.0)
    y = np.asarray(y, dtype=float)
    w = np.asarray(w, dtype=float)
    B = z.shape[0]
    Sw = w.sum(axis=1)
    Sy = (w * y).sum(axis=1)
    Syy = (w * y * y).sum(axis=1)
    with np.errstate(divide="ignore"):
        logz = np.log(np.where(z > 0, z, 1.0))
    best = np.full(B, np.inf)
    ei_b, g_b, lz_b, la_b = np.zeros(B), np.zeros(B), np.zeros(B), np.zeros(B)

    def consider(lz: np.ndarray, la: np.ndarray) -> None:
        nonlocal best, ei_b, g_b, lz_b, la_b
        a = np.clip(np.exp(la), ALPHA_MIN, ALPHA_MAX)
        ei, g, v = _solve_rows(z, logz, y, w, lz, a, Sw, Sy, Syy)
        better = v < best
        best = np.where(better, v, best)
        ei_b, g_b = np.where(better, ei, ei_b), np.where(better, g, g_b)
        lz_b, la_b = np.where(better, lz, lz_b), np.where(better, np.log(a), la_b)

    for lz in _BATCH_LOGZ0:
        for a in _BATCH_ALPHAS:
            consider(np.full(B, lz), np.full(B, math.log(a)))
    step_z = float(_BATCH_LOGZ0[1] - _BATCH_LOGZ0[0])
    step_a = float(math.log(_BATCH_ALPHAS[1] / _BATCH_ALPHAS[0]))
    for _ in range(3):
        cz, ca = lz_b.copy(), la_b.copy()
        for dz in np.linspace(-step_z, step_z, 5):
            for da in np.linspace(-step_a, step_a, 5):
                consider(np.clip(cz + dz, -8.0, 8.0), ca + da)
        step_z /= 3
        step_a /= 3
    return ei_b, ei_b + g_b, np.exp(lz_b), np.exp(la_b), best


def bounds_hit(law: SaturatingLaw) -> tuple[str, ...]:
    """Parameters on a bound, for the fit table's note column."""
    hit = []
    if law.e_inf <= 1e-9:
        hit.append("E_inf=0")
    if law.e_0 >= 1 - 1e-9:
        hit.append("E_0=1")
    if law.e_0 - law.e_inf <= 1e-9:
        hit.append("flat")
    if law.alpha <= ALPHA_MIN * (1 + 1e-6):
        hit.append("alpha=min")
    if law.alpha >= ALPHA_MAX * (1 - 1e-6):
        hit.append("alpha=max")
    return tuple(hit)
