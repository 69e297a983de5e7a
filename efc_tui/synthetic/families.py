"""The three synthetic task families (SPEC §7): Needle Lookup, State Tracking, Rule Filter.

They share one mechanism (``tasks.py``: facts, plausible tools, confirmations, state loss,
an exposing checker; ``engine.py``: the simulator) and differ in what a fact is, the tools
that serve it and how the trace reads:

- **Needle Lookup**: find the value stored under each of L keys; every key is held by one
  of the shard tools (``shard.read``, ``replica.read``, ...), which one is hidden.
- **State Tracking**: report the final value of L registers after a hidden log of
  operations; a register's operations are spread over the log tools and a later operation
  can overwrite what the agent already derived.
- **Rule Filter**: decide for L items whether each passes a hidden set of rules; an item's
  attributes and the rules live in catalog tools.

Oracle progress (paper appendix, "absolute progress" reading, see ``oracle.py``):
Needle Lookup counts shard hypotheses ruled out plus values recovered, State Tracking
correct transitions committed plus fixes, Rule Filter items eliminated plus conditions
confirmed: in every family, one unit per credited lookup.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from efc_tui.synthetic.tasks import Task, Template, draw_task


@dataclass(frozen=True, slots=True)
class Family:
    """One family's vocabulary: fact names, tools, wording of actions and observations."""

    name: str
    title: str
    check_tool: str
    #: plausible tools, in the order templates take them (P = 1 uses the first)
    tools: tuple[str, ...]
    fact_prefix: str
    value_prefix: str
    instruction: str
    #: "{tool} {fact}" style templates
    lookup: str
    miss: str
    hit: str

    def make_task(self, template: Template, task_id: str, rng: random.Random) -> Task:
        names = [f"{self.fact_prefix}{i + 1:02d}" for i in range(template.facts[1])]
        return draw_task(
            template,
            task_id,
            rng,
            fact_names=names,
            tools=self.tools,
            check_tool=self.check_tool,
            value_prefix=self.value_prefix,
            instruction=self.instruction,
        )


NEEDLE = Family(
    name="needle_lookup",
    title="Needle Lookup",
    check_tool="verify.keys",
    tools=("shard.read", "replica.read", "archive.read", "mirror.read", "cold.read"),
    fact_prefix="KEY-",
    value_prefix="VAL",
    instruction=(
        "Find the values stored under {n} keys ({facts}). Each read is served by one of the "
        "shard tools and only one of them holds the key at that moment. Reads are ambiguous: "
        "trust a value after {confirm} agreeing read(s). Candidates: {candidates}. "
        "Tools: {tools}. Submit every key's value."
    ),
    lookup="{tool} {fact}",
    miss="{fact} not held here (read {reading}, {scanned} keys scanned)",
    hit="{fact} -> {value} (read {reading}, {scanned} keys scanned)",
)

STATE = Family(
    name="state_tracking",
    title="State Tracking",
    check_tool="check.state",
    tools=("log.read", "journal.read", "wal.scan", "audit.read", "trace.read"),
    fact_prefix="reg",
    value_prefix="S",
    instruction=(
        "Registers {facts} are changed by a log of operations spread over the log tools. "
        "Report each register's final value. A derivation is only trusted after {confirm} "
        "agreeing replay(s); later operations can overwrite a register you derived. "
        "Candidates: {candidates}. Tools: {tools}."
    ),
    lookup="{tool} --register {fact}",
    miss="no operations on {fact} in this segment (replay {reading}, {scanned} entries)",
    hit="{fact} replays to {value} (replay {reading}, {scanned} entries)",
)

RULE = Family(
    name="rule_filter",
    title="Rule Filter",
    check_tool="check.filter",
    tools=("catalog.query", "inventory.scan", "rules.get", "spec.read", "registry.get"),
    fact_prefix="item-",
    value_prefix="CLS",
    instruction=(
        "Classify {n} items ({facts}) against the hidden rules. An item's attributes and the "
        "rules that apply to it live in one of the catalog tools. A classification is only "
        "trusted after {confirm} agreeing reading(s). Candidates: {candidates}. "
        "Tools: {tools}. Submit each item's class."
    ),
    lookup="{tool} {fact}",
    miss="{fact} not listed (reading {reading}, {scanned} rows)",
    hit="{fact} classifies as {value} (reading {reading}, {scanned} rows)",
)

FAMILIES: dict[str, Family] = {f.name: f for f in (NEEDLE, STATE, RULE)}
FAMILY_NAMES: tuple[str, ...] = tuple(FAMILIES)
