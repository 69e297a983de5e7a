"""What ``efc-tui score`` does (SPEC §1): headless scoring with CI thresholds.

The command's options are declared for Typer in ``score.py``; this module is the command
itself and imports the Dask glue (``cli/_dask.py``) only for a Dask option or a URL.
"""

from __future__ import annotations

import re
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from efc_tui.cli._col import Col, figure_col
from efc_tui.cli._common import (
    collect_paths,
    fail,
    fmt_value,
    iter_scored,
    outcomes_from,
    progress_bar,
    progress_enabled,
    score_here,
    stdout_console,
    warn,
)
from efc_tui.cli._exits import EXIT_THRESHOLD, exit_now
from efc_tui.errors import EfcError
from efc_tui.report.display import common_folder
from efc_tui.scoring.figures import title

if TYPE_CHECKING:  # the scoring core, the adapter and rich load when the command runs
    from collections.abc import Iterator

    from efc_tui.adapter import AdapterConfig
    from efc_tui.cli._common import TraceFiles
    from efc_tui.cli._dask import DaskSetting
    from efc_tui.pipeline.score import Job, ScoredItem
    from efc_tui.report.cireport import RunCheck


def is_url(arg: str) -> bool:
    """``cli._dask.is_url``, whose module is imported only for an argument with ``://``."""
    if "://" not in arg:
        return False
    from efc_tui.cli import _dask

    return _dask.is_url(arg)


def dask_setting(
    dask: bool, scheduler: str | None, workers: int | None, paths: list[str]
) -> DaskSetting | None:
    """``cli._dask.dask_setting`` (None: the local path), its module imported only when a
    Dask option or a possible URL is given (without them it returns None)."""
    if not (dask or scheduler is not None or workers is not None or any("://" in p for p in paths)):
        return None
    from efc_tui.cli import _dask

    return _dask.dask_setting(dask, scheduler, workers, paths)


#: exit statuses that say a run stopped on a limit (cost, context, steps, time)
LIMIT_STATUS = re.compile(
    r"limit|exit_cost|exit_context|exit_total_execution_time|max_?(?:steps|turns|iterations)|"
    r"timeout|timed_out",
    re.IGNORECASE,
)


def run_outcome(row: dict[str, Any]) -> str:
    """How a run ended, for a gate's message: "failed, ended submitted (exit_cost)"."""
    from efc_tui.report.display import ended_text

    s = row.get("success")
    said = "succeeded" if s else ("failed" if s is False else "outcome unknown")
    ended = ended_text(row.get("exit_status"), row.get("reward"))
    return f"{said}, ended {ended}" if ended else said


class Thresholds(Struct, frozen=True):
    min_eta: float | None
    min_x: float | None
    min_nrs: float | None
    #: what users gate on: dollars the log records, events, a limit the run hit
    max_usd: float | None = None
    max_steps: int | None = None
    fail_on_limit: bool = False
    #: tokens in + out (cached input included), as the row and the app count them
    max_tokens: int | None = None

    def misses(self, row: dict[str, Any]) -> list[str]:
        """The thresholds a run's row of figures (``run_row``) misses."""
        out: list[str] = []
        for key, limit in (("eta", self.min_eta), ("x", self.min_x), ("nrs_efc", self.min_nrs)):
            value = row[key]
            if limit is not None and (value is None or value < limit):
                shown = "n/a" if value is None else f"{value:.4g}"
                out.append(f"{title(key)} {shown} < {limit:g}")
        usd = row.get("cost_usd")
        if self.max_usd is not None and isinstance(usd, int | float) and usd > self.max_usd:
            out.append(f"${usd:.4g} spent > max-usd {self.max_usd:g}")
        tokens = (row.get("tokens_in") or 0) + (row.get("tokens_out") or 0)
        if self.max_tokens is not None and tokens > self.max_tokens:
            out.append(f"{tokens:,} tokens > max-tokens {self.max_tokens:,}")
        events = row.get("events")
        if self.max_steps is not None and isinstance(events, int) and events > self.max_steps:
            out.append(f"{events} events > max-steps {self.max_steps}")
        status = row.get("exit_status")
        if self.fail_on_limit and status and LIMIT_STATUS.search(str(status)):
            out.append(f"hit a limit: ended {status}")
        return out


