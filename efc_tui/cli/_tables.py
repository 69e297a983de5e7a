"""Tables that fit the terminal without cutting a number.

A table is declared as :class:`Col` s (title, row key, kind, rank). When its natural
width is more than the terminal's:

1. names (run ids, budgets: their head and tail kept, ``efc_tui.report.display.middle_ellipsis``)
   and paths (their tail kept) shrink first, down to their ``min_width``;
2. then whole columns go, least important first (highest ``rank``; rank 0 stays), and the
   caption says which were left out and how to see them;
3. only then do names and paths shrink further, to HARD_MIN cells.

Numbers are never shortened: a number column is as wide as its widest cell. Every cell is
a ``Text`` made from a sanitized label, so log text is never read as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from efc_tui.cli._col import Col
from efc_tui.report.display import middle_ellipsis, start_ellipsis
from efc_tui.report.text import sanitize_label

#: names and paths are never shortened below this many cells
HARD_MIN = 8

__all__ = ["Col", "fitted_table", "print_fitted"]


def _cells(cols: Sequence[Col], rows: Sequence[dict[str, str]]) -> dict[str, list[str]]:
    return {c.key: [sanitize_label(r.get(c.key, "–"), 400) for r in rows] for c in cols}


def _natural(col: Col, cells: list[str]) -> int:
    return max([cell_len(col.title), *(cell_len(s) for s in cells)])


def _fit(col: Col, text: str, width: int) -> str:
    if col.kind == "path":
        return start_ellipsis(text, width)
    return middle_ellipsis(text, width)


def _build(
    title: str, cols: Sequence[Col], cells: dict[str, list[str]], widths: dict[str, int], n: int
) -> Table:
    table = Table(title=title, title_justify="left", header_style="bold", box=box.SIMPLE_HEAD)
    for c in cols:
        w = widths[c.key]
        table.add_column(
            c.title,
            justify="right" if c.kind == "number" else "left",
            no_wrap=True,
            overflow="fold",
            min_width=w,
            max_width=w,
        )
    for i in range(n):
        table.add_row(*(Text(_fit(c, cells[c.key][i], widths[c.key])) for c in cols))
    return table


def fitted_table(
    title: str,
    cols: Sequence[Col],
    rows: Sequence[dict[str, str]],
    width: int,
    *,
    caption: str | None = None,
    more: str = "--jsonl or --csv give every figure",
) -> tuple[Table, list[Col]]:
    """A table of ``rows`` (display strings keyed by ``Col.key``) at most ``width`` cells
    wide when it can be; returns the table and the columns left out.

    In order, while the table is too wide: names and paths shrink to their ``min_width``;
    the least important column goes; when only rank-0 columns are left, names and paths
    shrink to HARD_MIN. Room a left-out column frees is given back to shortened names.
    """
    cells = _cells(cols, rows)
    natural = {c.key: _natural(c, cells[c.key]) for c in cols}
    widths = dict(natural)
    shown = [c for c in cols if not (c.optional and all(v == "–" for v in cells[c.key]))]
    hidden: list[Col] = []
    console = Console(width=max(width, 20) * 4, markup=False, emoji=False, highlight=False)

    def measure() -> int:
        table = _build(title, shown, cells, widths, len(rows))
        return Measurement.get(console, console.options, table).maximum

    def shrink(excess: int, floor: dict[str, int]) -> bool:
        """Shorten names and paths toward ``floor``, the widest first and evenly (two long
        columns end up alike, not one cut to its floor while the other stays whole);
        False: none could."""
        names = [c for c in shown if c.kind in ("name", "path") and widths[c.key] > floor[c.key]]
        while excess > 0:
            open_ = [c for c in names if widths[c.key] > floor[c.key]]
            if not open_:
                break
            widest = max(open_, key=lambda c: widths[c.key])
            widths[widest.key] -= 1
            excess -= 1
        return bool(names)

    soft = {c.key: min(c.min_width, natural[c.key]) for c in cols}
    hard = {c.key: min(HARD_MIN, natural[c.key]) for c in cols}
    while (excess := measure() - width) > 0:
        if shrink(excess, soft):
            continue
        droppable = [c for c in shown if c.rank > 0]
        if droppable:
            drop = max(droppable, key=lambda c: (c.rank, shown.index(c)))
            shown.remove(drop)
            hidden.append(drop)
            continue
        if not shrink(excess, hard):
            break  # the terminal is narrower than the smallest table
    # a column left out early may fit again now that less important ones left after it
    # freed their room: put back, most important first, whatever fits at its floor
    order = list(cols)
    for c in sorted(hidden, key=lambda c: (c.rank, order.index(c))):
        saved = widths[c.key]
        widths[c.key] = soft[c.key]
        shown.append(c)
        shown.sort(key=order.index)
        if measure() <= width:
            hidden.remove(c)
        else:
            shown.remove(c)
            widths[c.key] = saved
    # leaving a column out may have freed more room than the names needed: give it back
    slack = width - measure()
    for c in sorted(shown, key=lambda c: widths[c.key]):
        if slack <= 0:
            break
        if widths[c.key] < natural[c.key]:
            grow = min(slack, natural[c.key] - widths[c.key])
            widths[c.key] += grow
            slack -= grow
    table = _build(title, shown, cells, widths, len(rows))
    notes = [sanitize_label(caption, 400)] if caption else []
    if hidden:
        left = ", ".join(c.title for c in sorted(hidden, key=list(cols).index))
        notes.append(f"not shown at {width} columns: {left} (a wider terminal shows them; {more})")
    table.caption = Text("\n".join(notes)) if notes else None  # inert: never markup
    table.caption_justify = "left"
    return table, hidden


def print_fitted(
    console: Console,
    title: str,
    cols: Sequence[Col],
    rows: Sequence[dict[str, Any]],
    *,
    caption: str | None = None,
    more: str = "--jsonl or --csv give every figure",
) -> list[Col]:
    """Print ``fitted_table`` at the console's width; returns the columns left out."""
    table, hidden = fitted_table(title, cols, rows, console.width, caption=caption, more=more)
    console.print(table)
    return hidden
