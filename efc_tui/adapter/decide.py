"""Would-be EFC-Adapter decisions for every event of a scored run (SPEC §6).

For event t, ``decide`` reads events 0..t only, so the decisions of a trace and of any
truncation of it agree on the events they share (a live log can be replayed as it grows).

Per event:
- the ledger entry (e_t, ÊFC_nr_t, ΔC_t, X̂_nr_t) from the prefix score (``prefix.py``);
- memory gating: promote / scratch / discard with its reason (``gating.py``);
- control: ``rollback`` when an earlier candidate scored higher than the current one,
  else ``stop`` when either stop rule fires, else ``continue``. The window rule (SPEC §6,
  paper eq. "adapter stopping"):

      over the last W events:  (Σ ÊFC_nr / D̂_task) / Σ ΔC < ε   ⇒ stop

  (no decision before W events; a window with Σ ΔC = 0 never stops). The repetition rule
  (ours, ``loops.py``): the action of e_t has given the same failing outcome k times in a
  row, with only reasoning, messages, memory writes, edits and harness errors in between;
- selection: when several alternatives share a step index (rollouts, candidates, tests,
  tool queries), each is ranked by ROI = (ÊFC_nr / D̂_task) / ΔC among the alternatives of
  its step seen so far; otherwise ``audit``.

Candidate score (for roll-back), our definition: a candidate is a generation event or a
repair (a new version of the candidate). Its score is its latest verdict before the next
candidate, from its own status or a checker event (c = 1): the fraction of checks passed
when the verdict carries counts (denominator: the most checks known so far in the run),
else the status quality Q (passed 1.0, assertion_error 0.42, ...). Candidates sharing a
step index are siblings (rollouts to choose among, ranked by ROI), not versions: the
current candidate is the best-scored sibling, and only candidates of earlier steps are
roll-back targets.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from types import ModuleType
from typing import Any, NamedTuple, overload

import numpy as np
from msgspec import Struct

from efc_tui import _fast
from efc_tui.adapter.config import (
    ALTERNATIVE_KINDS,
    CANDIDATE_KINDS,
    DISCARD_NOVELTY,
    INVALID_STATUSES,
    PROMOTE_NOVELTY,
    AdapterConfig,
)
from efc_tui.adapter.gating import gate_memory
from efc_tui.adapter.loops import repeat_stop, streaks_and_starts
from efc_tui.adapter.prefix import PrefixDemand, prefix_demand, prefix_nr
from efc_tui.adapter.summary import (
    AdapterSummary,
    budget_key,
    first_stop,
    stop_index,
    success_at_risk,
    waste_split,
)
from efc_tui.compact import ListMap
from efc_tui.model import STATUS_VALUE, Event, EventKind, Status
from efc_tui.scoring.constants import Q_STATUS
from efc_tui.scoring.features import Features
from efc_tui.scoring.gates import Gates
from efc_tui.scoring.ledger import Ledger

CONTINUE = "continue"
STOP = "stop"
ROLLBACK = "rollback"
AUDIT = "audit"
RANK = "rank"


def _num(x: float | None) -> float | None:
    if x is None or not math.isfinite(x):
        return None
    return float(x)


class Decision(Struct):
    """What the adapter would have decided at one event, from the prefix up to it (a Struct:
    one is built per event, in C)."""

    index: int
    step: int
    #: ledger entry (SPEC §6): prefix ÊFC_nr_t, ΔC_t and X̂_nr_t = Σ_{i≤t} ÊFC_nr_i / D̂_task
    efc_nr: float
    dC: float
    x_nr: float
    memory: str
    memory_reason: str
    control: str
    control_reason: str
    #: (Σ ÊFC_nr / D̂) / Σ ΔC over the last W events; None before W events or at zero cost
    window_ratio: float | None
    #: the window rule fired here (also true where control is rollback)
    stop_rule: bool
    #: the repetition streak in force after this event: how many times in a row one action
    #: has given one failing outcome (0: none; ``loops.py``)
    repeat_count: int
    #: the repetition rule fired here: repeat_count reached the limit (also where control
    #: is rollback)
    repeat_rule: bool
    rollback_to: int | None
    #: score of the current candidate after this event (None: no candidate or no verdict yet)
    candidate_score: float | None
    selection: str
    #: (ÊFC_nr_t / D̂) / ΔC_t; None when ΔC_t = 0
    roi: float | None
    roi_rank: int | None
    roi_of: int | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "step": self.step,
            "efc_nr": _num(self.efc_nr),
            "dC": _num(self.dC),
            "x_nr": _num(self.x_nr),
            "memory": self.memory,
            "memory_reason": self.memory_reason,
            "control": self.control,
            "control_reason": self.control_reason,
            "window_ratio": _num(self.window_ratio),
            "stop_rule": self.stop_rule,
            "repeat_count": self.repeat_count,
            "repeat_rule": self.repeat_rule,
            "rollback_to": self.rollback_to,
            "candidate_score": _num(self.candidate_score),
            "selection": self.selection,
            "roi": _num(self.roi),
            "roi_rank": self.roi_rank,
            "roi_of": self.roi_of,
        }


def verdict_score(ev: Event, known_checks: int) -> float:
    """A candidate's score from one verdict: share of checks passed, else Q(status)."""
    ch = ev.checks
    if ch is not None and ch.ran > 0:
        return ch.passed / max(known_checks, ch.total or 0, ch.ran)
    return Q_STATUS[ev.status]


