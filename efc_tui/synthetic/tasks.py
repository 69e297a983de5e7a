"""Templates and task instances of the synthetic families, with causal task demand.

Every synthetic task asks the agent to establish ``L`` hidden *facts* (a shard's value, a
register's final value, whether an item passes the rules) and submit them. Each of the
paper's task-demand components (SPEC §4) is a knob of the task that really changes how much
effective feedback success needs:

| component | knob (what the environment does) | work it adds |
|---|---|---|
| L       | facts to establish | one fact's work per fact |
| H_tool  | each reading of a fact is served by one of P plausible tools, and which one is hidden (it changes from reading to reading); the agent tries them in turn, every miss ruling one out | (P + 1) / 2 lookups per reading: H_tool = (P + 1) / 2 |
| S_state | state-loss hazard h: an established fact is invalidated (a later operation overwrites it) with probability h and must be established again | 1 / (1 − h) establishments per fact: S_state = 1 / (1 − h) |
| N_obs   | observation ambiguity: a value is only trusted after 1 + N_obs agreeing readings | 1 + N_obs readings per establishment |
| V_ver   | the share of facts the task's checker exposes: one check settles every exposed fact (it reports their expected values) | only the other (1 − V_ver)·L facts need readings |

So the credited work a task needs is ``(1 − V_ver)·L · H_tool · (1 + N_obs) · S_state``
lookups (plus one check when something is exposed): the paper's hand-designed D_task, with
every factor causal. Harness and model quality (routing to irrelevant tools, redundant
queries, reflection, channel noise, memory loss, malformed actions) waste raw budget without
changing that requirement: they move η, not D.

Success comes from the task's deterministic evaluator: ``TESTS`` hidden test cases, each
probing one fact, pass when the submitted value of every probed fact is right. A fact the
agent did not establish is answered with one of its two candidate values (right half of the
time), so success is a smooth function of the share of the work done, never a hard
threshold, and a run with no feedback at all still succeeds (1/2)^TESTS of the time.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from efc_tui.errors import InputError

#: the default corpus (``efc-tui simulate``); here, not in corpus.py, so the CLI can show
#: them in --help without importing the simulator
DEFAULT_SEED = 7
DEFAULT_RUNS = 32
DEFAULT_BUDGETS: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0)
DEFAULT_MODELS: tuple[str, ...] = ("sim-small", "sim-base", "sim-large")

#: irrelevant tools a poorly routed harness wastes calls on (they hold none of the facts)
DISTRACTOR_TOOLS = (
    "cache.lookup",
    "legacy.grep",
    "web.search",
    "notes.read",
    "metrics.query",
    "docs.fetch",
    "shell.ls",
    "kv.scan",
)
#: hidden test cases of the evaluator; each probes one fact (drawn with replacement)
TESTS = 3


@dataclass(frozen=True, slots=True)
class Template:
    """A template family of tasks: the levels its instances draw around (SPEC §7)."""

    name: str
    family: str
    #: facts to establish, inclusive range (L)
    facts: tuple[int, int]
    #: plausible tools per reading (P; H_tool = (P + 1) / 2)
    plausible: int
    #: state-loss hazard h (S_state = 1 / (1 − h)); an instance draws it within ±0.05
    hazard: float
    #: extra agreeing readings a value needs (N_obs)
    confirm: int
    #: share of facts the checker exposes (V_ver); an instance draws it within ±0.05
    exposed: float
    #: irrelevant distractor tools on offer, inclusive range
    distractors: tuple[int, int]
    intent: str


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact: its name, its true value and the other candidate value."""

    name: str
    value: str
    decoy: str


@dataclass(slots=True)
class Task:
    """One task instance: concrete knob values and the hidden state."""

    task_id: str
    family: str
    template: str
    seed: int
    facts: tuple[Fact, ...]
    #: the plausible tools of the family (the first ``plausible`` of them are on offer)
    tools: tuple[str, ...]
    hazard: float
    confirm: int
    #: indices of the facts the checker exposes
    exposed: frozenset[int]
    distractors: tuple[str, ...]
    #: indices of the facts the evaluator's hidden tests probe
    tests: tuple[int, ...]
    instruction: str
    check_tool: str
    #: task-demand factors L, H_tool, S_state, N_obs, V_ver (SPEC §4), written to the header
    demand: dict[str, float] = field(default_factory=dict)

    @property
    def L(self) -> int:
        return len(self.facts)

    @property
    def plausible(self) -> int:
        return len(self.tools)


