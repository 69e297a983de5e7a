"""What the commands share: consoles that never interpret log text, error exits, run loading.

Light on purpose: every command module imports this at start-up (``efc-tui --help`` builds
them all), so rich, the readers and the scoring core are imported where they are used.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from efc_tui._lazy import lazy_module
from efc_tui.cli._exits import EXIT_INPUT, exit_now
from efc_tui.errors import EfcError, UnrecognizedFormat
from efc_tui.report.text import sanitize_for_terminal, sanitize_label

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress
    from rich.text import Text

    from efc_tui.model import Run
    from efc_tui.parsers import Discovery, Outcomes
    from efc_tui.parsers.labels import Labels
    from efc_tui.pipeline.score import Job, ScoredItem

# imported when first used (efc_tui._lazy): rich for a console or a table, the readers and
# the local pipeline when a command reads files
rich_console = lazy_module("rich.console")
rich_progress = lazy_module("rich.progress")
rich_text = lazy_module("rich.text")
parsers = lazy_module("efc_tui.parsers")
pool = lazy_module("efc_tui.pipeline.pool")
work = lazy_module("efc_tui.pipeline.score")


@cache
def err_console() -> Console:
    """stderr for progress bars; log text is never read as markup, emoji codes or highlighted."""
    return rich_console.Console(stderr=True, markup=False, emoji=False, highlight=False)


def __getattr__(name: str) -> Any:
    if name == "err":  # the stderr console, created on first use
        return err_console()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: width of tables written to a pipe or file (a terminal uses its own width)
PIPE_WIDTH = 160


def stdout_console() -> Console:
    """A console on the current stdout that never interprets markup, emoji or highlights.

    Tables written to a pipe get PIPE_WIDTH columns (or $COLUMNS) instead of rich's 80.
    """
    width = None
    if not sys.stdout.isatty():
        cols = os.environ.get("COLUMNS", "")
        width = int(cols) if cols.isdigit() else PIPE_WIDTH
    return rich_console.Console(
        file=sys.stdout, width=width, markup=False, emoji=False, highlight=False
    )


def fmt_value(v: Any) -> str:
    """A figure as a table shows it: – for unknown, yes/no, 3 significant digits."""
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"
    return str(v)


def text_cell(value: Any) -> Text:
    """A table cell that is never parsed as markup, bounded and inert."""
    return rich_text.Text(sanitize_label(fmt_value(value)))


def _line(prefix: str, message: str) -> None:
    """One unwrapped, inert line on stderr (file:line messages must stay on one line)."""
    sys.stderr.write(prefix + sanitize_for_terminal(str(message).replace("\n", " ")) + "\n")
    sys.stderr.flush()


def fail(error: EfcError | str, code: int = EXIT_INPUT) -> NoReturn:
    """Print a one-line reason to stderr and exit (2 for bad input by default)."""
    _line("efc-tui: error: ", str(error))
    exit_now(code)


def fail_line(message: str) -> None:
    """An error line on stderr without exiting (for commands that report many files)."""
    _line("", message)


def warn(message: str) -> None:
    _line("efc-tui: warning: ", message)


def note(message: str) -> None:
    """A one-line diagnostic on stderr (what was written, and where)."""
    _line("efc-tui: ", message)


#: help texts of the options every command that uses success labels shares
LABELS_HELP = (
    "Success labels (CSV, JSON or JSONL) keyed by run_id, task_id or path, with success "
    "and/or reward. They win over the outcomes read from the benchmark's own files."
)
THRESHOLD_HELP = (
    "A numeric reward (Harbor, tau-bench, a labels file) is a success when it reaches this."
)


def outcomes_from(labels: Path | None, success_threshold: float) -> Outcomes:
    """The --labels / --success-threshold setting; a malformed labels file exits 2."""
    try:
        return parsers.Outcomes.from_options(labels, success_threshold)
    except EfcError as exc:
        fail(exc)


class TraceFiles(list[Path]):
    """Logs to read (one per trial), remembering which were named on the command line and
    what the walk found besides them."""

    named: set[Path]

    def __init__(
        self,
        files: list[Path],
        named: set[Path],
        discovery: Discovery | None = None,
        args: list[str] | None = None,
    ):
        super().__init__(files)
        self.named = named
        self.discovery = discovery
        self.args = args or [str(f) for f in files]


def _names(paths: list[str], limit: int = 5) -> str:
    shown = ", ".join(paths[:limit])
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def collect_paths(paths: list[str]) -> TraceFiles:
    try:
        found = parsers.discover(paths)
    except EfcError as exc:
        fail(exc)
    if not found.sources:
        if found.unreadable_trials:
            trials = [str(t) for t in found.unreadable_trials]
            fail(
                f"no runs in {', '.join(paths)}: {len(trials)} trial(s) hold logs no reader "
                f"recognizes: {_names(trials)}"
            )
        fail("no trace files found in " + ", ".join(paths))
    return TraceFiles(found.sources, set(found.named), found, list(paths))


def iter_runs(
    files: list[Path],
    fmt: str | None,
    lenient: bool,
    *,
    quiet: bool = False,
    outcomes: Outcomes | None = None,
    reading: _Reading | None = None,
) -> Iterator[Run]:
    """Runs of every file in order, each with its outcome (sidecars, then ``outcomes``'
    labels file). Bad input exits 2 naming file and line; warnings go to stderr unless
    quiet. A file met while walking a folder that no reader recognizes is skipped with a
    warning; when it looks like an agent log (by name or shape) it is also counted, and
    named again in a closing summary. Reading no run at all exits 2. ``reading``: the
    caller's, which then says all of this itself, in step with what it makes of the runs
    (``score_here``)."""
    own = reading is None
    if reading is None:
        reading = _Reading(files, fmt, quiet, outcomes)
    for path in files:
        try:
            for run in work.run_by_run(parsers.load(path, fmt, lenient=lenient, outcomes=outcomes)):
                reading.read(run.warnings)
                yield run
                del run  # not held while the next run is read
        except UnrecognizedFormat as exc:
            reading.unrecognized(path, exc)
        except EfcError as exc:
            reading.fail(exc)
    if own:
        reading.finish()


def score_here(files: list[Path], job: Job, *, quiet: bool = False) -> Iterator[ScoredItem]:
    """The scored runs of every file, read and scored in this process, short runs in
    batches (``pipeline.score.score_items``). What reading says (a run's warnings, a file
    skipped, the error that ends the command) is said where ``iter_runs`` followed by
    ``score_item`` would say it: just before the row of the run read after it, or after
    the last row, though a batch's runs are read before the first of them is scored."""
    reading = _Reading(files, job.fmt, quiet, job.outcomes, deferred=True)
    runs = iter_runs(files, job.fmt, job.lenient, outcomes=job.outcomes, reading=reading)
    n = 0
    try:
        for item in work.score_items(runs, job):
            n += 1
            reading.say(until=n)
            yield item
    except _Failed as failed:
        reading.say()
        fail(failed.error)
    reading.say()
    reading.finish()