def _window_ratios(nr: np.ndarray, dc: np.ndarray, d_task: float, window: int) -> np.ndarray:
    """(Σ ÊFC_nr / D̂) / Σ ΔC over events t−W+1..t, NaN before W events or at zero cost."""
    cs_nr = np.concatenate(([0.0], np.cumsum(nr)))
    cs_c = np.concatenate(([0.0], np.cumsum(dc)))
    return window_ratios(cs_nr, cs_c, d_task, window)


def running_ledger(
    nr: np.ndarray,
    dc: np.ndarray,
    d_task: float,
    window: int,
    kept_nr: list[float] | None = None,
    kept_c: list[float] | None = None,
) -> tuple[np.ndarray, np.ndarray, list[float], list[float]]:
    """X̂_nr and the window ratio of events that follow the running sums ``kept_nr`` /
    ``kept_c`` (ΣÊFC_nr and ΣΔC over the run's first i events, for the last W + 1 values
    of i; None: the run's start), and those sums for the events that follow these. The
    sums go on in the order one pass over the run adds them, so a run decided in pieces
    gets the figures of one pass."""
    kept_nr = kept_nr if kept_nr is not None else [0.0]
    kept_c = kept_c if kept_c is not None else [0.0]
    cs_nr = np.cumsum(np.concatenate(([kept_nr[-1]], nr)))
    cs_c = np.cumsum(np.concatenate(([kept_c[-1]], dc)))
    # (a run's start keeps only the sum before its first event: nothing to prepend)
    all_nr = np.concatenate((kept_nr[:-1], cs_nr)) if len(kept_nr) > 1 else cs_nr
    all_c = np.concatenate((kept_c[:-1], cs_c)) if len(kept_c) > 1 else cs_c
    # the kept sums reach back W events (or to the run's start): the ratios of these
    # events are the last len(nr) of that stretch's
    ratios = window_ratios(all_nr, all_c, d_task, window)[len(all_nr) - 1 - len(nr) :]
    x_nr = cs_nr[1:] / d_task
    return x_nr, ratios, all_nr[-(window + 1) :].tolist(), all_c[-(window + 1) :].tolist()


