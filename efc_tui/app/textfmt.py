"""Turning untrusted log text into inert Rich renderables (no Textual here).

Every function takes raw log text and returns ``Text`` or ``Syntax`` built from
``sanitize_for_terminal`` output: markup is never parsed, escapes never reach the terminal,
and only a bounded slice is ever styled (``Text.from_ansi`` and Pygments are slow on
megabytes). See STYLE.md, "Untrusted text".
"""

from __future__ import annotations

import re

from msgspec import Struct
from rich.console import RenderableType
from rich.style import Style
from rich.text import Text

from efc_tui._lazy import lazy_module
from efc_tui._lazy_re import LazyPattern
from efc_tui.report.text import sanitize_for_terminal

#: Rich's syntax highlighting, with Pygments: imported when first highlighting (efc_tui._lazy)
syntax = lazy_module("rich.syntax")
#: characters of action/observation text the detail pane shows before "… N more"
DETAIL_LIMIT = 20_000
#: text longer than this (after truncation) is shown plain, never highlighted
HIGHLIGHT_LIMIT = 20_000

_DIFF = LazyPattern(
    r"^(?:@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@|diff --git |\+\+\+ |--- )", re.MULTILINE
)
_PY = LazyPattern(
    r"^\s*(?:def \w+\(|class \w+[:(]|import \w|from [\w.]+ import |return\b|if .+:$|for .+ in .+:$)",
    re.MULTILINE,
)
_TRACEBACK = "Traceback (most recent call last):"
_SHELL_TOOLS = {"bash", "sh", "shell", "zsh", "terminal", "run", "exec", "execute", "cmd"}
_CODE_TOOLS = {
    "python",
    "ipython",
    "edit",
    "write",
    "write_file",
    "create",
    "str_replace_editor",
    "str_replace",
    "apply_patch",
    "patch",
    "editor",
    "file_editor",
}


class Shown(Struct, frozen=True):
    """A renderable for a bounded slice of some text, and how much was left out."""

    renderable: RenderableType
    hidden: int
    lexer: str | None


def guess_lexer(text: str, tool: str | None = None, *, is_action: bool = False) -> str | None:
    """A Pygments lexer name for text that looks like a diff, a traceback, code or a shell
    command; None for prose (shown as plain text with its colours)."""
    head = text[:4000]
    if _DIFF.rx.search(head) and ("\n+" in head or "\n-" in head):
        return "diff"
    if _TRACEBACK in head:
        return "pytb"
    name = (tool or "").strip().lower()
    if is_action and name in _SHELL_TOOLS and "\n" not in text.strip()[:500]:
        return "bash"
    code_tool = name in _CODE_TOOLS or head.lstrip().startswith(("```python", "```py\n"))
    if code_tool and _PY.rx.search(head):
        return "python"
    if len(_PY.rx.findall(head)) >= 3:
        return "python"
    return None


def show_text(
    text: str,
    *,
    tool: str | None = None,
    is_action: bool = False,
    limit: int = DETAIL_LIMIT,
    highlight: bool = True,
    lexer: str | None = None,
) -> Shown:
    """The first ``limit`` characters of ``text``, sanitized, highlighted when it looks like
    code, a diff or a traceback, otherwise with its ANSI colours kept (and nothing else).
    ``lexer`` names the lexer when the caller knows it (an edit made into a diff)."""
    visible = text[:limit]
    hidden = max(0, len(text) - limit)
    if not highlight:
        lexer = None
    elif lexer is None:
        lexer = guess_lexer(visible, tool, is_action=is_action)
    if lexer is not None and len(visible) <= HIGHLIGHT_LIMIT:
        clean = sanitize_for_terminal(visible)
        return Shown(
            syntax.Syntax(
                clean,
                lexer,
                theme="ansi_dark",
                word_wrap=True,
                background_color="default",
                code_width=None,
            ),
            hidden,
            lexer,
        )
    clean = sanitize_for_terminal(visible, keep_colors=True)
    body = Text.from_ansi(clean) if "\x1b[" in clean else Text(clean)
    return Shown(body, hidden, None)


def solid_style(full: Style, *, background: bool) -> Style:
    """A component style as drawn: ``full`` is Textual's style with colours blended over the
    widget's background (``partial=True`` leaves "$text-muted" or "$boost" unblended: white
    text or a white background, unreadable in every theme). Without ``background`` only its
    colour and attributes are kept, so it can go over a row's own background."""
    if background:
        return full
    return Style(
        color=full.color,
        bold=full.bold,
        dim=full.dim,
        italic=full.italic,
        underline=full.underline,
        strike=full.strike,
    )


def more_marker(hidden: int, key: str = "v") -> Text:
    """The visible "… N more" line under truncated text."""
    return Text(f"… {hidden:,} more characters (press {key} to view all)", style="bold italic")


def plain_lines(text: str) -> list[str]:
    """All of ``text`` as sanitized lines, colours kept as SGR codes for ``from_ansi``
    (used by the full-text viewer, which styles one visible line at a time)."""
    return sanitize_for_terminal(text, keep_colors=True).split("\n")
