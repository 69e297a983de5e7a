"""What the adapter would have saved: per run and over a corpus (SPEC §6).

Per run: the first event where a stop rule fires (the window rule or the repetition rule),
the raw cost after it (cost saved), whether the success was put at risk, and C_raw split by
waste cause. Over a corpus: cost saved and successes at risk, in total and per budget cap
(runs with the same caps are compared together, the paper's "matched budget caps"). A
sweep recomputes both over a range of ε from the stored window ratios (the repetition
rule's stop does not depend on ε), without rescoring.

Success at risk (SPEC §6, with our rules for traces that show no passing verdict) is
``True``, ``False`` or ``None`` (unknown):
- a run without a success label: unknown, whatever the adapter did (the label is what
  says whether there was a success to lose);
- a stop at the run's last event cuts nothing: not at risk; nor is a run never stopped;
- a run labelled failed (g = 0) has nothing to lose: not at risk;
- a run labelled successful with a passing verdict is at risk when its first passing
  verdict comes after the stop event;
- a run labelled successful with no passing verdict is at risk when the stop comes before
  its last event (its final, successful submission).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from msgspec import Struct, field

from efc_tui.model import Run


def _num(x: float | None) -> float | None:
    """A JSON-safe float: NaN and infinities become None."""
    if x is None:
        return None
    x = float(x)
    return x if np.isfinite(x) else None


def budget_key(run: Run) -> str:
    """A readable, canonical key for a run's budget caps ("none" when the log has none)."""
    if not run.budget:
        return "none"
    parts = []
    for k in sorted(run.budget, key=str):
        v = run.budget[k]
        parts.append(
            f"{k}={v:g}" if isinstance(v, int | float) and not isinstance(v, bool) else f"{k}={v}"
        )
    return ", ".join(parts)


def stop_index(ratios: np.ndarray, epsilon: float) -> int | None:
    """The first event whose window ratio is below ε (NaN = no full window or no cost)."""
    hits = np.flatnonzero(ratios < epsilon)  # NaN compares False
    return int(hits[0]) if hits.size else None


def success_at_risk(
    stop: int | None, first_pass: int | None, success: bool | None, events: int | None = None
) -> tuple[bool | None, str]:
    """Whether stopping at ``stop`` would have put the run's success at risk (None: unknown,
    the run has no success label), and why.

    ``events`` is the run's length: a stop at its last event cuts nothing.
    """
    if stop is None:
        cut = "never stopped"
    elif events is not None and stop >= events - 1:
        cut = "stopped at the last event: nothing cut"
    else:
        cut = ""
    if success is None:
        return None, f"no success label: unknown ({cut or f'stopped at event {stop}'})"
    if cut:
        return False, cut
    assert stop is not None
    if success is False:
        return False, "run failed: nothing to lose"
    if first_pass is not None:
        if first_pass > stop:
            return True, f"first passing verdict at event {first_pass}, after the stop at {stop}"
        return False, f"first passing verdict at event {first_pass}, before the stop"
    return (
        True,
        "labelled successful, no passing verdict before the stop: the final submission comes after it",
    )


def first_stop(window_stop: int | None, repeat_stop: int | None) -> tuple[int | None, str | None]:
    """The run's stop event and which rule fired there first ("window", "repeat" or both)."""
    if window_stop is None and repeat_stop is None:
        return None, None
    if repeat_stop is None or (window_stop is not None and window_stop < repeat_stop):
        return window_stop, "window"
    if window_stop is None or repeat_stop < window_stop:
        return repeat_stop, "repeat"
    return repeat_stop, "window+repeat"


class WasteSplit(Struct, frozen=True):
    """Raw cost by waste cause, each as a share of C_raw (causes overlap; ``any`` is the union)."""

    repeated_actions: float
    repeated_errors: float
    redundant_observations: float
    after_stop: float
    any: float

    def as_dict(self) -> dict[str, float]:
        return {
            "repeated_actions": self.repeated_actions,
            "repeated_errors": self.repeated_errors,
            "redundant_observations": self.redundant_observations,
            "after_stop": self.after_stop,
            "any": self.any,
        }


