"""What every symbol and figure of the replay screen means, in plain words with units
(shown under the keys by ``?``).

The ledger's columns come from the ledger widget (``ORDER``; their words in one place
there); the run's figures from the one figure spec (``efc_tui.scoring.figures``); the
summary's cost words, the detail pane's letters, the fit panel's marks and the units are
written here, once, in the words a person reads; the phi features' meanings come from the
one column spec (``efc_tui.scoring.columns``).
"""

from __future__ import annotations

from efc_tui.app.widgets.ledger import BY_VIEW_KEY, CHANGED, ORDER, PENDING, STATUS_SHORT
from efc_tui.scoring.columns import BY_KEY
from efc_tui.scoring.figures import BY_KEY as FIGURE

#: gutter marks, left of each row
MARKS: tuple[tuple[str, str], ...] = (
    ("›", "the selected event"),
    ("■", "the event where the adapter would stop (its row in red)"),
    ("┆", "after the adapter's stop (dimmed, italic)"),
    ("×", "an event the adapter would discard from memory (struck through)"),
    (CHANGED, "its scores changed at the last rescore (only while following a growing log)"),
    (PENDING, "read but not scored yet"),
)

#: the adapter column's words (SPEC §6)
DECISIONS: tuple[tuple[str, str], ...] = (
    ("promote", "keep in memory: a verified, novel, used result"),
    ("scratch", "keep in the scratchpad only (no verdict yet)"),
    ("discard", "drop: redundant, or a repeated error"),
    (
        "stop",
        "the adapter would stop the run here: over its last W events the run earned less "
        "credit per cost unit than ε (the feedback dried up)",
    ),
    ("↶ rollback", "go back to an earlier, better-scoring candidate"),
)


def _figure(key: str, symbol: str | None = None) -> tuple[str, str]:
    """A run figure's entry: its title (or how the summary shows it) and its meaning, both
    from ``efc_tui.scoring.figures``."""
    figure = FIGURE[key]
    return symbol or figure.title, figure.meaning


#: the summary's figures, with their units (the run figures' words are
#: ``efc_tui.scoring.figures``'s; the cost line's own are written here)
FIGURES: tuple[tuple[str, str], ...] = (
    _figure("c_raw"),
    ("ΔC", "the raw cost one event consumed, in cost units (its parts in the detail pane)"),
    ("tokens in / out", "model tokens: in (the prompt, cached reads included), out (the reply)"),
    ("cached", "share of input tokens read from the provider's prompt cache"),
    _figure("cost_usd", "$ logged"),
    (
        "waste",
        "share of C_raw spent on repeated actions, repeated errors, redundant observations "
        "and after the adapter's stop (the causes overlap; the first figure is their union)",
    ),
    _figure("nrs_efc"),
    _figure("eta_nrs"),
    _figure("x_nrs"),
    _figure("efc"),
)

#: the detail pane's letters (SPEC §3.3, §3.5)
LETTERS: tuple[tuple[str, str], ...] = (
    ("I", "informativeness, 0 to 1: how much the observation moved the task forward"),
    ("V", "validity, 0 to 1: how far the verdict can be trusted (consistent, verifiable)"),
    ("R", "relevance, 0 to 1: new and not a repeated error"),
    ("M", "memory, 0 to 1: written to memory or used later"),
    ("ÊFC", "estimated effective feedback of the event: 10 · I · V · R · M"),
    ("Q", "status quality of the verdict: passed highest, api_error lowest"),
    ("G, G_nr", "progress gate: lowered when the event made no progress"),
    ("Λ, Λ_nr", "loop gate: lowered when the event repeats what came before"),
    ("A", "attempt index: status-bearing events before this one"),
    *(
        (BY_KEY[k].title or ("Δ" if k == "delta" else "ρ" if k == "rho" else k), BY_KEY[k].meaning)
        for k in ("c", "h", "z", "p", "m", "a", "q", "delta", "rho", "n")
    ),
)

#: the fit panel's marks
FIT: tuple[tuple[str, str], ...] = (
    (
        "fit panel",
        "the fitted chance of success against one predictor (a curve the fit file shows "
        "predicts held-out runs better than the base rate)",
    ),
    ("held-out AUC", "how well the curve ranks unseen runs: 0.5 is chance, 1 is perfect"),
    ("Brier … vs … base", "its squared error on unseen runs, against always guessing the rate"),
    ("✓ ✗ ○", "the run's final point: succeeded, failed, no label"),
    ("◆", "the selected event's point: the predictor so far, and the chance of success there"),
)


def glossary() -> list[tuple[str, str]]:
    """(symbol, meaning) for the ledger's columns, marks, statuses, decisions, the run's
    figures, the detail pane's letters and the fit panel."""
    plain = {symbol for symbol, _ in (*FIGURES, *LETTERS)}  # said in plain words below
    rows: list[tuple[str, str]] = [
        (c.title or c.key, c.meaning)
        for c in (BY_VIEW_KEY[k] for k in ORDER)
        if (c.title or c.key) not in plain
    ]
    rows += MARKS
    short = {v: k for k, v in STATUS_SHORT.items() if k != v}
    rows += [(abbr, f"status {full.replace('_', ' ')}") for abbr, full in short.items()]
    rows += DECISIONS
    rows += FIGURES
    rows += LETTERS
    rows += FIT
    return rows