def window_ratios(cs_nr: np.ndarray, cs_c: np.ndarray, d_task: float, window: int) -> np.ndarray:
    """``_window_ratios`` from the running sums (``cs[i]``: the sum over the first i events
    of a stretch, ``cs[0]`` its start): the ratio of each event after ``cs[0]``, the sums
    differenced as in one pass over the run (NaN for the first W − 1 events of the stretch:
    a stretch that starts W events before the first event wanted gives them all)."""
    T = len(cs_nr) - 1
    out = np.full(T, np.nan)
    if window > T:
        return out
    gain = (cs_nr[window:] - cs_nr[:-window]) / d_task
    cost = cs_c[window:] - cs_c[:-window]
    with np.errstate(divide="ignore", invalid="ignore"):
        out[window - 1 :] = np.where(cost > 0, gain / np.where(cost > 0, cost, 1.0), np.nan)
    return out


def _best(group: list[list[Any]]) -> tuple[float, int] | None:
    """(score, event) of the best-scored candidate in ``group`` (ties: the latest)."""
    best: tuple[float, int] | None = None
    for idx, score in group:
        if score is not None and (best is None or score >= best[0]):
            best = (score, idx)
    return best


def _roi_key(roi: float | None, efc_nr: float) -> float:
    if roi is not None:
        return roi
    return math.inf if efc_nr > 0 else 0.0


class _Loop(NamedTuple):
    decisions: list[Decision] | None  # None: built when read (the compiled run figures)
    has_obs: np.ndarray  # bool: a non-blank observation
    first_pass: int | None
    first_rollback: tuple[int, int] | None
    memory_counts: dict[str, int]
    ranked_steps: int


class _Inputs(NamedTuple):
    """What the per-event loop reads, computed once for both implementations."""

    events: list[Event]
    f: Features
    nr: np.ndarray
    dc: np.ndarray
    x_nr: np.ndarray
    ratios: np.ndarray
    streaks: np.ndarray
    starts: np.ndarray
    d_task: float
    W: int
    eps: float
    K: int


def _compiled_summary(fast: ModuleType, i: _Inputs) -> _Loop | None:
    """The run figures of the per-event loop in C (efc_tui/_speedups.c, ``decide_pass``):
    the same as ``_python_loop``'s, bit for bit, without the Decision objects
    (``decisions`` is None: ``DecideState`` builds them, and words their reasons, when they
    are read); None when a run holds something the C does not take."""
    if not _setup_compiled(fast):
        return None
    f = i.f
    cols = [
        np.ascontiguousarray(x, dtype=np.float64) for x in (f.n, f.a, f.p_prefix, f.m_prefix, f.c)
    ]
    try:
        out = fast.decide_pass(i.events, *cols)
    except _fast.Fallback:
        return None
    has_obs, first_pass, first_rollback, counts, ranked = out
    memory = {"promote": counts[0], "scratch": counts[1], "discard": counts[2]}
    return _Loop(
        None,
        np.frombuffer(has_obs, dtype=np.bool_),
        first_pass,
        first_rollback,
        memory,
        ranked,
    )


class LazyDecisions(Sequence[Decision]):
    """A run's decisions, built when first read (``decide(..., lazy=True)``): ``score``
    reports the run summary, and building 100k Decision objects and their reasons for
    nothing was most of the adapter's time. Reads like the list it builds."""

    __slots__ = ("_build", "_items")

    def __init__(self, build: Callable[[], list[Decision]]) -> None:
        self._build: Callable[[], list[Decision]] | None = build
        self._items: list[Decision] | None = None

    def _list(self) -> list[Decision]:
        if self._items is None:
            assert self._build is not None
            self._items = self._build()
            self._build = None  # the inputs it holds are freed
        return self._items

    def __len__(self) -> int:
        return len(self._list())

    @overload
    def __getitem__(self, i: int) -> Decision: ...
    @overload
    def __getitem__(self, i: slice) -> list[Decision]: ...
    def __getitem__(self, i: int | slice) -> Decision | list[Decision]:
        return self._list()[i]

    def __iter__(self) -> Iterator[Decision]:
        return iter(self._list())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyDecisions):
            other = other._list()
        return self._list() == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._list())


def _built_decisions(inputs: _Inputs) -> list[Decision]:
    decisions = _python_loop(inputs).decisions
    assert decisions is not None
    return decisions


