"""A column of a CLI table: what ``efc_tui.cli._tables`` fits to the terminal.

Its own module, without Rich: the score command declares its tables when it starts and
imports Rich only when it prints one (and the app, which shares ``efc_tui.report.display``, never
builds this class).
"""

from __future__ import annotations

from typing import Any, Literal

from msgspec import Struct

from efc_tui.scoring.figures import BY_KEY


class Col(Struct, frozen=True):
    """One column of a table that must fit a terminal (``efc_tui.cli._tables``)."""

    title: str
    key: str
    #: "name": shortened in the middle when space is short; "path": shortened at the start
    #: (the file name stays); "label": short text, kept whole; "number": right-aligned,
    #: never shortened
    kind: Literal["name", "path", "label", "number"] = "number"
    #: importance: columns with the highest rank are left out first; 0 is never left out
    rank: int = 0
    #: a name or path is shortened to this before any column is left out (and further,
    #: to HARD_MIN, only when nothing else can go)
    min_width: int = 20
    #: left out when no row has a value (every cell "–"), e.g. an exit status no log gives
    optional: bool = False


def figure_col(
    key: str, kind: Literal["label", "number"] = "number", rank: int | None = None, **kw: Any
) -> Col:
    """The column of a run-level figure: its title, and its rank in the score table
    unless ``rank`` is given (``efc_tui.scoring.figures``)."""
    figure = BY_KEY[key]
    return Col(figure.title, key, kind, (figure.rank or 0) if rank is None else rank, **kw)