class AdapterSummary(Struct):
    """The counterfactual summary of one run (SPEC §6)."""

    run_id: str
    source_path: str | None
    budget: str
    window: int
    epsilon: float
    d_task: float
    d_task_source: str
    events: int
    c_raw: float
    stop_event: int | None
    stop_step: int | None
    #: the rule that fired first at the stop event: "window", "repeat", "window+repeat"
    stop_by: str | None
    #: the repetition rule's limit (0: off) and its first firing (None: never)
    repeat: int
    repeat_stop_event: int | None
    cost_saved: float
    first_pass_event: int | None
    success: bool | None
    #: True / False, or None when the run has no success label (unknown)
    success_at_risk: bool | None
    at_risk_reason: str
    rollback_event: int | None
    rollback_to: int | None
    memory: dict[str, int]
    ranked_steps: int
    waste: WasteSplit
    #: per-event window ratios (NaN before the window is full) and ΔC, for sweeps
    ratios: np.ndarray = field(default_factory=lambda: np.zeros(0))
    dc: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def cost_saved_share(self) -> float:
        return self.cost_saved / self.c_raw if self.c_raw > 0 else 0.0

    @property
    def succeeded(self) -> bool:
        """Labelled successful (an unlabelled run is not counted: its risk is unknown)."""
        return self.success is True

    @property
    def at_risk_label(self) -> str:
        """ "yes", "no" or "unknown" (no success label), as tables show it."""
        return (
            "unknown" if self.success_at_risk is None else "yes" if self.success_at_risk else "no"
        )

    def at(self, epsilon: float) -> tuple[int | None, float, bool | None]:
        """(stop event, cost saved, success at risk) had ε been ``epsilon`` (same W, same
        repetition rule)."""
        stop, _ = first_stop(stop_index(self.ratios, epsilon), self.repeat_stop_event)
        saved = float(self.dc[stop + 1 :].sum()) if stop is not None else 0.0
        risk, _ = success_at_risk(stop, self.first_pass_event, self.success, self.events)
        return stop, saved, risk

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "source_path": self.source_path,
            "budget": self.budget,
            "window": self.window,
            "epsilon": self.epsilon,
            "d_task": _num(self.d_task),
            "d_task_source": self.d_task_source,
            "events": self.events,
            "c_raw": _num(self.c_raw),
            "stop_event": self.stop_event,
            "stop_step": self.stop_step,
            "stop_by": self.stop_by,
            "repeat": self.repeat,
            "repeat_stop_event": self.repeat_stop_event,
            "cost_saved": _num(self.cost_saved),
            "cost_saved_share": _num(self.cost_saved_share),
            "first_pass_event": self.first_pass_event,
            "success": self.success,
            "success_at_risk": self.success_at_risk,
            "at_risk_reason": self.at_risk_reason,
            "rollback_event": self.rollback_event,
            "rollback_to": self.rollback_to,
            "memory": dict(self.memory),
            "ranked_steps": self.ranked_steps,
            "waste": self.waste.as_dict(),
        }


def waste_split(
    dc: np.ndarray,
    repeated_actions: np.ndarray,
    repeated_errors: np.ndarray,
    redundant: np.ndarray,
    stop: int | None,
) -> WasteSplit:
    """Shares of C_raw spent on each waste cause (boolean masks, one entry per event)."""
    total = float(dc.sum())
    after = np.zeros(len(dc), dtype=bool)
    if stop is not None:
        after[stop + 1 :] = True

    def share(mask: np.ndarray) -> float:
        return float(dc[mask].sum()) / total if total > 0 else 0.0

    union = repeated_actions | repeated_errors | redundant | after
    return WasteSplit(
        repeated_actions=share(repeated_actions),
        repeated_errors=share(repeated_errors),
        redundant_observations=share(redundant),
        after_stop=share(after),
        any=share(union),
    )


