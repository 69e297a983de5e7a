"""The ledger: one row per event, a Line-API ``ScrollView`` with an LRU of rendered strips.

Only the lines on screen are ever rendered, each once per change: moving the cursor
refreshes the two rows it leaves and enters (``refresh_line``), never the whole ledger, so
a 100k-event run steps as fast as a 10-event one. Log text never reaches this widget except
through ``sanitize_label`` (kind and status come from the model's enums).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ClassVar

from msgspec import Struct
from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from efc_tui.app.eventline import action_line, outcome_line
from efc_tui.app.replay_data import ReplayData
from efc_tui.app.textfmt import solid_style
from efc_tui.model import Event, Status
from efc_tui.report.display import VERDICT_SHOWN
from efc_tui.report.text import sanitize_label
from efc_tui.scoring.columns import BY_KEY, LedgerColumn

#: the ledger's scored and event columns, from the one column spec (efc_tui.scoring.columns):
#: title, width, alignment and style live there
VIEW: tuple[LedgerColumn, ...] = tuple(
    BY_KEY[k] for k in ("index", "kind", "I", "V", "R", "M", "nrs_efc", "dC", "X_nr_cum")
)
ADAPTER_COLUMN = LedgerColumn(
    "adapter",
    "the adapter's memory decision (promote / scratch / discard) and, when it is "
    "not continue, its control decision (stop / ↶ rollback) (SPEC §6)",
    title="adapter",
    width=15,
    align="<",
)
ACTION_COLUMN = LedgerColumn(
    "action",
    "what the agent did: the command, or the tool and its main argument; "
    "a message shows who spoke (user: / says:) and its first line",
    title="action",
    width=20,
    align="<",
)
OUTCOME_COLUMN = LedgerColumn(
    "outcome",
    "what came back: exit status, tests passed / failed, the first error line, "
    "else the output's first line and its length in lines",
    title="outcome",
    width=16,
    align="<",
)
TOKENS_COLUMN = LedgerColumn(
    "tokens",
    "tokens the event's model call used, in + out (cached input included; k = thousand); "
    "a parallel call's even share of its response's tokens",
    title="tokens",
    width=6,
)


class Slot(Struct, frozen=True):
    """A column as shown: its spec and its width at this ledger width."""

    col: LedgerColumn
    width: int


#: the columns left to right; ``action`` and ``outcome`` take the width the others leave
ORDER: tuple[str, ...] = (
    "index",
    "action",
    "outcome",
    "tokens",
    "dC",
    "nrs_efc",
    "adapter",
    "kind",
    "X_nr_cum",
    "I",
    "V",
    "R",
    "M",
)
#: which columns go first as the ledger narrows (the first group first); t, action and
#: outcome always stay, then cost (ΔC, tokens), credit (ÊFC_nr) and the adapter's verdict
DROP_ORDER: tuple[tuple[str, ...], ...] = (
    ("I", "V", "R", "M"),
    ("X_nr_cum",),
    ("kind",),
    ("adapter",),
    ("tokens",),
)
BY_VIEW_KEY = {
    c.key: c for c in (*VIEW, ADAPTER_COLUMN, ACTION_COLUMN, OUTCOME_COLUMN, TOKENS_COLUMN)
}
#: the outcome column's share of the width the fixed columns leave (the action gets the rest)
OUTCOME_SHARE = 0.42
#: at most this many cells of action; a wider ledger gives the rest to the outcome
ACTION_MAX = 90


def layout(width: int) -> tuple[Slot, ...]:
    """The columns shown in ``width`` cells (the gutter excluded) and their widths: the
    action and outcome always, at least ``ACTION_COLUMN.width`` / ``OUTCOME_COLUMN.width``
    cells, the other columns while they fit (``DROP_ORDER``)."""
    shown = list(ORDER)
    flexible = ACTION_COLUMN.width + OUTCOME_COLUMN.width

    def fixed() -> int:
        return sum(BY_VIEW_KEY[k].width for k in shown if k not in ("action", "outcome")) + (
            len(shown) - 1
        )

    for group in DROP_ORDER:
        if fixed() + flexible <= width:
            break
        shown = [k for k in shown if k not in group]
    room = max(flexible, width - fixed())
    outcome = max(OUTCOME_COLUMN.width, round(room * OUTCOME_SHARE))
    action = room - outcome
    if action < ACTION_COLUMN.width:
        action, outcome = ACTION_COLUMN.width, room - ACTION_COLUMN.width
    if action > ACTION_MAX:
        action, outcome = ACTION_MAX, room - ACTION_MAX
    widths = {"action": action, "outcome": outcome}
    return tuple(Slot(BY_VIEW_KEY[k], widths.get(k, BY_VIEW_KEY[k].width)) for k in shown)


def fmt_count(n: int, width: int = 6) -> str:
    """A count in at most ``width`` cells: 950, 19.3k, 1.2M."""
    if n < 10_000 and len(str(n)) <= width:
        return str(n)
    for div, unit in ((1_000, "k"), (1_000_000, "M"), (1_000_000_000, "G")):
        for digits in (1, 0):
            s = f"{n / div:.{digits}f}{unit}"
            if len(s) <= width:
                return s
    return "#" * width


GUTTER = 3
#: the narrowest row: every column that always stays, at its least width
MIN_ROW_WIDTH = GUTTER + sum(s.width for s in layout(0)) + len(layout(0)) - 1

#: the event column's verdicts: the tables' short names, "passed" whole and a dot for none
STATUS_SHORT = {**VERDICT_SHOWN, "passed": "passed", "none": "·"}
PENDING = "…"
#: the gutter mark of an event whose scores changed at the last rescore
CHANGED = "~"


def fmt_num(value: float | None, width: int) -> str:
    """A number in at most ``width`` cells (fewer decimals as it grows); "–" when absent."""
    if value is None or value != value:
        return "–"
    for digits in (3, 2, 1, 0):
        s = f"{value:.{digits}f}"
        if len(s) <= width:
            return s
    for digits in (1, 0):  # 1.2e8, then 1e8
        s = f"{value:.{digits}e}".replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")
        if len(s) <= width:
            return s
    return "#" * width


def event_text(col: LedgerColumn, ev: Event) -> str:
    """An event column's cell text (known before scoring; labels are sanitized)."""
    if col.key == "tool":
        return sanitize_label(ev.tool or "", 40) or "·"
    if col.key == "status":
        return STATUS_SHORT.get(ev.status.value, ev.status.value)
    assert col.event is not None
    return str(col.event(ev))


