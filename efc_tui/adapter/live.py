"""The EFC-Adapter live: feed a running agent's events, get a decision for each.

``score --adapter`` replays a finished trace; a ``Monitor`` watches one that is still being
written, for a harness hook (``efc-tui hook``, ``integrations/hook.py``) or an in-process
companion (``integrations/inspect_ai.py``, ``integrations/mini_swe_agent.py``)::

    >>> mon = Monitor()
    >>> for verdict in mon.feed(event):     # one Verdict per new event
    ...     if verdict.act:                 # a rule that stops here, validated for this run
    ...         stop_the_agent(verdict.reason)

Each verdict carries the prefix adapter's own ``Decision`` for that event, unchanged: the
adapter reads events 0..t only (docs/adapter.md, "Causality"), so deciding the events of a
growing run as they arrive gives, event for event, what ``score --adapter`` gives on the
finished run (``tests/cli/test_hook_replay.py`` checks it on every Claude Code and Codex
fixture). On top of it come the user's budgets (``Budgets``), checked on the running sums.

What the companion acts on (``Verdict.act``):

- the **repetition rule** (one action failing the same way k times in a row): yes;
- a **budget** passed (``--max-usd``, ``--max-tokens``, ``--max-steps``): yes;
- the **window rule**: only when asked (``window_rule=True``). Its W and ε were chosen on
  synthetic runs; with labelled real runs in calibration no ε > 0 keeps real successes
  within the risk limit (docs/adapter.md, "What the figures say"), so on a real agent the
  rule is not validated, and the reason says so whether or not it acts;
- **rollback**: never (a hook cannot restore an earlier candidate); recorded only.

Incremental cost: each ``feed`` decides only its new events, stepping the adapter's
per-event state on (``incremental.PrefixScorer``), in time proportional to them and not
to the run; ``bench/hook_bench.py`` measures it. ``stable=True``: a state that another
process can take on (``state()`` / ``Monitor.resume``, the hook).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from msgspec import Struct

from efc_tui.adapter.decide import ROLLBACK, STOP, Decision
from efc_tui.adapter.incremental import PrefixScorer, Step
from efc_tui.errors import InputError
from efc_tui.model import Event, Run
from efc_tui.scoring.estimator import Estimator

#: what the reason says when the window rule fires on a run it was not validated for
WINDOW_NOT_VALIDATED = (
    "the window rule is not validated on real agent runs: its W and ε were chosen on "
    "synthetic runs, and calibrating with labelled real runs turns it off (docs/adapter.md)"
)

#: the longest action text a reason quotes
_QUOTE = 160


class Budgets(Struct, frozen=True):
    """User budgets, checked on the running sums of the events decided so far (None: no
    budget). USD is counted only where the trace records it (``Event.extra["cost_usd"]``
    or the run's ``cost_usd``); a transcript that records none never passes ``max_usd``."""

    max_usd: float | None = None
    max_tokens: int | None = None
    max_steps: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_usd", "max_tokens", "max_steps"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise InputError(f"--{name.replace('_', '-')} must be > 0, got {value}")


class Verdict(Struct):
    """The live companion's answer for one event."""

    #: event index in the run
    index: int
    #: the prefix adapter's decision (equal to ``score --adapter``'s)
    decision: Decision
    #: "continue", "stop" or "rollback": the adapter's control, or "stop" for a budget
    control: str
    #: "repeat", "window", "window+repeat", "budget" or None (continue)
    rule: str | None
    #: the companion acts on it (a stop by a rule validated for this run, or a budget)
    act: bool
    #: what the agent (and the audit log) is told: which action repeated, what it cost, what
    #: feedback would be new; or which budget passed; or why a rule is not acted on
    reason: str
    #: for the repetition rule: (tool, whitespace-normalized action) of the failing action
    action: tuple[str | None, str] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "control": self.control,
            "rule": self.rule,
            "act": self.act,
            "reason": self.reason,
            "action": list(self.action) if self.action else None,
            "adapter": self.decision.as_dict(),
        }


def measured_usage(ev: Event) -> bool:
    """The event records token usage (not estimated from text)."""
    return ev.tokens_in + ev.tokens_out > 0 and "tokens" not in ev.flags


