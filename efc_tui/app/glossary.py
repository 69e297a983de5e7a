"""What every symbol of the replay screen means (shown under the keys by ``?``).

The column entries come from the one column spec (``efc_tui.scoring.columns``: the same
words the docs and the export use); the marks, status abbreviations and decisions are the
ledger widget's own.
"""

from __future__ import annotations

from efc_tui.app.widgets.ledger import BY_VIEW_KEY, CHANGED, ORDER, PENDING, STATUS_SHORT

#: gutter marks, left of each row
MARKS: tuple[tuple[str, str], ...] = (
    ("›", "the selected event"),
    ("■", "the event where the adapter would stop (its row in red)"),
    ("┆", "after the adapter's stop (dimmed, italic)"),
    ("×", "an event the adapter would discard from memory (struck through)"),
    (CHANGED, "its scores changed at the last rescore (a followed log grew)"),
    (PENDING, "read but not scored yet"),
)

#: the adapter column's words (SPEC §6)
DECISIONS: tuple[tuple[str, str], ...] = (
    ("promote", "keep in memory: a verified, novel, used result"),
    ("scratch", "keep in the scratchpad only (no verdict yet)"),
    ("discard", "drop: redundant, or a repeated error"),
    ("stop", "the adapter would stop the run here (the window's EFC per cost fell below ε)"),
    ("↶ rollback", "go back to an earlier, better-scoring candidate"),
)


def glossary() -> list[tuple[str, str]]:
    """(symbol, meaning) for the ledger's columns, marks, statuses and decisions."""
    cols = [BY_VIEW_KEY[k] for k in ORDER]
    rows: list[tuple[str, str]] = [(c.title or c.key, c.meaning) for c in cols]
    rows += MARKS
    short = {v: k for k, v in STATUS_SHORT.items() if k != v}
    rows += [(abbr, f"status {full.replace('_', ' ')}") for abbr, full in short.items()]
    rows += DECISIONS
    return rows
