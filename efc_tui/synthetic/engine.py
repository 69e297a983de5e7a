"""Simulate one run step by step (SPEC §7).

The agent works through the task's facts in a random order (``tasks.py`` explains the
knobs). Each turn the harness and model decide what happens:

- **lookup** (tool): try one of the plausible tools for the current reading of the current
  fact. A *miss* ("not held here") rules that tool out for this reading; a *hit* returns the
  fact's value, which counts as one agreeing reading. With the harness's noise the channel
  corrupts a hit into the other candidate value; a *verified* lookup (the harness's
  verifier strength; it costs a second tool call) catches that at once, an unverified one
  lets the wrong value in, and two readings that disagree make the agent throw the fact's
  readings away and start over. A fact is established after 1 + N_obs agreeing readings;
  then, with the task's state-loss hazard, a later operation overwrites it (the next
  observation says so) and it must be established again (those events are ``repair``);
- **check**: the task's checker, run once before the first lookup, reports the expected
  value of every exposed fact (settling them) and how many subgoals pass;
- waste, which costs raw budget and tells the agent nothing: a call to an irrelevant
  distractor tool (routing), a repeated earlier query (redundancy), reflection, and a
  malformed call the harness rejects (the model);
- **memory**: progress is written to memory with the harness's memory fidelity; unsaved
  progress can be lost to a context compaction (state pressure) and is then redone;
- **submit** (generation): when every fact is established, or when the step or tool budget
  runs out; unestablished facts are answered with a guess between their two candidates.

The task's deterministic evaluator decides success from the submitted answer. Nothing here
reads an EFC formula: each event's oracle block records what happened in the hidden state
(``oracle.py``), which ``efc_tui.scoring.factors.oracle_factors`` turns into Oracle-EFC.
Lookup observations carry the environment's progress readout (subgoals passing, as
``observation.checks``) with probability 0.5 + 0.5·V_ver.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from efc_tui.model import Checks, Event, EventKind, Run, Status, TaskDemand
from efc_tui.synthetic import oracle
from efc_tui.synthetic.families import Family
from efc_tui.synthetic.harnesses import HarnessPreset, ModelPreset
from efc_tui.synthetic.tasks import Task, unit_hash

#: per-turn chance of a compaction = LOSS_RATE · π · u / (u + 3), u = unsaved progress events
LOSS_RATE = 0.35
SYSTEM_PROMPT_TOKENS = 250
_KIND = {k.value: k for k in EventKind}


@dataclass(slots=True)
class _Mark:
    """What the hidden state says about an event (oracle bookkeeping)."""

    delta: float = 0.0
    distractor: bool = False
    faithful: bool = True
    n: float = 0.0
    kept: bool = True


@dataclass(slots=True)
class _Fact:
    """The agent's belief about one fact, and the events behind it."""

    index: int
    #: readings (votes) per candidate value: value -> event indices
    votes: dict[str, list[int]] = field(default_factory=dict)
    established: str | None = None
    #: events whose information the current belief rests on (misses and votes)
    work: list[int] = field(default_factory=list)
    saved: bool = False
    repairing: bool = False
    #: tools still untried for the current reading, and the one that holds it
    untried: list[str] = field(default_factory=list)
    home: str | None = None
    last_event: int | None = None


