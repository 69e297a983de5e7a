"""Status quality Q, progress gates G/G_nr, loop gates Λ/Λ_nr, attempt index A_t (SPEC §3.5)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from msgspec import Struct

from efc_tui.model import SEVERITY, Event, EventKind, Status
from efc_tui.scoring.constants import (
    ALPHA_A,
    G_FELL,
    G_FIRST,
    G_NEWLY_PASSED,
    G_OTHER,
    G_ROSE,
    G_SAME_FAIL,
    L_GEN_OTHER,
    L_GEN_PASSED,
    L_OTHER,
    L_REPAIR,
    Q_STATUS,
)
from efc_tui.scoring.event_columns import KINDS, STATUS_CODE, STATUSES, EventColumns, event_columns


class Gates(Struct):
    Q: np.ndarray
    G: np.ndarray
    G_nr: np.ndarray
    L: np.ndarray
    L_nr: np.ndarray
    A: np.ndarray  # attempt index, int

    @property
    def ambiguity(self) -> np.ndarray:
        """The ambiguity penalty 1 / (1 + α_A A_t) of NRS-EFC (paper eq. 10)."""
        return 1.0 / (1.0 + ALPHA_A * self.A)


def progress_gate(status: Status, prev: Status | None, attempt: int) -> tuple[float, float]:
    """(G_t, G_nr_t) for one event; rows checked top to bottom (SPEC §3.5).

    Events with status none fall to the last row; so does a first status-bearing event.
    """
    if attempt == 0:
        return G_FIRST
    if status is Status.NONE or prev is None:
        return G_OTHER
    if status is Status.PASSED and prev is not Status.PASSED:
        return G_NEWLY_PASSED
    sev, prev_sev = SEVERITY[status], SEVERITY[prev]
    if sev > prev_sev:
        return G_ROSE
    if sev == prev_sev and status is not Status.PASSED:
        return G_SAME_FAIL
    if sev < prev_sev:
        return G_FELL
    return G_OTHER


def loop_gate(kind: EventKind, status: Status) -> tuple[float, float]:
    """(Λ_t, Λ_nr_t) for one event (SPEC §3.5)."""
    if kind is EventKind.REPAIR:
        return L_REPAIR
    if kind is EventKind.GENERATION:
        return L_GEN_PASSED if status is Status.PASSED else L_GEN_OTHER
    return L_OTHER


# The rules above as tables, for the whole run at once: the same function, the same values.
_NONE = STATUS_CODE[Status.NONE]
_START = len(STATUSES)  # the previous-status row of an event before any verdict
#: (G, G_nr) by (previous verdict, or _START before the first; status)
_PROGRESS = np.array(
    [[progress_gate(s, p, 0 if p is None else 1) for s in STATUSES] for p in (*STATUSES, None)]
)
#: (Λ, Λ_nr) by (kind, status)
_LOOP = np.array([[loop_gate(k, s) for s in STATUSES] for k in KINDS])
_Q = np.array([Q_STATUS[s] for s in STATUSES])


def compute_gates(
    events: list[Event], bounds: Sequence[int] | None = None, cols: EventColumns | None = None
) -> Gates:
    """Q, G, G_nr, Λ, Λ_nr and A for every event: ``progress_gate`` and ``loop_gate`` looked
    up by each event's status, kind and previous verdict (what ``GateState`` carries).
    ``bounds``: the events are several runs end to end, run ``i`` being
    ``events[bounds[i]:bounds[i + 1]]``; each starts afresh (no verdict before it).
    ``cols``: the events' ``event_columns``, when the caller has them."""
    T = len(events)
    if cols is None:
        cols = event_columns(events)
    s, k = cols.status.astype(np.intp), cols.kind.astype(np.intp)
    verdict = s != _NONE
    counted = np.cumsum(verdict, dtype=np.int64)
    A = (counted - verdict).astype(np.int64)  # verdicts before t
    # the last event with a verdict at or before t, then the one before t
    last = np.maximum.accumulate(np.where(verdict, np.arange(T), -1))
    before = np.concatenate(([-1], last))[:T]
    if bounds is None or len(bounds) <= 2:
        prev = np.where(before >= 0, s[before], _START)
    else:  # a verdict counts from its run's first event on
        edges = np.asarray(bounds, dtype=np.int64)
        starts, lengths = edges[:-1], edges[1:] - edges[:-1]
        A -= np.repeat(np.concatenate(([0], counted))[starts], lengths)
        prev = np.where(before >= np.repeat(starts, lengths), s[before], _START)
    return Gates(
        _Q[s],
        _PROGRESS[prev, s, 0],
        _PROGRESS[prev, s, 1],
        _LOOP[k, s, 0],
        _LOOP[k, s, 1],
        A,
    )


class GateState:
    """What the gates carry from one event to the next (the attempts so far and the last
    status), so events fed in pieces get the gates of one pass over the run."""

    __slots__ = ("attempts", "prev")

    def __init__(self) -> None:
        self.attempts = 0
        self.prev: Status | None = None

    def step(self, e: Event) -> tuple[float, float, float, float, float, int]:
        """(Q, G, G_nr, Λ, Λ_nr, A) of the next event."""
        s = e.status
        attempts = self.attempts
        g, g_nr = progress_gate(s, self.prev, attempts)
        lam, lam_nr = loop_gate(e.kind, s)
        if s is not Status.NONE:
            self.attempts += 1
            self.prev = s
        return Q_STATUS[s], g, g_nr, lam, lam_nr, attempts

    def __getstate__(self) -> tuple[int, Status | None]:
        return self.attempts, self.prev

    def __setstate__(self, state: tuple[int, Status | None]) -> None:
        self.attempts, self.prev = state
