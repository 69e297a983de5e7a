"""Status quality Q, progress gates G/G_nr, loop gates Λ/Λ_nr, attempt index A_t (SPEC §3.5)."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np

from efc_tui import _fast
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


@dataclass(slots=True)
class Gates:
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


_compiled_ready: set[int] = set()


def _compiled_gates(fast: ModuleType, events: list[Event]) -> Gates:
    """The loop below in C (efc_tui/_speedups.c, ``gate_pass``): the same arrays."""
    if id(fast) not in _compiled_ready:
        fast.setup_gates(
            Q_STATUS,
            EventKind.REPAIR,
            EventKind.GENERATION,
            G_FIRST,
            G_NEWLY_PASSED,
            G_ROSE,
            G_SAME_FAIL,
            G_FELL,
            G_OTHER,
            L_REPAIR,
            L_GEN_PASSED,
            L_GEN_OTHER,
            L_OTHER,
        )
        _compiled_ready.add(id(fast))
    q, g, g_nr, lam, lam_nr, a = fast.gate_pass(events)
    f64 = np.float64
    return Gates(
        np.frombuffer(q, f64),
        np.frombuffer(g, f64),
        np.frombuffer(g_nr, f64),
        np.frombuffer(lam, f64),
        np.frombuffer(lam_nr, f64),
        np.frombuffer(a, np.int64),
    )


def compute_gates(events: list[Event]) -> Gates:
    """Q, G, G_nr, Λ, Λ_nr and A for every event (compiled when built: the same values)."""
    fast = _fast.speedups()
    if fast is not None and type(events) is list:
        return _compiled_gates(fast, events)
    T = len(events)
    Q = np.empty(T)
    G = np.empty(T)
    G_nr = np.empty(T)
    L = np.empty(T)
    L_nr = np.empty(T)
    A = np.zeros(T, dtype=np.int64)
    step = GateState().step
    for t, e in enumerate(events):
        Q[t], G[t], G_nr[t], L[t], L_nr[t], A[t] = step(e)
    return Gates(Q, G, G_nr, L, L_nr, A)


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