class _Sim:
    """The mutable bookkeeping of one run."""

    def __init__(
        self,
        fam: Family,
        task: Task,
        h: HarnessPreset,
        m: ModelPreset,
        budget: float,
        rng: random.Random,
        matched: bool = False,
    ) -> None:
        self.fam, self.task, self.h, self.m, self.rng = fam, task, h, m, rng
        #: matched-budget accounting: every turn costs the same (full context, fixed output,
        #: one tool call, verification included), no reflection, and the agent keeps working
        #: (re-reading established facts) until the budget is spent
        self.matched = matched
        self.steps_cap = max(1, round(h.steps * budget))
        self.tools_cap = round(h.tools * budget)
        self.events: list[Event] = []
        self.marks: list[_Mark] = []
        self.steps = 0
        self.tools = 0
        self.transcript = len(task.instruction) // 4
        #: the true value of every fact (a state change flips it to the other candidate)
        self.truth = [f.value for f in task.facts]
        self.facts = [_Fact(i) for i in range(task.L)]
        order = [i for i in range(task.L) if i not in task.exposed]
        rng.shuffle(order)
        self.queue: list[int] = order
        self.exposed_open = set(task.exposed)
        self.unsaved: list[int] = []  # facts established but not yet in memory
        self.queries: list[tuple[str, str]] = []  # earlier (action, observation) of lookups
        self.notes: list[str] = []  # state changes to announce in the next observation
        self.reflect = 0.0 if matched else min(0.9, h.reflect * m.reflect)
        self.redundancy = min(0.9, h.redundancy * m.redundancy)

    # -- events -------------------------------------------------------------------------
    def emit(
        self,
        kind: str,
        tool: str | None,
        action: str,
        obs: str,
        mark: _Mark,
        *,
        status: Status = Status.NONE,
        checks: Checks | None = None,
        tool_calls: int = 0,
        refs: list[int] | None = None,
        memory: str | None = None,
        model_call: bool = True,
        extra: dict[str, Any] | None = None,
    ) -> int:
        t = len(self.events)
        rng = self.rng
        if self.notes and tool_calls:
            obs = obs + "\n" + "\n".join(self.notes)
            self.notes = []
        tin = tout = 0
        wall = 0.0
        if model_call and self.matched:
            tin = SYSTEM_PROMPT_TOKENS + self.h.context
            tout = round(self.h.tok_out * self.m.verbosity)
            wall = tout / 80.0
        elif model_call:
            tin = SYSTEM_PROMPT_TOKENS + min(self.h.context, self.transcript)
            tout = max(20, round(self.h.tok_out * self.m.verbosity * rng.uniform(0.6, 1.4)))
            wall = tout / 80.0
        if tool_calls and self.matched:
            tool_calls = 1
            wall += 0.8
        elif tool_calls:
            wall += rng.uniform(0.2, 1.5)
        self.transcript += tout + (len(action) + len(obs)) // 4
        ops = int(model_call) + tool_calls + int(memory is not None)
        self.events.append(
            Event(
                index=t,
                step=t,
                kind=_KIND[kind],
                tool=tool,
                status=status,
                action_text=action,
                observation_text=obs,
                tokens_in=tin,
                tokens_out=tout,
                tool_calls=tool_calls,
                wall_s=round(wall, 3),
                ops=ops,
                refs=tuple(sorted({r for r in (refs or ()) if r < t})),
                checks=checks,
                memory_write=memory,
                extra=extra or {},
            )
        )
        self.marks.append(mark)
        if model_call:
            self.steps += 1
        self.tools += tool_calls
        return t

    def finish_oracle(self) -> None:
        for ev, mk in zip(self.events, self.marks, strict=True):
            ev.oracle = oracle.oracle_block(
                delta_latent=mk.delta,
                distractor=mk.distractor,
                faithful=mk.faithful,
                kept=mk.kept,
                n=mk.n,
            )

    def readout(self) -> Checks | None:
        """The environment's progress readout, shown with probability 0.5 + 0.5·V_ver."""
        if self.rng.random() >= 0.5 + 0.5 * self.task.demand["V_ver"]:
            return None
        ok = sum(
            1
            for f in self.facts
            if f.established is not None and f.established == self.truth[f.index]
        )
        return Checks(ok, self.task.L - ok, self.task.L)

    def lose(self, events: list[int]) -> None:
        for e in events:
            self.marks[e].kept = False

    # -- memory -------------------------------------------------------------------------
    def maybe_compact(self) -> bool:
        pending = [
            f
            for f in self.facts
            if (f.work and f.established is None) or (f.established is not None and not f.saved)
        ]
        u = sum(len(f.work) for f in pending)
        if not u or self.rng.random() >= LOSS_RATE * self.h.pressure * u / (u + 3):
            return False
        for f in pending:
            self.lose(f.work)
            was = f.established is not None
            f.votes, f.work, f.established, f.untried, f.home = {}, [], None, [], None
            if f.index not in self.queue:
                self.queue.insert(0, f.index)
            if was and f.index in self.unsaved:
                self.unsaved.remove(f.index)
        self.transcript //= 3
        self.emit(
            "message",
            None,
            "",
            f"[context compacted: {u} recent observations summarized away]",
            _Mark(),
            model_call=False,
            extra={"compaction": True},
        )
        return True

    # -- actions ------------------------------------------------------------------------
    def check(self) -> None:
        """The task's checker, before the first lookup: settles every exposed fact."""
        task = self.task
        settled = sorted(self.exposed_open)
        passed = [i for i in sorted(task.exposed) if i not in self.exposed_open]
        lines = [f"PASS {task.facts[i].name}" for i in passed]
        lines += [f"FAIL {task.facts[i].name}: expected {self.truth[i]}" for i in settled]
        lines.append(f"{len(passed)} passed, {len(settled)} failed")
        t = len(self.events)
        for i in settled:
            st = self.facts[i]
            st.established, st.work, st.saved = self.truth[i], [t], True
        self.exposed_open.clear()
        self.emit(
            "check",
            task.check_tool,
            f"{task.check_tool} --all",
            "\n".join(lines),
            _Mark(delta=float(len(settled)), n=1.0 if settled else 0.0),
            status=Status.ASSERTION_ERROR if settled else Status.PASSED,
            checks=Checks(len(passed), len(settled), len(task.exposed)),
            tool_calls=1,
        )
        for i in settled:
            self.after_established(i, t)

    def after_established(self, i: int, t: int) -> None:
        """A fact just got established at event t: maybe the state moves on (hazard)."""
        task = self.task
        if self.rng.random() < task.hazard:
            f = task.facts[i]
            self.truth[i] = f.decoy if self.truth[i] == f.value else f.value
            self.notes.append(f"note: {f.name} was overwritten by a later operation")
            st = self.facts[i]
            st.established, st.votes, st.work, st.untried, st.home = None, {}, [], [], None
            st.repairing = True
            if i in task.exposed:
                self.exposed_open.add(i)
            else:
                self.queue.insert(0, i)
            if i in self.unsaved:
                self.unsaved.remove(i)

    def lookup(self, i: int) -> None:
        rng, task, fam = self.rng, self.task, self.fam
        st = self.facts[i]
        fact = task.facts[i]
        if not st.untried:
            st.untried = list(task.tools)
            st.home = rng.choice(task.tools)
        tool = st.untried.pop(rng.randrange(len(st.untried)))
        verified = (
            self.tools + (1 if self.matched else 2) <= self.tools_cap
            and rng.random() < self.h.verify
        )
        calls = 2 if verified else 1
        scanned = 8 + int(unit_hash(task.seed, fact.name, tool) * 40)  # the store's size
        refs = [st.last_event] if st.last_event is not None else []
        # the agent says which reading this is: a confirmation is a fresh read, not a replay
        reading = sum(len(v) for v in st.votes.values()) + 1
        action = fam.lookup.format(tool=tool, fact=fact.name)
        if reading > 1:
            action += f" --fresh {reading}"
        if st.repairing:
            action += " --after-change"
        if verified:
            action += " --verify"
        t = len(self.events)
        kind = "repair" if st.repairing else "tool"
        if tool != st.home:
            obs = fam.miss.format(tool=tool, fact=fact.name, scanned=scanned, reading=reading)
            if verified:
                obs += "\nverify: PASS"
            st.work.append(t)
            st.last_event = t
            self.emit(
                kind,
                tool,
                action,
                obs,
                _Mark(delta=1.0, n=1.0),
                checks=self.readout(),
                tool_calls=calls,
                refs=refs,
            )
            self.queries.append((action, obs))
            return
        st.untried = []  # the reading is done
        value = self.truth[i]
        corrupt = rng.random() < self.h.noise
        if corrupt:
            value = fact.decoy if value == fact.value else fact.value
        obs = fam.hit.format(
            tool=tool, fact=fact.name, value=value, scanned=scanned, reading=reading
        )
        status = Status.NONE
        if verified and corrupt:
            obs += "\nverify: FAIL checksum mismatch"
            st.last_event = t
            self.emit(
                kind,
                tool,
                action,
                obs,
                _Mark(faithful=False, n=1.0),
                status=Status.ASSERTION_ERROR,
                checks=self.readout(),
                tool_calls=calls,
                refs=refs,
            )
            return
        if verified:
            obs += "\nverify: PASS"
        st.votes.setdefault(value, []).append(t)
        st.work.append(t)
        st.last_event = t
        memory = None
        if len(st.votes) > 1:  # readings disagree: throw them away and start over
            self.lose([e for e in st.work if e < t])
            st.votes, st.work = {}, []
            obs += f"\n(conflicting readings of {fact.name}: starting over)"
            mark = _Mark(faithful=not corrupt, n=1.0, kept=False)
        else:
            mark = _Mark(delta=1.0 if not corrupt else 0.0, faithful=not corrupt, n=1.0)
            if len(st.votes[value]) >= 1 + task.confirm:
                st.established = value
                if i in self.queue:
                    self.queue.remove(i)
                st.repairing = False
                st.saved = False
                self.unsaved.append(i)
        if self.unsaved and rng.random() < self.h.memory:
            memory = "; ".join(
                f"{task.facts[j].name} = {self.facts[j].established}" for j in self.unsaved
            )
            for j in self.unsaved:
                self.facts[j].saved = True
            self.unsaved = []
        self.emit(
            kind,
            tool,
            action,
            obs,
            mark,
            status=status,
            checks=self.readout(),
            tool_calls=calls,
            refs=refs,
            memory=memory,
        )
        self.queries.append((action, obs))
        if st.established is not None and st.last_event == t:
            self.after_established(i, t)

    def recheck(self) -> bool:
        """Re-read an established fact once more (nothing new: only spends budget)."""
        done = [st for st in self.facts if st.established is not None]
        if not done:
            return False
        st = self.rng.choice(done)
        fact = self.task.facts[st.index]
        tool = self.rng.choice(self.task.tools)
        reading = sum(len(v) for v in st.votes.values()) + 2
        scanned = 8 + int(unit_hash(self.task.seed, fact.name, tool) * 40)
        obs = self.fam.hit.format(
            tool=tool, fact=fact.name, value=self.truth[st.index], scanned=scanned, reading=reading
        )
        self.emit(
            "tool",
            tool,
            self.fam.lookup.format(tool=tool, fact=fact.name) + " --recheck",
            obs,
            _Mark(n=0.0),
            tool_calls=1,
        )
        return True

    def repeat(self) -> None:
        action, obs = self.rng.choice(self.queries[-3:])
        self.emit("tool", action.split()[0], action, obs, _Mark(n=0.0), tool_calls=1)

    def distract(self) -> None:
        rng = self.rng
        tool = rng.choice(self.task.distractors)
        words = rng.sample(("config", "cache", "index", "legacy", "report", "session", "draft"), 2)
        obs = (
            "\n".join(
                f"{words[i % 2]}_{rng.randrange(1000):03d}: {rng.randrange(10**6)} bytes, no match"
                for i in range(rng.randint(1, 4))
            )
            + f"\ncursor c{rng.getrandbits(20):05x}"
        )
        self.emit(
            "tool",
            tool,
            f"{tool} {self.task.family.split('_')[0]} --page {rng.randint(1, 9)}",
            obs,
            _Mark(distractor=True, n=oracle.N_DISTRACTOR),
            tool_calls=1,
        )

    def malformed(self, i: int) -> None:
        tool = self.rng.choice(self.task.tools)
        fact = self.task.facts[i].name
        self.emit(
            "tool",
            tool,
            f"{tool} --{fact.lower()}=",
            f"error: unrecognized arguments: --{fact.lower()}=",
            _Mark(n=0.0),
            status=Status.STATIC_REJECT,
            tool_calls=1,
        )

    def do_reflect(self) -> None:
        thought = self.rng.choice(
            (
                "re-reading the task statement before the next step",
                "considering which tool to call next",
                "summarizing what is known so far",
                "double-checking the plan",
            )
        )
        self.emit("reflect", None, f"think: {thought}", "", _Mark())

    def submit(self) -> list[str]:
        rng, task = self.rng, self.task
        answer, refs = [], []
        for st, fact in zip(self.facts, task.facts, strict=True):
            if st.established is not None:
                answer.append(st.established)
                refs.extend(st.work[-1:])
            else:
                answer.append(rng.choice((fact.value, fact.decoy)))
        text = "submit " + " ".join(
            f"{f.name}={v}" for f, v in zip(task.facts, answer, strict=True)
        )
        self.emit("generation", None, text, "answer recorded", _Mark(), refs=refs)
        return answer

    # -- the loop -----------------------------------------------------------------------
    def run(self) -> list[str]:
        h, m, rng, task = self.h, self.m, self.rng, self.task
        while True:
            if self.steps_cap - self.steps <= 1:  # the last turn is kept for submitting
                break
            if self.maybe_compact():
                continue
            if rng.random() < self.reflect:
                self.do_reflect()
                continue
            if self.tools >= self.tools_cap:
                break
            if self.exposed_open:
                self.check()
                continue
            if not self.queue:
                if self.matched and self.recheck():
                    continue
                break
            i = self.queue[0]
            if rng.random() < m.malformed:
                self.malformed(i)
            elif task.distractors and rng.random() < (1 - h.route) * min(
                1.0, len(task.distractors) / 2
            ):
                self.distract()
            elif self.queries and rng.random() < self.redundancy:
                self.repeat()
            else:
                self.lookup(i)
        answer = self.submit()
        self.finish_oracle()
        return answer


