"""The power-law failure model and its bounded fit (SPEC §5, paper eq. 14).

    Ê(z) = min(1, E_inf + A · z^(−α)),   E_inf ∈ [0, 1],  A ≥ 0,  α ∈ (0, 5]

SPEC §5 writes E(z) = E_inf + A · z^(−α) and is silent on values above 1. Failure is a rate,
so the fitted model is the curve capped at 1: a group at very small z (where any α > 0
predicts far above 1) costs at most (1 − Ē_i)² instead of dragging the whole curve flat.

How it is fitted (deterministic, no random restarts):

1. **Profile over α.** With a ≥ 0 the capped groups are always the k smallest z. For a
   fixed α and a fixed k the uncapped groups are linear in (E_inf, A), so their bounded
   least-squares optimum has a closed form (the unconstrained solution when it is
   feasible, else the best of the three boundary edges A = 0, E_inf = 0, E_inf = 1), from
   suffix sums over the z-sorted groups; the profile takes the best k whose curve really
   is ≥ 1 on exactly those k groups (plus the k = 0 solution scored by its capped SSE).
   The profile SSE(α) is scanned on a geometric grid of α in [ALPHA_MIN, 5] and refined by
   golden-section search in the bracket around the best grid point. Everything is
   numpy-vectorized over a batch of data sets, which is how the bootstrap and the held-out
   splits refit many data sets at once.
2. **Polish.** The single (non-bootstrap) fit then runs ``scipy.optimize.least_squares``
   (trust-region reflective, the same bounds) on the capped residual from the profile
   optimum and from the profile at a few fixed α starts, and keeps the lowest SSE.

α's open lower bound 0 is ALPHA_MIN = 1e-3 in practice. At α → 0 with large A the curve
tends to a log-linear trend; a fit that sits at ALPHA_MIN is reported as such.

In-sample R² and MAE are those of the capped curve, the one every consumer uses (so an
in-sample R² is never below 0: A = 0 is the mean). Held-out predictions, ``score --fit``
and the app use the same curve (``PowerLaw.failure``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from efc_tui.fitting.validity import r2_mae  # noqa: F401  (re-exported: R² and MAE live in validity)

ALPHA_MIN = 1e-3
ALPHA_MAX = 5.0
E_INF_BOUNDS = (0.0, 1.0)
#: z below this (after median normalization) is floored, so z^-α stays finite
Z_FLOOR = 1e-12

_GRID = np.geomspace(ALPHA_MIN, ALPHA_MAX, 20)
#: the grid is scanned from typical α outwards, so the running best SSE prunes early
_GRID_ORDER = np.argsort(np.abs(np.log(_GRID) - np.log(0.7)), kind="stable")
_GOLDEN_ITERS = 20
_INVPHI = (math.sqrt(5.0) - 1.0) / 2.0


@dataclass(frozen=True, slots=True)
class PowerLaw:
    """Fitted parameters of E(z) = min(1, E_inf + A z^(−α)) (z median-normalized)."""

    e_inf: float
    a: float
    alpha: float

    def uncapped(self, z_norm: np.ndarray | float) -> np.ndarray:
        """E_inf + A·z^−α itself (can exceed 1 at small z): diagnostics only."""
        z = np.maximum(np.asarray(z_norm, dtype=float), Z_FLOOR)
        with np.errstate(over="ignore"):
            return self.e_inf + self.a * np.power(z, -self.alpha)

    def curve(self, z_norm: np.ndarray | float) -> np.ndarray:
        """The fitted model Ê = min(1, E_inf + A·z^−α): what the fit minimizes against and
        what in-sample R² and MAE are computed from (failure is a rate, so it is capped at 1;
        E_inf ≥ 0 and A ≥ 0 keep it ≥ 0)."""
        return np.minimum(self.uncapped(z_norm), 1.0)

    def failure(self, z_norm: np.ndarray | float) -> np.ndarray:
        """Predicted failure rate Ê at normalized z, in [0, 1] (the same capped curve):
        what held-out evaluation, ``score --fit`` and the app use."""
        return np.clip(self.uncapped(z_norm), 0.0, 1.0)

    def as_dict(self) -> dict[str, float]:
        return {"E_inf": self.e_inf, "A": self.a, "alpha": self.alpha}


@dataclass(frozen=True, slots=True)
class FitResult:
    law: PowerLaw
    sse: float
    #: "profile" or "least_squares": which solution was kept
    method: str
    #: parameters that ended on a bound ("alpha=min", "A=0", "E_inf=0", ...)
    at_bounds: tuple[str, ...]


def _edge_solutions(
    n: np.ndarray, sx: np.ndarray, sy: np.ndarray, sxx: np.ndarray, sxy: np.ndarray, syy: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bounded LS optimum of y ≈ e + a·x over (e, a) ∈ [0,1] × [0,∞), from sufficient
    statistics (any matching shapes). Returns (e, a, sse)."""

    def sse(e: np.ndarray, a: np.ndarray) -> np.ndarray:
        return syy - 2 * e * sy - 2 * a * sxy + n * e * e + 2 * e * a * sx + a * a * sxx

    safe_n = np.where(n > 0, n, 1.0)
    safe_sxx = np.where(sxx > 0, sxx, 1.0)
    den = n * sxx - sx * sx
    tiny = 1e-12 * np.maximum(n * sxx, 1e-300)
    ok_den = den > tiny
    safe_den = np.where(ok_den, den, 1.0)
    a_int = (n * sxy - sx * sy) / safe_den
    e_int = (sy - a_int * sx) / safe_n
    feasible = ok_den & (a_int >= 0) & (e_int >= 0) & (e_int <= 1)

    cands_e = [np.clip(sy / safe_n, 0.0, 1.0)]  # A = 0
    cands_a = [np.zeros_like(sy)]
    cands_e.append(np.zeros_like(sy))  # E_inf = 0
    cands_a.append(np.where(sxx > 0, np.maximum(0.0, sxy / safe_sxx), 0.0))
    cands_e.append(np.ones_like(sy))  # E_inf = 1
    cands_a.append(np.where(sxx > 0, np.maximum(0.0, (sxy - sx) / safe_sxx), 0.0))

    best_e = np.where(feasible, e_int, cands_e[0])
    best_a = np.where(feasible, a_int, cands_a[0])
    best_s = np.where(feasible, sse(e_int, a_int), sse(cands_e[0], cands_a[0]))
    for ce, ca in zip(cands_e[1:], cands_a[1:], strict=True):
        s = sse(ce, ca)
        better = (~feasible) & (s < best_s)
        best_e = np.where(better, ce, best_e)
        best_a = np.where(better, ca, best_a)
        best_s = np.where(better, s, best_s)
    return best_e, best_a, np.maximum(best_s, 0.0)


