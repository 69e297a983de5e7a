"""Local files read and scored on a pool of worker processes (``score --jobs N``).

Reading and scoring a run is pure Python holding the GIL, so one process uses one core.
Here consecutive local files are one task (``score.read_group``: their runs scored in
order, one run in memory at a time, short ones in batches as in one process) on ``N``
forked processes, and the results come back in input order, a few tasks ahead at most,
so the command streams them as the in-process path does.
Library code: nothing prints; a file that cannot be read is a ``FileResult`` with an
``error``, for the command to report where the in-process path would.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from efc_tui.errors import EfcError
from efc_tui.pipeline import gc_policy
from efc_tui.pipeline.score import FileResult, Job, read_group

R = TypeVar("R")

#: files read ahead of the one the command is waiting for, per worker: enough to keep every
#: worker busy past a slow file (a 3 MB tau-bench file among small ones), few enough that
#: waiting results stay small (rows of figures: a few hundred bytes a run)
AHEAD = 8
#: ... when each run's result holds its whole ledger (``--json``) or adapter summary
AHEAD_LARGE = 2

_task: Callable[[int, list[Path]], list[Any]] | None = None


def _start(task: Callable[[int, list[Path]], list[Any]]) -> None:
    """In each worker: the task (inherited, not sent: the fork copies it, and the job or
    the screen's readers it holds), and Ctrl-C left to the command, which stops the
    workers itself; signals a terminal sends the command's process group (a window
    resized) are not the workers' either; the garbage collector's policy is the command's."""
    global _task
    _task = task
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGWINCH", "SIGTSTP", "SIGCONT"):  # (an app's handlers, not a worker's)
        sig = getattr(signal, name, None)
        if sig is not None:
            signal.signal(sig, signal.SIG_DFL)
    with suppress(ValueError):
        signal.set_wakeup_fd(-1)  # the command's event loop is not the worker's
    gc_policy.apply()  # the command's policy, in a process of its own (spawned: not inherited)


def _run(first: int, paths: list[str]) -> list[Any]:
    assert _task is not None
    return _task(first, [Path(p) for p in paths])