def evaluate(task: Task, truth: list[str], answer: list[str]) -> bool:
    """The task's evaluator: every hidden test probes one fact's submitted value."""
    return all(answer[i] == truth[i] for i in task.tests)


def simulate_run(
    family: Family,
    task: Task,
    harness: HarnessPreset,
    model: ModelPreset,
    budget: float,
    rng: random.Random,
    *,
    run_id: str,
    extra: dict[str, Any] | None = None,
    matched: bool = False,
) -> Run:
    """One simulated run: events with oracle blocks, success from the task's evaluator.
    ``matched`` uses matched-budget accounting (``_Sim``): every run of a harness at a budget
    spends the same raw budget."""
    sim = _Sim(family, task, harness, model, budget, rng, matched)
    answer = sim.run()
    d = task.demand
    return Run(
        run_id=run_id,
        events=sim.events,
        task_id=task.task_id,
        task_family=task.family,
        harness=harness.name,
        model=model.name,
        budget={"level": budget, "steps": sim.steps_cap, "tool_calls": sim.tools_cap},
        success=evaluate(task, sim.truth, answer),
        task_demand=TaskDemand(
            L=d["L"], H_tool=d["H_tool"], S_state=d["S_state"], N_obs=d["N_obs"], V_ver=d["V_ver"]
        ),
        source_format="native",
        extra={
            "template": task.template,
            "task_seed": task.seed,
            "instruction": task.instruction,
            **(extra or {}),
        },
    )


__all__ = ["simulate_run"]
