"""Connecting to Dask and getting results back from it, in order.

``connect()`` gives a ``distributed.Client``: to a local cluster of worker processes on
this machine's cores (no address), or to the user's scheduler (an address, or a scheduler
file). ``gather`` runs a function over items on the cluster and returns the results in
the items' order, whatever order the workers finish in; a result that never arrives is
asked for again (``_results``), and a cluster that stops answering raises
:class:`ClusterError` (one line, exit 2 in the CLI). The tasks that read sources are in
``tasks``; the bootstrap's are :func:`bootstrap_map`.

Dask is imported here only, and only when a function is called.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from efc_tui.cpus import available_cpus
from efc_tui.errors import EfcError, InputError, UsageError

if TYPE_CHECKING:
    import numpy as np
    from distributed import Client

    from efc_tui.fitting.bootstrap import BootstrapMap, Resampler

INSTALL_HINT = "pip install 'efc-tui[dask]'"
#: seconds to wait for a remote scheduler before giving up
CONNECT_TIMEOUT = 30


def require_dask() -> None:
    """Raise UsageError naming the extra to install when dask.distributed is missing."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UsageError(f"--dask needs dask.distributed: {INSTALL_HINT}") from None


def local_workers(workers: int | None = None) -> int:
    """Worker processes of a local cluster: ``workers``, else the CPUs this process may
    use (``cpus.available_cpus``)."""
    if workers is not None:
        if workers < 1:
            raise UsageError("a local cluster needs at least 1 worker")
        return workers
    return available_cpus()


@contextmanager
def connect(address: str | None = None, workers: int | None = None) -> Iterator[Client]:
    """A client to the scheduler at ``address`` (``tcp://host:8786``, or a scheduler JSON
    file), or to a local cluster of ``workers`` processes with one thread each (default:
    this machine's cores). The local cluster is shut down on leaving, whatever happens.

    The client is not made the process's default (``set_as_default=False``): everything
    here is done through the client it is given, and a default left behind would take
    over the Dask calls of whoever runs in this process next (a library caller, a test)."""
    require_dask()
    from distributed import Client, LocalCluster

    if address is not None:
        try:
            if address.endswith(".json") and Path(address).is_file():
                client = Client(
                    scheduler_file=address, timeout=CONNECT_TIMEOUT, set_as_default=False
                )
            else:
                client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
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
        with Client(cluster, set_as_default=False) as client:
            yield client
    finally:
        cluster.close()


def describe(client: Client) -> str:
    """``local cluster, 2 workers`` / ``tcp://host:8786, 8 workers``, for the console."""
    info = client.scheduler_info()
    n = len(info.get("workers", {}))
    where = "local cluster" if client.cluster is not None else str(client.scheduler.address)
    return f"{where}, {n} worker{'s' if n != 1 else ''}"


def bootstrap_map(client: Client) -> BootstrapMap:
    """A ``fit_corpus(bootstrap_map=...)`` that fits the bootstrap's pieces of resamples on
    the cluster: the resampler (the fitted groups' sums, SAS inputs) travels to each worker
    once, each piece of counts is one task, the results come back in order. The draws are
    made here, as locally, so the intervals are the local path's. A piece whose result is
    lost is sent again (:func:`_results`; every piece is a pure function of its counts, so
    the numbers are the same); a piece that fails on the cluster raises its error, one that
    cannot be had after ``ATTEMPTS`` sends raises :class:`ClusterError`."""

    def run(
        fn: Callable[[np.ndarray, Resampler], dict[str, dict[str, np.ndarray]]],
        resampler: Resampler,
        pieces: Iterator[np.ndarray],
    ) -> list[dict[str, dict[str, np.ndarray]]]:
        todo = list(pieces)
        if not todo:
            return []
        try:
            shared = client.scatter(resampler, broadcast=True, hash=False)
        except Exception as exc:
            raise _cluster_error(exc) from None
        results: list[dict[str, dict[str, np.ndarray]]] = gather(
            client, fn, todo, (shared,), what="a piece of the bootstrap"
        )
        shared.release()
        return results

    return run


class ClusterError(EfcError):
    """The Dask cluster stopped answering (its scheduler gone, or results that never come)."""


#: times a task is sent before its result is given up (a transfer that breaks, a result
#: that never arrives); a task that fails on the cluster itself is not sent again (Dask has
#: retried it on other workers already: ``distributed.scheduler.allowed-failures``)
ATTEMPTS = 3
#: seconds without any result after which the cluster is asked whether it is still
#: working; idle at two such checks in a row while results are missing, they are lost
IDLE_CHECK_S = 10.0
#: seconds a finished task's result may take to arrive before it is fetched again
FETCH_TIMEOUT_S = 300.0


class _Lost(Exception):
    """No result for a task after ``ATTEMPTS`` sends."""


def _cluster_error(exc: BaseException) -> ClusterError:
    return ClusterError(f"Dask: the cluster stopped answering ({type(exc).__name__}: {exc})")


