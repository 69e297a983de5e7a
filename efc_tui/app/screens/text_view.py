"""The whole of one action or observation text, however long (the detail pane shows the
first ~20k characters). A Line-API view: only the lines on screen are styled, so a 2 MB
observation opens at once. Text is sanitized once; SGR colours are applied per line.
Long lines wrap at the view's width (``w`` turns wrapping off, to scroll sideways)."""

from __future__ import annotations

from typing import ClassVar

from rich.cells import chop_cells
from rich.console import Console
from rich.segment import Segment
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Footer, Static

from efc_tui.app.textfmt import plain_lines

#: lines wider than this are cut (with a marker) so one line cannot blow up memory
MAX_LINE = 4000


def wrap_lines(lines: list[str], width: int) -> list[str]:
    """``lines`` cut into pieces of at most ``width`` cells (a line with colour codes is
    cut on its visible text, each piece keeping the codes that colour it)."""
    out: list[str] = []
    for line in lines:
        if len(line) <= width and line.isascii():
            out.append(line)
        elif "\x1b[" in line:
            text = Text.from_ansi(line[:MAX_LINE])
            plain = text.plain
            cuts, at = [], 0
            for piece in chop_cells(plain, width):
                at += len(piece)
                cuts.append(at)
            out.extend(_ansi(p) for p in text.divide(cuts[:-1]))
        else:
            out.extend(chop_cells(line, width) or [""])
    return out


_CONSOLE: list[Console] = []


def _ansi(text: Text) -> str:
    """A styled piece back as text with SGR codes (for ``Text.from_ansi`` at render)."""
    if not _CONSOLE:
        _CONSOLE.append(Console(color_system="truecolor", force_terminal=True, width=10_000))
    console = _CONSOLE[0]
    with console.capture() as cap:
        console.print(text, end="", soft_wrap=True)
    return cap.get()


class TextView(ScrollView, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "scroll_down", "Down", show=False),
        Binding("k,up", "scroll_up", "Up", show=False),
        Binding("g,home", "scroll_home", "Top", show=False),
        Binding("G,end", "scroll_end", "Bottom", show=False),
        Binding("space,pagedown", "page_down", "Page down", show=False),
        Binding("b,pageup", "page_up", "Page up", show=False),
        Binding("w", "toggle_wrap", "Wrap on/off"),
    ]

    def __init__(self, text: str, *, id: str | None = None, wrap: bool = True) -> None:
        super().__init__(id=id)
        self.lines = plain_lines(text)
        self.wrap = wrap
        #: the rows shown: whole lines, or (wrapping) pieces of lines as wide as the view
        self.rows: list[str] = self.lines
        self._wrapped_at = -1
        self._cache: LRUCache[int, Strip] = LRUCache(1024)
        self._size_rows()

    def _size_rows(self) -> None:
        width = self.scrollable_content_region.width if self.is_mounted else 0
        if self.wrap and width > 0:
            if width != self._wrapped_at:
                self.rows = wrap_lines(self.lines, width)
                self._wrapped_at = width
        else:
            self.rows = self.lines
            self._wrapped_at = -1
        self._cache.clear()
        longest = max((len(x) for x in self.rows), default=0)
        wide = width if self.wrap and width > 0 else min(MAX_LINE, longest)
        self.virtual_size = Size(wide, len(self.rows))
        self.refresh()

    def on_resize(self) -> None:
        if self.wrap:
            self._size_rows()

    def action_toggle_wrap(self) -> None:
        self.wrap = not self.wrap
        self._size_rows()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        if row >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        strip = self._cache.get(row)
        if strip is None:
            raw = self.rows[row]
            cut = len(raw) > MAX_LINE
            raw = raw[:MAX_LINE]
            text = Text.from_ansi(raw) if "\x1b[" in raw else Text(raw)
            if cut:
                text.append(" …", style="bold")
            segments = [
                Segment(s.text, self.rich_style + s.style if s.style else self.rich_style)
                for s in text.render(self.app.console)
            ]
            segments = [s for s in segments if s.text != "\n"]
            strip = Strip(segments)
            self._cache[row] = strip
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style)


class TextViewScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close"),
    ]

    DEFAULT_CSS = """
    TextViewScreen { align: center middle; }
    TextViewScreen > #text-title { dock: top; width: 100%; background: $accent; color: $text; }
    TextViewScreen > TextView { width: 100%; height: 1fr; background: $surface; }
    """

    def __init__(self, text: str, title: str) -> None:
        super().__init__()
        self.text = text
        self.title_text = title

    def compose(self) -> ComposeResult:
        yield Static(
            Text(self.title_text + "   (q/esc: close, arrows/j/k/space: scroll, w: wrap)"),
            id="text-title",
            markup=False,
        )
        yield TextView(self.text, id="text-view")
        yield Footer()

    def on_mount(self) -> None:
        view = self.query_one(TextView)
        view.focus()
        self.call_after_refresh(view._size_rows)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