def _suffix(v: np.ndarray) -> np.ndarray:
    """Suffix sums along axis 1 with a trailing 0: out[:, k] = Σ_{i ≥ k} v[:, i], shape (B, G+1)."""
    out = np.zeros((v.shape[0], v.shape[1] + 1))
    out[:, :-1] = np.cumsum(v[:, ::-1], axis=1)[:, ::-1]
    return out


def _suffix_head(v: np.ndarray, K: int) -> np.ndarray:
    """The first K columns of ``_suffix(v)``, each a sum of the terms from k on (never a
    difference of running sums: the first groups' x = z^−α can be ~1e9 at large α)."""
    out = np.empty((v.shape[0], K))
    out[:, K - 1] = v[:, K - 1 :].sum(axis=1)
    if K > 1:
        out[:, : K - 1] = np.cumsum(v[:, K - 2 :: -1], axis=1)[:, ::-1] + out[:, K - 1 :]
    return out


def _capped_sse(
    e: np.ndarray, a: np.ndarray, x: np.ndarray, y: np.ndarray, w: np.ndarray
) -> np.ndarray:
    """Σ w·(min(1, e + a·x) − y)² per row, for (B,) parameters and (B, G) data."""
    with np.errstate(over="ignore", invalid="ignore"):
        m = np.minimum(e[:, None] + a[:, None] * x, 1.0)
    return np.sum(w * (m - y) ** 2, axis=1)


