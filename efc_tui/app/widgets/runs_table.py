"""The run picker's table: a Line-API ``ScrollView`` over a list of row cells.

Like the ledger, only the lines on screen are rendered, so thousands of runs arrive, sort
and filter without rebuilding widgets (Textual's ``DataTable`` re-laid-out its rows as
each batch arrived: 300 runs took 3.5x as long to list as to score). Columns have fixed
widths, so they never collapse while rows arrive. The owner keeps the rows in display
order and calls ``set_rows``; the table keeps a cursor, posts ``HeaderClicked`` and
``RowChosen``, and scrolls to keep the cursor in view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip


class RunsTable(ScrollView, can_focus=True):
    """Rows of ``Text`` cells under a header line, with a cursor row."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "runs-table--header",
        "runs-table--cursor",
        "runs-table--odd",
    }

    DEFAULT_CSS = """
    RunsTable { background: $surface; scrollbar-gutter: stable; }
    RunsTable > .runs-table--header { text-style: bold; color: $text-accent; background: $panel; }
    RunsTable > .runs-table--cursor { background: $accent 45%; text-style: bold; }
    RunsTable > .runs-table--odd { background: $boost; }
    """

    cursor_row: reactive[int] = reactive(0, repaint=False, init=False)

    class HeaderClicked(Message):
        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    class RowChosen(Message):
        """A row was clicked (the picker opens it)."""

        def __init__(self, row: int) -> None:
            super().__init__()
            self.row = row

    def __init__(
        self, columns: Sequence[tuple[str, str, int, bool]], *, id: str | None = None
    ) -> None:
        """``columns``: (key, title, width, right-aligned) in order."""
        super().__init__(id=id)
        self.columns = list(columns)
        self.rows: list[list[Text]] = []
        self.width_total = sum(w for _, _, w, _ in self.columns) + 2 * len(self.columns)
        self.virtual_size = Size(self.width_total, 1)

    # -- data -------------------------------------------------------------------------------

    def set_rows(self, rows: list[list[Text]], cursor: int | None = None) -> None:
        """Show ``rows`` (cells in column order); keep the cursor, or move it to ``cursor``."""
        self.rows = rows
        self.virtual_size = Size(self.width_total, len(rows) + 1)
        target = self.cursor_row if cursor is None else cursor
        self.cursor_row = max(0, min(target, len(rows) - 1)) if rows else 0
        self.refresh()
        self.call_after_refresh(self._keep_visible)

    def add_rows(self, rows: list[list[Text]]) -> None:
        if rows:
            self.set_rows([*self.rows, *rows])

    # -- cursor -----------------------------------------------------------------------------

    def validate_cursor_row(self, row: int) -> int:
        return max(0, min(row, len(self.rows) - 1)) if self.rows else 0

    def watch_cursor_row(self, old: int, new: int) -> None:
        self.refresh_line(old + 1)
        self.refresh_line(new + 1)
        self._keep_visible()

    def _keep_visible(self) -> None:
        body = max(1, self.scrollable_content_region.height - 1)
        top = round(self.scroll_y)
        row = self.cursor_row
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + body:
            self.scroll_to(y=row - body + 1, animate=False, immediate=True)

    def move(self, delta: int) -> None:
        self.cursor_row = self.cursor_row + delta

    def on_click(self, event: events.Click) -> None:
        x = event.x + round(self.scroll_x)
        if event.y == 0:
            left = 0
            for key, _title, width, _ in self.columns:
                if left <= x < left + width + 2:
                    self.post_message(self.HeaderClicked(key))
                    return
                left += width + 2
            return
        row = round(self.scroll_y) + event.y - 1
        if 0 <= row < len(self.rows):
            self.cursor_row = row
            if event.chain >= 2:
                self.post_message(self.RowChosen(row))

    # -- rendering --------------------------------------------------------------------------

    def _style(self, name: str) -> Style:
        # blended over the table's background: partial styles leave "$boost" white
        return self.get_component_rich_style(f"runs-table--{name}", partial=False)

    def _cells(self, cells: Sequence[Text], base: Style) -> list[Segment]:
        segs: list[Segment] = []
        for (_key, _title, width, right), cell in zip(self.columns, cells, strict=True):
            text = cell.plain
            if cell_len(text) > width:
                text = set_cell_size(text, width)
            pad = " " * (width - cell_len(text))
            style = base + cell.style if isinstance(cell.style, Style) else base
            if isinstance(cell.style, str) and cell.style:
                style = base + Style.parse(cell.style)
            segs.append(Segment(" ", base))
            segs.append(Segment(pad + text if right else text + pad, style))
            segs.append(Segment(" ", base))
        return segs

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        line_width = max(width, self.width_total)
        base = self.rich_style
        if y == 0:
            style = base + self._style("header")
            titles = [Text(t) for _, t, _, _ in self.columns]
            segs = self._cells(titles, style)
        else:
            row = scroll_y + y - 1
            if row >= len(self.rows):
                return Strip.blank(width, base)
            style = base
            if row % 2:
                style += self._style("odd")
            if row == self.cursor_row:
                style += self._style("cursor")
            segs = self._cells(self.rows[row], style)
        used = self.width_total
        if line_width > used:
            segs.append(Segment(" " * (line_width - used), style))
        return Strip(segs, line_width).crop_extend(scroll_x, scroll_x + width, base)