def gate_warnings(limits: Thresholds, formats: set[str]) -> list[str]:
    """Gates that would flag the wrong runs, said once: a threshold on NRS-EFC where the
    package's fit does not show it predicts success for that kind of run, and the strict
    EFC's (eta, X), which is 0 on most real logs."""
    out: list[str] = []
    real = {f for f in formats if f != "efc-trace"}
    if limits.min_nrs is not None and real:
        from efc_tui.fitting.fitfile import DEFAULT_FIT_REAL, has_real_fit

        predictive: list[str] = []
        if has_real_fit():
            try:
                from efc_tui.fitting.fitfile import _load_cached

                predictive = _load_cached(DEFAULT_FIT_REAL).predictive_names()
            except EfcError:
                predictive = []
        # the gate compares NRS-EFC itself: NRS-EFC/D_task or η_NRS being predictive says
        # nothing about a threshold on the raw sum
        if "nrs_efc" not in predictive:
            out.append(
                f"--min-nrs: NRS-EFC is not shown to predict success on real agent logs "
                f"({', '.join(sorted(real))}): on held-out real runs it does no better than "
                f"the base rate (the package's fit; predictive there: "
                f"{', '.join(predictive) or 'none'}); a run below it is flagged, not known "
                "to fail. Gate on --max-usd, --max-steps, --fail-on-limit or --max-waste."
            )
    if (limits.min_eta is not None or limits.min_x is not None) and real:
        out.append(
            "--min-eta / --min-x gate on the strict EFC, which is 0 on most real logs (no "
            "verdict moves the progress measure): nearly every real run misses them"
        )
    return out


#: the score table: which figures it shows, in order; by rank (``scoring.figures``'s column
#: priority), which go first when the terminal is narrow (0 stays).
SCORE_TABLE: tuple[Col, ...] = (
    Col("run", "run_id", "name", 0, min_width=24),
    Col("file", "file", "path", 7, min_width=20),
    Col("format", "source_format", "label", 10),
    figure_col("events"),
    figure_col("success", "label"),
    Col("ended", "ended", "name", 3, min_width=9, optional=True),
    # headline figures are the NRS variants (non-zero on real traces: docs/equations.md);
    # the strict EFC stays, ranked lower
    figure_col("nrs_efc"),
    figure_col("c_raw"),
    figure_col("cost_usd", optional=True),
    figure_col("eta_nrs"),
    figure_col("d_task"),
    figure_col("x_nrs"),
    figure_col("est_efc"),
    figure_col("efc"),
    figure_col("eta"),
)
FIT_TABLE: tuple[Col, ...] = (
    figure_col("fit_success"),
    figure_col("fit_z_norm"),
    figure_col("fit_pctl"),
)


def table_row(row: dict[str, Any], base: Path | None) -> dict[str, str]:
    """A run's row (``run_row``) as the score table shows it (display strings)."""
    from efc_tui.report.display import ended_text, short_path, success_label

    shown = {k: fmt_value(v) for k, v in row.items()}
    shown["success"] = success_label(row["success"])
    shown["ended"] = ended_text(row["exit_status"], row["reward"]) or "–"
    path = row["source_path"]
    shown["file"] = (path if is_url(path) else short_path(path, base)) if path else "–"
    return shown


def _print_table(rows: list[dict[str, str]], fit_caption: str | None = None) -> None:
    """The table of run figures, fitted to the terminal (``fit_caption``: --fit was given,
    show its columns and say which curve)."""
    from efc_tui.cli._tables import print_fitted

    cols = SCORE_TABLE + (FIT_TABLE if fit_caption is not None else ())
    ids = [r["run_id"] for r in rows]
    if len(set(ids)) < len(ids):  # runs share an id: their file tells them apart
        cols = tuple(
            Col(c.title, c.key, c.kind, 1, c.min_width) if c.key == "file" else c for c in cols
        )
    print_fitted(stdout_console(), "EFC by run", cols, rows, caption=fit_caption)


