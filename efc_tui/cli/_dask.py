"""``--dask`` on ``score`` and ``fit``: the options, the cluster, and the runs read on it
with the same warnings, progress and exit codes as the local path (``iter_runs``).

The work itself is in :mod:`efc_tui.cluster`. One difference from the local path, on
purpose: a source that cannot be read does not stop the others. Its error is printed
(``efc-tui: error: file:line: reason``) as the results reach it, every other source is
scored and output, and the command then exits 2 (:meth:`DaskReading.finish`). A cluster
that stops answering ends the command with one line and exit 2.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext, suppress
from typing import TYPE_CHECKING

import typer
from msgspec import Struct
from msgspec.structs import replace

from efc_tui._lazy import lazy_module
from efc_tui.cli._app import EXIT_INPUT
from efc_tui.cli._common import (
    TraceFiles,
    _names,
    collect_paths,
    fail,
    fail_line,
    finish_reading,
    note,
    progress_bar,
    progress_enabled,
    warn,
)
from efc_tui.errors import EfcError

if TYPE_CHECKING:
    from distributed import Client

    from efc_tui.cluster.source import Source, SourceResult
    from efc_tui.pipeline.score import Job, ScoredItem

# Dask and the cluster glue, imported for a Dask option or a URL only (efc_tui._lazy)
remote = lazy_module("efc_tui.cluster.remote")
dask_client = lazy_module("efc_tui.cluster.client")
source = lazy_module("efc_tui.cluster.source")
tasks = lazy_module("efc_tui.cluster.tasks")

DASK_HELP = (
    "Read and score on Dask: a local cluster of worker processes, one for each CPU this "
    "process may use, or the scheduler given by --scheduler. Needs `pip install "
    "'efc-tui[dask]'`."
)
SCHEDULER_HELP = (
    "Address of a running Dask scheduler (tcp://host:8786) or its scheduler file (.json); "
    "implies --dask. Its workers must see local paths at the same place, or read URLs."
)
WORKERS_HELP = (
    "Worker processes of the local Dask cluster (default: the CPUs this process may use: "
    "its CPU affinity and CPU quota); implies --dask."
)


class DaskSetting(Struct, frozen=True):
    """Where to run: ``address`` (a scheduler) or a local cluster of ``workers``."""

    address: str | None = None
    workers: int | None = None


def dask_setting(
    dask: bool, scheduler: str | None, workers: int | None, paths: list[str]
) -> DaskSetting | None:
    """The --dask / --scheduler / --dask-workers choice (None: the local path). URLs need
    a cluster: without one they exit 2 saying so."""
    if scheduler is not None and workers is not None:
        fail(
            "--dask-workers sizes a local cluster; the scheduler at --scheduler has its own workers"
        )
    if not (dask or scheduler is not None or workers is not None):
        urls = [p for p in paths if is_url(p)]
        if urls:
            fail(f"{urls[0]}: URLs are read on Dask: add --dask (pip install 'efc-tui[dask]')")
        return None
    return DaskSetting(scheduler, workers)


def is_url(arg: str) -> bool:
    """``scheme://...`` (``cluster.remote.is_url``, whose module loads only for an argument
    that can be one)."""
    if "://" not in arg:
        return False
    return bool(remote.is_url(arg))


@contextmanager
def cluster(setting: DaskSetting, quiet: bool) -> Iterator[Client]:
    """The client, with a one-line note of where the work runs; a cluster that cannot start
    or a scheduler that cannot be reached exits 2 with the reason. A local cluster is shut
    down on leaving, whatever happens."""
    stack = ExitStack()
    try:
        client = stack.enter_context(dask_client.connect(setting.address, setting.workers))
    except EfcError as exc:
        fail(exc)
    except Exception as exc:  # a scheduler that refuses us, a cluster that cannot start
        fail(f"Dask: cannot start or reach the cluster: {type(exc).__name__}: {exc}")
    with stack:
        if not quiet:
            note(f"Dask: {dask_client.describe(client)}")
        yield client


class Planned(Struct):
    """The sources of a command line, numbered in order, and what the local discovery
    found besides them (unreadable trials)."""

    sources: list[Source]
    files: TraceFiles | None


def plan_sources(paths: list[str]) -> Planned:
    """The local paths as the local path discovers them (one per trial), then each URL's
    sources. Bad paths exit 2."""
    local = [p for p in paths if not is_url(p)]
    files = collect_paths(local) if local else None
    sources = (
        [source.Source(i, str(p), p in files.named) for i, p in enumerate(files)] if files else []
    )
    for url in (p for p in paths if is_url(p)):
        try:
            sources += remote.plan_url(url, len(sources))
        except EfcError as exc:
            fail(exc)
    if not sources:
        fail("no trace files found in " + ", ".join(paths))
    return Planned(sources, files)


def new_token() -> str:
    """Names one command's mirror of URL sources on the workers."""
    return uuid.uuid4().hex[:12]


