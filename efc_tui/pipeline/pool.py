"""Local files read and scored on a pool of worker processes (``score --jobs N``).

Reading and scoring a run is pure Python holding the GIL, so one process uses one core.
Here each local file is one task (``score.read_file``: its runs scored in order, one run
in memory at a time) on ``N`` forked processes, and the results come back in input order,
a few files ahead at most, so the command streams them as the in-process path does.
Library code: nothing prints; a file that cannot be read is a ``FileResult`` with an
``error``, for the command to report where the in-process path would.
"""

from __future__ import annotations

import gc
import multiprocessing
import signal
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from efc_tui.errors import EfcError
from efc_tui.pipeline.score import FileResult, Job, read_file

#: files read ahead of the one the command is waiting for, per worker: enough to keep every
#: worker busy past a slow file (a 3 MB tau-bench file among small ones), few enough that
#: waiting results stay small (rows of figures: a few hundred bytes a run)
AHEAD = 8
#: ... when each run's result holds its whole ledger (``--json``) or adapter summary
AHEAD_LARGE = 2

_job: Job | None = None


def _start(job: Job) -> None:
    """In each worker: the job (inherited, not sent: the fork copies it), and Ctrl-C left
    to the command, which stops the workers itself."""
    global _job
    _job = job
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.set_threshold(100_000, 50, 100)  # as the command does (many small acyclic objects)


def _read(index: int, path: str) -> FileResult:
    assert _job is not None
    return read_file(index, Path(path), _job)


def _context() -> multiprocessing.context.BaseContext:
    """fork where there is one (workers start in milliseconds with the command's imports
    and job), else the platform's default."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def read_files(files: list[Path], job: Job, jobs: int) -> Iterator[FileResult]:
    """Every file's result, in input order, read on ``jobs`` processes. The workers stop
    when the caller stops iterating (an error it exits on, Ctrl-C). A worker that dies
    (killed, out of memory) raises EfcError naming the first file whose result it took."""
    pool = ProcessPoolExecutor(
        max_workers=max(1, min(jobs, len(files))),
        mp_context=_context(),
        initializer=_start,
        initargs=(job,),
    )
    pending: deque[tuple[Path, Future[FileResult]]] = deque()
    todo = iter(enumerate(files))
    ahead = (AHEAD_LARGE if job.documents or job.summaries else AHEAD) * jobs
    done = False
    try:
        for index, path in todo:
            pending.append((path, pool.submit(_read, index, str(path))))
            if len(pending) >= ahead:
                break
        while pending:
            path, future = pending.popleft()
            try:
                result = future.result()
            except BrokenProcessPool as exc:
                raise EfcError(
                    f"a worker process stopped (killed, or out of memory?) while {path} or a "
                    f"file after it was read ({exc}); try --jobs 1, or fewer jobs"
                ) from None
            for index, nxt in todo:
                pending.append((nxt, pool.submit(_read, index, str(nxt))))
                break
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


__all__ = ["AHEAD", "AHEAD_LARGE", "read_files"]
