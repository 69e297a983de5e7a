"""The task-level bootstrap of every fitted curve (docs/fitting.md, "Task-level bootstrap"):
tasks drawn with replacement, group sums recomputed from the resampled runs, each curve
(and SAS) refitted, percentile intervals. ``Resampler`` pickles, so pieces of resamples can
be fitted elsewhere (``fit --dask``) with the same functions and the same numbers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from efc_tui.fitting.curves import CurveModel
from efc_tui.fitting.powerlaw import r2_mae_batch
from efc_tui.fitting.sas import SasInputs, SasModel, refit_batch

if TYPE_CHECKING:
    from efc_tui.fitting.groups import Coord

#: a 3-parameter curve needs at least this many groups
MIN_GROUPS = 3
CONFIDENCE = 0.95


@dataclass(slots=True)
class Interval:
    lo: float
    hi: float

    def as_list(self) -> list[float]:
        return [self.lo, self.hi]


@dataclass(slots=True)
class BootstrapResult:
    n_resamples: int
    n_ok: int
    intervals: dict[str, Interval]


def _percentile(values: np.ndarray, conf: float = CONFIDENCE) -> Interval | None:
    v = values[np.isfinite(values)]
    if v.size < 2:
        return None
    lo, hi = np.percentile(v, [50 * (1 - conf), 50 * (1 + conf)])
    return Interval(float(lo), float(hi))


def _chunk_counts(rng: np.random.Generator, n_tasks: int, b: int) -> np.ndarray:
    """(b, n_tasks) multiplicities: each row draws n_tasks tasks with replacement."""
    idx = rng.integers(0, n_tasks, size=(b, n_tasks))
    flat = (idx + (np.arange(b, dtype=np.int64) * n_tasks)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n_tasks).reshape(b, n_tasks).astype(float)


#: runs bootstrap resamples elsewhere (``efc-tui fit --dask``: on Dask workers). Called as
#: ``bootstrap_map(function, resampler, pieces)``; returns ``function(piece, resampler)`` for
#: every piece, in order. Pieces are (resamples × tasks) multiplicity counts (int32).
BootstrapMap = Callable[
    [
        Callable[[np.ndarray, "Resampler"], dict[str, dict[str, np.ndarray]]],
        "Resampler",
        Iterator[np.ndarray],
    ],
    Iterable[dict[str, dict[str, np.ndarray]]],
]
#: resamples per piece sent to a bootstrap_map (a multiple of the SAS slice)
PIECE_RESAMPLES = 125


@dataclass(frozen=True)
class _CurveSpec:
    name: str
    offset: int
    n_groups: int
    fitted: np.ndarray
    median: float
    z_floor: float


@dataclass(frozen=True)
class Resampler:
    """Everything a batch of bootstrap resamples needs, and nothing of the run table: it
    pickles, so batches can be fitted in another process (a Dask worker) with the same
    functions, giving the same numbers."""

    M: Any  # sparse (tasks × Σ 4·G_p): per curve, run counts, failures, Σ num, Σ den
    curves: tuple[_CurveSpec, ...]
    sas_name: str | None
    sas_model: SasModel | None
    sas_inputs: SasInputs | None
    tasks: np.ndarray
    sas_slice: int
    #: the failure curve refitted (saturating or power)
    model: CurveModel

    def curve(self, k: int, S: np.ndarray) -> dict[str, np.ndarray]:
        """The curve's parameters, R² and MAE refitted on each resample (NaN: no curve)."""
        spec = self.curves[k]
        G, o = spec.n_groups, spec.offset
        n = S[:, o : o + G]
        fail = S[:, o + G : o + 2 * G]
        num = S[:, o + 2 * G : o + 3 * G]
        den = S[:, o + 3 * G : o + 4 * G]
        use = np.zeros(G, dtype=bool)
        use[spec.fitted] = True
        with np.errstate(invalid="ignore", divide="ignore"):
            e = fail / n
            zn = np.maximum(num / den, spec.z_floor) / spec.median
        w = ((n > 0) & (den > 0) & use).astype(float)
        values = self.model.fit_batch(zn, e, w)
        pred = self.model.predict_batch(values, np.where(w > 0, zn, 1.0))
        r2, mae = r2_mae_batch(e, pred, w)
        # a resample with too few points, or z all equal, has no curve
        npts = w.sum(axis=1)
        zr = np.where(w > 0, zn, np.nan)
        with np.errstate(invalid="ignore"):
            spread = np.nanmax(zr, axis=1) - np.nanmin(zr, axis=1)
        bad = (npts < MIN_GROUPS) | ~(spread > 1e-12)
        return {
            key: np.where(bad, np.nan, arr)
            for key, arr in (*zip(self.model.params, values, strict=True), ("r2", r2), ("mae", mae))
        }

    def sas(self, C: np.ndarray) -> dict[str, np.ndarray]:
        """R² and MAE of SAS refitted on each resample, in slices of ``sas_slice``."""
        assert self.sas_model is not None and self.sas_inputs is not None
        r2s, maes = [], []
        for i in range(0, len(C), self.sas_slice):
            W = C[i : i + self.sas_slice, self.tasks]
            X, fail, wsum = self.sas_inputs.cells_batch(W, W)
            w = (wsum > 0).astype(float)
            pred = refit_batch(self.sas_model, X, fail, w)
            r2, mae = r2_mae_batch(np.nan_to_num(fail), pred, w)
            bad = w.sum(axis=1) < MIN_GROUPS
            r2s.append(np.where(bad, np.nan, r2))
            maes.append(np.where(bad, np.nan, mae))
        return {"r2": np.concatenate(r2s), "mae": np.concatenate(maes)}

    def sums(self, C: np.ndarray) -> np.ndarray | None:
        """(b, Σ 4·G_p): every curve's per-group sums under each resample's multiplicities."""
        return None if self.M is None else np.asarray(self.M.T @ C.T).T

    def piece(self, C: np.ndarray) -> dict[str, dict[str, np.ndarray]]:
        """Every predictor refitted on these resamples (one piece of a bootstrap_map)."""
        out: dict[str, dict[str, np.ndarray]] = {}
        S = self.sums(C)
        if S is not None:
            for k, spec in enumerate(self.curves):
                out[spec.name] = self.curve(k, S)
        if self.sas_name is not None:
            out[self.sas_name] = self.sas(C)
        return out