def complete_events(
    run: Run,
    *,
    hold_last: bool = True,
    codex: bool = False,
    wait_for_usage: bool = True,
    base: int = 0,
    measured: bool = False,
) -> int:
    """How many of a growing run's first events can no longer change as the log grows:
    those before the first tool call still waiting for its result (its end time moves the
    wall time of every event after it), none before the log has recorded token usage (a
    reader estimates tokens from text for a log without any, for every event), and, with
    ``hold_last``, never the last event (a transcript written while the agent runs can
    still add to it: a text block that becomes the thought of the call that follows).
    ``codex``: Codex writes a response's usage (``token_count``) after its items, so its
    events wait for it (until then their tokens are estimated, flagged ``tokens``).
    ``wait_for_usage=False``: decide a run whose model reports no usage too (an in-process
    companion, which has no end-of-turn call to decide the rest at).
    ``base``: ``run.events`` are the run's events from ``base`` on, the events before it
    complete (``measured``: one of them records usage)."""
    events = run.events
    upto = len(events) - 1 if hold_last else len(events)
    measured = measured or not wait_for_usage
    for i in range(max(upto, 0)):
        ev = events[i]
        if ev.extra.get("no_result") or (codex and "tokens" in ev.flags):
            return base + i if measured else 0
        measured = measured or measured_usage(ev)
    return base + max(upto, 0) if measured else 0