class _Failed(Exception):
    """A reading error that ends the command, said once the runs before it are out."""

    def __init__(self, error: EfcError | str) -> None:
        super().__init__(str(error))
        self.error = error


def iter_scored(
    files: list[Path], job: Job, jobs: int, *, quiet: bool = False
) -> Iterator[ScoredItem]:
    """The scored runs of every file, read and scored on ``jobs`` worker processes
    (``pipeline.pool``), yielded in input order with the same warnings, errors and exit
    codes as ``iter_runs`` followed by ``score_item``: the output is the same byte for
    byte, only sooner. A file that cannot be read exits 2 where ``iter_runs`` would, after
    the runs read before it."""
    reading = _Reading(files, job.fmt, quiet, job.outcomes)
    labels = job.outcomes.labels if job.outcomes is not None else None
    results = pool.read_files(files, job, jobs)
    while True:
        try:
            res = next(results, None)
        except EfcError as exc:  # a worker died (killed, out of memory)
            fail(exc)
        if res is None:
            break
        if labels is not None:
            for i in res.labels_used:
                labels.rows[i].used = True
        for item in res.items:
            reading.read(item.warnings)
            yield item
        if res.error is None:
            continue
        path = files[res.index]
        if res.error_kind != "unrecognized":
            fail(res.error)
        reading.unrecognized(path, res.error, res.looks_like or "other")
    reading.finish()


