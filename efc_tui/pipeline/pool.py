"""Local files read and scored on a pool of worker processes (``score --jobs N``).

Reading and scoring a run is pure Python holding the GIL, so one process uses one core.
Here each local file is one task (``score.read_file``: its runs scored in order, one run
in memory at a time) on ``N`` forked processes, and the results come back in input order,
a few files ahead at most, so the command streams them as the in-process path does.
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
from efc_tui.pipeline.score import FileResult, Job, read_file

R = TypeVar("R")

#: files read ahead of the one the command is waiting for, per worker: enough to keep every
#: worker busy past a slow file (a 3 MB tau-bench file among small ones), few enough that
#: waiting results stay small (rows of figures: a few hundred bytes a run)
AHEAD = 8
#: ... when each run's result holds its whole ledger (``--json``) or adapter summary
AHEAD_LARGE = 2

_task: Callable[[int, Path], Any] | None = None


def _start(task: Callable[[int, Path], Any]) -> None:
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


def _run(index: int, path: str) -> Any:
    assert _task is not None
    return _task(index, Path(path))


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


def read_files(files: list[Path], job: Job, jobs: int) -> Iterator[FileResult]:
    """Every file's result, in input order, read on ``jobs`` processes. The workers stop
    when the caller stops iterating (an error it exits on, Ctrl-C). A worker that dies
    (killed, out of memory) raises EfcError naming the first file whose result it took."""
    ahead = AHEAD_LARGE if job.documents or job.summaries else AHEAD
    return map_files(files, partial(read_file, job=job), jobs, ahead)


def submission_order(files: list[Path], window: int) -> list[int]:
    """The order files are handed to the workers: input order, except the last ``window``
    (the files left once every earlier one has been handed out), largest first. Results
    still come back in input order; this only shortens the wait for the last file: ending
    on a large file while the other workers have nothing left idles them for its length
    (on ../shared's real runs, the 3 MB tau-bench files come last)."""
    n = len(files)
    start = max(0, n - window)

    def size(i: int) -> int:
        with suppress(OSError):
            return files[i].stat().st_size
        return 0

    return [*range(start), *sorted(range(start, n), key=lambda i: (-size(i), i))]


def map_files(
    files: list[Path], task: Callable[[int, Path], R], jobs: int, ahead: int = AHEAD
) -> Generator[R, None, None]:
    """``task(index, path)`` of every file, in input order, on ``jobs`` processes, at most
    ``ahead`` files per worker ahead of the one the caller is waiting for (twice that over
    the last files, handed out largest first: ``submission_order``). The workers stop
    when the caller stops iterating. A worker that dies (killed, out of memory) raises
    EfcError naming the first file whose result it took; an exception the task raises is
    raised here, as it would be in this process."""
    pool = ProcessPoolExecutor(
        max_workers=max(1, min(jobs, len(files))),
        mp_context=_context(),
        initializer=_start,
        initargs=(task,),
    )
    limit = ahead * jobs
    order = iter(submission_order(files, limit))
    futures: dict[int, Future[R]] = {}
    done = False

    def submit() -> None:
        index = next(order, None)
        if index is not None:
            futures[index] = pool.submit(_run, index, str(files[index]))

    try:
        for _ in range(limit):
            submit()
        for index, path in enumerate(files):
            while index not in futures:  # handed out after larger ones: hand it out now
                submit()
            future = futures.pop(index)
            try:
                result = future.result()
            except BrokenProcessPool as exc:
                raise EfcError(
                    f"a worker process stopped (killed, or out of memory?) while {path} or a "
                    f"file after it was read ({exc}); try --jobs 1, or fewer jobs"
                ) from None
            if len(futures) < limit:
                submit()
            yield result
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