def run(
    *,
    paths: list[str],
    fmt: str | None = None,
    json_out: bool = False,
    jsonl_out: bool = False,
    csv_out: bool = False,
    min_eta: float | None = None,
    min_x: float | None = None,
    min_nrs: float | None = None,
    max_usd: float | None = None,
    max_steps: int | None = None,
    fail_on_limit: bool = False,
    max_tokens: int | None = None,
    estimator: str | None = None,
    lenient: bool = False,
    quiet: bool = False,
    labels: Path | None = None,
    success_threshold: float = 1.0,
    adapter: bool = False,
    adapter_sweep: bool = False,
    max_waste: float | None = None,
    window: int | None = None,
    epsilon: float | None = None,
    repeat: int | None = None,
    fit_file: Path | None = None,
    dask: bool = False,
    scheduler: str | None = None,
    dask_workers: int | None = None,
    junit: Path | None = None,
    parquet_out: Path | None = None,
    github: bool = False,
    jobs: int | None = None,
) -> None:
    """``efc-tui score`` with its options as Typer parsed them (``score.py`` declares
    them): what the command does, start to end."""
    from efc_tui.adapter import AdapterConfig
    from efc_tui.pipeline.score import Job
    from efc_tui.report.output import RUN_COLUMNS, CsvRows, ScoreDocuments, dumps
    from efc_tui.scoring import load_estimator

    if sum((json_out, jsonl_out, csv_out)) > 1:
        fail("choose one of --json, --jsonl, --csv")
    report = adapter or adapter_sweep
    if report and (jsonl_out or csv_out):
        fail("--adapter and --adapter-sweep print tables, or one JSON document with --json")
    if github and (json_out or jsonl_out or csv_out):
        fail(
            "--github prints annotations on stdout: not with --json, --jsonl or --csv "
            "(--junit FILE writes a report beside them)"
        )
    if parquet_out is not None:
        from efc_tui.report import parquet

        try:
            parquet.require()
        except EfcError as exc:
            fail(exc)
    on_dask = dask_setting(dask, scheduler, dask_workers, paths)
    if on_dask is not None and jobs is not None:
        fail("--jobs sizes this machine's pool of processes; on Dask, --dask-workers does")
    outcomes = outcomes_from(labels, success_threshold)
    files = collect_paths(paths) if on_dask is None else None
    planned = None
    if on_dask is not None:  # bad paths exit 2 before any cluster starts
        from efc_tui.cli._dask import plan_sources

        planned = plan_sources(paths)
    try:
        est = (
            load_estimator(estimator) if estimator else None
        )  # None: the one that matches each run
        cfg = AdapterConfig.from_estimator(
            est or load_estimator(), window=window, epsilon=epsilon, repeat=repeat
        )
        fits = None
        fit_caption = None
        if fit_file is not None:  # --fit: imported only when asked for
            from efc_tui.fitting.fitfile import FIT_COLUMNS, FitChooser

            fits = FitChooser(None if str(fit_file) == "default" else fit_file)
            fit_caption = fits.caption()
    except EfcError as exc:
        fail(exc)
    columns = list(RUN_COLUMNS) + (list(FIT_COLUMNS) if fit_file is not None else [])
    local = files if files is not None else (planned.files if planned is not None else None)
    table = not (report or json_out or jsonl_out or csv_out)
    # the folder the table's file column is relative to (resolving every path: 28 ms for
    # ../shared's 347 real logs, spent only when a table shows them)
    base = common_folder(list(local)) if local and table else None
    summaries = []
    limits = Thresholds(min_eta, min_x, min_nrs, max_usd, max_steps, fail_on_limit, max_tokens)
    formats_seen: set[str] = set()
    rows: list[dict[str, str]] = []
    #: each run's raw row, for the corpus line under the table
    outcomes_seen: list[dict[str, Any]] = []
    failures: list[str] = []
    # streamed: only one run's ledger is in memory at a time
    documents = ScoreDocuments(sys.stdout.write) if json_out and not report else None
    csv_rows = CsvRows(sys.stdout.write, columns) if csv_out else None

    # no --estimator: each run's W and ε are those of the estimator that matches it (the real
    # runs' are chosen on real runs), unless --window / --epsilon override them
    job = Job(
        "score",
        est,
        fmt,
        lenient,
        outcomes,
        window=cfg.window if est is not None or window is not None else None,
        epsilon=cfg.epsilon if est is not None or epsilon is not None else None,
        repeat=cfg.repeat,
        fit_columns=fit_file is not None,
        fits=fits,
        documents=documents is not None,
        summaries=report or max_waste is not None,
    )
    streaming = jsonl_out or csv_out
    checks: list[RunCheck] | None = [] if junit is not None or github else None
    if checks is not None:  # the CI reports (and rich's tables for --adapter, below) load
        from efc_tui.report.cireport import RunCheck  # only when they are asked for
    if max_waste is not None:
        from efc_tui.cli import _adapter_report as adapter_report
    parquet_rows: list[dict[str, Any]] | None = [] if parquet_out is not None else None

    def emit(item: ScoredItem) -> None:
        row = item.row
        if fits is not None and item.fit_source is not None:
            fits.note(item.fit_source, item.fit_extrapolation)
        misses = limits.misses(row)
        formats_seen.add(str(row.get("source_format") or ""))
        for miss in misses:
            failures.append(f"{item.source_path}: run {item.run_id} ({run_outcome(row)}): {miss}")
        summary = item.summary
        if (
            max_waste is not None
            and summary is not None
            and (msg := adapter_report.waste_miss(summary, max_waste))
        ):
            msg = msg.replace(f"run {item.run_id}:", f"run {item.run_id} ({run_outcome(row)}):", 1)
            failures.append(msg)
            misses.append(msg.split("): ", 1)[-1])
        if checks is not None:
            checks.append(RunCheck(item.run_id, item.source_path, row, misses))
        if parquet_rows is not None:
            parquet_rows.append(row)
        if report:
            summaries.append(summary)
        elif documents is not None and item.document is not None:
            documents.add(item.document)
        elif jsonl_out:
            sys.stdout.write(dumps(row).decode() + "\n")
        elif csv_rows is not None:
            csv_rows.add(row)
        else:
            rows.append(table_row(row, base))
            outcomes_seen.append(row)

    reading = None
    if on_dask is not None and planned is not None:  # the same items, scored on Dask
        from efc_tui.cli._dask import DaskReading, cluster

        with cluster(on_dask, quiet) as client:
            reading = DaskReading(client, paths, planned, job, quiet=quiet, progress=not streaming)
            for item in reading.items():
                emit(item)
    else:
        assert files is not None
        progress = progress_bar("scoring", progress_enabled(quiet, len(files)) and not streaming)
        with progress if progress is not None else nullcontext():
            task = progress.add_task("score", total=len(files)) if progress is not None else None
            done_files: set[str] = set()
            for item in _local_items(files, job, jobs, quiet):
                emit(item)
                if progress is not None and task is not None and item.source_path not in done_files:
                    done_files.add(item.source_path or "")
                    progress.update(task, completed=len(done_files))
                del item  # (a --json ledger) not held while the next run is read
    if fits is not None and not quiet:
        for line in fits.warnings():
            warn(line)
    if report:
        _print_adapter(
            summaries, cfg, adapter=adapter, adapter_sweep=adapter_sweep, json_out=json_out
        )
    elif documents is not None:
        documents.close()
    elif not (jsonl_out or csv_out):
        _print_table(rows, fits.caption() if fits is not None else fit_caption)
        if len(outcomes_seen) > 1:
            from rich.text import Text

            from efc_tui.report.display import corpus_line

            stdout_console().print(Text(corpus_line(outcomes_seen)))
    if checks is not None:
        _ci_reports(checks, junit, github, local or [], limits, max_waste)
    if parquet_out is not None and parquet_rows is not None:
        _write_parquet(parquet_out, parquet_rows, columns, local or [])
    sys.stdout.flush()
    if not quiet:
        for line in gate_warnings(limits, formats_seen):
            warn(line)
    for f in failures:
        warn(f"threshold not met: {f}")
    if reading is not None:
        reading.finish()  # exit 2 when a source could not be read
    if failures:
        exit_now(EXIT_THRESHOLD)


