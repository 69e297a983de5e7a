"""The repetition signal of the adapter's second stop rule (ours; SPEC §6 leaves it open).

The paper's window rule stops when the prefix NRS-EFC of the last W events is flat against
their raw cost. It cannot see the loop a person checks first: the same command failing the
same way again and again. Because the gates already discount a repeated failure, such a
loop scores little, but so do exploration steps without a verdict, and W and ε must stay
loose enough for those. The repetition rule names the loop directly:

    stop at event t when the action of e_t (tool + whitespace-normalized input) has given the
    same failing outcome k times in a row, with nothing but reasoning, messages, memory
    writes, edits and harness errors in between.

- **Failing outcome**: a verdict other than ``passed`` (assertion error, runtime error,
  timeout, refused call, …) together with its check counts and its observation,
  normalized the way error signatures are (lower case, numbers and hex addresses as ``#``,
  whitespace collapsed). Two outcomes are the same when all three are equal: a check whose
  output changes (another expected value, another failing test, more tests passing) is
  progress, not a repeat.
- **In a row**: the streak of an action continues across events of the kinds in
  ``config.LOOP_NEUTRAL_KINDS`` (reasoning, plan and memory updates, messages, edits —
  an edit that leaves the failure unchanged is the failed-repair loop itself — and harness
  errors) and across events with neither an action nor a tool. Any other event ends it: a
  tool call or check of another action, the same action giving another outcome or no
  verdict, or a pass. So does an event of the loop's own action that passes.

The streak of event t reads events 0..t only (a truncated trace gets the same values) and
costs O(length of its text); the whole run is O(T) in events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from efc_tui.adapter.config import LOOP_NEUTRAL_KINDS
from efc_tui.model import Event, Run, Status
from efc_tui.scoring.features import normalize_error_text

#: members read once (an enum class's attribute read is slow on Python 3.11: parsers/status.py)
_NONE, _PASSED = Status.NONE, Status.PASSED


def action_signature(ev: Event) -> tuple[str | None, str] | None:
    """(tool, whitespace-normalized input) of an event; None without an action or a tool."""
    act = " ".join(ev.action_text.split())
    if not act and not ev.tool:
        return None
    return ev.tool, act


def observation_digest(ev: Event, digest: Callable[[Any], int] = hash) -> int:
    """A hash of the observation normalized as error signatures are: lower case, numbers
    and hex addresses as ``#``, whitespace collapsed (``digest``: as ``PrefixState``'s)."""
    return digest(normalize_error_text(ev.observation_text))


def _counts(ev: Event) -> tuple[int, int]:
    ch = ev.checks
    return (ch.passed, ch.failed) if ch is not None else (-1, -1)


def repeat_streaks(run: Run) -> np.ndarray:
    """For each event, the repetition streak in force after it: how many times in a row one
    action has given one failing outcome (0: no streak). Events that neither extend nor end
    a streak (module docstring) carry it."""
    return streaks_and_starts(run)[0]


def streaks_and_starts(run: Run) -> tuple[np.ndarray, np.ndarray]:
    """``repeat_streaks`` and, per event, the event where the streak in force began (-1).

    The observation digest, the costly part, is computed only when a failure has the same
    action, status and check counts as the streak it may extend. While no streak is in
    force, an event without a failing verdict leaves the state as it is (``StreakState.step``
    would reset a reset state, or carry it): the loop skips the call for those, most events
    of most runs, and fills only the rest."""
    events = run.events
    T = len(events)
    out = [0] * T
    starts = [-1] * T
    state = StreakState()
    step = state.step
    none, passed = _NONE, _PASSED
    for t, ev in enumerate(events):
        status = ev.status
        if (status is none or status is passed) and not state.count:
            continue  # (0, -1), and the state unchanged
        out[t], starts[t] = step(t, ev)
    return np.asarray(out, dtype=np.int64), np.asarray(starts, dtype=np.int64)


class StreakState:
    """What the repetition streak carries from one event to the next: the streak's action
    signature, status and counts of its failures, the last of them (whose digest is
    computed when first needed), its length and first event. ``digest``: ``hash`` within
    one process, ``stable_digest`` for a state pickled between processes."""

    __slots__ = ("count", "digest", "digest_of", "head", "last", "sig", "start")

    def __init__(self, digest: Callable[[Any], int] = hash) -> None:
        self.digest_of = digest
        self.sig: tuple[str | None, str] | None = None
        self.head: tuple[Status, tuple[int, int]] | None = None
        self.last: Event | None = None
        self.digest: int | None = None
        self.count = 0
        self.start = -1

    def __getstate__(self) -> dict[str, Any]:
        from efc_tui.compact import stable_digest

        if self.digest_of is not stable_digest:
            raise TypeError("only a StreakState with stable_digest is kept between processes")
        return {k: getattr(self, k) for k in self.__slots__ if k != "digest_of"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        from efc_tui.compact import stable_digest

        self.digest_of = stable_digest
        for k, v in state.items():
            setattr(self, k, v)

    def step(self, t: int, ev: Event) -> tuple[int, int]:
        """(streak, first event of the streak or -1) in force after event t."""
        status = ev.status
        act = ev.action_text
        if not ev.tool and (not act or act.isspace()):
            pass  # no action (a harness message or error): neither extends nor ends it
        elif status is _NONE or status is _PASSED:
            if status is _PASSED or ev.kind not in LOOP_NEUTRAL_KINDS:
                self.sig, self.count, self.start = None, 0, -1
        else:
            sig = action_signature(ev)
            if ev.kind in LOOP_NEUTRAL_KINDS and (self.sig is None or sig != self.sig):
                pass  # a failing edit or thought outside the loop: not a loop step
            else:
                h = (status, _counts(ev))
                same = False
                if self.sig is not None and sig == self.sig and h == self.head:
                    if self.digest is None:
                        assert self.last is not None
                        self.digest = observation_digest(self.last, self.digest_of)
                    d = observation_digest(ev, self.digest_of)
                    same = d == self.digest
                    self.digest = d
                else:
                    self.digest = None
                if same:
                    self.count += 1
                else:
                    self.sig, self.head, self.count, self.start = sig, h, 1, t
                self.last = ev
        return self.count, self.start

    @property
    def status(self) -> Status | None:
        """The failing status of the streak in force (None: none)."""
        return self.head[0] if self.head is not None and self.count else None


def repeat_stop(streaks: np.ndarray, limit: int) -> int | None:
    """The first event whose streak reaches ``limit`` (None: never, or ``limit`` = 0 = off)."""
    if limit <= 0:
        return None
    hits = np.flatnonzero(streaks >= limit)
    return int(hits[0]) if hits.size else None