class _Reading:
    """What ``iter_runs`` and ``iter_scored`` say while reading files, and at the end."""

    def __init__(
        self,
        files: list[Path],
        fmt: str | None,
        quiet: bool,
        outcomes: Outcomes | None,
        *,
        deferred: bool = False,
    ) -> None:
        self.files, self.fmt, self.quiet, self.outcomes = files, fmt, quiet, outcomes
        #: deferred: warnings wait in ``waiting`` (each with the number of the run whose row
        #: it comes before) until ``say``, and an error is raised as ``_Failed``
        self.deferred = deferred
        self.waiting: list[tuple[int, str]] = []
        self.named = files.named if isinstance(files, TraceFiles) else set(files)
        found = files.discovery if isinstance(files, TraceFiles) else None
        self.unreadable: list[str] = []
        self.runs = 0
        if found is not None:
            for trial, logs in found.unreadable_trials.items():
                self.unreadable.append(str(trial))
                if not quiet:
                    warn(
                        f"{trial}: a trial whose logs no reader recognizes "
                        f"({_names([p.name for p in logs]) or 'no log files'}); not read"
                    )

    def read(self, warnings: list[str]) -> None:
        """A run was read, with these warnings."""
        self.runs += 1
        for w in warnings:
            self._warn(w, self.runs)

    def _warn(self, message: str, before: int) -> None:
        """Warn now, or (deferred) just before the row of run ``before``."""
        if self.quiet:
            return
        if self.deferred:
            self.waiting.append((before, message))
        else:
            warn(message)

    def say(self, until: int | None = None) -> None:
        """Say the deferred warnings that come before the row of run ``until`` (all: None)."""
        waiting, k = self.waiting, 0
        while k < len(waiting) and (until is None or waiting[k][0] <= until):
            warn(waiting[k][1])
            k += 1
        del waiting[:k]

    def fail(self, error: EfcError | str) -> NoReturn:
        """The reading error that ends the command."""
        if self.deferred:
            raise _Failed(error)
        fail(error)

    def unrecognized(
        self, path: Path, exc: UnrecognizedFormat | str, looks: str | None = None
    ) -> None:
        """No reader recognizes ``path`` (``looks``: what ``pipeline.score.looks_like`` says
        of it, asked here when None): an error for a file named on the command line or a
        forced format, else skipped."""
        if path in self.named or self.fmt:
            self.fail(exc)
        if looks is None:
            looks = work.looks_like(path)
        kind = looks
        if kind == "sidecar":
            return  # an evaluation report the sidecar lookup reads
        if kind == "trajectory":
            self.unreadable.append(str(path))
            self._warn(
                f"{path}: looks like an agent log, but no reader recognizes it; not read",
                self.runs + 1,
            )
        else:
            self._warn(f"skipped: {exc}", self.runs + 1)

    def finish(self) -> None:
        """No run read exits 2; else the closing warnings (``finish_reading``)."""
        files = self.files
        where = (
            ", ".join(files.args) if isinstance(files, TraceFiles) else ", ".join(map(str, files))
        )
        labels = self.outcomes.labels if self.outcomes is not None else None
        finish_reading(where, self.runs, self.unreadable, labels, self.quiet)


def finish_reading(
    where: str, runs: int, unreadable: list[str], labels: Labels | None, quiet: bool
) -> None:
    """What a command says once its sources are read, locally or on Dask: no run read exits
    2 (naming the agent logs no reader recognized); else a warning naming them, and one
    naming the labels that matched no run."""
    if not runs:
        if unreadable:
            fail(
                f"no runs in {where}: {len(unreadable)} agent log(s) could not be read: {_names(unreadable)}"
            )
        fail(f"no runs in {where}")
    if unreadable and not quiet:
        warn(
            f"{runs} run(s) read; {len(unreadable)} agent log(s) could not be read: {_names(unreadable)}"
        )
    if labels is not None and not quiet:
        missing = labels.unmatched()
        if missing:
            named_rows = [f"line {r.line} ({r.describe()})" for r in missing]
            warn(
                f"{labels.path}: {len(missing)} label(s) name no run that was read: {_names(named_rows)}"
            )


def progress_enabled(quiet: bool, n_files: int) -> bool:
    return not quiet and n_files > 1 and sys.stderr.isatty()


def progress_bar(label: str, show: bool) -> Progress | None:
    """A transient progress bar on stderr, or None when it is not shown (rich is imported
    only for a bar that is shown)."""
    if not show:
        return None
    bar = rich_progress
    return bar.Progress(
        bar.TextColumn(label),
        bar.BarColumn(),
        bar.MofNCompleteColumn(),
        bar.TimeElapsedColumn(),
        console=err_console(),
        transient=True,
    )