def _cell(text: str, width: int, align: str) -> str:
    """``text`` padded or cut to exactly ``width`` cells."""
    cells = cell_len(text)
    if cells > width:
        text = set_cell_size(text, width - 1) + "…"
        cells = width
    pad = " " * (width - cells)
    return pad + text if align == ">" else text + pad


def _app_displaying(widget: LedgerView) -> bool:
    """What is rendered now reaches the terminal: the app runs and is not batching updates
    (Textual draws nothing before it runs, nor while it composes and mounts its first
    screen; it has no public flag for either)."""
    app = widget.app
    return bool(getattr(app, "_running", True)) and not getattr(app, "_batch_count", 0)


class LedgerView(ScrollView, can_focus=True):
    """The ledger rows of a :class:`ReplayData`, with a cursor and a sticky header line."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "ledger--header",
        "ledger--cursor",
        "ledger--after-stop",
        "ledger--discarded",
        "ledger--pending",
        "ledger--stop",
        "ledger--passed",
        "ledger--failed",
        "ledger--promote",
        "ledger--discard",
        "ledger--changed",
        "ledger--speech",
        "ledger--dim",
    }

    DEFAULT_CSS = """
    LedgerView {
        background: $surface;
        scrollbar-gutter: stable;
    }
    LedgerView > .ledger--header { text-style: bold; color: $text-accent; background: $panel; }
    LedgerView > .ledger--cursor { background: $accent 45%; text-style: bold; }
    LedgerView:blur > .ledger--cursor { background: $accent 25%; text-style: bold; }
    LedgerView > .ledger--after-stop { color: $text-muted; text-style: italic; }
    LedgerView > .ledger--discarded { color: $text-muted; text-style: strike; }
    LedgerView > .ledger--pending { color: $text-disabled; }
    LedgerView > .ledger--stop { color: $error; text-style: bold; }
    LedgerView > .ledger--passed { color: $success; }
    LedgerView > .ledger--failed { color: $warning; }
    LedgerView > .ledger--promote { color: $success; }
    LedgerView > .ledger--discard { color: $text-muted; }
    LedgerView > .ledger--changed { color: $warning; text-style: bold; }
    LedgerView > .ledger--speech { color: $text-muted; text-style: italic; }
    LedgerView > .ledger--dim { color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # j/k/g/G live on the replay screen (they work whichever pane has focus); the
        # arrows step here and scroll the detail pane when it has focus.
        Binding("down", "step(1)", "Next", show=False, id="ledger.down"),
        Binding("up", "step(-1)", "Prev", show=False, id="ledger.up"),
        Binding("home", "first", "First event", show=False, id="ledger.home"),
        Binding("end", "last", "Last event", show=False, id="ledger.end"),
        Binding("pagedown,ctrl+f", "page(1)", "Page down", show=False, id="ledger.page_down"),
        Binding("pageup,ctrl+b", "page(-1)", "Page up", show=False, id="ledger.page_up"),
        Binding("left", "scroll_left", "Scroll left", show=False),
        Binding("right", "scroll_right", "Scroll right", show=False),
    ]

    #: repaint=False: the watcher refreshes just the two rows involved
    cursor_row: reactive[int] = reactive(0, repaint=False, init=False)

    class Selected(Message):
        """The cursor moved onto event ``event`` (an index into the run's events)."""

        def __init__(self, ledger: LedgerView, event: int) -> None:
            super().__init__()
            self.ledger = ledger
            self.event = event

    def __init__(self, data: ReplayData, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.data = data
        self._strips: LRUCache[tuple[int, bool, int, int], Strip] = LRUCache(2048)
        self._styles: dict[str, Style] = {}
        self.virtual_size = Size(MIN_ROW_WIDTH, self.data.n_rows + 1)
        self._layout: tuple[Slot, ...] = ()
        self._layout_width = -1
        #: called (once) when the frame that first shows rows has been drawn
        self.on_first_rows: Callable[[], object] | None = None

    # -- state ------------------------------------------------------------------------------

    @property
    def selected_event(self) -> int | None:
        if self.data.n_rows == 0:
            return None
        return self.data.event_at(min(self.cursor_row, self.data.n_rows - 1))

    def rows_changed(self, *, restyle: bool = False) -> None:
        """Rows were added, rescored or refiltered: resize and redraw what is on screen."""
        if restyle:
            self._strips.clear()
        self.virtual_size = Size(MIN_ROW_WIDTH, self.data.n_rows + 1)
        if self.cursor_row >= self.data.n_rows and self.data.n_rows:
            self.cursor_row = self.data.n_rows - 1
        self.refresh()
        self.call_after_refresh(self._keep_visible_now)

    def select_event(self, event: int) -> None:
        row = self.data.nearest_row(event)
        self.cursor_row = row

    def watch_cursor_row(self, old: int, new: int) -> None:
        self.refresh_line(old + 1)
        self.refresh_line(new + 1)
        self._keep_visible(new)
        if not self.scrollable_content_region.height:  # not laid out yet: once it is
            self.call_after_refresh(self._keep_visible_now)
        ev = self.selected_event
        if ev is not None:
            self.post_message(self.Selected(self, ev))

    def validate_cursor_row(self, row: int) -> int:
        return max(0, min(row, self.data.n_rows - 1)) if self.data.n_rows else 0

    def _keep_visible_now(self) -> None:
        self._keep_visible(self.cursor_row)

    def _keep_visible(self, row: int) -> None:
        body = max(1, self.scrollable_content_region.height - 1)
        top = round(self.scroll_y)
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + body:
            self.scroll_to(y=row - body + 1, animate=False, immediate=True)

    # -- actions ----------------------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        self.cursor_row = self.cursor_row + delta

    def action_first(self) -> None:
        self.cursor_row = 0

    def action_last(self) -> None:
        self.cursor_row = max(0, self.data.n_rows - 1)

    def action_page(self, direction: int) -> None:
        body = max(1, self.scrollable_content_region.height - 2)
        self.cursor_row = self.cursor_row + direction * body

    def on_click(self, event: events.Click) -> None:
        if event.y < 1:
            return
        row = round(self.scroll_y) + event.y - 1
        if 0 <= row < self.data.n_rows:
            self.cursor_row = row

    # -- rendering --------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            full = self.get_component_rich_style(f"ledger--{name}", partial=False)
            style = solid_style(full, background=name in ("cursor", "header"))
            self._styles[name] = style
        return style

    def on_resize(self) -> None:
        self._strips.clear()
        self.call_after_refresh(self._keep_visible_now)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            strip = self._header_strip()
        else:
            row = scroll_y + y - 1
            if row >= self.data.n_rows:
                return Strip.blank(width, base)
            strip = self._row_strip(row)
            if self.on_first_rows is not None and _app_displaying(self):
                # the frame being rendered is written to the terminal in this same step of
                # the event loop: the next step comes after it is drawn
                asyncio.get_running_loop().call_soon(self.on_first_rows)
                self.on_first_rows = None
        return strip.crop_extend(scroll_x, scroll_x + width, base)

    def _line_width(self) -> int:
        return max(MIN_ROW_WIDTH, self.scrollable_content_region.width)

    def columns(self) -> tuple[Slot, ...]:
        """The columns shown at the ledger's present width."""
        width = self._line_width()
        if self._layout_width != width:
            self._layout = layout(width - GUTTER)
            self._layout_width = width
        return self._layout

    def _header_strip(self) -> Strip:
        key = (-1, False, self.data.version, self._line_width())
        strip = self._strips.get(key)
        if strip is None:
            text = " " * GUTTER + " ".join(
                _cell(c.col.title or c.col.key, c.width, c.col.align) for c in self.columns()
            )
            style = self.rich_style + self._style("header")
            strip = Strip(
                [Segment(set_cell_size(text, self._line_width()), style)], self._line_width()
            )
            self._strips[key] = strip
        return strip

    def _row_strip(self, row: int) -> Strip:
        cursor = row == self.cursor_row
        i = self.data.event_at(row)
        key = (i, cursor, self.data.version, self._line_width())
        strip = self._strips.get(key)
        if strip is None:
            strip = self._build_row(i, cursor)
            self._strips[key] = strip
        return strip

    def _cell_text(
        self, slot: Slot, i: int, ev: Event, base: Style, scored: bool
    ) -> tuple[str, Style]:
        """One cell's text and style (log text sanitized to one bounded line)."""
        d = self.data
        col = slot.col
        key = col.key
        if key == "action":
            text = sanitize_label(action_line(ev), 400)
            speech = not ev.tool
            return text, base + self._style("speech") if speech else base
        if key == "outcome":
            text = sanitize_label(outcome_line(ev), 400)
            status = ev.status
            if status is Status.PASSED:
                return text, base + self._style("passed")
            if status is not Status.NONE:
                return text, base + self._style("failed")
            return text, base + self._style("dim")
        if key == "tokens":
            return fmt_count(ev.tokens_in + ev.tokens_out, slot.width), base
        if key == "adapter":
            decision = d.decision_label(i) if scored else PENDING
            style = base
            if "stop" in decision or "rollback" in decision:
                style = base + self._style("stop")
            elif decision.startswith("promote"):
                style = base + self._style("promote")
            elif decision.startswith("discard"):
                style = base + self._style("discard")
            elif decision == PENDING:
                style = base + self._style("pending")
            return decision, style
        if col.event is not None:
            return event_text(col, ev), base
        if scored:
            return fmt_num(d.value(key, i), slot.width), base
        return PENDING, base + self._style("pending")

    def _build_row(self, i: int, cursor: bool) -> Strip:
        d = self.data
        ev = d.events[i]
        base = self.rich_style
        if d.after_stop(i):
            base += self._style("after-stop")
        if d.is_discarded(i):
            base += self._style("discarded")
        if cursor:
            base += self._style("cursor")
        scored = d.is_scored(i)
        if d.stop is not None and i == d.stop:
            mark, gstyle = "■", self._style("stop")
        elif i in d.changed:
            mark, gstyle = CHANGED, self._style("changed")
        elif d.after_stop(i):
            mark, gstyle = "┆", Style()
        elif d.is_discarded(i):
            mark, gstyle = "×", Style()
        else:
            mark, gstyle = " ", Style()
        gutter = ("›" if cursor else " ") + mark + " "
        segs = [Segment(gutter, base + gstyle)]
        used = GUTTER
        for slot in self.columns():
            text, style = self._cell_text(slot, i, ev, base, scored)
            if used > GUTTER:
                segs.append(Segment(" ", base))
                used += 1
            segs.append(Segment(_cell(text, slot.width, slot.col.align), style))
            used += slot.width
        width = self._line_width()
        if width > used:
            segs.append(Segment(" " * (width - used), base))
        return Strip(segs, width)
