"""The whole of one action or observation text, however long (the detail pane shows the
first ~20k characters). A Line-API view: only the lines on screen are styled, so a 2 MB
observation opens at once. Text is sanitized once; SGR colours are applied per line."""

from __future__ import annotations

from typing import ClassVar

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


class TextView(ScrollView, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "scroll_down", "Down", show=False),
        Binding("k,up", "scroll_up", "Up", show=False),
        Binding("g,home", "scroll_home", "Top", show=False),
        Binding("G,end", "scroll_end", "Bottom", show=False),
        Binding("space,pagedown", "page_down", "Page down", show=False),
        Binding("b,pageup", "page_up", "Page up", show=False),
    ]

    def __init__(self, text: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines = plain_lines(text)
        width = min(MAX_LINE, max((len(x) for x in self.lines), default=0))
        self.virtual_size = Size(width, len(self.lines))
        self._cache: LRUCache[int, Strip] = LRUCache(1024)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        if row >= len(self.lines):
            return Strip.blank(width, self.rich_style)
        strip = self._cache.get(row)
        if strip is None:
            raw = self.lines[row]
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
            Text(self.title_text + "   (q/esc: close, arrows/j/k/space: scroll)"),
            id="text-title",
            markup=False,
        )
        yield TextView(self.text, id="text-view")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(TextView).focus()

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