def _profile(
    alpha: np.ndarray,
    logz: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    pre: tuple[np.ndarray, ...],
    bound: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(e, a, sse) of the capped model min(1, e + a·z^−α) at α (shape (B,)) for data (B, G)
    with 0/1 weights w, each row sorted by z ascending with its w = 0 points last.

    Because a ≥ 0 the capped groups are always the k smallest z. For every k the other
    groups get the bounded closed-form (E_inf, A) from suffix sums; a candidate counts when
    its curve really is ≥ 1 on those k and < 1 on the rest (its SSE is then the capped SSE
    exactly). The k = 0 candidate (the uncapped optimum) is always scored by its true capped
    SSE, so every row has an answer. Capping k groups costs at least cap_pre[k], so with an
    upper ``bound`` on a row's optimum (the flat mean's SSE, or the best SSE found so far)
    only the k with cap_pre[k] ≤ bound are tried."""
    cap_pre, n, sy, syy, n1 = pre[:5]
    B = y.shape[0]
    if bound is None:
        bound = pre[5]
    # candidates k = 0 .. K − 1
    K = int(np.max(np.sum(cap_pre <= bound[:, None] * (1 + 1e-9) + 1e-15, axis=1), initial=1))
    cap_pre, n, sy, syy = (v[:, :K] for v in (cap_pre, n, sy, syy))
    x = np.exp(-alpha[:, None] * logz)  # 0 where w = 0 (log z = +inf there)
    sx, sxx, sxy = (_suffix_head(v, K) for v in (x, x * x, x * y))
    # k = 0 (nothing capped): the full bounded solution, scored by its capped SSE
    e0, a0, _ = _edge_solutions(n[:, 0], sx[:, 0], sy[:, 0], sxx[:, 0], sxy[:, 0], syy[:, 0])
    s0 = _capped_sse(e0, a0, x, y, w)
    if K == 1:
        return e0, a0, s0
    # k ≥ 1: a curve that reaches 1 on the capped groups and not on the rest has A > 0 and
    # E_inf < 1, so the bounded optimum of the rest is the interior solution when it is
    # inside the bounds, else (E_inf < 0) the E_inf = 0 edge; kept only when consistent
    n, sx, sy, sxx, sxy, syy, cp = (v[:, 1:] for v in (n, sx, sy, sxx, sxy, syy, cap_pre))
    with np.errstate(invalid="ignore", divide="ignore"):
        den = n * sxx - sx * sx
        ai = (n * sxy - sx * sy) / den
        ei = (sy - ai * sx) / n
        ok_i = (den > 1e-12 * n * sxx) & (ai >= 0) & (ei >= 0)
        ae = sxy / sxx
        e = np.where(ok_i, ei, 0.0)
        a = np.where(ok_i, ai, ae)
        sk = syy - e * sy - a * sxy  # SSE at either least-squares optimum
        k = np.arange(1, K)[None, :]
        nk = n1[:, None]
        x_next = (
            x[:, 1:K] if x.shape[1] >= K else np.concatenate([x[:, 1:], np.zeros((B, 1))], axis=1)
        )
        ok = (
            (k <= nk)
            & (e + a * x[:, : K - 1] >= 1.0 - 1e-12)
            & ((k >= nk) | (e + a * x_next < 1.0 + 1e-12))
        )
    empty = n <= 0  # every group capped: E_inf = 1, A = 0 will do
    ok = np.where(empty, k <= nk, ok)
    tk = np.where(ok, cp + np.where(empty, 0.0, np.maximum(sk, 0.0)), np.inf)
    j = np.argmin(tk, axis=1)
    r = np.arange(B)
    win = tk[r, j] < s0
    e_k = np.where(empty[r, j], 1.0, e[r, j])
    a_k = np.where(empty[r, j], 0.0, a[r, j])
    return np.where(win, e_k, e0), np.where(win, a_k, a0), np.where(win, tk[r, j], s0)


def _prepare(
    z: np.ndarray, y: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
    """(log z, y, w, α-free sums) for ``_profile`` from rows already sorted by z ascending
    with their w = 0 points last."""
    with np.errstate(invalid="ignore"):
        logz = np.where(w > 0, np.log(np.maximum(np.where(w > 0, z, 1.0), Z_FLOOR)), np.inf)
    y0 = np.where(w > 0, y, 0.0)
    cap_pre = np.zeros((y0.shape[0], y0.shape[1] + 1))
    cap_pre[:, 1:] = np.cumsum(w * (1.0 - y0) ** 2, axis=1)
    n1 = w.sum(axis=1)
    mean = (w * y0).sum(axis=1) / np.maximum(n1, 1.0)
    sst = (w * (y0 - mean[:, None]) ** 2).sum(axis=1)  # the flat mean's SSE: an upper bound
    return logz, y0, w, (cap_pre, _suffix(w), _suffix(w * y0), _suffix(w * y0 * y0), n1, sst)


def fit_batch(
    z_norm: np.ndarray, y: np.ndarray, w: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fit the capped model min(1, E_inf + A·z^−α) to B data sets at once. ``z_norm``,
    ``y``, ``w`` are (B, G); w = 1 keeps a point, 0 leaves it out. Returns (E_inf, A, α,
    SSE), each (B,); SSE is that of the capped curve."""
    z = np.asarray(z_norm, dtype=float)
    y = np.asarray(y, dtype=float)
    w = np.ones_like(y) if w is None else np.asarray(w, dtype=float)
    w = np.where(np.isfinite(z) & np.isfinite(y) & (z > 0), w, 0.0)
    w = (w > 0).astype(float)
    # sort each row by z ascending (largest z^−α first), left-out points last
    order = np.argsort(np.where(w > 0, z, np.inf), axis=1, kind="stable")
    z = np.take_along_axis(z, order, axis=1)
    y = np.take_along_axis(y, order, axis=1)
    w = np.take_along_axis(w, order, axis=1)
    logz, y0, w, pre = _prepare(z, y, w)
    B = y0.shape[0]
    # 1. grid scan
    best_s = np.full(B, np.inf)
    best_k = np.zeros(B, dtype=np.int64)
    for k in _GRID_ORDER:
        alpha = _GRID[k]
        # the best SSE so far bounds the optimum, which prunes the capped k (see _profile)
        _, _, s = _profile(np.full(B, alpha), logz, y0, w, pre, np.minimum(pre[5], best_s))
        better = s < best_s
        best_s = np.where(better, s, best_s)
        best_k = np.where(better, k, best_k)
    # 2. golden section on log α inside the bracket around the best grid point
    lo = np.log(_GRID[np.maximum(best_k - 1, 0)])
    hi = np.log(_GRID[np.minimum(best_k + 1, len(_GRID) - 1)])
    c = hi - _INVPHI * (hi - lo)
    d = lo + _INVPHI * (hi - lo)
    sc = _profile(np.exp(c), logz, y0, w, pre, best_s)[2]
    sd = _profile(np.exp(d), logz, y0, w, pre, best_s)[2]
    for _ in range(_GOLDEN_ITERS):
        left = sc < sd  # the minimum lies in [lo, d]: drop (d, hi]; else drop [lo, c)
        hi = np.where(left, d, hi)
        lo = np.where(left, lo, c)
        keep_c = np.where(left, c, d)  # the surviving interior point moves to its new slot
        keep_s = np.where(left, sc, sd)
        probe = np.where(left, hi - _INVPHI * (hi - lo), lo + _INVPHI * (hi - lo))
        sp = _profile(np.exp(probe), logz, y0, w, pre, best_s)[2]
        c = np.where(left, probe, keep_c)
        d = np.where(left, keep_c, probe)
        sc = np.where(left, sp, keep_s)
        sd = np.where(left, keep_s, sp)
    alpha = np.exp(0.5 * (lo + hi))
    e, a, s = _profile(alpha, logz, y0, w, pre, best_s)
    # the grid point itself can be better than the refined optimum at a bound
    alpha_g = _GRID[best_k]
    use_grid = best_s < s
    e_g, a_g, _ = _profile(alpha_g, logz, y0, w, pre, best_s)
    e, a, alpha = (
        np.where(use_grid, e_g, e),
        np.where(use_grid, a_g, a),
        np.where(use_grid, alpha_g, alpha),
    )
    # the SSE of the returned curve itself (the profile's closed-form sums can lose digits)
    return e, a, alpha, _capped_sse(e, a, np.exp(-alpha[:, None] * logz), y0, w)