def unit_hash(*parts: Any) -> float:
    """A deterministic number in [0, 1) from its arguments (same on every machine)."""
    return zlib.crc32(":".join(map(str, parts)).encode()) / 2**32


def hex_id(rng: random.Random, prefix: str) -> str:
    return f"{prefix}-{rng.getrandbits(24):06X}"


def h_tool(plausible: int) -> float:
    """H_tool: expected lookups per reading when one of P plausible tools holds it."""
    return (plausible + 1) / 2


def s_state(hazard: float) -> float:
    """S_state: expected establishments per fact under state-loss hazard h."""
    return 1.0 / (1.0 - hazard)


def required_work(task: Task) -> float:
    """The credited lookups the task needs in expectation (module docstring): the causal
    D_task the simulator implements."""
    open_facts = task.L - len(task.exposed)
    check = 1.0 if task.exposed else 0.0
    return open_facts * h_tool(task.plausible) * (1 + task.confirm) * s_state(task.hazard) + check


def make_demand(task: Task) -> dict[str, float]:
    return {
        "L": float(task.L),
        "H_tool": h_tool(task.plausible),
        "S_state": round(s_state(task.hazard), 4),
        "N_obs": float(task.confirm),
        "V_ver": round(len(task.exposed) / task.L, 4),
    }


def draw_task(
    template: Template,
    task_id: str,
    rng: random.Random,
    *,
    fact_names: list[str],
    tools: tuple[str, ...],
    check_tool: str,
    value_prefix: str,
    instruction: str,
) -> Task:
    """A task instance of ``template``: the family supplies names, tools and wording.

    ``instruction`` is formatted with ``facts``, ``tools``, ``n``, ``confirm`` and
    ``candidates`` (the two candidate values of every fact).
    """
    n = rng.randint(*template.facts)
    hazard = (
        round(min(0.9, max(0.0, template.hazard + rng.uniform(-0.05, 0.05))), 4)
        if template.hazard
        else 0.0
    )
    share = (
        min(0.8, max(0.0, template.exposed + rng.uniform(-0.05, 0.05))) if template.exposed else 0.0
    )
    n_exposed = min(n - 1, round(share * n))
    facts = []
    for i in range(n):
        a, b = hex_id(rng, value_prefix), hex_id(rng, value_prefix)
        facts.append(Fact(fact_names[i], a, b))
    exposed = frozenset(rng.sample(range(n), n_exposed))
    distractors = tuple(rng.sample(DISTRACTOR_TOOLS, rng.randint(*template.distractors)))
    plausible = tools[: template.plausible]
    tests = tuple(rng.randrange(n) for _ in range(TESTS))
    on_offer = [*plausible, check_tool, *distractors]
    candidates = "; ".join(f"{f.name}: {' or '.join(sorted((f.value, f.decoy)))}" for f in facts)
    text = instruction.format(
        facts=", ".join(f.name for f in facts),
        tools=", ".join(on_offer),
        n=n,
        confirm=template.confirm + 1,
        candidates=candidates,
    )
    task = Task(
        task_id=task_id,
        family=template.family,
        template=template.name,
        seed=rng.getrandbits(32),
        facts=tuple(facts),
        tools=plausible,
        hazard=hazard,
        confirm=template.confirm,
        exposed=exposed,
        distractors=distractors,
        tests=tests,
        instruction=text,
        check_tool=check_tool,
    )
    task.demand = make_demand(task)
    return task


def parse_list(
    value: str | list[str] | tuple[str, ...] | None, known: tuple[str, ...], what: str
) -> tuple[str, ...]:
    """Comma-separated names (or a list) checked against the known ones; None means all."""
    if value is None:
        return known
    items: Iterable[str] = (
        value.split(",") if isinstance(value, str) else [p for v in value for p in v.split(",")]
    )
    out: list[str] = []
    for raw in items:
        name = raw.strip()
        if not name:
            continue
        if name not in known:
            raise InputError(f"unknown {what} {name!r}; known: {', '.join(known)}")
        if name not in out:
            out.append(name)
    if not out:
        raise InputError(f"no {what} given")
    return tuple(out)
