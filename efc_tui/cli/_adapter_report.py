"""What ``efc-tui score --adapter`` / ``--adapter-sweep`` print (SPEC §6).

Rendering only: the numbers come from ``efc_tui.adapter``. Every cell is a ``Text`` built
from a sanitized label, so run ids and paths from logs are never read as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table

from efc_tui.adapter import AdapterSummary, CorpusSummary, SweepPoint
from efc_tui.cli._col import Col, figure_col
from efc_tui.cli._common import fmt_value, text_cell
from efc_tui.cli._tables import fitted_table
from efc_tui.report.display import at_risk_label, common_folder, short_path, success_label

ADAPTER_SCHEMA = "efc-adapter/1"
SWEEP_SCHEMA = "efc-adapter-sweep/1"


_cell = text_cell


def _pct(share: float) -> str:
    return f"{100 * share:.1f}%"


def _table(title: str) -> Table:
    return Table(title=title, title_justify="left", header_style="bold", box=box.SIMPLE_HEAD)


#: where every figure is, when a narrow terminal leaves some out
MORE = "--json gives every figure"
#: the per-run adapter table; by rank, which columns go first on a narrow terminal
RUNS_TABLE: tuple[Col, ...] = (
    Col("run", "run", "name", 0, min_width=24),
    Col("file", "file", "path", 10, min_width=20),
    Col("events", "events", rank=8),
    Col("stop at", "stop"),
    figure_col("c_raw", rank=2),
    Col("saved", "saved", rank=1),
    Col("saved %", "saved_pct", rank=4),
    Col("success", "success", "label", 1),
    Col("at risk", "at_risk", "label", 1),
    Col("roll back", "rollback", "label", 6),
    # the waste split's union stays at 80 columns; its parts (they overlap) follow
    Col("waste", "waste", rank=2),
    Col("rep. act.", "rep_act", rank=7),
    Col("rep. err.", "rep_err", rank=7),
    Col("redund.", "redund", rank=7),
    Col("after stop", "after", rank=4),
)


def runs_table(summaries: Sequence[AdapterSummary], width: int) -> Table:
    """One row per run: stop event, cost saved, success at risk, roll-back, waste split,
    fitted to ``width`` cells (numbers are never cut; see ``efc_tui.cli._tables``)."""
    base = common_folder([Path(s.source_path) for s in summaries if s.source_path])
    rows = []
    for s in summaries:
        w = s.waste
        rows.append(
            {
                "run": s.run_id,
                "file": short_path(s.source_path, base) if s.source_path else "–",
                "events": fmt_value(s.events),
                "stop": fmt_value(s.stop_event),
                "c_raw": fmt_value(s.c_raw),
                "saved": fmt_value(s.cost_saved),
                "saved_pct": _pct(s.cost_saved_share),
                "success": success_label(s.success),
                "at_risk": at_risk_label(s),
                "rollback": "–"
                if s.rollback_event is None
                else f"{s.rollback_event}→{s.rollback_to}",
                "waste": _pct(w.any),
                "rep_act": _pct(w.repeated_actions),
                "rep_err": _pct(w.repeated_errors),
                "redund": _pct(w.redundant_observations),
                "after": _pct(w.after_stop),
            }
        )
    cols = RUNS_TABLE
    if len({s.run_id for s in summaries}) < len(summaries):  # the file tells them apart
        cols = tuple(
            Col(c.title, c.key, c.kind, 1, c.min_width) if c.key == "file" else c for c in cols
        )
    table, _ = fitted_table(
        "EFC-Adapter by run (would-be decisions, prefix only)", cols, rows, width, more=MORE
    )
    return table


CORPUS_TABLE: tuple[Col, ...] = (
    Col("budget", "budget", "name", 0, min_width=16),
    Col("runs", "runs", rank=3),
    Col("stopped", "stopped", rank=2),
    figure_col("c_raw", rank=4),
    Col("saved", "saved"),
    Col("saved %", "saved_pct", rank=1),
    Col("successes", "successes", rank=2),
    Col("at risk", "at_risk"),
)


def corpus_table(corpus: CorpusSummary, width: int) -> Table:
    """Totals over the corpus and per budget cap (matched caps), fitted to ``width``."""
    eps = "–" if corpus.epsilon is None else f"{corpus.epsilon:g}"
    win = "–" if corpus.window is None else str(corpus.window)
    rows = [
        {
            "budget": g.budget,
            "runs": fmt_value(g.runs),
            "stopped": fmt_value(g.stopped),
            "c_raw": fmt_value(g.c_raw),
            "saved": fmt_value(g.cost_saved),
            "saved_pct": _pct(g.saved_share),
            "successes": fmt_value(g.successes),
            # stopped runs without a success label: their risk is unknown, not "no"
            "at_risk": f"{g.at_risk} (+{g.unlabelled_stopped} unknown)"
            if g.unlabelled_stopped
            else fmt_value(g.at_risk),
        }
        for g in (*corpus.by_budget, corpus.total)
    ]
    rep = "–" if corpus.repeat is None else ("off" if corpus.repeat == 0 else str(corpus.repeat))
    table, _ = fitted_table(
        f"Corpus totals at W={win}, ε={eps}, repeat={rep} (runs grouped by budget caps)",
        CORPUS_TABLE,
        rows,
        width,
        more=MORE,
    )
    return table


def sweep_table(points: Sequence[SweepPoint], current: float | None, window: int | None) -> Table:
    """The cost-saved vs success-at-risk curve over ε."""
    win = "–" if window is None else str(window)
    t = _table(f"Cost saved vs successes at risk over ε (W={win}; * = the setting in use)")
    for h in ("ε", "stopped", "saved", "saved %", "successes", "at risk", "at risk %"):
        t.add_column(h, justify="right")
    for p in points:
        tot = p.total
        mark = " *" if current is not None and p.epsilon == current else ""
        risk = tot.at_risk / tot.successes if tot.successes else 0.0
        t.add_row(
            _cell(f"{p.epsilon:g}{mark}"),
            _cell(f"{tot.stopped}/{tot.runs}"),
            _cell(tot.cost_saved),
            _cell(_pct(tot.saved_share)),
            _cell(tot.successes),
            _cell(tot.at_risk),
            _cell(_pct(risk)),
        )
    return t


def adapter_document(summaries: Sequence[AdapterSummary], corpus: CorpusSummary) -> dict[str, Any]:
    return {
        "schema": ADAPTER_SCHEMA,
        "runs": [s.as_dict() for s in summaries],
        "corpus": corpus.as_dict(),
    }


def sweep_document(
    points: Sequence[SweepPoint], window: int | None, current: float | None
) -> dict[str, Any]:
    return {
        "schema": SWEEP_SCHEMA,
        "window": window,
        "epsilon": current,
        "points": [p.as_dict() for p in points],
    }


def waste_miss(s: AdapterSummary, limit: float) -> str | None:
    """The ``--max-waste`` message for a run whose spend after the stop exceeds ``limit``."""
    share = s.waste.after_stop
    if share > limit:
        return (
            f"{s.source_path}: run {s.run_id}: {_pct(share)} of raw cost spent after the adapter's "
            f"stop at event {s.stop_event} > max-waste {limit:g}"
        )
    return None
