"""The Dask tasks: one run source read and scored on a worker, results back in order.

``run_sources`` sends the job to every worker once and one :func:`read_source` task per
source; a worker reads and scores its source with the local pipeline
(``efc_tui.pipeline.score``), fetching a URL source first (``remote``), and a large
multi-run file sends batches of its runs to other workers (``_scored``). Library code:
nothing prints; a source that cannot be read is a :class:`SourceResult` with an
``error``, never an exception, so one bad file never takes the others down.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from efc_tui.cluster.client import ClusterError, _cluster_error, _results, gather
from efc_tui.cluster.remote import read_remote
from efc_tui.cluster.source import Source, SourceResult
from efc_tui.errors import EfcError, UnrecognizedFormat
from efc_tui.pipeline.score import Job, ScoredItem, looks_like, score_items

if TYPE_CHECKING:
    from distributed import Client

    from efc_tui.model import Run

#: the runs of large files are spread over the workers only when there are fewer sources
#: than this many per worker (otherwise sources alone keep every worker busy, and shipping
#: runs between workers would only cost)
SPREAD_BELOW = 4


def run_sources(
    client: Client,
    sources: Sequence[Source],
    job: Job,
    on_done: Callable[[SourceResult], object] | None = None,
) -> Iterator[SourceResult]:
    """Every source read and scored on the cluster, yielded in the order of ``sources``.

    ``on_done`` is called as each source finishes (in completion order: progress). The job
    travels to each worker once. With fewer than ``SPREAD_BELOW`` sources per worker, a
    source of more than ``job.batch`` runs spreads them over the workers
    (:func:`read_source`). Results are fetched as they complete and their futures
    released, so worker memory does not grow with the corpus. A source whose result cannot
    be had (its worker died, or no answer after ``ATTEMPTS`` sends: :func:`_results`) comes
    back with an error (``error_kind == "lost"``); a cluster that stops answering raises
    :class:`ClusterError`.
    """
    if not sources:
        return
    try:
        workers = len(client.scheduler_info().get("workers", {})) or 1
        if len(sources) >= SPREAD_BELOW * workers:  # enough sources to keep every worker busy
            job = replace(job, batch=0)
        job_future = client.scatter(job, broadcast=True, hash=False)
    except Exception as exc:
        raise _cluster_error(exc) from None
    pending: dict[int, SourceResult] = {}
    nxt = 0
    for i, value in _results(client, read_source, list(sources), (), {"job": job_future}):
        if isinstance(value, BaseException):  # the worker died (KilledWorker), or no answer
            src = sources[i]
            value = SourceResult(
                i,
                src.path,
                error=f"{src.path}: lost on the cluster ({type(value).__name__}: {value})",
                error_kind="lost",
            )
        if on_done is not None:
            on_done(value)
        pending[i] = value
        while nxt in pending:
            yield pending.pop(nxt)
            nxt += 1
    job_future.release()


def score_batch(runs: list[Run], job: Job) -> list[ScoredItem]:
    """A batch of a large file's runs, scored on a worker (``pipeline.score.score_items``:
    short runs together, each bit for bit as alone)."""
    return list(score_items(iter(runs), job))


def _spill_client() -> Any:
    """The client of the Dask worker this task runs on, or None outside a worker."""
    try:
        from distributed import get_client, get_worker
    except ImportError:
        return None
    try:
        get_worker()
    except ValueError:
        return None
    return get_client()


def _scored(runs: Iterator[Run], job: Job) -> list[ScoredItem]:
    """Every run scored, in order. A file of at most ``job.batch`` runs is scored here. On
    a Dask worker, a larger one sends each full batch to the cluster as soon as it is read
    (ahead of the sources still queued) and goes on reading, scores the last batch itself,
    then waits for the others outside the worker's thread pool (seceded), so the worker
    can score batches meanwhile and is never running more tasks than it has threads. The
    wait is bounded (``cluster.client.gather``): batches whose results never come, the
    cluster idle, raise ClusterError (the source is then "lost")."""
    items: list[ScoredItem] = []
    client = _spill_client() if job.batch > 0 else None
    if client is None:  # in this process: short runs scored together as they are read
        return list(score_items(runs, job))
    pending: list[Run] = []
    futures: list[Any] = []
    for run in runs:
        if len(pending) >= job.batch:
            futures.append(client.submit(score_batch, pending, job, pure=False, priority=10))
            pending = []
        pending.append(run)
    tail = score_batch(pending, job)
    if futures:
        from distributed import get_worker, rejoin, secede

        try:
            own = get_worker().get_current_task()
        except ValueError:
            own = None
        secede()
        try:
            # a bounded wait (a batch whose result never comes makes this source "lost"),
            # not sent again: that would mean keeping every batch's runs in memory
            parts = gather(
                client,
                score_batch,
                [None] * len(futures),
                (job,),
                what=f"a batch of {job.batch} runs",
                sent=futures,
                own=own,
                attempts=1,
            )
        finally:
            rejoin()
        for part in parts:
            items.extend(part)
    items.extend(tail)
    return items


def read_source(source: Source, job: Job) -> SourceResult:
    """Read and score one source. Never raises: an unreadable source comes back with
    ``error`` naming the file (and line) and no runs."""
    res = SourceResult(source.index, source.path)
    try:
        if source.remote is not None:
            res.items = read_remote(source, job, res, read_local)
        else:
            res.items = read_local(Path(source.path), job)
    except UnrecognizedFormat as exc:
        res.error, res.error_kind = str(exc), "unrecognized"
        if res.looks_like is None:  # a URL source's was decided where it was fetched
            try:
                res.looks_like = looks_like(Path(source.path)) if source.remote is None else "other"
            except Exception:  # a second failure on the same file changes nothing
                res.looks_like = "other"
    except EfcError as exc:
        if isinstance(exc, ClusterError):  # runs spread over the cluster, results never came
            res.error, res.error_kind = f"{source.path}: lost on the cluster ({exc})", "lost"
        else:
            res.error, res.error_kind = str(exc), "input"
    except Exception as exc:  # a reader bug must not lose every other file's runs
        res.error = f"{source.path}: unexpected error while reading ({type(exc).__name__}: {exc})"
        res.error_kind = "internal"
    if res.error is not None:
        res.items = []
    labels = job.outcomes.labels if job.outcomes is not None else None
    if labels is not None:
        res.labels_used = [i for i, row in enumerate(labels.rows) if row.used]
    return res


def read_local(path: Path, job: Job) -> list[ScoredItem]:
    from efc_tui.parsers import load

    return _scored(load(path, job.fmt, lenient=job.lenient, outcomes=job.outcomes), job)


__all__ = ["read_local", "read_source", "run_sources", "score_batch"]