_compiled_ready: dict[int, bool] = {}


def _setup_compiled(fast: ModuleType) -> bool:
    """Give the compiled loop the adapter's kinds, statuses and thresholds (once)."""
    ready = _compiled_ready.get(id(fast))
    if ready is None:
        fast.setup_decide(
            CANDIDATE_KINDS,
            ALTERNATIVE_KINDS,
            INVALID_STATUSES,
            EventKind.ERROR,
            Status.NONE,
            Status.PASSED,
            Q_STATUS,
            DISCARD_NOVELTY,
            PROMOTE_NOVELTY,
        )
        ready = _compiled_ready[id(fast)] = True
    return ready


def _python_loop(i: _Inputs) -> _Loop:
    """The per-event loop, pure Python (the compiled run figures mirror it): each
    event decided by ``DecideState``."""
    events, f = i.events, i.f
    state = DecideState(i.d_task, i.W, i.eps, i.K)
    step = state.step
    # plain lists: element access on them is several times faster than on numpy arrays
    nr_l, dc_l, x_l, ratio_l = i.nr.tolist(), i.dc.tolist(), i.x_nr.tolist(), i.ratios.tolist()
    streak_l, start_l = i.streaks.tolist(), i.starts.tolist()
    n_l, a_l, p_l, m_l, c_l = (
        f.n.tolist(),
        f.a.tolist(),
        f.p_prefix.tolist(),
        f.m_prefix.tolist(),
        f.c.tolist(),
    )
    decisions = [
        step(
            t,
            ev,
            nr_l[t],
            dc_l[t],
            x_l[t],
            ratio_l[t],
            streak_l[t],
            start_l[t],
            events[start_l[t]].status if streak_l[t] else Status.NONE,
            n_l[t],
            a_l[t],
            p_l[t],
            m_l[t],
            c_l[t],
        )
        for t, ev in enumerate(events)
    ]
    has_obs = np.fromiter(
        (bool(e.observation_text) and not e.observation_text.isspace() for e in events),
        bool,
        len(events),
    )
    return _Loop(
        decisions,
        has_obs,
        state.first_pass,
        state.first_rollback,
        state.memory_counts,
        len(state.ranked_steps),
    )


