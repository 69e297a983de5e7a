"""``efc-tui export``: annotated ledgers as efc-ledger/1 JSON (SPEC §10)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from efc_tui._lazy import lazy_module
from efc_tui.cli._app import app
from efc_tui.cli._common import (
    LABELS_HELP,
    THRESHOLD_HELP,
    collect_paths,
    fail,
    iter_runs,
    note,
    outcomes_from,
)
from efc_tui.errors import EfcError

# the library, imported when the command runs (efc_tui._lazy): not for its --help
adapter = lazy_module("efc_tui.adapter")
ledgers = lazy_module("efc_tui.report.export")
output_ = lazy_module("efc_tui.report.output")
parquet = lazy_module("efc_tui.report.parquet")
scoring = lazy_module("efc_tui.scoring")
io = lazy_module("efc_tui.io")
orjson = lazy_module("orjson")


@app.command()
def export(
    paths: list[str] = typer.Argument(..., help="Trace files, folders or globs."),
    output: str = typer.Option(
        ...,
        "--output",
        "-o",
        metavar="PATH",
        help=(
            "Where to write. A folder (an existing one, or any path ending in /) gets one "
            "<run_id>.ledger.json per run; a .jsonl file gets one document per line; any other "
            "file gets one document (a run) or a JSON array (several); a .parquet file gets one "
            "row per event of every run (needs pyarrow: pip install 'efc-tui[parquet]'). "
            "Any other suffix (.csv, ...) is refused. Missing folders are created."
        ),
    ),
    fmt: str | None = typer.Option(
        None, "--format", "-f", help="Force a reader (see `efc-tui formats`)."
    ),
    with_text: bool = typer.Option(
        True,
        "--with-text/--no-text",
        help="Include each event's action and observation text (the default; --no-text leaves "
        "it out for smaller files).",
    ),
    pretty: bool = typer.Option(False, help="Indent the JSON."),
    estimator: str | None = typer.Option(None, help="Estimator file from `efc-tui calibrate`."),
    lenient: bool = typer.Option(False, help="Skip and count malformed lines instead of failing."),
    labels: Path | None = typer.Option(None, "--labels", help=LABELS_HELP),
    success_threshold: float = typer.Option(1.0, "--success-threshold", help=THRESHOLD_HELP),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No warnings on stderr."),
) -> None:
    """Write annotated ledgers (schema efc-ledger/1): every event with its features, factors,
    gates, EFC variants, raw cost and adapter decision. Writes are atomic; inputs are
    never modified."""
    if not output_.is_folder_target(output):
        try:
            ledgers.check_export_suffix(output)
            Path(output).parent.mkdir(parents=True, exist_ok=True)  # as a folder target is
        except EfcError as exc:
            fail(exc)
        except OSError as exc:
            fail(f"{output}: {exc}")
    outcomes = outcomes_from(labels, success_threshold)
    if parquet.is_parquet_target(output):
        try:
            parquet.require()
        except EfcError as exc:
            fail(exc)
    files = collect_paths(paths)
    if parquet.is_parquet_target(output):
        _export_parquet(Path(output), files, fmt, lenient, quiet, outcomes, estimator, with_text)
        return
    try:
        # None: the estimator that matches each run
        est = scoring.load_estimator(estimator) if estimator else None
        with output_.open_ledgers(output, files) as sink:
            for run in iter_runs(files, fmt, lenient, quiet=quiet, outcomes=outcomes):
                doc = ledgers.ledger_document(
                    adapter.score_and_decide(run, est), with_text=with_text
                )
                sink.add(run.run_id, ledgers.dumps(doc, pretty=pretty))
    except EfcError as exc:
        fail(exc)
    if not quiet:
        note(f"wrote {sink.count} ledger(s) to {sink.where}")


def _export_parquet(
    target: Path,
    files: Any,
    fmt: str | None,
    lenient: bool,
    quiet: bool,
    outcomes: Any,
    estimator: str | None,
    with_text: bool,
) -> None:
    """``export -o X.parquet``: one row per event, the ledger documents' values (each
    document goes through its JSON form, so the file reads back to what the JSON holds)."""
    rows: list[dict[str, Any]] = []
    runs = 0
    try:
        output_.refuse_input(target, files)
        # None: the estimator that matches each run
        est = scoring.load_estimator(estimator) if estimator else None
        for run in iter_runs(files, fmt, lenient, quiet=quiet, outcomes=outcomes):
            scored = adapter.score_and_decide(run, est)
            doc = orjson.loads(ledgers.dumps(ledgers.ledger_document(scored, with_text=with_text)))
            rows.extend(parquet.event_rows(doc))
            runs += 1
        io.write_atomic(target, parquet.table_bytes(rows))
    except EfcError as exc:
        fail(exc)
    except OSError as exc:
        fail(f"{target}: {exc}")
    if not quiet:
        note(f"wrote {len(rows):,} event row(s) of {runs} run(s) to {target}")