def _bounds_hit(law: PowerLaw) -> tuple[str, ...]:
    hit = []
    if law.e_inf <= 1e-9:
        hit.append("E_inf=0")
    if law.e_inf >= 1 - 1e-9:
        hit.append("E_inf=1")
    if law.a <= 1e-12:
        hit.append("A=0")
    if law.alpha <= ALPHA_MIN * (1 + 1e-6):
        hit.append("alpha=min")
    if law.alpha >= ALPHA_MAX * (1 - 1e-6):
        hit.append("alpha=max")
    return tuple(hit)


#: α starts of the single fit's least-squares polish, besides the profile optimum
_POLISH_ALPHAS = (0.25, 0.5, 1.0, 2.0, 4.0)


def fit_power_law(z_norm: np.ndarray, y: np.ndarray) -> FitResult:
    """The bounded least-squares fit of the capped model min(1, E_inf + A·z^−α) to one
    data set (group points z_i, Ē_i).

    The capped profile (``fit_batch``) is the starting point; ``least_squares`` then polishes
    the capped residual from it and from the profile optimum at each α in _POLISH_ALPHAS
    (deterministic), and the lowest SSE is kept. The caller has checked there are enough
    finite points with z > 0 and that z varies.
    """
    from scipy.optimize import least_squares

    z = np.asarray(z_norm, dtype=float)
    y = np.asarray(y, dtype=float)
    e0, a0, al0, s0 = (float(v[0]) for v in fit_batch(z[None, :], y[None, :]))
    best = PowerLaw(e0, a0, al0)
    best_s, method = s0, "profile"
    zc = np.maximum(z, Z_FLOOR)

    def resid(p: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):
            return np.minimum(p[0] + p[1] * np.power(zc, -p[2]), 1.0) - y

    lo = np.array([E_INF_BOUNDS[0], 0.0, ALPHA_MIN])
    hi = np.array([E_INF_BOUNDS[1], np.inf, ALPHA_MAX])
    starts = [(e0, a0, al0)]
    if len(_POLISH_ALPHAS):
        al = np.asarray(_POLISH_ALPHAS, dtype=float)
        k = al.size
        zb, yb = np.broadcast_to(z, (k, z.size)), np.broadcast_to(y, (k, y.size))
        w = np.where(np.isfinite(zb) & np.isfinite(yb) & (zb > 0), 1.0, 0.0)
        order = np.argsort(np.where(w > 0, zb, np.inf), axis=1, kind="stable")
        zs, ys, ws = (np.take_along_axis(v, order, axis=1) for v in (zb, yb, w))
        es, as_, _ = _profile(al, *_prepare(zs, ys, ws))
        starts += list(zip(es.tolist(), as_.tolist(), al.tolist(), strict=True))
    for start in starts:
        x0 = np.clip(np.array(start, dtype=float), lo, hi)
        # least_squares needs x0 strictly inside finite bounds; nudge off them
        x0[0] = min(max(x0[0], 1e-9), 1 - 1e-9)
        x0[1] = max(x0[1], 1e-12)
        x0[2] = min(max(x0[2], ALPHA_MIN * (1 + 1e-9)), ALPHA_MAX * (1 - 1e-9))
        try:
            res = least_squares(
                resid,
                x0,
                bounds=(lo, hi),
                method="trf",
                x_scale="jac",
                ftol=1e-12,
                xtol=1e-12,
                gtol=1e-12,
                max_nfev=2000,
            )
        except (ValueError, FloatingPointError):  # keep the profile solution
            continue
        s1 = float(np.sum(resid(res.x) ** 2))
        if np.all(np.isfinite(res.x)) and s1 < best_s - 1e-15:
            best = PowerLaw(float(res.x[0]), float(res.x[1]), float(res.x[2]))
            best_s, method = s1, "least_squares"
    best = snap(best, float(np.min(zc)))
    return FitResult(best, best_s, method, _bounds_hit(best))


