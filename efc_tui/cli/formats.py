"""``efc-tui formats`` and ``efc-tui validate``."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from efc_tui._lazy import lazy_module
from efc_tui.cli._app import EXIT_INPUT, app
from efc_tui.cli._common import collect_paths, fail, fail_line, fmt_value, note, stdout_console
from efc_tui.errors import EfcError, UnrecognizedFormat
from efc_tui.report.text import sanitize_label

# the readers and the tables, imported when a command runs (efc_tui._lazy): not for --help
parsers = lazy_module("efc_tui.parsers")
discover = lazy_module("efc_tui.parsers.discover")
verdicts_ = lazy_module("efc_tui.parsers.verdicts")
ledgers = lazy_module("efc_tui.report.export")
rich_table = lazy_module("rich.table")
rich_text = lazy_module("rich.text")


@app.command()
def formats() -> None:
    """List every log format efc-tui reads and what detection looks for."""
    Text = rich_text.Text
    table = rich_table.Table(title="Readers", title_justify="left", header_style="bold")
    table.add_column("name")
    table.add_column("format")
    table.add_column("detected on")
    table.add_column("usual names")
    for r in parsers.READERS:
        table.add_row(
            Text(r.name), Text(r.summary), Text(r.detects_on), Text(" ".join(r.extensions))
        )
    stdout_console().print(table)


@app.command()
def validate(
    paths: list[str] | None = typer.Argument(None, help="Trace files, folders or globs to check."),
    fmt: str | None = typer.Option(
        None, "--format", "-f", help="Force a reader instead of detecting."
    ),
    lenient: bool = typer.Option(False, help="Report malformed lines as warnings and keep going."),
    verdicts: Path | None = typer.Option(
        None,
        "--verdicts",
        metavar="FILE.jsonl",
        help="Instead of checking files: compare efc-tui's event statuses with the hand-labelled "
        "verdicts of this file (event-labels format) and print the agreement.",
    ),
    root: Path | None = typer.Option(
        None,
        "--root",
        help="With --verdicts: the folder the labels' paths start from (default: the labels "
        "file's parent's parent, e.g. shared/ for shared/event-labels/events.jsonl).",
    ),
    json_out: bool = typer.Option(
        False, "--json", help="With --verdicts: print one JSON document instead of the tables."
    ),
    top: int = typer.Option(
        20, "--top", min=0, help="With --verdicts: how many disagreements to list."
    ),
) -> None:
    """Check files: which reader matched, how many runs and events, and any problem by file:line.

    A folder is walked as the other commands walk it: one log per trial (the others listed
    under it), sidecar files (results, reports, configs, rewards) listed as such. Exit 0
    when every log reads cleanly (warnings allowed), 2 when any file has an error or a file
    that looks like an agent log (by name or shape) cannot be read. Other files no reader
    recognizes are listed as skipped.

    With --verdicts FILE.jsonl (and no paths), it scores this version's event statuses
    against hand-labelled verdicts instead: accuracy, macro-F1 over the seven verdicts,
    failure recall and precision, is_check vs kind == check agreement, per format; the
    confusion matrix; the top disagreements (docs/formats.md, "How an event's verdict is
    set"). Exit 0, or 2 when the labels file is malformed.
    """
    if verdicts is not None:
        if paths:
            fail("give trace paths to check, or --verdicts FILE.jsonl, not both")
        _verdicts_report(verdicts, root, json_out, top)
        return
    if root is not None or json_out:
        fail("--root and --json go with --verdicts FILE.jsonl")
    if not paths:
        fail("give trace files, folders or globs to check (or --verdicts FILE.jsonl)")
    files = collect_paths(paths)
    out = stdout_console()

    def say(line: str) -> None:
        out.print(rich_text.Text(sanitize_label(line, 400)), soft_wrap=True)

    bad = 0
    found = files.discovery
    if found is not None:
        for trial, logs in found.unreadable_trials.items():
            bad += 1
            names = ", ".join(p.name for p in logs[:5]) or "no log files"
            fail_line(f"{trial}: a trial whose logs no reader recognizes ({names})")
    for path in files:
        try:
            reader = parsers.get_reader(fmt) if fmt else parsers.detect(path)
            runs = events = 0
            warnings: list[str] = []
            for run in parsers.load(path, fmt, lenient=lenient):
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
            elif discover.looks_like_sidecar(path):
                say(f"{path}: sidecar")
            elif discover.looks_like_trajectory(path):
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


def _verdicts_report(labels: Path, root: Path | None, json_out: bool, top: int) -> None:
    """``validate --verdicts``: the library's evaluation, printed."""
    Table, Text, VERDICTS = rich_table.Table, rich_text.Text, verdicts_.VERDICTS
    try:
        ev = verdicts_.evaluate(labels, root=root)
    except EfcError as exc:
        fail(exc)
    if json_out:
        sys.stdout.write(ledgers.dumps(ev.to_dict(limit=top)).decode() + "\n")
        return
    for o in ev.unmatched:
        note(f"{o.label.id}: {o.label.path} run {o.label.run_index}: {o.how} (counted as none)")
    out = stdout_console()
    table = Table(
        title=f"Verdicts vs {labels} (paths under {ev.root})",
        title_justify="left",
        header_style="bold",
    )
    for name in ("format", "events", "accuracy", "macro-F1", "failures", "recall", "precision"):
        table.add_column(name, justify="left" if name == "format" else "right")
    table.add_column("is_check agrees", justify="right")
    rows = [*sorted(ev.by_source.items()), ("all", ev.overall)]
    for source, f in rows:
        table.add_row(
            Text(source),
            str(f.n),
            fmt_value(f.accuracy),
            fmt_value(f.macro_f1),
            f"{f.failures_found}/{f.failures}",
            fmt_value(f.failure_recall),
            fmt_value(f.failure_precision),
            fmt_value(f.check_agreement),
        )
    out.print(table)
    matrix = Table(title="Labelled (rows) vs efc-tui (columns)", title_justify="left")
    matrix.add_column("")
    for v in VERDICTS:
        matrix.add_column(v, justify="right")
    for want in VERDICTS:
        matrix.add_row(want, *(str(ev.confusion[(want, got)] or ".") for got in VERDICTS))
    out.print(matrix)
    wrong = ev.disagreements(top)
    if not wrong:
        return
    dis = Table(
        title=f"Top disagreements ({len(wrong)} of {len(ev.disagreements())})",
        title_justify="left",
        header_style="bold",
    )
    for name in ("id", "format", "label", "efc-tui", "action", "observation"):
        dis.add_column(name, overflow="fold")
    for o in wrong:
        dis.add_row(
            Text(o.label.id),
            Text(o.label.source),
            Text(o.label.verdict),
            Text(o.status or "not found"),
            Text(sanitize_label(o.label.action, 80)),
            Text(sanitize_label(o.label.observation, 120)),
        )
    out.print(dis)