class DaskReading:
    """Runs read on the cluster, yielded as ``iter_runs`` yields them (same order, same
    warnings), with every unreadable source reported and counted instead of ending it.
    The job gets this command's own mirror token."""

    def __init__(
        self,
        client: Client,
        paths: list[str],
        planned: Planned,
        job: Job,
        *,
        quiet: bool = False,
        progress: bool = True,
    ) -> None:
        self.client = client
        self.paths = list(paths)
        self.sources = planned.sources
        self.files = planned.files
        self.job = replace(job, token=new_token())
        self.quiet = quiet
        self.progress = progress
        self.failed: list[str] = []
        self.runs = 0

    def items(self) -> Iterator[ScoredItem]:
        job, quiet = self.job, self.quiet
        unreadable: list[str] = []
        found = self.files.discovery if self.files is not None else None
        if found is not None:
            for trial, logs in found.unreadable_trials.items():
                unreadable.append(str(trial))
                if not quiet:
                    warn(
                        f"{trial}: a trial whose logs no reader recognizes "
                        f"({_names([p.name for p in logs]) or 'no log files'}); not read"
                    )
        labels = job.outcomes.labels if job.outcomes is not None else None
        bar = progress_bar("scoring", self.progress and progress_enabled(quiet, len(self.sources)))
        with bar if bar is not None else nullcontext():
            task = bar.add_task("score", total=len(self.sources)) if bar is not None else None

            def advance(_: SourceResult) -> None:
                if bar is not None and task is not None:
                    bar.advance(task)

            try:
                for res in tasks.run_sources(self.client, self.sources, job, advance):
                    if labels is not None:
                        for i in res.labels_used:
                            labels.rows[i].used = True
                    if not quiet:
                        for w in res.warnings:
                            warn(w)
                    if res.error is not None:
                        self._report(res, unreadable)
                        continue
                    for item in res.items:
                        self.runs += 1
                        if not quiet:
                            for w in item.warnings:
                                warn(w)
                        yield item
            except dask_client.ClusterError as exc:  # the scheduler gone, results that never came
                fail(exc)
            finally:
                if any(s.remote is not None for s in self.sources):
                    with suppress(Exception):  # a worker gone: its scratch space went with it
                        self.client.run(remote.clean_mirror, job.token)
        where = ", ".join(self.paths)
        if not self.runs and self.failed:
            fail(
                f"no runs in {where}: {len(self.failed)} source(s) could not be read: {_names(self.failed)}"
            )
        finish_reading(where, self.runs, unreadable, labels, quiet)

    def _report(self, res: SourceResult, unreadable: list[str]) -> None:
        """An unreadable source: skipped like the local path skips it when it was met in a
        folder walk, else an error line (the command exits 2 at the end)."""
        src = self.sources[res.index]
        if res.error_kind == "unrecognized" and not (src.named or self.job.fmt):
            if res.looks_like == "sidecar":
                return
            if res.looks_like == "trial":
                unreadable.append(res.path)
                if not self.quiet:
                    warn(f"{res.path}: a trial whose logs no reader recognizes; not read")
                return
            if res.looks_like == "trajectory":
                unreadable.append(res.path)
                if not self.quiet:
                    warn(
                        f"{res.path}: looks like an agent log, but no reader recognizes it; not read"
                    )
            elif not self.quiet:
                warn(f"skipped: {res.error}")
            return
        self.failed.append(res.path)
        fail_line(f"efc-tui: error: {res.error}")

    def finish(self) -> None:
        """Exit 2 when a source could not be read (its error was printed where it was met)."""
        if self.failed:
            fail_line(
                f"efc-tui: error: {len(self.failed)} of {len(self.sources)} source(s) could not "
                f"be read (named above); every other run was read and scored"
            )
            raise typer.Exit(EXIT_INPUT)


__all__ = [
    "DASK_HELP",
    "SCHEDULER_HELP",
    "WORKERS_HELP",
    "DaskReading",
    "DaskSetting",
    "Planned",
    "cluster",
    "dask_setting",
    "plan_sources",
]