def snap(law: PowerLaw, z_min: float = 1.0) -> PowerLaw:
    """Parameters within round-off of a bound are put on it (1e-21 is E_inf = 0). A is
    round-off only when A·z^−α is, at the smallest normalized z the curve is used at
    (``z_min``): with a z_floor far below the median and a large α, A = 1e-16 can still lift
    the floored groups to the cap."""
    e = 0.0 if law.e_inf < 1e-12 else (1.0 if law.e_inf > 1 - 1e-12 else law.e_inf)
    with np.errstate(over="ignore"):
        lift = law.a * float(np.power(max(min(z_min, 1.0), Z_FLOOR), -law.alpha))
    a = 0.0 if lift < 1e-15 else law.a
    return PowerLaw(e, a, law.alpha)


def r2_mae_batch(
    observed: np.ndarray, predicted: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise R² and MAE over points with w > 0 (NaN R² where the row's Ē is constant)."""
    n = w.sum(axis=1)
    safe_n = np.where(n > 0, n, 1.0)
    o = np.where(w > 0, observed, 0.0)
    p = np.where(w > 0, predicted, 0.0)
    mean = o.sum(axis=1) / safe_n
    ss_res = (w * (o - p) ** 2).sum(axis=1)
    ss_tot = (w * (o - mean[:, None]) ** 2).sum(axis=1)
    mae = (w * np.abs(o - p)).sum(axis=1) / safe_n
    with np.errstate(divide="ignore", invalid="ignore"):
        r2 = np.where(ss_tot > 1e-15, 1.0 - ss_res / ss_tot, np.nan)
    return np.where(n > 0, r2, np.nan), np.where(n > 0, mae, np.nan)
