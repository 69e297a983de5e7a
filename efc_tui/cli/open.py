"""``efc-tui open``: the replay app (SPEC §1). Textual is imported only when it runs."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from efc_tui.cli._app import app
from efc_tui.cli._common import LABELS_HELP, THRESHOLD_HELP, collect_paths, fail, outcomes_from
from efc_tui.errors import EfcError

DEFAULT_SIZE = (120, 40)


def _size(value: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", value)
    if not m:
        fail(f"--size must look like 120x40, not {value!r}")
    w, h = int(m.group(1)), int(m.group(2))
    if not (40 <= w <= 1000 and 12 <= h <= 500):
        fail(f"--size {w}x{h} is out of range (40x12 to 1000x500)")
    return w, h


@app.command("open")
def open_(
    paths: list[str] = typer.Argument(..., help="A trace file (replay), or several files / a folder (run picker)."),
    fmt: str | None = typer.Option(None, "--format", "-f", help="Force a reader (see `efc-tui formats`)."),
    fit: Path | None = typer.Option(None, "--fit", help="Fit file from `efc-tui fit` (default: the package's fit)."),
    follow: bool = typer.Option(False, "--follow", help="Follow a log still being written (efc-trace/1, Claude Code or Codex JSONL): new events appear and are scored as they land; events whose scores change are marked ~."),
    screenshot: Path | None = typer.Option(None, "--screenshot", help="Render headless to this SVG file and exit (for docs and CI)."),
    select: int | None = typer.Option(None, "--select", min=0, help="Select event N at start (with --screenshot: the event shown)."),
    size: str = typer.Option("120x40", "--size", help="Terminal size for --screenshot, WIDTHxHEIGHT."),
    export_dir: Path | None = typer.Option(None, "--export-dir", help="Where `e` proposes to write <run_id>.ledger.json (default: the folder of the trace; `e` asks before writing and says where)."),
    estimator: str | None = typer.Option(None, help="Estimator file from `efc-tui calibrate` (default: the package's that matches each run: the synthetic one for traces with oracle blocks, the real-runs one otherwise)."),
    lenient: bool = typer.Option(False, help="Skip and count malformed lines instead of failing."),
    compare: Path | None = typer.Option(None, "--compare", metavar="B", help="Compare the run with the run of B, step by step (the view of `efc-tui diff`): n/N the next difference, a/b replay either run at that step."),
    labels: Path | None = typer.Option(None, "--labels", help=LABELS_HELP),
    success_threshold: float = typer.Option(1.0, "--success-threshold", help=THRESHOLD_HELP),
) -> None:
    """Replay a run in the terminal: step through its ledger (every event's factors, EFC,
    raw cost and adapter decision), its action and observation text, and where the run
    and its prefix sit on the fitted scaling curve. Several files or a folder open a run
    picker. Keys: ? in the app; ctrl+p for every action by name."""
    from efc_tui.app.loading import follow_problem
    from efc_tui.parsers import detect, get_reader

    outcomes = outcomes_from(labels, success_threshold)
    files = collect_paths(paths)
    single = len(files) == 1 and not Path(paths[0]).is_dir()
    if follow:
        if not single:
            fail("--follow tails one file, not several or a folder")
        problem = follow_problem(files[0], fmt)
        if problem is not None:
            fail(problem)
    if compare is not None:
        if not single or follow:
            fail("--compare compares one run with another: give one PATH, without --follow")
        if not compare.is_file():
            fail(f"--compare {compare}: no such file")
    if export_dir is not None and not export_dir.is_dir():
        fail(f"--export-dir {export_dir}: no such folder")
    if screenshot is not None and not screenshot.parent.is_dir() and str(screenshot.parent):
        fail(f"--screenshot {screenshot}: the folder does not exist")
    term_size = _size(size)
    try:
        est = None  # None: the app picks the one that matches each run, after its first frame
        if estimator:
            from efc_tui.scoring import load_estimator

            est = load_estimator(estimator)
        fit_view = None  # the app reads the package's fit after its first frame (numpy with it)
        if fit is not None:
            from efc_tui.app.fitview import load_fit_view

            fit_view = load_fit_view(fit)
        if single:
            if fmt:
                get_reader(fmt)
            else:
                detect(files[0])
    except EfcError as exc:
        fail(exc)

    from textual.pilot import Pilot

    from efc_tui.app.app import EfcApp

    tui = EfcApp(
        files, fmt=fmt, lenient=lenient, estimator=est, fit=fit_view, follow=follow,
        select=select, export_dir=export_dir, picker=not single, outcomes=outcomes,
        compare=compare,
    )
    if screenshot is None:
        tui.run()
    else:
        out = screenshot

        async def shoot(pilot: Pilot[object]) -> None:
            from efc_tui.io import write_atomic

            await tui.ready.wait()
            if tui.failure is None:
                await pilot.pause()
                write_atomic(out, tui.export_screenshot(title=f"efc-tui open {files[0].name}").encode())
            tui.exit(0 if tui.failure is None else 2)

        tui.run(headless=True, size=term_size, auto_pilot=shoot)
    if tui.failure:
        fail(tui.failure)
    if screenshot is not None:
        typer.echo(f"wrote {screenshot}", err=True)
