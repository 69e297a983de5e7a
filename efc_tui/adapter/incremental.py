"""The prefix adapter event by event: decide a growing run's new events in time
proportional to them, not to the run (``live.Monitor``, the live hook).

The adapter's decision at event t reads events 0..t only (docs/adapter.md, "Causality").
Each of its passes carries a small state from one event to the next: the prefix features
(``scoring.features.PrefixState``: the shingles and actions seen, the error signatures,
the checks known, ...), the gates (``scoring.gates.GateState``), the repetition streak
(``loops.StreakState``), the per-event decision loop (``decide.DecideState``), and the
running sums of ÊFC_nr and ΔC (the last W of them for the window rule). ``PrefixScorer``
holds those states and steps them over each new event with the same code the batch pure
Python passes run, so events fed in any number of pieces get the decisions of
``score --adapter`` on the whole run (``tests/unit/test_incremental.py`` checks it on real runs
cut at random). The ÊFC, gate and cost arithmetic is element-wise per event
(``Theta.predict``), and the sums are continued in the order one pass adds them.

``stable=True``: the sets hash with ``stable_digest`` instead of ``hash`` (which changes
with every interpreter), so the scorer can be pickled by one hook process and used by the
next.
"""

from __future__ import annotations

import numpy as np
from msgspec import Struct

from efc_tui.adapter.config import AdapterConfig
from efc_tui.adapter.decide import DecideState, Decision, running_ledger
from efc_tui.adapter.loops import StreakState
from efc_tui.adapter.prefix import prefix_demand, prefix_nr
from efc_tui.compact import stable_digest
from efc_tui.model import Event, Run, Status
from efc_tui.scoring.estimator import Estimator, estimator_for
from efc_tui.scoring.features import (
    Features,
    PrefixState,
    position_rho,
    prefix_plan_change,
    target,
)
from efc_tui.scoring.gates import Gates, GateState
from efc_tui.scoring.raw_cost import raw_cost


class Step(Struct):
    """One event's decision, and where the repetition streak in force began (-1: none)
    with the raw cost and tokens of the events since (for a stop's reason)."""

    decision: Decision
    start: int
    cost: float = 0.0
    tokens: int = 0


class PrefixScorer:
    """Decides a run's events in order, any number at a time (module docstring)."""

    def __init__(
        self,
        run: Run,
        estimator: Estimator | None = None,
        *,
        window: int | None = None,
        epsilon: float | None = None,
        repeat: int | None = None,
        stable: bool = False,
    ) -> None:
        est = estimator if estimator is not None else estimator_for(run)
        cfg = AdapterConfig.from_estimator(est, window=window, epsilon=epsilon, repeat=repeat)
        self.theta = est.prefix
        self.config = cfg
        self.d_task = prefix_demand(run).value
        digest = stable_digest if stable else hash
        self.features = PrefixState(digest)
        self.gates = GateState()
        self.streaks = StreakState(digest)
        self.decide = DecideState(self.d_task, cfg.window, cfg.epsilon, cfg.repeat, stable)
        #: events decided so far
        self.next = 0
        self._prev_sid: int | None = None
        # running sums ΣÊFC_nr and ΣΔC over the first i events, for the last W + 1 values of i
        self._cs_nr = [0.0]
        self._cs_c = [0.0]
        # (ΔC, tokens) of each event since the streak in force began
        self._since: list[tuple[float, int]] = []
        self._start = -1

    def feed(self, events: list[Event]) -> list[Step]:
        """Decide ``events``, the run's events ``next``, ``next + 1``, ... in order."""
        k = len(events)
        if not k:
            return []
        t0 = self.next
        step_features = self.features.step
        cols = [step_features(ev, target(ev.action_text)) for ev in events]
        c, h, a, q, delta, n, mem, plan, verdict, rep_act, rep_err, sids = (
            np.asarray(col) for col in zip(*cols, strict=True)
        )
        p_prefix = prefix_plan_change(plan.astype(bool), sids.astype(np.int64), self._prev_sid)
        self._prev_sid = int(sids[-1])
        g = [self.gates.step(ev) for ev in events]
        gq, gg, gnr, gl, glnr, ga = (np.asarray(col) for col in zip(*g, strict=True))
        gates = Gates(gq, gg, gnr, gl, glnr, ga.astype(np.int64))
        zeros = np.zeros(k)
        f = Features(
            c=c.astype(float),
            h=h.astype(float),
            z=zeros,
            p=zeros,
            m=zeros,
            a=a.astype(float),
            q=q.astype(float),
            delta=delta.astype(float),
            rho=position_rho(t0, k),
            n=n.astype(float),
            p_prefix=p_prefix,
            m_prefix=mem.astype(bool).astype(float),
            has_verdict=verdict.astype(bool),
            repeat_action=rep_act.astype(bool),
            repeat_error=rep_err.astype(bool),
        )
        nr = prefix_nr(f, gates, self.theta)
        dc = np.asarray(raw_cost(Run(run_id="", events=list(events))).delta, dtype=float)
        x_nr, ratios, self._cs_nr, self._cs_c = running_ledger(
            nr, dc, self.d_task, self.config.window, self._cs_nr, self._cs_c
        )
        out = []
        step = self.decide.step
        streak = self.streaks
        n_l, a_l, p_l, m_l, c_l = (
            f.n.tolist(),
            f.a.tolist(),
            f.p_prefix.tolist(),
            f.m_prefix.tolist(),
            f.c.tolist(),
        )
        nr_l, dc_l, x_l, r_l = nr.tolist(), dc.tolist(), x_nr.tolist(), ratios.tolist()
        for j, ev in enumerate(events):
            t = t0 + j
            count, start = streak.step(t, ev)
            status = streak.status
            d = step(
                t,
                ev,
                nr_l[j],
                dc_l[j],
                x_l[j],
                r_l[j],
                count,
                start,
                status if status is not None else Status.NONE,
                n_l[j],
                a_l[j],
                p_l[j],
                m_l[j],
                c_l[j],
            )
            if start != self._start:
                self._since = []
                self._start = start
            if start >= 0:
                self._since.append((dc_l[j], ev.tokens_in + ev.tokens_out))
            s = Step(d, start)
            if d.repeat_rule:
                s.cost = sum(x for x, _ in self._since)
                s.tokens = sum(y for _, y in self._since)
            out.append(s)
        self.next = t0 + k
        return out