class Totals(Struct, frozen=True):
    """Cost saved and successes at risk over a set of runs at one ε."""

    budget: str
    runs: int
    stopped: int
    c_raw: float
    cost_saved: float
    #: runs labelled successful, and how many of them the stop puts at risk
    successes: int
    at_risk: int
    #: runs without a success label (their risk is unknown), and how many were stopped
    #: before their last event
    unlabelled: int = 0
    unlabelled_stopped: int = 0

    @property
    def saved_share(self) -> float:
        return self.cost_saved / self.c_raw if self.c_raw > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "runs": self.runs,
            "stopped": self.stopped,
            "c_raw": _num(self.c_raw),
            "cost_saved": _num(self.cost_saved),
            "cost_saved_share": _num(self.saved_share),
            "successes": self.successes,
            "successes_at_risk": self.at_risk,
            "unlabelled": self.unlabelled,
            "unlabelled_stopped": self.unlabelled_stopped,
        }


def _totals(budget: str, summaries: Sequence[AdapterSummary], epsilon: float | None) -> Totals:
    stopped = at_risk = successes = unlabelled = unlabelled_stopped = 0
    c_raw = saved = 0.0
    for s in summaries:
        if epsilon is None:
            stop, cut, risk = s.stop_event, s.cost_saved, s.success_at_risk
        else:
            stop, cut, risk = s.at(epsilon)
        stopped += stop is not None
        at_risk += risk is True
        successes += s.succeeded
        if s.success is None:
            unlabelled += 1
            unlabelled_stopped += stop is not None and stop < s.events - 1
        c_raw += s.c_raw
        saved += cut
    return Totals(
        budget,
        len(summaries),
        stopped,
        c_raw,
        saved,
        successes,
        at_risk,
        unlabelled,
        unlabelled_stopped,
    )


class CorpusSummary(Struct, frozen=True):
    """Totals over a corpus and per budget cap, at one setting of W, ε and the repetition
    limit (None where the runs disagree)."""

    window: int | None
    epsilon: float | None
    total: Totals
    by_budget: tuple[Totals, ...]
    repeat: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "window": self.window,
            "epsilon": self.epsilon,
            "repeat": self.repeat,
            "total": self.total.as_dict(),
            "by_budget": [g.as_dict() for g in self.by_budget],
        }


def corpus_summary(
    summaries: Iterable[AdapterSummary], epsilon: float | None = None
) -> CorpusSummary:
    """Totals over runs, and per budget cap; ``epsilon`` re-decides the stops at another ε."""
    runs = list(summaries)
    groups: dict[str, list[AdapterSummary]] = {}
    for s in runs:
        groups.setdefault(s.budget, []).append(s)
    windows = {s.window for s in runs}
    repeats = {s.repeat for s in runs}
    eps = (
        epsilon
        if epsilon is not None
        else (runs[0].epsilon if runs and len({s.epsilon for s in runs}) == 1 else None)
    )
    return CorpusSummary(
        window=windows.pop() if len(windows) == 1 else None,
        epsilon=eps,
        total=_totals("all", runs, epsilon),
        by_budget=tuple(_totals(k, groups[k], epsilon) for k in sorted(groups)),
        repeat=repeats.pop() if len(repeats) == 1 else None,
    )


class SweepPoint(Struct, frozen=True):
    epsilon: float
    total: Totals

    def as_dict(self) -> dict[str, Any]:
        d = self.total.as_dict()
        d.pop("budget")
        return {"epsilon": self.epsilon, **d}


def sweep(summaries: Iterable[AdapterSummary], epsilons: Iterable[float]) -> list[SweepPoint]:
    """The cost-saved vs success-at-risk curve over ε (same W and repetition rule as the
    summaries)."""
    runs = list(summaries)
    return [SweepPoint(float(e), _totals("all", runs, float(e))) for e in sorted(set(epsilons))]
