"""Connecting to Dask and running sources on it, results back in input order.

``connect()`` gives a ``distributed.Client``: to a local cluster of worker processes on
this machine's cores (no address), or to the user's scheduler (an address, or a scheduler
file). ``run_sources`` sends the job to every worker once, one task per source, and yields
each source's :class:`~efc_tui.cluster.work.SourceResult` in the order of the sources (as
the local path reads them), whatever order the workers finish in. A worker that dies while
reading a source gives that source an error (``error_kind == "lost"``), not a lost corpus.

Dask is imported here only, and only when a function is called.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from efc_tui.errors import InputError, UsageError

if TYPE_CHECKING:
    import numpy as np
    from distributed import Client

    from efc_tui.cluster.work import Job, Source, SourceResult
    from efc_tui.fitting.bootstrap import BootstrapMap, Resampler

INSTALL_HINT = "pip install 'efc-tui[dask]'"
#: seconds to wait for a remote scheduler before giving up
CONNECT_TIMEOUT = 30
#: the runs of large files are spread over the workers only when there are fewer sources
#: than this many per worker (otherwise sources alone keep every worker busy, and shipping
#: runs between workers would only cost)
SPREAD_BELOW = 4


def require_dask() -> None:
    """Raise UsageError naming the extra to install when dask.distributed is missing."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UsageError(f"--dask needs dask.distributed: {INSTALL_HINT}") from None


def local_workers(workers: int | None = None) -> int:
    """Worker processes of a local cluster: ``workers``, else this machine's cores."""
    if workers is not None:
        if workers < 1:
            raise UsageError("a local cluster needs at least 1 worker")
        return workers
    return max(1, os.cpu_count() or 1)


@contextmanager
def connect(address: str | None = None, workers: int | None = None) -> Iterator[Client]:
    """A client to the scheduler at ``address`` (``tcp://host:8786``, or a scheduler JSON
    file), or to a local cluster of ``workers`` processes with one thread each (default:
    this machine's cores). The local cluster is shut down on leaving, whatever happens."""
    require_dask()
    from distributed import Client, LocalCluster

    if address is not None:
        try:
            if address.endswith(".json") and Path(address).is_file():
                client = Client(scheduler_file=address, timeout=CONNECT_TIMEOUT)
            else:
                client = Client(address, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as exc:
            raise InputError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        try:
            yield client
        finally:
            client.close()
        return
    cluster = LocalCluster(
        n_workers=local_workers(workers),
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        # no dashboard, but the scheduler still serves HTTP (metrics); on the default port
        # 8787 it warns on stderr when a user's own Dask dashboard holds that port: any free
        # port on this machine only
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        silence_logs=logging.ERROR,
    )
    try:
        with Client(cluster) as client:
            yield client
    finally:
        cluster.close()


def describe(client: Client) -> str:
    """``local cluster, 2 workers`` / ``tcp://host:8786, 8 workers``, for the console."""
    info = client.scheduler_info()
    n = len(info.get("workers", {}))
    where = "local cluster" if client.cluster is not None else str(client.scheduler.address)
    return f"{where}, {n} worker{'s' if n != 1 else ''}"


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
    (:func:`~efc_tui.cluster.work.read_source`). Results are fetched as they complete and their futures
    released, so worker memory does not grow with the corpus.
    """
    from distributed import as_completed

    from efc_tui.cluster.work import SourceResult, read_source

    if not sources:
        return
    workers = len(client.scheduler_info().get("workers", {})) or 1
    if len(sources) >= SPREAD_BELOW * workers:  # enough sources to keep every worker busy
        job = replace(job, batch=0)
    job_future = client.scatter(job, broadcast=True, hash=False)
    futures = client.map(read_source, list(sources), job=job_future, pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    done = as_completed(futures, with_results=True, raise_errors=False)
    del futures  # as_completed holds each until it is done: then its result is released
    pending: dict[int, SourceResult] = {}
    nxt = 0
    for future, value in done:
        i = index.pop(future.key)
        if isinstance(value, BaseException):  # the worker died (KilledWorker) or the task broke
            src = sources[i]
            value = SourceResult(
                i,
                src.path,
                error=f"{src.path}: lost on the cluster ({type(value).__name__}: {value})",
                error_kind="lost",
            )
        del future
        if on_done is not None:
            on_done(value)
        pending[i] = value
        while nxt in pending:
            yield pending.pop(nxt)
            nxt += 1
    del job_future


def bootstrap_map(client: Client) -> BootstrapMap:
    """A ``fit_corpus(bootstrap_map=...)`` that fits the bootstrap's pieces of resamples on
    the cluster: the resampler (the fitted groups' sums, SAS inputs) travels to each worker
    once, each piece of counts is one task, the results come back in order. The draws are
    made here, as locally, so the intervals are the local path's. A transfer the transport
    breaks is sent once more (``BOOTSTRAP_ATTEMPTS``), which gives the same numbers."""

    def run(
        fn: Callable[[np.ndarray, Resampler], dict[str, dict[str, np.ndarray]]],
        resampler: Resampler,
        pieces: Iterator[np.ndarray],
    ) -> list[dict[str, dict[str, np.ndarray]]]:
        todo = list(pieces)
        for attempt in range(1, BOOTSTRAP_ATTEMPTS + 1):
            shared = client.scatter(resampler, broadcast=True, hash=False)
            futures = [client.submit(fn, piece, shared, pure=False) for piece in todo]
            try:
                results: list[dict[str, dict[str, np.ndarray]]] = client.gather(futures)
                return results
            except Exception as exc:
                # A transfer that breaks in the transport (tornado's stream, seen under load
                # as a bare AssertionError in its read buffer) is tried again from the
                # start: every piece is a pure function of its counts, so a retry gives
                # the same numbers. What fails twice is reported.
                if attempt == BOOTSTRAP_ATTEMPTS or not _transient(exc):
                    raise
                client.cancel(futures)
        raise AssertionError("unreachable")

    return run


#: how many times the bootstrap's pieces are sent when the transport fails
BOOTSTRAP_ATTEMPTS = 2


def _transient(exc: BaseException) -> bool:
    """A failure of the transport, not of the work: Dask's comm errors, OS errors, and the
    bare AssertionError tornado's stream raises from its read buffer."""
    from distributed.comm.core import CommClosedError

    return isinstance(exc, CommClosedError | OSError | AssertionError | TimeoutError)


__all__ = [
    "CONNECT_TIMEOUT",
    "INSTALL_HINT",
    "SPREAD_BELOW",
    "bootstrap_map",
    "connect",
    "describe",
    "local_workers",
    "require_dask",
    "run_sources",
]
