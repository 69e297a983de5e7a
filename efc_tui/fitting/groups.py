"""Groups of runs and the per-group points a curve is fitted on (SPEC §5): the grouping
of a run table, one predictor's per-run numerator and denominator (``Coord``), group sums
(z_i = Σ num / Σ den, Ē_i), the z floor, and the per-run analysis's quantile bins.
docs/fitting.md, protocol steps 2–3 and "Per-run analysis"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from efc_tui.fitting.table import RunTable, check_axes

#: per-run analysis: runs per quantile bin, and the bounds on the number of bins
RUNS_PER_BIN = 10
BINS_MIN, BINS_MAX = 3, 10


@dataclass(slots=True)
class Grouping:
    by: tuple[str, ...]
    codes: np.ndarray  # group index of each run
    keys: list[tuple[str, ...]]

    @property
    def n_groups(self) -> int:
        return len(self.keys)

    def key_dict(self, g: int) -> dict[str, str]:
        return dict(zip(self.by, self.keys[g], strict=True))


def make_grouping(table: RunTable, by: Sequence[str]) -> Grouping:
    """Group index of every run and the sorted group keys (tuples of labels, one per axis)."""
    by = check_axes(by)
    if len(table) == 0:
        return Grouping(by, np.zeros(0, dtype=np.int64), [])
    combined = np.zeros(len(table), dtype=np.int64)
    values: list[list[str]] = []
    for a in by:
        codes, vals = table.codes(a)
        combined = combined * len(vals) + codes
        values.append(vals)
    uniq, inverse = np.unique(combined, return_inverse=True)
    keys = []
    for u in uniq.tolist():
        parts = []
        for vals in reversed(values):
            u, i = divmod(u, len(vals))
            parts.append(vals[i])
        keys.append(tuple(reversed(parts)))
    return Grouping(by, inverse.astype(np.int64), keys)


@dataclass(slots=True)
class Coord:
    """One predictor on the compared runs: per-run numerator, denominator and z = num/den,
    and the groups its points are made of (the corpus grouping, or its quantile bins in a
    per-run analysis)."""

    num: np.ndarray
    den: np.ndarray
    z: np.ndarray
    codes: np.ndarray
    keys: list[dict[str, str]]
    #: per-run analysis: the lowest z of each bin (how new runs are binned)
    bin_lower: list[float] | None = None

    @property
    def n_groups(self) -> int:
        return len(self.keys)


@dataclass(slots=True)
class Points:
    """Per-group aggregates of one predictor (arrays of length n_groups)."""

    n_runs: np.ndarray
    n_tasks: np.ndarray
    failure: np.ndarray  # Ē_i (NaN for groups without runs)
    z: np.ndarray  # z_i = Σ num / Σ den (NaN for groups without runs)


def group_points(
    num: np.ndarray,
    den: np.ndarray,
    success: np.ndarray,
    codes: np.ndarray,
    n_groups: int,
    tasks: np.ndarray | None = None,
    mask: np.ndarray | None = None,
) -> Points:
    """Per-group run counts, task counts (when ``tasks`` is given), Ē_i and
    z_i = Σ num / Σ den over the runs (in ``mask``) where num, den and success are known."""
    G = n_groups
    ok = np.isfinite(num) & np.isfinite(den) & np.isfinite(success)
    if mask is not None:
        ok &= mask
    c = codes[ok]
    n = np.bincount(c, minlength=G).astype(float)
    f = np.bincount(c, weights=1.0 - success[ok], minlength=G)
    ns = np.bincount(c, weights=num[ok], minlength=G)
    ds = np.bincount(c, weights=den[ok], minlength=G)
    nt = np.full(G, np.nan)
    if tasks is not None:
        width = int(tasks.max()) + 1 if len(tasks) else 1
        pairs = np.unique(c * width + tasks[ok])
        nt = np.bincount(pairs // width, minlength=G).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return Points(
            n, nt, np.where(n > 0, f / n, np.nan), np.where((n > 0) & (ds > 0), ns / ds, np.nan)
        )


def floor_of(z: np.ndarray) -> float | None:
    """z_floor = ½ × the smallest positive value of ``z`` (None when none is positive)."""
    pos = z[np.isfinite(z) & (z > 0)]
    return None if pos.size == 0 else 0.5 * float(pos.min())


def quantile_bins(z: np.ndarray) -> tuple[np.ndarray, list[float]]:
    """Per-run analysis: runs binned by z into B = clamp(⌊n / RUNS_PER_BIN⌋, 3, 10) quantile
    bins; runs with equal z share a bin, so there can be fewer. Returns each run's bin index
    (0..k−1, ascending z) and the lowest z of each bin."""
    n = z.size
    B = min(BINS_MAX, max(BINS_MIN, n // RUNS_PER_BIN))
    below = np.searchsorted(np.sort(z), z, side="left")  # runs with a strictly smaller z
    raw = (below * B) // max(n, 1)
    uniq, codes = np.unique(raw, return_inverse=True)
    lower = [float(z[codes == k].min()) for k in range(len(uniq))]
    return codes.astype(np.int64), lower