def _quote(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= _QUOTE else one[: _QUOTE - 1] + "…"


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return _quote(lines[-1]) if lines else "(no output)"


class Monitor:
    """Decides the events of one growing run as they arrive (see the module docstring).

    ``feed(*events)`` appends events and returns their verdicts; ``sync(run, upto)`` takes
    a run read afresh from a growing log and returns the verdicts of its events from the
    first undecided one up to ``upto`` (exclusive). W, ε and k default to what
    ``score --adapter`` uses (the estimator file's W and ε, k = 3); overrides as there.
    """

    def __init__(
        self,
        run: Run | None = None,
        *,
        estimator: Estimator | None = None,
        window: int | None = None,
        epsilon: float | None = None,
        repeat: int | None = None,
        budgets: Budgets | None = None,
        window_rule: bool = False,
        stable: bool = False,
    ) -> None:
        self.run = run if run is not None else Run(run_id="live")
        self.estimator = estimator
        self.window, self.epsilon, self.repeat = window, epsilon, repeat
        self.budgets = budgets or Budgets()
        self.window_rule = window_rule
        self.stable = stable
        #: events decided so far (verdicts were returned for events 0..decided-1)
        self.decided = 0
        #: the first verdict the companion acted on (None: none yet)
        self.stopped: Verdict | None = None
        #: the adapter's state, made at the first event decided
        self.scorer: PrefixScorer | None = None
        self._summed = 0  # events counted in the running sums below
        self._tokens = 0
        self._usd = 0.0
        self._usd_known = False

    def state(self) -> tuple[Any, ...]:
        """What ``resume`` needs to go on deciding in another Monitor (picklable, between
        processes too with ``stable=True``): the settings, the events decided, the
        adapter's state and the budget sums."""
        return (
            (self.window, self.epsilon, self.repeat, self.stable),
            self.decided,
            self.scorer,
            (self._summed, self._tokens, self._usd, self._usd_known),
        )

    def resume(self, state: tuple[Any, ...]) -> bool:
        """Go on from ``state()`` of a Monitor with the same settings (False, and nothing
        taken, when they differ)."""
        settings, decided, scorer, sums = state
        if settings != (self.window, self.epsilon, self.repeat, self.stable):
            return False
        if scorer is not None and scorer.next != decided:
            return False
        self.decided, self.scorer = decided, scorer
        self._summed, self._tokens, self._usd, self._usd_known = sums
        return True

    def feed(self, *events: Event | Iterable[Event]) -> list[Verdict]:
        """Append events (their ``index`` is set to their position) and decide them."""
        for item in events:
            for ev in [item] if isinstance(item, Event) else item:
                ev.index = len(self.run.events)
                self.run.events.append(ev)
        return self.sync(self.run, len(self.run.events))

    def sync(self, run: Run, upto: int | None = None, base: int = 0) -> list[Verdict]:
        """Decide ``run``'s events ``decided..upto-1`` (all when ``upto`` is None). The
        events before ``decided`` must be the ones already decided (a run re-read from a
        log that only grew). ``base``: ``run.events`` holds the run's events from event
        ``base`` on (at most ``decided``: a log read on from where it was, ``hook``)."""
        self.run = run
        total = base + len(run.events)
        end = total if upto is None else min(upto, total)
        if end <= self.decided:
            return []
        if base > self.decided or (base and self.scorer is None):
            raise InputError(f"events {base}.. given, {self.decided}.. undecided")
        if self.scorer is None:
            self.scorer = PrefixScorer(
                run,
                self.estimator,
                window=self.window,
                epsilon=self.epsilon,
                repeat=self.repeat,
                stable=self.stable,
            )
            if self.decided:  # the events decided before: the adapter's state through them
                self.scorer.feed(run.events[: self.decided])
        out = []
        steps = self.scorer.feed(run.events[self.decided - base : end - base])
        for t, s in enumerate(steps, start=self.decided):
            v = self._verdict(run, s, t, base)
            if v.act and self.stopped is None:
                self.stopped = v
            out.append(v)
        self.decided = end
        return out

    # --- one event

    def _budget(self, run: Run, t: int, base: int) -> str | None:
        while self._summed <= t:  # running sums through event t (once per event)
            ev = run.events[self._summed - base]
            self._tokens += ev.tokens_in + ev.tokens_out
            usd = ev.extra.get("cost_usd")
            if isinstance(usd, int | float) and not isinstance(usd, bool):
                self._usd += float(usd)
                self._usd_known = True
            self._summed += 1
        b = self.budgets
        if b.max_steps is not None and t + 1 > b.max_steps:
            return f"step budget passed: {t + 1} events > --max-steps {b.max_steps}"
        if b.max_tokens is not None and self._tokens > b.max_tokens:
            return f"token budget passed: {self._tokens:,} tokens > --max-tokens {b.max_tokens:,}"
        if b.max_usd is not None:
            usd = self._usd if self._usd_known else run.cost_usd
            if usd is not None and usd > b.max_usd:
                return f"cost budget passed: ${usd:.2f} > --max-usd {b.max_usd:g}"
        return None

    def _verdict(self, run: Run, s: Step, t: int, base: int) -> Verdict:
        d: Decision = s.decision
        over = self._budget(run, t, base)
        if d.control == STOP and d.repeat_rule:
            rule = "window+repeat" if d.stop_rule else "repeat"
            reason, action = self._repeat_reason(run.events[t - base], s)
            return Verdict(
                t, d, STOP, rule, True, reason + (f"; also {over}" if over else ""), action
            )
        if over is not None:
            return Verdict(t, d, STOP, "budget", True, f"efc-tui: {over}")
        if d.control == STOP:  # the window rule alone
            act = self.window_rule
            ratio = d.window_ratio
            reason = (
                f"efc-tui: {d.control_reason} (the last events added little non-redundant "
                f"feedback for their cost: ratio {ratio:.3g}); {WINDOW_NOT_VALIDATED}"
                + ("" if act else "; not acted on (--window-rule to act)")
            )
            return Verdict(t, d, STOP, "window", act, reason)
        if d.control == ROLLBACK:
            return Verdict(
                t,
                d,
                ROLLBACK,
                None,
                False,
                f"{d.control_reason} (recorded; a hook cannot roll back)",
            )
        return Verdict(t, d, d.control, None, False, d.control_reason)

    def _repeat_reason(self, ev: Event, s: Step) -> tuple[str, tuple[str | None, str] | None]:
        from efc_tui.adapter.loops import action_signature

        sig = action_signature(ev)
        d = s.decision
        tool = f"{ev.tool} " if ev.tool else ""
        reason = (
            f"efc-tui: the same call has failed the same way {d.repeat_count} times in a row "
            f"(since event {s.start}): {tool}`{_quote(ev.action_text)}` -> {ev.status.value}: "
            f"{_last_line(ev.observation_text)}. Those attempts cost {s.cost:.2f} raw-cost units "
            f"({s.tokens:,} tokens) and added no new feedback. Running it again will give the "
            "same output; new feedback would be a different check, a change that alters this "
            "failure, or reading what the error names."
        )
        return reason, sig