def gather(
    client: Client,
    fn: Callable[..., Any],
    items: list[Any],
    extra: tuple[Any, ...],
    *,
    what: str,
    sent: list[Any] | None = None,
    own: object = None,
    attempts: int = ATTEMPTS,
) -> list[Any]:
    """``fn(item, *extra)`` of every item, run on the cluster (:func:`_results`), in order.
    A task that fails on the cluster raises its error; one whose result cannot be had
    raises :class:`ClusterError` naming ``what`` it was. ``sent``, ``own``, ``attempts``:
    as for :func:`_results`."""
    out: dict[int, Any] = {}
    for i, value in _results(client, fn, items, extra, {}, sent=sent, own=own, attempts=attempts):
        if isinstance(value, _Lost):
            raise ClusterError(f"Dask: {what} {value}")
        if isinstance(value, BaseException):
            raise value
        out[i] = value
    return [out[i] for i in range(len(items))]


def _results(
    client: Client,
    fn: Callable[..., Any],
    items: list[Any],
    extra: tuple[Any, ...],
    kwargs: dict[str, Any],
    *,
    sent: list[Any] | None = None,
    own: object = None,
    attempts: int = ATTEMPTS,
) -> Iterator[tuple[int, Any]]:
    """``(i, fn(items[i], *extra, **kwargs))`` for every item, run on the cluster, in
    completion order; the value is an exception when the task failed on the cluster, or
    :class:`_Lost` when its result could not be had after ``attempts`` sends. ``sent``:
    the tasks were sent already, one future per item, in order; ``own``: the key of the
    task this runs in, on a worker (not counted as work the cluster is doing).

    Everything goes through ``client`` and its own event loop (never the process's default
    client: ``distributed.as_completed`` and ``wait`` without a loop take that one, and a
    client driven from another client's loop thread used one tornado stream from two
    threads: results lost or garbled, the bare AssertionError in tornado's read buffer,
    the ``score --dask`` hang). A result is waited for without end only while the cluster
    is working (:func:`_working`): when none arrives for ``IDLE_CHECK_S`` and its workers
    process no task at two checks in a row, the missing ones are sent again; a finished
    task whose result cannot be fetched (the transfer breaks) is sent again too. Tasks
    must be pure (the same value whichever send answers)."""
    import queue
    from asyncio import CancelledError

    done: queue.SimpleQueue[Any] = queue.SimpleQueue()
    live: dict[str, tuple[int, Any]] = {}
    sends = [1] * len(items)
    tries = f" after {attempts} attempts" if attempts > 1 else ""

    def track(i: int, future: Any) -> None:
        live[future.key] = (i, future)
        future.add_done_callback(done.put)

    def resend(i: int) -> bool:
        if sends[i] >= attempts:
            return False
        sends[i] += 1
        track(i, client.submit(fn, items[i], *extra, pure=False, **kwargs))
        return True

    try:
        if sent is None:
            columns = [[x] * len(items) for x in extra]
            sent = client.map(fn, items, *columns, pure=False, **kwargs)
        for i, future in enumerate(sent):
            track(i, future)
    except Exception as exc:
        raise _cluster_error(exc) from None
    idle = 0
    while live:
        try:
            future = done.get(timeout=IDLE_CHECK_S)
        except queue.Empty:
            idle = 0 if _working(client, own) else idle + 1
            if idle < 2:
                continue
            idle = 0
            for key, (i, old) in list(live.items()):  # results that will not come
                del live[key]
                old.release()
                try:
                    again = resend(i)
                except Exception as exc:
                    raise _cluster_error(exc) from None
                if not again:
                    yield i, _Lost(f"got no result from the cluster{tries}")
            continue
        entry = live.pop(future.key, None)
        if entry is None:  # an earlier send of a task sent again since
            continue
        i = entry[0]
        try:
            value: Any = future.result(timeout=FETCH_TIMEOUT_S)
        except (Exception, CancelledError) as exc:
            # "error": the task failed on the cluster (its worker died Dask's allowed
            # number of times): reported, not sent again; else the fetch broke or the
            # future was cancelled under us: sent again
            failed = future.status == "error"
            try:
                again = not failed and resend(i)
            except Exception as send_exc:
                raise _cluster_error(send_exc) from None
            if again:
                continue
            value = (
                exc
                if failed
                else _Lost(f"could not be fetched{tries} ({type(exc).__name__}: {exc})")
            )
        finally:
            future.release()
        yield i, value


def _working(client: Client, own: object = None) -> bool:
    """Whether the cluster may still deliver: a worker is processing a task (other than
    ``own``, the task asking), or it has no worker yet (one that scales up from none, or
    restarts its workers, is waited for).
    A cluster that cannot tell is counted as working (the next check asks again); one
    whose connection is closed raises ClusterError."""
    if client.status in ("closing", "closed"):
        raise ClusterError("Dask: the connection to the cluster was closed")
    try:
        processing = client.processing()
    except Exception:
        return True
    return not processing or any(key != own for keys in processing.values() for key in keys)


__all__ = [
    "ATTEMPTS",
    "CONNECT_TIMEOUT",
    "INSTALL_HINT",
    "ClusterError",
    "bootstrap_map",
    "connect",
    "describe",
    "gather",
    "local_workers",
    "require_dask",
]
