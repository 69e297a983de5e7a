"""``?``: every key of the screen it was opened from, in words, and (replay) a glossary of
the ledger's symbols.

Keys are read from the active bindings (the focused widget's, the screen's, the app's),
so a new binding shows here without more code. Two bindings with the same description
are one entry with both keys ("j ↓  Next event"); bindings without a description are
Textual's plumbing and are left out.
"""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

#: key names as a person types them
_NAMES = {
    "space": "space",
    "slash": "/",
    "question_mark": "?",
    "plus": "+",
    "minus": "-",
    "equals_sign": "=",
    "underscore": "_",
    "escape": "esc",
    "ctrl+p": "ctrl+p",
    "down": "↓",
    "up": "↑",
    "left": "←",
    "right": "→",
    "pagedown": "pgdn",
    "pageup": "pgup",
    "enter": "enter",
    "tab": "tab",
    "shift+tab": "shift+tab",
}


def key_name(key: str) -> str:
    return _NAMES.get(key, key)


def screen_title(screen: Screen[object]) -> str:
    """A screen's name for people (its ``TITLE``), not its class name."""
    return screen.title or "efc-tui"


def key_rows(screen: Screen[object]) -> list[tuple[str, str]]:
    """(keys, what it does) for every described binding active on ``screen``, merged by
    description, in binding order."""
    merged: dict[str, list[str]] = {}
    words: dict[str, str] = {}
    editing = {b.action for b in Input.BINDINGS if isinstance(b, Binding)}
    typing = False
    active_items = list(screen.active_bindings.items())
    # the screen's own keys first (what it is for), then its widgets' and the app's
    active_items.sort(key=lambda item: item[1].node is not screen)
    for key, active in active_items:
        b = active.binding
        if not b.description or b.system:
            continue
        if isinstance(active.node, Input) and b.action in editing:
            typing = True  # a text box's editing keys: one line below, not 27
            continue
        name = key_name(key)
        keys = merged.setdefault(b.description, [])
        if name not in keys:
            keys.append(name)
        if b.tooltip:  # the words of whichever binding has them
            words.setdefault(b.description, b.tooltip)
    rows = [(" ".join(keys), words.get(desc, desc)) for desc, keys in merged.items()]
    if typing:
        rows.append(("type", "goes into the text box, with the usual editing keys"))
    return rows


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close"),
    ]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 76; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    """

    def __init__(
        self,
        rows: list[tuple[str, str]],
        title: str = "Keys",
        glossary: list[tuple[str, str]] | None = None,
    ) -> None:
        super().__init__()
        self.rows = rows
        self.title_text = title
        self.glossary = glossary or []

    @staticmethod
    def _table(rows: list[tuple[str, str]]) -> Table:
        table = Table(box=None, show_header=False, padding=(0, 1), expand=True)
        table.add_column("keys", style="bold", no_wrap=True)
        table.add_column("does")
        for keys, desc in rows:
            table.add_row(Text(keys), Text(desc))
        return table

    def compose(self) -> ComposeResult:
        rows = [*self.rows, ("ctrl+p", "command palette: every action by name")]
        with VerticalScroll():
            yield Static(Text(f"Keys: {self.title_text}", style="bold"), markup=False)
            yield Static(self._table(rows), markup=False, id="help-keys")
            if self.glossary:
                yield Static(Text("\nWhat the ledger shows", style="bold"), markup=False)
                yield Static(self._table(self.glossary), markup=False, id="help-glossary")
            yield Static(Text("esc / q / ? to close", style="dim"), markup=False)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