def resample_piece(counts: np.ndarray, resampler: Resampler) -> dict[str, dict[str, np.ndarray]]:
    """A bootstrap_map's function: the resamples of one piece of counts, refitted."""
    return resampler.piece(counts.astype(float))


#: a fitted curve, as the bootstrap refits it: its predictor's name, coordinate, fitted
#: groups, median and z floor (``corpus.PredictorFit``'s fields)
Curve = tuple[str, "Coord", list[int], float, float]


def run_bootstrap(
    curves: list[Curve],
    sas_fit: tuple[str, SasModel] | None,
    s: np.ndarray,
    tasks: np.ndarray,
    n_tasks: int,
    sas_inputs: SasInputs | None,
    n_boot: int,
    seed: int,
    workers: int,
    model: CurveModel,
    bootstrap_map: BootstrapMap | None = None,
) -> dict[str, BootstrapResult]:
    """Each curve's (and SAS's) intervals over ``n_boot`` resamples, by predictor name."""
    from scipy import sparse

    if not curves and sas_fit is None:
        return {}
    # one sparse (tasks × Σ 4·G_p) matrix: per predictor, run counts, failures, Σ num, Σ den
    blocks = []
    specs = []
    col = 0
    for name, c, fitted, median, z_floor in curves:
        G = c.n_groups
        for vals in (np.ones(len(s)), 1.0 - s, c.num, c.den):
            blocks.append(sparse.csr_matrix((vals, (tasks, c.codes)), shape=(n_tasks, G)))
        specs.append(_CurveSpec(name, col, G, np.asarray(fitted, dtype=np.int64), median, z_floor))
        col += 4 * G
    # resamples per batch: bounded so the (batch × tasks) counts stay small; SAS works on
    # (batch × runs) weights, in smaller slices that stay in cache
    chunk = max(1, min(n_boot, 4_000_000 // max(n_tasks, 1), 500))
    sas_slice = max(1, min(chunk, 300_000 // max(len(tasks), 1)))
    rs = Resampler(
        sparse.hstack(blocks, format="csr") if blocks else None,
        tuple(specs),
        sas_fit[0] if sas_fit is not None else None,
        sas_fit[1] if sas_fit is not None else None,
        sas_inputs if sas_fit is not None else None,
        tasks,
        sas_slice,
        model,
    )
    names = [c[0] for c in curves] + ([sas_fit[0]] if sas_fit else [])
    results: dict[str, dict[str, list[np.ndarray]]] = {
        name: {k: [] for k in (*model.params, "r2", "mae")} for name in names
    }
    rng = np.random.default_rng(seed)

    def chunks() -> Iterator[np.ndarray]:
        done = 0
        while done < n_boot:
            b = min(chunk, n_boot - done)
            yield _chunk_counts(rng, n_tasks, b)
            done += b

    if bootstrap_map is not None:
        # the same draws, cut into pieces on SAS slice boundaries: every resample's numbers
        # are computed by the same functions on the same counts
        step = sas_slice * max(1, PIECE_RESAMPLES // sas_slice)
        pieces = (
            C[i : i + step].astype(np.int32) for C in chunks() for i in range(0, len(C), step)
        )
        for part in bootstrap_map(resample_piece, rs, pieces):
            for name, figures in part.items():
                for key, arr in figures.items():
                    results[name][key].append(arr)
    else:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            for C in chunks():
                S = rs.sums(C)
                jobs = (
                    [pool.submit(rs.curve, k, S) for k in range(len(specs))]
                    if S is not None
                    else []
                )
                names = [spec.name for spec in specs]
                if rs.sas_name is not None:
                    jobs.append(pool.submit(rs.sas, C))
                    names.append(rs.sas_name)
                for name, job in zip(names, jobs, strict=True):
                    for key, arr in job.result().items():
                        results[name][key].append(arr)
    out: dict[str, BootstrapResult] = {}
    for name in names:
        res = results[name]
        intervals: dict[str, Interval] = {}
        n_ok = n_boot
        for key, parts in res.items():
            if not parts:
                continue
            arr = np.concatenate(parts)
            if key in ("mae",):
                n_ok = int(np.isfinite(arr).sum())
            iv = _percentile(arr)
            if iv is not None:
                intervals[key] = iv
        out[name] = BootstrapResult(n_boot, n_ok, intervals)
    return out