class DecideState:
    """What the per-event loop carries from one event to the next (the candidates and
    their scores, the ROI keys of each step's alternatives, the first pass and roll-back,
    the memory counts), so events fed in pieces are decided as in one pass."""

    __slots__ = (
        "K",
        "W",
        "best_earlier",
        "d_task",
        "eps",
        "eps_g",
        "first_pass",
        "first_rollback",
        "group",
        "group_step",
        "groups",
        "known_checks",
        "memory_counts",
        "ranked_steps",
    )

    def __init__(self, d_task: float, W: int, eps: float, K: int, compact: bool = False) -> None:
        self.d_task, self.W, self.eps, self.K = d_task, W, eps, K
        self.eps_g = f"{eps:g}"  # formatted once for the per-event reasons
        self.known_checks = 0
        # candidates of the current step: [event, score or None]; siblings at one step are
        # alternatives (rollouts), so the current candidate is the best-scored of them
        self.group: list[list[Any]] = []
        self.group_step: int | None = None
        # (score, event) of earlier steps; ties -> latest
        self.best_earlier: tuple[float, int] | None = None
        # step -> ROI keys of its alternatives so far (``compact``: pickles as arrays)
        self.groups: dict[int, list[float]] | ListMap = ListMap() if compact else {}
        self.first_rollback: tuple[int, int] | None = None
        self.first_pass: int | None = None
        self.memory_counts = {"promote": 0, "scratch": 0, "discard": 0}
        self.ranked_steps: set[int] = set()

    def __getstate__(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            setattr(self, k, v)

    def step(
        self,
        t: int,
        ev: Event,
        nr_t: float,
        dc_t: float,
        x_t: float,
        ratio: float,
        streak: int,
        start: int,
        start_status: Status,
        n: float,
        a: float,
        p: float,
        m: float,
        c: float,
    ) -> Decision:
        """Event t's decision from its ledger entry (ÊFC_nr, ΔC, X̂_nr, window ratio), its
        streak and where it began (with that event's status), and its prefix features."""
        d_task, W, eps, K = self.d_task, self.W, self.eps, self.K
        group = self.group
        # --- candidates and their scores (roll-back rule)
        if ev.kind in CANDIDATE_KINDS:
            if group and ev.step != self.group_step:
                done = _best(group)
                best = self.best_earlier
                if done is not None and (best is None or done[0] >= best[0]):
                    self.best_earlier = done
                group = self.group = []
            self.group_step = ev.step
            group.append([t, None])
        ch = ev.checks
        if ch is not None and ch.ran > 0:
            self.known_checks = max(self.known_checks, ch.total or 0, ch.ran)
        if group and ev.status is not Status.NONE and (group[-1][0] == t or c >= 1.0):
            group[-1][1] = verdict_score(ev, self.known_checks)
        if ev.status is Status.PASSED and self.first_pass is None:
            self.first_pass = t
        current = _best(group)
        cur_score = current[0] if current is not None else None

        # --- memory gating
        mem, mem_reason = gate_memory(ev, n=n, a=a, p=p, memory_write=m)
        self.memory_counts[mem] += 1

        # --- stop / roll back
        window_ratio = None if math.isnan(ratio) else ratio
        stop_rule = window_ratio is not None and window_ratio < eps
        repeat_rule = K > 0 and streak >= K
        rollback_to = None
        best_earlier = self.best_earlier
        if cur_score is not None and best_earlier is not None and best_earlier[0] > cur_score:
            rollback_to = best_earlier[1]
            control = ROLLBACK
            reason = (
                f"roll back to candidate at event {rollback_to}: it scored "
                f"{best_earlier[0]:.2f} > current {cur_score:.2f}"
            )
            if self.first_rollback is None:
                self.first_rollback = (t, rollback_to)
        elif repeat_rule:
            control = STOP
            reason = (
                f"stop: one action has failed the same way {streak} times in a row since event "
                f"{start} ({STATUS_VALUE[start_status]}; nothing learned in between; limit {K})"
            )
            if stop_rule:
                reason += f"; window ratio {ratio:.3g} < ε {self.eps_g} too"
        elif stop_rule:
            control = STOP
            reason = f"stop: window ratio {ratio:.3g} < ε {self.eps_g} over the last {W} events"
        elif t + 1 < W:
            control = CONTINUE
            reason = f"window not full ({t + 1} of {W} events)"
        elif window_ratio is None:
            control = CONTINUE
            reason = f"no raw cost in the last {W} events"
        else:
            control = CONTINUE
            reason = f"window ratio {ratio:.3g} ≥ ε {self.eps_g}"

        # --- ROI among alternatives sharing a step index
        roi = (nr_t / d_task) / dc_t if dc_t > 0 else None
        selection, rank, of = AUDIT, None, None
        if ev.kind in ALTERNATIVE_KINDS:
            key = _roi_key(roi, nr_t)
            seen = self.groups.setdefault(ev.step, [])
            if seen:
                rank = 1 + sum(1 for k in seen if k >= key)
                of = len(seen) + 1
                selection = RANK
                self.ranked_steps.add(ev.step)
            seen.append(key)

        return Decision(
            index=ev.index,
            step=ev.step,
            efc_nr=nr_t,
            dC=dc_t,
            x_nr=x_t,
            memory=mem,
            memory_reason=mem_reason,
            control=control,
            control_reason=reason,
            window_ratio=window_ratio,
            stop_rule=stop_rule,
            repeat_count=streak,
            repeat_rule=repeat_rule,
            rollback_to=rollback_to,
            candidate_score=cur_score,
            selection=selection,
            roi=roi if roi is None or math.isfinite(roi) else None,
            roi_rank=rank,
            roi_of=of,
        )


def prefix_nrs(ledgers: Sequence[Ledger]) -> list[np.ndarray]:
    """``prefix_nr`` of each scored run; runs of one estimator together, over their columns
    end to end (element-wise: each run's values are those it gets alone), so a batch of
    short runs (``adapter.score_and_decide_runs``) pays numpy's set-up once."""
    if len(ledgers) < 2 or any(led.estimator is not ledgers[0].estimator for led in ledgers):
        return [prefix_nr(led.features, led.gates, led.estimator) for led in ledgers]
    joined_f = Features(
        **{k: np.concatenate([getattr(led.features, k) for led in ledgers]) for k in _FEATURES}
    )
    joined_g = Gates(*(np.concatenate([getattr(led.gates, k) for led in ledgers]) for k in _GATES))
    nr = prefix_nr(joined_f, joined_g, ledgers[0].estimator)
    ends = np.cumsum([len(led.features.c) for led in ledgers]).tolist()
    return [nr[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]


_FEATURES = tuple(Features.__struct_fields__)
_GATES = tuple(Gates.__struct_fields__)


def decide(
    ledger: Ledger,
    config: AdapterConfig,
    demand: PrefixDemand | None = None,
    *,
    lazy: bool = False,
    nr: np.ndarray | None = None,
) -> tuple[Sequence[Decision], AdapterSummary]:
    """Decisions for every event of a scored run, and the run's counterfactual summary.
    ``lazy``: with the compiled extension, the summary now (its figures from the compiled
    loop, the same values) and the decisions when first read (LazyDecisions). ``nr``: the
    run's ``prefix_nr``, when already computed (``prefix_nrs``)."""
    run = ledger.run
    events = run.events
    f, g = ledger.features, ledger.gates
    dem = demand or prefix_demand(run)
    d_task = dem.value
    W, eps, K = config.window, config.epsilon, config.repeat
    if nr is None:
        nr = prefix_nr(f, g, ledger.estimator)
    dc = np.asarray(ledger.cost.delta, dtype=float)
    x_nr, ratios, _, _ = running_ledger(nr, dc, d_task, W)
    streaks, starts = streaks_and_starts(run)
    inputs = _Inputs(events, f, nr, dc, x_nr, ratios, streaks, starts, d_task, W, eps, K)

    loop = None
    fast = _fast.speedups()
    if lazy and fast is not None and type(events) is list:
        loop = _compiled_summary(fast, inputs)
    if loop is None:
        loop = _python_loop(inputs)
    built, has_obs, first_pass, first_rollback, memory_counts, n_ranked = loop
    decisions: Sequence[Decision] = (
        built if built is not None else LazyDecisions(partial(_built_decisions, inputs))
    )

    rep_stop = repeat_stop(streaks, K)
    stop, stop_by = first_stop(stop_index(ratios, eps), rep_stop)
    risk, risk_reason = success_at_risk(stop, first_pass, run.success, len(events))
    redundant = (f.n < DISCARD_NOVELTY) & has_obs
    waste = waste_split(dc, f.repeat_action, f.repeat_error, redundant, stop)
    summary = AdapterSummary(
        run_id=run.run_id,
        source_path=run.source_path,
        budget=budget_key(run),
        window=W,
        epsilon=eps,
        d_task=d_task,
        d_task_source=dem.source,
        events=len(events),
        c_raw=float(dc.sum()),
        stop_event=stop,
        stop_step=events[stop].step if stop is not None else None,
        stop_by=stop_by,
        repeat=K,
        repeat_stop_event=rep_stop,
        cost_saved=float(dc[stop + 1 :].sum()) if stop is not None else 0.0,
        first_pass_event=first_pass,
        success=run.success,
        success_at_risk=risk,
        at_risk_reason=risk_reason,
        rollback_event=first_rollback[0] if first_rollback else None,
        rollback_to=first_rollback[1] if first_rollback else None,
        memory=memory_counts,
        ranked_steps=n_ranked,
        waste=waste,
        ratios=ratios,
        dc=dc,
    )
    return decisions, summary
