"""Retained feedback of tool/API calls: per-event terms for real traces (issue 29;
docs/equations.md, "Retained API feedback").

A tool call's answer is feedback the agent can act on; it was *effective* when the agent
acted on it. On API-style traces (tau-bench's airline and retail tools, function-calling
agents) that is visible in the trace itself: the answer returns values (a user id, an
order or reservation id, an item id, a payment method, a price, a flight number) and a
later call passes one of them as an argument. Per event t:

- ``call_t``: the event executed an action with an answer (``tool_calls`` > 0);
- ``valid_t``: the answer is not a failure of the call itself (status ``api_error``,
  ``static_reject``, ``runtime_error`` or ``timeout``: the tau-bench environment's
  ``Error: <exception>``, an unknown tool; the parsers set the status). A failed call
  returns no values;
- ``novel_t``: the same call (tool and argument text) was not made earlier in the run (a
  repeated call returns what the agent already had: SPEC §3.5's non-redundancy, per call);
- ``returned_t``: the values of the answer: value-like tokens (a run of letters, digits and
  ``_ # . -`` of length ≥ 5 holding a digit) that are not in the call's own arguments;
- ``retained_t``: some value of ``returned_t`` is an argument token of a later call;
- ``effective_t = call_t · valid_t · novel_t · retained_t``.

The run's **retained API feedback rate** is Σ effective_t / Σ call_t: the share of the
agent's calls whose answer carried a value the agent went on to use. A run that reads what
it needs and acts on it keeps it high; a run that repeats calls, collects answers it never
uses, or whose calls fail, lowers it. Like the RF rate (``fitting/coordinates.py``) it is
a rate, not a sum: on real runs failing runs are the longer ones and every sum grows with
length. Measured on ../shared/real-runs-grouped in docs/fitting.md ("Grouped real runs").

What it does not see (the limits measured there): whether the values were the *right*
ones (a wrong payment method is used as faithfully as the right one), and what the
simulated user said. One pass over the events, backwards, with one set of later argument
tokens: O(total text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from efc_tui.model import Run, Status

#: a value an answer can return and a later call can pass: ids, numbers, codes, dates
_VALUE = re.compile(r"[A-Za-z0-9_#.\-]*\d[A-Za-z0-9_#.\-]*")
_MIN_VALUE = 5
#: the statuses of a call that failed as a call (its answer returns nothing to use)
_FAILED = frozenset({Status.API_ERROR, Status.STATIC_REJECT, Status.RUNTIME_ERROR, Status.TIMEOUT})


def values(text: str) -> set[str]:
    """The value-like tokens of a text (module docstring)."""
    return {v for v in _VALUE.findall(text) if len(v) >= _MIN_VALUE}


@dataclass(slots=True)
class ApiFeedback:
    """Per-event terms (bool arrays of length T) and the run's rate."""

    call: np.ndarray
    valid: np.ndarray
    novel: np.ndarray
    retained: np.ndarray

    @property
    def effective(self) -> np.ndarray:
        return self.call & self.valid & self.novel & self.retained

    @property
    def rate(self) -> float:
        """Σ effective / Σ call (0 for a run without calls)."""
        calls = int(self.call.sum())
        return float(self.effective.sum()) / calls if calls else 0.0


def api_feedback(run: Run) -> ApiFeedback:
    """The per-event terms of ``run`` (module docstring)."""
    events = run.events
    n = len(events)
    call = np.zeros(n, dtype=bool)
    valid = np.zeros(n, dtype=bool)
    novel = np.zeros(n, dtype=bool)
    retained = np.zeros(n, dtype=bool)
    seen: set[tuple[str | None, str]] = set()
    args: list[set[str]] = [set()] * n
    for i, e in enumerate(events):
        if e.tool_calls <= 0:
            continue
        call[i] = True
        valid[i] = e.status not in _FAILED
        key = (e.tool, e.action_text)
        novel[i] = key not in seen
        seen.add(key)
        args[i] = values(e.action_text)
    later: set[str] = set()
    for i in range(n - 1, -1, -1):
        if not call[i]:
            continue
        retained[i] = not later.isdisjoint(values(events[i].observation_text) - args[i])
        later |= args[i]
    return ApiFeedback(call, valid, novel, retained)


__all__ = ["ApiFeedback", "api_feedback", "values"]
