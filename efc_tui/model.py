"""The one shared vocabulary: runs, feedback events, kinds and statuses (SPEC §2).

Every reader produces :class:`Run` objects; scoring, fitting, the adapter, the CLI and the
app only ever see these. Text is kept whole here; truncation for display happens at the
edges (app, tables), never in the data model.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from msgspec import Struct, field


class EventKind(StrEnum):
    """What a feedback event is (SPEC §2)."""

    TOOL = "tool"
    CHECK = "check"
    GENERATION = "generation"
    REPAIR = "repair"
    REFLECT = "reflect"
    MEMORY = "memory"
    PLAN = "plan"
    MESSAGE = "message"
    ERROR = "error"


class Status(StrEnum):
    """The verdict an observation carries (SPEC §2). ``none`` means it carries none."""

    PASSED = "passed"
    ASSERTION_ERROR = "assertion_error"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    STATIC_REJECT = "static_reject"
    API_ERROR = "api_error"
    OTHER = "other"
    NONE = "none"

    @property
    def severity(self) -> int:
        """Rank in SPEC §2's order, lowest (api_error, 0) to highest (passed, 6); none is -1."""
        return SEVERITY[self]

    @property
    def has_verdict(self) -> bool:
        return self is not Status.NONE


#: api_error < static_reject < timeout < runtime_error < other < assertion_error < passed
SEVERITY: dict[Status, int] = {
    Status.API_ERROR: 0,
    Status.STATIC_REJECT: 1,
    Status.TIMEOUT: 2,
    Status.RUNTIME_ERROR: 3,
    Status.OTHER: 4,
    Status.ASSERTION_ERROR: 5,
    Status.PASSED: 6,
    Status.NONE: -1,
}

#: each status's name as text: a dict lookup, several times cheaper than the enum's
#: ``.value`` on the per-event paths that spell it (error signatures, decision reasons)
STATUS_VALUE: dict[Status, str] = {s: s.value for s in Status}


class Checks(Struct, gc=False):
    """Counts of checks an observation reports (tests passed / failed / known in all).
    Untracked by the cyclic collector, as :class:`Event` (why there)."""

    passed: int = 0
    failed: int = 0
    total: int | None = None

    @property
    def ran(self) -> int:
        return self.passed + self.failed


class Event(Struct, gc=False):
    """One feedback event: the smallest unit that can confirm, reject, refine or constrain
    later decisions (SPEC §2). Raw-cost deltas are what this event consumed.

    A msgspec ``Struct`` the cyclic garbage collector does not track (``gc=False``): an
    event holds text, numbers, enums, tuples and the JSON values of its source, never an
    object that refers back to it, so no reference cycle can pass through one. The collector
    then never walks the hundred thousand events of a long run, and an event is built in C:
    together 7% of ``score`` on the 100k-event trace (bench/score_bench.py: 1.34 s against
    1.24 s, best of 5). Whatever is put in ``extra`` or ``oracle`` must keep to that."""

    index: int
    step: int
    kind: EventKind
    tool: str | None = None
    status: Status = Status.NONE
    action_text: str = ""
    observation_text: str = ""
    #: raw-cost deltas (SPEC §4)
    tokens_in: int = 0
    tokens_out: int = 0
    tool_calls: int = 0
    wall_s: float = 0.0
    ops: int = 0
    #: indices of earlier events this one explicitly cites
    refs: tuple[int, ...] = ()
    checks: Checks | None = None
    #: what the harness wrote to memory / scratchpad / todo at this event, if anything
    memory_write: str | None = None
    #: an explicit plan change made at this event, if any
    plan: str | None = None
    #: the observation is marked truncated by the harness
    truncated: bool = False
    timestamp: float | None = None
    #: the synthetic oracle block (SPEC §3.1), when the trace has one
    oracle: dict[str, Any] | None = None
    #: names of fields whose value was estimated rather than read (e.g. ``tokens``)
    flags: tuple[str, ...] = ()
    #: fields of the source the model does not know, passed through to exports
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out


class TokenTotals(Struct, frozen=True):
    """Tokens a run's events used: input (cached reads included), cached reads, cache
    writes, output; the dollars its events log (None when none does). The app's cost line
    and the score row (``output.run_row``) show these."""

    tokens_in: int
    cache_read: int
    cache_write: int
    tokens_out: int
    usd: float | None

    @classmethod
    def of(cls, events: Iterable[Event]) -> TokenTotals:
        tin = tout = cr = cw = 0
        usd: float | None = None
        for e in events:
            tin += e.tokens_in
            tout += e.tokens_out
            x = e.extra
            if x:
                cr += int(x.get("cache_read_tokens") or 0)
                cw += int(x.get("cache_write_tokens") or 0)
                c = x.get("cost_usd")
                if isinstance(c, int | float):
                    usd = (usd or 0.0) + c
        return cls(tin, cr, cw, tout, usd)


class TaskDemand(Struct):
    """Task-demand factors (SPEC §4); any may be unknown."""

    L: float | None = None
    H_tool: float | None = None
    S_state: float | None = None
    N_obs: float | None = None
    V_ver: float | None = None

    def as_dict(self) -> dict[str, float | None]:
        return {
            "L": self.L,
            "H_tool": self.H_tool,
            "S_state": self.S_state,
            "N_obs": self.N_obs,
            "V_ver": self.V_ver,
        }


class Run(Struct):
    """A trajectory: run metadata and its ordered feedback events (SPEC §2)."""

    run_id: str
    events: list[Event] = field(default_factory=list)
    task_id: str | None = None
    task_family: str | None = None
    harness: str | None = None
    model: str | None = None
    budget: dict[str, Any] = field(default_factory=dict)
    #: final success label g; None when the log does not say
    success: bool | None = None
    #: the numeric outcome the source reports (a reward, a score), when it gives one
    reward: float | None = None
    #: where the success label came from (e.g. ``"harbor result.json"``, ``"labels.csv:12"``)
    success_from: str | None = None
    #: how the run ended, as the source says it (``Submitted``, ``LimitsExceeded``, ...)
    exit_status: str | None = None
    #: money spent, summed from what the log records (USD); None when it records none
    cost_usd: float | None = None
    task_demand: TaskDemand | None = None
    source_format: str = "unknown"
    source_path: str | None = None
    #: run-level facts the reader noticed (e.g. "tokens estimated from text length")
    flags: list[str] = field(default_factory=list)
    #: non-fatal problems met while reading (truncated last line, skipped lines, ...)
    warnings: list[str] = field(default_factory=list)
    #: header fields the model does not know, passed through to exports
    extra: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.events)

    @property
    def simulated(self) -> bool:
        """A simulated trace (``efc-tui simulate`` writes an oracle block on every event): it
        is scored and placed on a fit with the synthetic calibration, any other log with the
        real one."""
        return bool(self.events) and self.events[0].oracle is not None