def _context() -> multiprocessing.context.BaseContext:
    """fork where there is one (workers start in milliseconds with the command's imports
    and job), else the platform's default."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def can_fork() -> bool:
    """Whether workers are forked here: a task that is not picklable (the app's readers)
    goes to the pool only then."""
    return "fork" in multiprocessing.get_all_start_methods()


#: consecutive files go to a worker together up to this many bytes and files (a larger
#: file goes alone): their short runs are scored in batches across the files, as in one
#: process (``score.read_group``). Small enough that the workers stay evenly loaded and
#: results stream: on ../shared's real runs, 347 files make 73 groups.
GROUP_BYTES = 1_000_000
GROUP_FILES = 64


def read_files(files: list[Path], job: Job, jobs: int) -> Iterator[FileResult]:
    """Every file's result, in input order, read on ``jobs`` processes, consecutive small
    files together (``GROUP_BYTES``; a file a task when each run's result carries its
    ledger or adapter summary, which the command may hold for the files ahead). The
    workers stop when the caller stops iterating (an error it exits on, Ctrl-C). A worker
    that dies (killed, out of memory) raises EfcError naming the first file whose result
    it took. A file whose reading error ends the command (any but an unrecognized file) is
    the last whose result comes back."""
    large = job.documents or job.summaries
    ahead = AHEAD_LARGE if large else AHEAD
    # a result that holds each run's ledger or summary comes back a file at a time
    most = 1 if large else GROUP_FILES
    sizes = [_size(f) for f in files]
    groups: list[range] = []
    start = total = 0
    for i, n in enumerate(sizes):
        if i > start and (total + n > GROUP_BYTES or i - start >= most):
            groups.append(range(start, i))
            start, total = i, 0
        total += n
    if files:
        groups.append(range(start, len(files)))
    group_bytes = [sum(sizes[i] for i in g) for g in groups]
    return _map(files, groups, group_bytes.__getitem__, partial(read_group, job=job), jobs, ahead)


def _size(path: Path) -> int:
    with suppress(OSError):
        return path.stat().st_size
    return 0  # (its reader says why)


def submission_order(sizes: list[int], window: int) -> list[int]:
    """The order tasks are handed to the workers, by their sizes in bytes: input order,
    except the last ``window`` (the tasks left once every earlier one has been handed out),
    largest first. Results still come back in input order; this only shortens the wait for
    the last task: ending on a large one while the other workers have nothing left idles
    them for its length (on ../shared's real runs, the 3 MB tau-bench files come last)."""
    n = len(sizes)
    start = max(0, n - window)
    return [*range(start), *sorted(range(start, n), key=lambda i: (-sizes[i], i))]


def map_files(
    files: list[Path], task: Callable[[int, Path], R], jobs: int, ahead: int = AHEAD
) -> Generator[R, None, None]:
    """``task(index, path)`` of every file, in input order, on ``jobs`` processes, at most
    ``ahead`` files per worker ahead of the one the caller is waiting for (twice that over
    the last files, handed out largest first: ``submission_order``). The workers stop
    when the caller stops iterating. A worker that dies (killed, out of memory) raises
    EfcError naming the first file whose result it took; an exception the task raises is
    raised here, as it would be in this process."""
    groups = [range(i, i + 1) for i in range(len(files))]
    return _map(files, groups, lambda k: _size(files[k]), partial(_each, task), jobs, ahead)


def _each(task: Callable[[int, Path], R], first: int, paths: list[Path]) -> list[R]:
    return [task(first + k, path) for k, path in enumerate(paths)]


def _map(
    files: list[Path],
    groups: list[range],
    size: Callable[[int], int],
    task: Callable[[int, list[Path]], list[R]],
    jobs: int,
    ahead: int,
) -> Generator[R, None, None]:
    """The results of ``task(group.start, files[group])`` for each group (consecutive files),
    one after the other in input order: ``map_files``, files handed out by groups.
    ``size(k)``: group k's bytes, asked only of the groups ``submission_order`` sorts (a
    folder of thousands of files is not stat'ed file by file before the first is read)."""
    pool = ProcessPoolExecutor(
        max_workers=max(1, min(jobs, len(groups))),
        mp_context=_context(),
        initializer=_start,
        initargs=(task,),
    )
    limit = ahead * jobs
    last = len(groups) - limit
    order = iter(submission_order([size(k) if k >= last else 0 for k in range(len(groups))], limit))
    futures: dict[int, Future[list[R]]] = {}
    done = False

    def submit() -> None:
        k = next(order, None)
        if k is not None:
            futures[k] = pool.submit(_run, groups[k].start, [str(files[i]) for i in groups[k]])

    try:
        for _ in range(limit):
            submit()
        for k, group in enumerate(groups):
            while k not in futures:  # handed out after larger ones: hand it out now
                submit()
            future = futures.pop(k)
            try:
                results = future.result()
            except BrokenProcessPool as exc:
                raise EfcError(
                    f"a worker process stopped (killed, or out of memory?) while "
                    f"{files[group.start]} or a file after it was read ({exc}); try --jobs "
                    f"1, or fewer jobs"
                ) from None
            if len(futures) < limit:
                submit()
            yield from results
        done = True
    finally:
        if done:
            pool.shutdown(wait=True)
        else:
            _stop(pool)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Shut the pool down without waiting for files no one will read: the workers still
    running are terminated (the command is leaving early: an error, Ctrl-C)."""
    workers = [p for p in getattr(pool, "_processes", {}).values() if p.is_alive()]
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in workers:  # (CPython's own table of them; without it they finish their file)
        proc.terminate()
    for proc in workers:
        proc.join()


__all__ = ["AHEAD", "AHEAD_LARGE", "can_fork", "map_files", "read_files", "submission_order"]
