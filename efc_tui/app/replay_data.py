"""The replay screen's data: events as they arrive, the latest ledger, filter and search.

No Textual here: the widgets read from a :class:`ReplayData` and tests drive it directly.
Events arrive in batches (progressive load, ``--follow``); scoring happens in a worker on a
snapshot of the events and comes back as a whole :class:`~efc_tui.adapter.ScoredRun`
(ledger, adapter decisions and summary), which covers the first ``n_scored`` events (rows
after that show as pending).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec import Struct

from efc_tui._lazy import lazy_module
from efc_tui.model import Event, EventKind, Run, Status, TokenTotals
from efc_tui.scoring.columns import LEDGER_COLUMNS

if TYPE_CHECKING:
    import numpy as np

    from efc_tui.adapter import AdapterSummary, Decision, ScoredRun
    from efc_tui.scoring import Ledger, RunFigures
else:
    np = lazy_module("numpy")  # imported by the first scoring, after the first frame

KINDS: tuple[str, ...] = tuple(k.value for k in EventKind)
STATUSES: tuple[str, ...] = tuple(s.value for s in Status)
_KIND_CODE = {k: i for i, k in enumerate(EventKind)}
_STATUS_CODE = {s: i for i, s in enumerate(Status)}

#: control decisions that interrupt a run (anything else is "continue")
_CONTROL_MARK = {"stop": "stop", "rollback": "↶ rollback"}

#: search reads a long action/observation this many characters at a time (all of it, in
#: overlapping windows), asking between windows whether it was cancelled
SEARCH_SCAN = 1_000_000


class _Cancelled(Exception):
    pass


def _contains(
    pat: re.Pattern[str], text: str, width: int, cancelled: Callable[[], bool] | None
) -> bool:
    """Does ``text`` hold a match of ``pat`` (a literal of ``width`` characters)? All of the
    text is read, SEARCH_SCAN characters at a time; windows overlap by ``width - 1`` so a
    match across their border is found."""
    n = len(text)
    if n <= SEARCH_SCAN:
        return pat.search(text) is not None
    for start in range(0, n, SEARCH_SCAN):
        if cancelled is not None and start and cancelled():
            raise _Cancelled
        if pat.search(text, start, min(n, start + SEARCH_SCAN + width - 1)):
            return True
    return False


class RowFilter(Struct, frozen=True):
    """Show only events whose ``field`` ("kind" or "status") equals ``value``."""

    field: str
    value: str

    def describe(self) -> str:
        return f"{self.field} = {self.value}"


_WINDOW = re.compile(r"window ratio (\S+) (<|≥) ε (\S+)")


def window_words(reason: str) -> str | None:
    """A window-ratio reason in words: "window ratio 0.000998 < ε 0.001" says the last
    events earned 0.000998 credit (X̂_nr) per cost unit, under the floor ε."""
    m = _WINDOW.search(reason)
    if m is None:
        return None
    ratio, op, eps = m.groups()
    if op == "<":
        return (
            f"the window's credit per cost unit, {ratio}, fell under the floor ε {eps}: "
            "its feedback dried up"
        )
    return f"the window's credit per cost unit, {ratio}, is at or above the floor ε {eps}"


def decision_reasons(decision: Decision) -> list[str]:
    """The adapter's reasons for one decision, as lines ("memory: …", "control: …"), a
    window-ratio rule followed by its meaning in words."""
    out: list[str] = []
    if decision.memory_reason:
        out.append(f"memory: {decision.memory_reason}")
    if decision.control_reason:
        out.append(f"control: {decision.control_reason}")
        words = window_words(decision.control_reason)
        if words:
            out.append(f"  = {words}")
    return out


def no_stop_reason(summary: AdapterSummary) -> str:
    """Why the adapter would not stop a run, in words."""
    ratios = np.asarray(summary.ratios, dtype=float)
    known = ratios[np.isfinite(ratios)] if ratios.size else ratios
    if not known.size:
        return f"the run is shorter than the adapter's window of {summary.window} events"
    return (
        f"in every window of {summary.window} events the credit per cost unit stayed at or "
        f"above ε {summary.epsilon:g} (lowest {float(known.min()):.3g})"
    )


def next_match(matches: list[int], after: int, forward: bool = True) -> int | None:
    """The match after (or before) event ``after`` in sorted ``matches``, wrapping round."""
    if not matches:
        return None
    if forward:
        j = bisect_right(matches, after)
        return matches[j] if j < len(matches) else matches[0]
    j = bisect_left(matches, after) - 1
    return matches[j] if j >= 0 else matches[-1]


class ReplayData:
    """Events of one run, the ledger scoring them, and the row view (filter) over them."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.events: list[Event] = run.events
        #: the latest scoring of the run: ledger, adapter decisions and summary
        self.scored: ScoredRun | None = None
        #: events covered by ``ledger`` (the rest are pending a rescore)
        self.n_scored = 0
        self._shown_scored = 0
        #: bumped whenever anything a row shows changes (drops cached strips)
        self.version = 0
        self._kind: list[int] = [_KIND_CODE[e.kind] for e in self.events]
        self._status: list[int] = [_STATUS_CODE[e.status] for e in self.events]
        self.filter: RowFilter | None = None
        self._visible: list[int] | None = None
        self.stop: int | None = None
        #: events whose scores changed at the last rescore, and the run figures before it
        self.changed: set[int] = set()
        self.figures: RunFigures | None = None
        self.prev_figures: RunFigures | None = None
        self._notable: list[int] = []  # events with a notable decision, ascending
        self.cols: dict[str, np.ndarray] = {}
        #: token totals of the scored events (``TokenTotals``), for the summary's cost line
        self.tokens: TokenTotals | None = None
        #: mark events whose scores changed at a rescore (``~``): only while following a
        #: log that grows; a run read once is scored once as a whole, and the passes over
        #: its first rows while it is read change nothing a person did
        self.track_changes = False

    # -- arrival ---------------------------------------------------------------------------

    def append(self, events: list[Event]) -> None:
        """Add events read after the ones we have (their ``index`` continues ours)."""
        if not events:
            return
        start = len(self._kind)
        for e in events:
            if len(self.events) <= e.index:  # not already in a preloaded run
                self.events.append(e)
        self._kind.extend(_KIND_CODE[e.kind] for e in events)
        self._status.extend(_STATUS_CODE[e.status] for e in events)
        if self._visible is not None and self.filter is not None:
            self._visible.extend(i for i in range(start, len(self._kind)) if self._matches(i))

    def replace_from(self, start: int, events: list[Event]) -> None:
        """Replace every event from index ``start`` on (a followed log whose reader revised
        its last events); rows from there are pending until the next scoring."""
        del self.events[start:]
        del self._kind[start:]
        del self._status[start:]
        self.n_scored = min(self.n_scored, start)
        self.append(events)
        self.set_filter(self.filter)

    @property
    def ledger(self) -> Ledger | None:
        return None if self.scored is None else self.scored.ledger

    @property
    def summary(self) -> AdapterSummary | None:
        return None if self.scored is None else self.scored.summary

    def set_scored(self, scored: ScoredRun) -> None:
        """Take a fresh scoring (it covers ``len(scored)`` events, maybe fewer than we have;
        events replaced since its snapshot was taken stay pending)."""
        # what the rows showed before: replaced events count too (their score changed)
        previous, previous_n = self.cols.get("nrs_efc"), self._shown_scored
        self.scored = scored
        ledger = scored.ledger
        n = min(len(ledger), len(self.events))
        scored_events = ledger.run.events
        if n and scored_events[n - 1] is not self.events[n - 1]:  # replaced meanwhile
            n = next(i for i in range(n) if scored_events[i] is not self.events[i])
        self.n_scored = self._shown_scored = n
        # every scored column of the spec, by key (arrays the ledger holds; two cumsums)
        cols: dict[str, np.ndarray] = {
            c.key: np.asarray(c.get(ledger))
            for c in LEDGER_COLUMNS
            if c.get is not None and (not c.oracle or ledger.oracle is not None)
        }
        cols["nr_cum"] = np.cumsum(ledger.nr)
        self.cols = cols
        # events scored before whose ÊFC_nr this scoring changed (post-hoc features look
        # ahead: lines appended to a followed log can rescore earlier events)
        self.tokens = TokenTotals.of(scored_events[:n])
        if previous is not None and self.track_changes:
            k = min(previous_n, n, len(previous))
            moved = ~np.isclose(previous[:k], ledger.nr[:k], rtol=1e-9, atol=1e-12)
            self.changed = {int(i) for i in np.flatnonzero(moved)}
        else:
            self.changed = set()
        self.prev_figures = self.figures if self.track_changes else None
        self.figures = ledger.figures
        self.stop = scored.summary.stop_event
        notable = [
            i
            for i, d in enumerate(scored.decisions)
            if d.memory in ("promote", "discard") or d.control != "continue"
        ]
        self._notable = notable
        self.version += 1

    # -- per-event facts ---------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._kind)

    def is_scored(self, i: int) -> bool:
        return i < self.n_scored

    def decision(self, i: int) -> Decision | None:
        if self.scored is None or i >= self.n_scored:
            return None
        return self.scored.decisions[i]

    def decision_label(self, i: int) -> str:
        d = self.decision(i)
        if d is None:
            return ""
        mark = _CONTROL_MARK.get(d.control, "")
        return f"{d.memory} · {mark}" if mark else d.memory

    def is_discarded(self, i: int) -> bool:
        d = self.decision(i)
        return d is not None and d.memory == "discard"

    def after_stop(self, i: int) -> bool:
        return self.stop is not None and i > self.stop

    def value(self, name: str, i: int) -> float | None:
        col = self.cols.get(name)
        if col is None or i >= len(col):
            return None
        return float(col[i])

    # -- the row view (filter) ---------------------------------------------------------------

    @property
    def n_rows(self) -> int:
        return len(self._kind) if self._visible is None else len(self._visible)

    def event_at(self, row: int) -> int:
        return row if self._visible is None else self._visible[row]

    def row_of(self, event: int) -> int | None:
        """The row showing ``event``, or None when the filter hides it."""
        if self._visible is None:
            return event if 0 <= event < len(self._kind) else None
        j = bisect_left(self._visible, event)
        if j < len(self._visible) and self._visible[j] == event:
            return j
        return None

    def nearest_row(self, event: int) -> int:
        """The row of ``event`` or of the first shown event after it (else the last row)."""
        if self._visible is None:
            return max(0, min(event, len(self._kind) - 1))
        j = bisect_left(self._visible, event)
        return max(0, min(j, len(self._visible) - 1))

    def _matches(self, i: int) -> bool:
        f = self.filter
        if f is None:
            return True
        if f.field == "kind":
            return self._kind[i] == _KIND_CODE[EventKind(f.value)]
        return self._status[i] == _STATUS_CODE[Status(f.value)]

    def set_filter(self, flt: RowFilter | None) -> None:
        self.filter = flt
        if flt is None:
            self._visible = None
        else:
            if flt.field == "kind":
                codes, want = np.asarray(self._kind), _KIND_CODE[EventKind(flt.value)]
            elif flt.field == "status":
                codes, want = np.asarray(self._status), _STATUS_CODE[Status(flt.value)]
            else:
                raise ValueError(f"cannot filter on {flt.field!r}")
            self._visible = np.flatnonzero(codes == want).tolist()
        self.version += 1

    def present(self, field: str) -> list[tuple[str, int]]:
        """The kinds or statuses the run has, with counts, in the model's order."""
        codes = self._kind if field == "kind" else self._status
        names = KINDS if field == "kind" else STATUSES
        counts = np.bincount(np.asarray(codes, dtype=np.int64), minlength=len(names))
        return [(names[c], int(counts[c])) for c in range(len(names)) if counts[c]]

    # -- navigation --------------------------------------------------------------------------

    def next_decision(self, event: int, forward: bool = True) -> int | None:
        """The next (or previous) event with a notable adapter decision: promote, discard,
        stop or roll back (scratch-and-continue is the default and not a stop)."""
        notable = self._notable
        if not len(notable):
            return None
        if forward:
            j = bisect_right(notable, event)
            return notable[j] if j < len(notable) else None
        j = bisect_left(notable, event) - 1
        return notable[j] if j >= 0 else None

    @property
    def has_decisions(self) -> bool:
        return self.scored is not None and bool(self.scored.decisions)

    def find_all(
        self, query: str, *, cancelled: Callable[[], bool] | None = None
    ) -> list[int] | None:
        """Every shown event whose action, tool or observation contains ``query``
        (case-insensitive, literal; all of each text, however long), in order.
        ``cancelled`` is polled so a worker can stop early (then None)."""
        if not query:
            return []
        pat = re.compile(re.escape(query), re.IGNORECASE)
        # a case-insensitive literal matches as many characters as it has, but for the few
        # whose case forms differ in length: a window overlap of twice that is safe
        width = 2 * len(query)
        found: list[int] = []
        try:
            for i, e in enumerate(self.events):
                if cancelled is not None and i % 4096 == 0 and cancelled():
                    return None
                if self._visible is not None and not self._matches(i):
                    continue
                if (
                    _contains(pat, e.action_text, width, cancelled)
                    or (e.tool and pat.search(e.tool))
                    or _contains(pat, e.observation_text, width, cancelled)
                ):
                    found.append(i)
        except _Cancelled:
            return None
        return found

    def search(
        self,
        query: str,
        after: int,
        forward: bool = True,
        *,
        cancelled: Callable[[], bool] | None = None,
    ) -> int | None:
        """The next matching event after ``after`` (wrapping round); see ``find_all``."""
        found = self.find_all(query, cancelled=cancelled)
        return next_match(found or [], after, forward)

    # -- run-level ---------------------------------------------------------------------------

    def prefix_columns(self) -> dict[str, np.ndarray]:
        """Cumulative run figures after each event, named as ``RunFigures`` names them, so a
        fit predictor can be read at every prefix (``Predictor.column``)."""
        led = self.ledger
        if led is None:
            return {}
        n = len(led)
        cost = led.cost
        with np.errstate(divide="ignore", invalid="ignore"):
            cols = {
                "tokens": np.cumsum(cost.tokens),
                "tool_calls": np.cumsum(cost.tool_calls),
                "wall_s": np.cumsum(cost.wall_s),
                "ops": np.cumsum(cost.ops),
                "c_raw": led.c_cum,
                "efc": np.cumsum(led.oracle.efc if led.oracle is not None else led.efc),
                "est_efc": np.cumsum(led.est),
                "stable_efc": np.cumsum(led.stable),
                "nrs_efc": np.cumsum(led.nr),
                "d_task": np.full(n, led.demand.hand, dtype=float),
                "d_task_fitted": np.full(
                    n, np.nan if led.demand.fitted is None else led.demand.fitted, dtype=float
                ),
            }
        if led.oracle is not None:
            cols["oracle_efc"] = np.cumsum(led.oracle.efc)
        else:
            cols["oracle_efc"] = np.full(n, np.nan)
        return cols
