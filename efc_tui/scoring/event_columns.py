"""The numbers of each event that raw cost, the gates, the harness quantities and the
trace-estimated demand read, taken from the events once a batch (``ledger.score_runs``):
kind and status as indices into ``KINDS`` and ``STATUSES``, tokens (in + out), tool
calls, wall time, operations.

The compiled ``event_columns`` (efc_tui/_speedups.c) reads them straight from the events'
slots in one pass; it declines (and ``_python_columns`` reads them) when an event holds a
value it does not take. The columns are the same either way
(tests/compiled/test_speedups.py). Read with one ``np.fromiter`` a column, they took
0.044 s of ``bench/score_bench.py``'s 100k events (0.006 s a column: a call per event
per column), 5% of ``score``; the one pass takes 0.007 s.
"""

from __future__ import annotations

from operator import add, attrgetter

import numpy as np
from msgspec import Struct

from efc_tui import _fast
from efc_tui.model import Event, EventKind, Status

KINDS = tuple(EventKind)
STATUSES = tuple(Status)
KIND_CODE = {k: i for i, k in enumerate(KINDS)}
STATUS_CODE = {s: i for i, s in enumerate(STATUSES)}


class EventColumns(Struct, frozen=True):
    """One value an event, for events end to end (of one run or a batch of runs)."""

    kind: np.ndarray  # int8: index into KINDS
    status: np.ndarray  # int8: index into STATUSES
    tokens: np.ndarray  # float: tokens_in + tokens_out
    tool_calls: np.ndarray  # float
    wall_s: np.ndarray  # float
    ops: np.ndarray  # float

    def __getitem__(self, cut: slice) -> EventColumns:
        """The columns of the events ``cut`` (views, not copies)."""
        return EventColumns(
            self.kind[cut],
            self.status[cut],
            self.tokens[cut],
            self.tool_calls[cut],
            self.wall_s[cut],
            self.ops[cut],
        )


def event_columns(events: list[Event]) -> EventColumns:
    """The columns of ``events``, in one compiled pass where it can take them."""
    fast = _fast.speedups()
    if fast is not None and type(events) is list:
        got = fast.event_columns(events, KINDS, STATUSES)
        if got is not None:
            kind, status, *numbers = got
            return EventColumns(
                np.frombuffer(kind, np.int8),
                np.frombuffer(status, np.int8),
                *(np.frombuffer(b, np.float64) for b in numbers),
            )
    return _python_columns(events)


_kind = attrgetter("kind")
_status = attrgetter("status")
_tokens_in = attrgetter("tokens_in")
_tokens_out = attrgetter("tokens_out")
_tool_calls = attrgetter("tool_calls")
_wall_s = attrgetter("wall_s")
_ops = attrgetter("ops")


def _python_columns(events: list[Event]) -> EventColumns:
    T = len(events)
    return EventColumns(
        np.fromiter(map(KIND_CODE.__getitem__, map(_kind, events)), np.int8, T),
        np.fromiter(map(STATUS_CODE.__getitem__, map(_status, events)), np.int8, T),
        np.fromiter(map(add, map(_tokens_in, events), map(_tokens_out, events)), float, T),
        np.fromiter(map(_tool_calls, events), float, T),
        np.fromiter(map(_wall_s, events), float, T),
        np.fromiter(map(_ops, events), float, T),
    )