def _local_items(
    files: TraceFiles, job: Job, jobs: int | None, quiet: bool
) -> Iterator[ScoredItem]:
    """The scored runs of local files in order: on a pool of ``jobs`` processes when there
    are files to share (by default the CPUs this process may use, once the files hold enough to
    repay starting them), else in this process (``--jobs 1``), the same runs, warnings and
    errors either way."""
    from efc_tui.pipeline.score import pool_jobs

    n = pool_jobs(files, jobs)
    if n > 1:
        yield from iter_scored(files, job, n, quiet=quiet)
        return
    yield from score_here(files, job, quiet=quiet)


def _ci_reports(
    checks: list[RunCheck],
    junit: Path | None,
    github: bool,
    inputs: Any,
    limits: Thresholds,
    max_waste: float | None,
) -> None:
    """``--junit FILE`` (written atomically, never over an input) and ``--github``."""
    from efc_tui.io import write_atomic
    from efc_tui.report.cireport import github_annotations, junit_xml
    from efc_tui.report.output import refuse_input

    if junit is not None:
        given = " ".join(
            f"{flag} {v:g}"
            for flag, v in (
                ("--min-eta", limits.min_eta),
                ("--min-x", limits.min_x),
                ("--min-nrs", limits.min_nrs),
                ("--max-usd", limits.max_usd),
                ("--max-tokens", limits.max_tokens),
                ("--max-steps", limits.max_steps),
                ("--max-waste", max_waste),
            )
            if v is not None
        )
        if limits.fail_on_limit:
            given = (given + " --fail-on-limit").strip()
        try:
            refuse_input(junit, [Path(p) for p in inputs])
            junit.parent.mkdir(parents=True, exist_ok=True)  # reports/x.xml: reports/ too
            write_atomic(junit, junit_xml(checks, thresholds=given))
        except (EfcError, OSError) as exc:
            fail(f"--junit {junit}: {exc}")
    if github:
        sys.stdout.write("".join(line + "\n" for line in github_annotations(checks)))


