"""Reading and scoring run sources: what ``score`` and ``fit`` do with each log file.

One path for every caller: the command's own process (``cli._common``), the process pool
of ``score --jobs`` (``pipeline.pool``) and a Dask worker (``cluster.tasks``, which adds
only the Dask glue: fetching URLs, sending batches to other workers). Nothing here
imports Dask. Library code: nothing prints; a file that cannot be read is a
:class:`FileResult` with an ``error``, never an exception, so one bad file never takes
the others down.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, cast

from msgspec import Struct, field

from efc_tui.cpus import available_cpus
from efc_tui.errors import EfcError, UnrecognizedFormat
from efc_tui.parsers.held import TRIM_EVENTS, hold

if TYPE_CHECKING:
    from efc_tui.adapter.result import ScoredRun
    from efc_tui.adapter.summary import AdapterSummary
    from efc_tui.fitting.fitfile import FitChooser
    from efc_tui.model import Run
    from efc_tui.parsers import Outcomes
    from efc_tui.scoring import Estimator
    from efc_tui.scoring.ledger import Ledger

#: what a worker returns per run: the ``score`` row (efc_tui.report.output.run_row, with the fit
#: columns when asked) or the ``fit`` run-table row (efc_tui.fitting.table.run_row)
Mode = Literal["score", "fit"]

#: runs of one file scored where it is read; past this, further runs go to other workers in
#: batches of this size (a simulated corpus file holds hundreds of runs)
DEFAULT_BATCH = 128


class Job(Struct, frozen=True):
    """How every source of one command is read and scored (sent to each worker once)."""

    mode: Mode
    #: None: each run is scored with the package estimator that matches it (``estimator_for``)
    estimator: Estimator | None
    fmt: str | None = None
    lenient: bool = False
    outcomes: Outcomes | None = None
    #: score: adapter window and threshold (None: the estimator file's) and repetition
    #: limit (None: the package's)
    window: int | None = None
    epsilon: float | None = None
    repeat: int | None = None
    #: score --fit: each row gets the fit columns (fit_success, fit_z, ...) of the fit
    #: ``fits`` picks for the run; empty ones when that fit has no predictive curve
    fit_columns: bool = False
    fits: FitChooser | None = None
    #: score --json: return each run's serialized ledger document
    documents: bool = False
    #: score --adapter / --max-waste: return each run's adapter summary
    summaries: bool = False
    #: fit: the input folders, for each run's ``source`` label (fitting.table.source_label)
    roots: tuple[str, ...] = ()
    #: runs per batch spilled to other workers (0: never spill)
    batch: int = DEFAULT_BATCH
    #: names this command's mirror of URL sources on each worker (efc_tui.cluster.remote)
    token: str = "local"


class EstimatorRef(NamedTuple):
    """The estimator that scored a run, as the fit file records it (no θ: small to send back)."""

    source: str
    sha256: str
    provisional: bool


class ScoredItem(Struct):
    """One scored run, as the command consumes it."""

    row: dict[str, Any]
    document: bytes | None = None
    summary: AdapterSummary | None = None
    warnings: list[str] = field(default_factory=list)
    source_path: str | None = None
    run_id: str = ""
    #: fit: the estimator that scored the run (the package's that matches it, or the named one)
    estimator: EstimatorRef | None = None
    #: score --fit: the fit the run was placed on (its source) and why the prediction
    #: extrapolates (None: it does not), for the command's caption and warnings
    fit_source: str | None = None
    fit_extrapolation: str | None = None


def default_jobs() -> int:
    """Processes ``score --jobs`` uses by default (``pipeline.pool``): the CPUs this
    process may use (its CPU affinity and its control group's CPU quota: ``cpus``)."""
    return available_cpus()


#: below this many bytes of logs, the default is to read them in the command's own
#: process: starting the workers (and their readers' imports) costs about 0.2 s, what one
#: process takes to score a few MB
POOL_BYTES = 4_000_000


def worth_a_pool(files: list[Path]) -> bool:
    """Whether the files hold enough to repay starting the workers (``POOL_BYTES``)."""
    total = 0
    for f in files:
        try:
            total += os.stat(f).st_size
        except OSError:
            continue  # its reader says why
        if total >= POOL_BYTES:
            return True
    return False


def pool_jobs(files: list[Path], jobs: int | None) -> int:
    """How many processes read ``files``: ``jobs`` when given, else this machine's cores
    once the files hold enough to repay starting them (``worth_a_pool``); 1 (this
    process) for a single file, which one reader reads in order anyway."""
    n = jobs if jobs is not None else default_jobs()
    if n > 1 and len(files) > 1 and (jobs is not None or worth_a_pool(files)):
        return n
    return 1


#: short runs are scored together (``scoring.score_runs``), up to this many at a time...
BATCH_RUNS = 64


def score_item(run: Run, job: Job) -> ScoredItem:
    """Score one run the way ``score`` / ``fit`` do and keep what the command needs (the
    ledger and its events are dropped here): ``score_batch`` of one run."""
    return score_batch([run], job)[0]


def score_batch(runs: Sequence[Run], job: Job) -> list[ScoredItem]:
    """``score_item`` of each run, the runs scored together (``scoring.score_runs``: the
    same figures and columns as one by one, bit for bit)."""
    if job.mode == "fit":
        from efc_tui.fitting.table import run_row as table_row
        from efc_tui.fitting.table import source_label
        from efc_tui.scoring.ledger import score_runs

        items = []
        for run, led in zip(runs, score_runs(runs, job.estimator), strict=True):
            source = source_label(run.source_format, run.source_path, job.roots)
            items.append(
                ScoredItem(
                    table_row(led, source),
                    warnings=list(run.warnings),
                    source_path=run.source_path,
                    run_id=run.run_id,
                    estimator=EstimatorRef(
                        led.estimator.source, led.estimator.sha256, led.estimator.provisional
                    ),
                )
            )
        return items
    if not (job.documents or job.summaries):
        # the row (and the fit columns, the thresholds, the CI reports) reads the ledger
        # alone: the adapter's decisions are not made (1.05 -> 1.01 s on score_bench)
        from efc_tui.scoring.ledger import score_runs

        ledgers = score_runs(runs, job.estimator)
        return [_score_row(run, led, job) for run, led in zip(runs, ledgers, strict=True)]
    from efc_tui.adapter import score_and_decide_runs

    # lazy: the decisions are built only if the ledger document below reads them
    scored = score_and_decide_runs(
        runs, job.estimator, window=job.window, epsilon=job.epsilon, repeat=job.repeat, lazy=True
    )
    return [_score_row(run, one, job) for run, one in zip(runs, scored, strict=True)]


def _score_row(run: Run, scored: ScoredRun | Ledger, job: Job) -> ScoredItem:
    """What ``score`` keeps of one scored run: its row, and its ledger document or adapter
    summary when the output needs them (then ``scored`` is a ScoredRun, else the ledger)."""
    from efc_tui.report.output import run_row

    row = run_row(scored)
    placed = None
    if job.fit_columns and job.fits is not None:
        placed = job.fits.place(run, scored.figures)
        row.update(placed.columns)
    document = None
    if job.documents:
        from efc_tui.report.export import dumps, ledger_document

        doc = ledger_document(cast("ScoredRun", scored))
        if placed is not None and job.fits is not None:
            doc["fit"] = {**job.fits.describe_run(run), **placed.columns}
        document = dumps(doc)
    return ScoredItem(
        row,
        document,
        cast("ScoredRun", scored).summary if job.summaries else None,
        list(run.warnings),
        run.source_path,
        run.run_id,
        fit_source=placed.source if placed is not None else None,
        fit_extrapolation=placed.extrapolation if placed is not None else None,
    )


def score_items(runs: Iterator[Run], job: Job) -> Iterator[ScoredItem]:
    """``score_item`` of each run, in order, short runs scored in batches (``score_batch``):
    a batch is scored once it holds ``BATCH_RUNS`` runs or ``TRIM_EVENTS`` events, so at
    most that much is held beyond one run. A run large enough to trim the heap after
    (``run_by_run``) is scored alone (the batch before it first: its columns are not
    copied beside theirs) and let go before the next is read. Each item's warnings are its
    run's as read (scoring's own are not the command's to print). A reading error is
    raised once the runs read before it are scored and yielded."""
    batch: list[Run] = []
    warned: list[list[str]] = []
    events = 0
    while True:
        try:
            run = next(runs, None)
        except (Exception, SystemExit):
            yield from _scored(batch, warned, job)
            raise
        if run is not None:
            if len(run.events) >= TRIM_EVENTS and batch:
                yield from _scored(batch, warned, job)
                events = 0
            warned.append(list(run.warnings))
            batch.append(run)
            events += len(run.events)
            del run  # held by the batch only
            if len(batch) < BATCH_RUNS and events < TRIM_EVENTS:
                continue
        elif not batch:
            return
        yield from _scored(batch, warned, job)
        events = 0


def _scored(batch: list[Run], warned: list[list[str]], job: Job) -> Iterator[ScoredItem]:
    """The batch's items, the batch emptied (its runs not held while they are yielded)."""
    if not batch:
        return
    items = score_batch(batch, job)
    for item, warnings in zip(items, warned, strict=True):
        item.warnings = warnings
    batch.clear()
    warned.clear()
    items.reverse()
    while items:
        yield items.pop()


class FileResult(Struct):
    """What reading one local file on the process pool gave (``score --jobs``): its runs
    scored in order up to where reading stopped, and why it stopped, for the command to
    report as the in-process path does (``cli._common.iter_runs``)."""

    index: int
    items: list[ScoredItem] = field(default_factory=list)
    #: the reader's one-line error (file and line), None when the whole file was read
    error: str | None = None
    #: "unrecognized" (no reader) or "input" (bad input)
    error_kind: str | None = None
    #: for an unrecognized file: ``looks_like``'s answer
    looks_like: str | None = None
    #: indices of the labels file rows a run read so far in this process matched
    labels_used: list[int] = field(default_factory=list)


def read_file(index: int, path: Path, job: Job) -> FileResult:
    """Read and score one local file, run by run (one run in memory at a time). A reader
    error ends the file: the runs before it are kept, as the in-process path has already
    written them out when it meets the error (``read_group`` of the one file)."""
    return read_group(index, [path], job)[0]


def read_group(first: int, paths: Sequence[Path], job: Job) -> list[FileResult]:
    """``read_file`` of consecutive files (``first`` is the first one's index), their short
    runs scored in batches across the files as the command's own process scores them
    (``score_items`` over every run): one process scoring the runs of many small files one
    file at a time paid each batch's set-up per file (a SWE-agent trajectory is one run of
    18 events). The same items, file by file. A file whose reading error ends the command
    (any but an unrecognized file) is the last one read: its result is the list's last."""
    from efc_tui.parsers import load

    results: list[FileResult] = []
    counts: list[int] = []

    def runs() -> Iterator[Run]:
        for k, path in enumerate(paths):
            res = FileResult(first + k)
            results.append(res)
            counts.append(0)
            loaded = run_by_run(load(path, job.fmt, lenient=job.lenient, outcomes=job.outcomes))
            for run in _until_error(loaded, res, path):
                counts[k] += 1
                yield run
                del run
            if res.error is not None and res.error_kind != "unrecognized":
                return

    items = iter(list(score_items(runs(), job)))
    for res, n in zip(results, counts, strict=True):
        res.items.extend(islice(items, n))
    labels = job.outcomes.labels if job.outcomes is not None else None
    if labels is not None and results:
        results[-1].labels_used = [i for i, row in enumerate(labels.rows) if row.used]
    return results


def _until_error(runs: Iterator[Run], res: FileResult, path: Path) -> Iterator[Run]:
    """The runs up to a reading error, which ``res`` records (only reading is caught: a
    scoring failure is a bug, raised as in-process)."""
    while True:
        try:
            run = next(runs, None)
        except UnrecognizedFormat as exc:
            res.error, res.error_kind, res.looks_like = str(exc), "unrecognized", looks_like(path)
            return
        except EfcError as exc:
            res.error, res.error_kind = str(exc), "input"
            return
        if run is None:
            return
        yield run
        del run


def run_by_run(runs: Iterator[Run]) -> Iterator[Run]:
    """The runs, each one's memory given back once the caller is done with it.

    The run is not referenced from here while the next one is read: it is held
    (``parsers.held``) until the reader reads more input, which frees it first, and after a
    large one trims the C heap: a large run followed by another then peaks at what the
    larger needs, not at both. After the last run nothing reads again, so a command ends
    without spending time on freeing it. The garbage collector is left as the process's
    policy set it (``pipeline.gc_policy``)."""
    for run in runs:
        try:
            yield run
        finally:
            hold(run)
            del run


def looks_like(path: Path) -> str:
    from efc_tui.parsers.discover import looks_like_sidecar, looks_like_trajectory

    if looks_like_sidecar(path):
        return "sidecar"
    return "trajectory" if looks_like_trajectory(path) else "other"


__all__ = [
    "BATCH_RUNS",
    "DEFAULT_BATCH",
    "FileResult",
    "Job",
    "Mode",
    "ScoredItem",
    "default_jobs",
    "looks_like",
    "read_file",
    "run_by_run",
    "score_batch",
    "score_item",
    "score_items",
    "worth_a_pool",
]
