"""``efc-tui diff A B``: two runs aligned step by step on their actions (issue 15)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from efc_tui._lazy import lazy_module
from efc_tui.cli._app import app
from efc_tui.cli._col import Col, figure_col
from efc_tui.cli._common import (
    LABELS_HELP,
    THRESHOLD_HELP,
    collect_paths,
    fail,
    fmt_value,
    iter_runs,
    outcomes_from,
    stdout_console,
)
from efc_tui.errors import EfcError
from efc_tui.report.display import success_label
from efc_tui.report.text import sanitize_label
from efc_tui.scoring.figures import title

if TYPE_CHECKING:
    from efc_tui.model import Run
    from efc_tui.parsers import Outcomes
    from efc_tui.report.compare import RunDiff, Side

# the library and the tables, imported when the command runs (efc_tui._lazy): not for
# its --help
adapter = lazy_module("efc_tui.adapter")
comparing = lazy_module("efc_tui.report.compare")
ledgers = lazy_module("efc_tui.report.export")
scoring = lazy_module("efc_tui.scoring")
tables = lazy_module("efc_tui.cli._tables")
rich_text = lazy_module("rich.text")


def _one_run(
    name: str, path: str, run_id: str | None, fmt: str | None, lenient: bool, outcomes: Outcomes
) -> Run:
    """The run of ``path`` (a file or a trial folder), or the one called ``run_id``."""
    files = collect_paths([path])
    runs = list(iter_runs(files, fmt, lenient, quiet=True, outcomes=outcomes))
    if run_id is not None:
        chosen = [r for r in runs if r.run_id == run_id]
        if not chosen:
            fail(
                f"{path}: no run {run_id!r} (it holds {', '.join(repr(r.run_id) for r in runs[:5])}"
                f"{', ...' if len(runs) > 5 else ''})"
            )
        return chosen[0]
    if len(runs) != 1:
        fail(f"{path}: holds {len(runs)} runs; choose one with --run-{name.lower()} ID")
    return runs[0]


@app.command()
def diff(
    a: str = typer.Argument(
        ..., metavar="A", help="The first run: a trace file or a trial folder."
    ),
    b: str = typer.Argument(..., metavar="B", help="The second run, compared against A."),
    run_a: str | None = typer.Option(
        None, "--run-a", metavar="ID", help="The run of A to compare when A holds several."
    ),
    run_b: str | None = typer.Option(
        None, "--run-b", metavar="ID", help="The run of B to compare when B holds several."
    ),
    json_out: bool = typer.Option(
        False, "--json", help="Print one JSON document (schema efc-diff/1) instead of the table."
    ),
    changes_only: bool = typer.Option(
        False,
        "--changes",
        help="In the table, list only the steps whose actions or feedback differ.",
    ),
    fmt: str | None = typer.Option(
        None, "--format", "-f", help="Force a reader (see `efc-tui formats`)."
    ),
    estimator: str | None = typer.Option(
        None,
        help="Estimator file from `efc-tui calibrate` (default: the package's that matches each run: the synthetic one for traces with oracle blocks, the real-runs one otherwise).",
    ),
    lenient: bool = typer.Option(False, help="Skip and count malformed lines instead of failing."),
    labels: Path | None = typer.Option(None, "--labels", help=LABELS_HELP),
    success_threshold: float = typer.Option(1.0, "--success-threshold", help=THRESHOLD_HELP),
) -> None:
    """Compare two runs step by step: the events aligned on their actions, where the runs
    diverge, which feedback one got that the other did not, where the adapter would stop
    each, and the raw-cost and NRS-EFC gap (B - A) at every aligned step, then a summary.

    Aligned steps: = the same action, ≈ the same kind, tool and command, ≠ different actions
    between matches, A / B an event of one run only. Exit 0, or 2 on bad input.
    """
    outcomes = outcomes_from(labels, success_threshold)
    ra = _one_run("A", a, run_a, fmt, lenient, outcomes)
    rb = _one_run("B", b, run_b, fmt, lenient, outcomes)
    try:
        # None: the estimator that matches each run
        est = scoring.load_estimator(estimator) if estimator else None
        result = comparing.compare(
            adapter.score_and_decide(ra, est), adapter.score_and_decide(rb, est)
        )
    except EfcError as exc:
        fail(exc)
    if json_out:
        sys.stdout.write(ledgers.dumps(result.to_dict()).decode() + "\n")
        return
    _print_tables(result, changes_only)


#: the runs table and the steps table (efc_tui.cli._tables: numbers are never cut; names
#: and actions shorten first, then the highest-ranked columns are left out and named)
RUNS_TABLE: tuple[Col, ...] = (
    Col("", "side", "label"),
    Col("run", "run_id", "name", 0, min_width=16),
    Col("model", "model", "name", 7, min_width=10),
    Col("file", "file", "path", 5, min_width=16),
    figure_col("events", rank=4),
    figure_col("success", "label"),
    figure_col("nrs_efc"),
    figure_col("c_raw", rank=0),
    figure_col("cost_usd", rank=6, optional=True),
    Col("first pass", "first_pass", rank=2),
    Col("adapter stop", "stop_event", rank=3),
    Col(title("saved"), "cost_saved", rank=3),
)
STEPS_TABLE: tuple[Col, ...] = (
    Col("step", "step"),
    Col("", "match", "label"),
    Col("A", "a_event"),
    Col("A action", "a_action", "name", 0, min_width=18),
    Col("A got", "a_verdict", "label", 1),
    Col("B", "b_event"),
    Col("B action", "b_action", "name", 0, min_width=18),
    Col("B got", "b_verdict", "label", 1),
    Col("C_raw gap", "c_raw_gap", rank=2),
    Col("NRS-EFC gap", "nrs_efc_gap", rank=2),
)


def _print_tables(d: RunDiff, changes_only: bool) -> None:
    def opt(v: object) -> str:
        return "–" if v is None else str(v)

    runs = []
    for name, s in (("A", d.a), ("B", d.b)):
        runs.append(
            {
                "side": name,
                "run_id": sanitize_label(s.title, 200),
                "model": sanitize_label(s.model or "–", 60),
                "file": sanitize_label(s.source_path or "–", 400),
                "events": f"{s.events:,}",
                "success": success_label(s.success),
                "nrs_efc": fmt_value(s.nrs_efc),
                "c_raw": fmt_value(s.c_raw),
                "cost_usd": "–" if s.cost_usd is None else fmt_value(s.cost_usd),
                "first_pass": opt(s.first_pass),
                "stop_event": opt(s.stop_event),
                "cost_saved": fmt_value(s.cost_saved),
            }
        )

    def side(s: Side | None, stop: int | None) -> tuple[str, str, str]:
        if s is None:
            return "", "–", ""
        label = sanitize_label(" ".join(x for x in (s.kind, s.tool or "", s.action) if x), 200)
        verdict = comparing.VERDICT_SHOWN.get(s.status, s.status)
        return str(s.event), label, verdict + (" ■stop" if stop == s.event else "")

    steps = []
    for st in d.steps:
        if changes_only and st.match == "same" and not st.feedback_differs:
            continue
        ea, aa, va = side(st.a, d.a.stop_event)
        eb, ab, vb = side(st.b, d.b.stop_event)
        steps.append(
            {
                "step": str(st.step),
                "match": comparing.MATCH_SHOWN[st.match],
                "a_event": ea,
                "a_action": aa,
                "a_verdict": va,
                "b_event": eb,
                "b_action": ab,
                "b_verdict": vb,
                "c_raw_gap": f"{st.c_raw_gap:+.4g}",
                "nrs_efc_gap": f"{st.nrs_efc_gap:+.4g}",
            }
        )
    console = stdout_console()
    more = "--json gives everything"
    tables.print_fitted(console, "runs", RUNS_TABLE, runs, more=more)
    tables.print_fitted(
        console,
        "aligned steps (= same action, ≈ same command, ≠ different, "
        "A/B one run only; gaps: B - A so far)",
        STEPS_TABLE,
        steps,
        more=more,
    )
    console.print(rich_text.Text("\n".join(f"· {line}" for line in d.summary())))


__all__ = ["diff"]