def _write_parquet(
    target: Path, rows: list[dict[str, Any]], columns: list[str], inputs: Any
) -> None:
    """``--parquet FILE``: one row per run (written atomically, never over an input)."""
    from efc_tui.io import write_atomic
    from efc_tui.report.output import refuse_input
    from efc_tui.report.parquet import table_bytes

    try:
        refuse_input(target, [Path(p) for p in inputs])
        write_atomic(target, table_bytes(rows, columns))
    except (EfcError, OSError) as exc:
        fail(f"--parquet {target}: {exc}")


def _print_adapter(
    summaries: list[Any], cfg: AdapterConfig, *, adapter: bool, adapter_sweep: bool, json_out: bool
) -> None:
    """The adapter summary / sweep, as tables or one JSON document (SPEC §6)."""
    from efc_tui.adapter import corpus_summary, sweep
    from efc_tui.adapter.config import SWEEP_EPSILONS
    from efc_tui.cli import _adapter_report as adapter_report
    from efc_tui.report.output import dumps

    corpus = corpus_summary(summaries)
    points = sweep(summaries, (*SWEEP_EPSILONS, cfg.epsilon)) if adapter_sweep else []
    if json_out:
        sweep_doc = adapter_report.sweep_document(points, cfg.window, cfg.epsilon)
        if adapter:
            doc = adapter_report.adapter_document(summaries, corpus)
            if adapter_sweep:
                doc["sweep"] = sweep_doc
        else:
            doc = sweep_doc
        sys.stdout.write(dumps(doc).decode() + "\n")
        return
    console = stdout_console()
    if adapter:
        console.print(adapter_report.runs_table(summaries, console.width))
        console.print(adapter_report.corpus_table(corpus, console.width))
    if adapter_sweep:
        console.print(adapter_report.sweep_table(points, cfg.epsilon, cfg.window))


__all__ = ["FIT_TABLE", "SCORE_TABLE", "Thresholds", "run", "table_row"]
