"""``efc-tui open``: the replay app (SPEC §1).

The options are declared here, for Typer; the command itself is ``_open_run.run``.
Textual is imported only when the app runs.
"""

from __future__ import annotations

from pathlib import Path

import typer

from efc_tui.cli import _open_run
from efc_tui.cli._app import app
from efc_tui.cli._common import LABELS_HELP, THRESHOLD_HELP


@app.command("open")
def open_(
    paths: list[str] = typer.Argument(
        ..., help="A trace file (replay), or several files / a folder (run picker)."
    ),
    fmt: str | None = typer.Option(
        None, "--format", "-f", help="Force a reader (see `efc-tui formats`)."
    ),
    fit: Path | None = typer.Option(
        None, "--fit", help="Fit file from `efc-tui fit` (default: the package's fit)."
    ),
    follow: bool = typer.Option(
        False,
        "--follow",
        help="Follow a log still being written (efc-trace/1, Claude Code or Codex JSONL): new events appear and are scored as they land; events whose scores change are marked ~.",
    ),
    screenshot: Path | None = typer.Option(
        None, "--screenshot", help="Render headless to this SVG file and exit (for docs and CI)."
    ),
    select: int | None = typer.Option(
        None,
        "--select",
        min=0,
        help="Select event N at start (with --screenshot: the event shown).",
    ),
    size: str = typer.Option(
        "120x40", "--size", help="Terminal size for --screenshot, WIDTHxHEIGHT."
    ),
    export_dir: Path | None = typer.Option(
        None,
        "--export-dir",
        help="Where `e` proposes to write <run_id>.ledger.json (default: the folder of the trace; `e` asks before writing and says where).",
    ),
    estimator: str | None = typer.Option(
        None,
        help="Estimator file from `efc-tui calibrate` (default: the package's that matches each run: the synthetic one for traces with oracle blocks, the real-runs one otherwise).",
    ),
    lenient: bool = typer.Option(False, help="Skip and count malformed lines instead of failing."),
    compare: Path | None = typer.Option(
        None,
        "--compare",
        metavar="B",
        help="Compare the run with the run of B, step by step (the view of `efc-tui diff`): n/N the next difference, a/b replay either run at that step.",
    ),
    labels: Path | None = typer.Option(None, "--labels", help=LABELS_HELP),
    success_threshold: float = typer.Option(1.0, "--success-threshold", help=THRESHOLD_HELP),
) -> None:
    """Replay a run in the terminal: step through its ledger (every event's factors, EFC,
    raw cost and adapter decision), its action and observation text, and where the run
    and its prefix sit on the fitted scaling curve. Several files or a folder open a run
    picker. Keys: ? in the app; ctrl+p for every action by name."""
    _open_run.run(
        paths,
        fmt=fmt,
        fit=fit,
        follow=follow,
        screenshot=screenshot,
        select=select,
        size=size,
        export_dir=export_dir,
        estimator=estimator,
        lenient=lenient,
        compare=compare,
        labels=labels,
        success_threshold=success_threshold,
    )
