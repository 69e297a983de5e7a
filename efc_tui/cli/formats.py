"""``efc-tui formats`` and ``efc-tui validate``."""

from __future__ import annotations

import typer

from efc_tui.cli._app import EXIT_INPUT, app
from efc_tui.cli._common import collect_paths, fail_line, stdout_console
from efc_tui.errors import EfcError, UnrecognizedFormat
from efc_tui.text import sanitize_label


@app.command()
def formats() -> None:
    """List every log format efc-tui reads and what detection looks for."""
    from rich.table import Table
    from rich.text import Text

    from efc_tui.parsers import READERS

    table = Table(title="Readers", title_justify="left", header_style="bold")
    table.add_column("name")
    table.add_column("format")
    table.add_column("detected on")
    table.add_column("usual names")
    for r in READERS:
        table.add_row(
            Text(r.name), Text(r.summary), Text(r.detects_on), Text(" ".join(r.extensions))
        )
    stdout_console().print(table)


@app.command()
def validate(
    paths: list[str] = typer.Argument(..., help="Trace files, folders or globs to check."),
    fmt: str | None = typer.Option(
        None, "--format", "-f", help="Force a reader instead of detecting."
    ),
    lenient: bool = typer.Option(False, help="Report malformed lines as warnings and keep going."),
) -> None:
    """Check files: which reader matched, how many runs and events, and any problem by file:line.

    A folder is walked as the other commands walk it: one log per trial (the others listed
    under it), sidecar files (results, reports, configs, rewards) listed as such. Exit 0
    when every log reads cleanly (warnings allowed), 2 when any file has an error or a file
    that looks like an agent log (by name or shape) cannot be read. Other files no reader
    recognizes are listed as skipped.
    """
    from rich.text import Text

    from efc_tui.parsers import detect, get_reader, load
    from efc_tui.parsers.discover import looks_like_sidecar, looks_like_trajectory

    files = collect_paths(paths)
    out = stdout_console()

    def say(line: str) -> None:
        out.print(Text(sanitize_label(line, 400)), soft_wrap=True)

    bad = 0
    found = files.discovery
    if found is not None:
        for trial, logs in found.unreadable_trials.items():
            bad += 1
            names = ", ".join(p.name for p in logs[:5]) or "no log files"
            fail_line(f"{trial}: a trial whose logs no reader recognizes ({names})")
    for path in files:
        try:
            reader = get_reader(fmt) if fmt else detect(path)
            runs = events = 0
            warnings: list[str] = []
            for run in load(path, fmt, lenient=lenient):
                runs += 1
                events += len(run.events)
                warnings.extend(run.warnings)
            say(f"{path}: ok: {reader.name}, {runs} run(s), {events} event(s)")
            for w in warnings:
                say("  warning: " + w)
            for other in found.alternatives.get(path, []) if found is not None else []:
                say(f"  same trial, not read: {other}")
        except UnrecognizedFormat as exc:
            if path in files.named or fmt:
                bad += 1
                fail_line(str(exc))
            elif looks_like_sidecar(path):
                say(f"{path}: sidecar")
            elif looks_like_trajectory(path):
                bad += 1
                fail_line(f"{path}: looks like an agent log, but no reader recognizes it")
            else:  # met while walking a folder: not a trace, not an error
                say(f"{path}: skipped: {exc.reason}")
        except EfcError as exc:
            bad += 1
            fail_line(str(exc))
    if found is not None:
        for side in found.sidecars:
            say(f"{side}: sidecar")
    if bad:
        raise typer.Exit(EXIT_INPUT)
