"""Feedback events under construction, and the one pass that finishes them (SPEC §2, §4).

Every reader turns its log into :class:`Draft` objects, in order, and :func:`finalize`
turns them into Events with the same rules for all formats (docs/formats.md,
"Conventions"):

- **Kind**: a fixed ``kind`` is kept; a tool call's kind is inferred from its tool and
  action (a write after a failing status is a ``repair``) and flagged ``kind``; anything
  else is a ``message``.
- **Status**: a fixed ``status`` is kept; a tool call with a result is classified from its
  observation and hints (exit code with the command, is-error, timeout: ``status.py``)
  and flagged ``status``; everything else has none. A failure the format flags whose text
  names no kind is ``runtime_error``; exit 141 from a pipeline (its reader, ``head``,
  stopped early under ``pipefail``) is no failure.
- **Tokens**: a model response's usage is given to its first draft (``model_call``); when
  the response made several drafts (a batch: its ``sibling`` drafts, parallel tool calls),
  its tokens (in, out, cached reads and writes, reasoning) and its dollars are split evenly
  over the batch's events (:func:`batch_shares`; integers by largest remainder, earlier
  events first), so the run's totals do not change. Where a model call has no usage, its
  output is estimated at 4 chars/token from all the text it generated (``gen_text``) and
  split the same way, and each event of the batch estimates its own observation as input;
  these are flagged ``tokens``. Drafts that are not the model's (messages, errors,
  harness calls) carry 0 when the run records any usage, else are estimated too.
- **Wall time**: a running maximum of end times: each event counts the time from the
  latest end seen before it to its own end (overlapping work counts once, time spent
  waiting for a human, ``idle``, not at all); the first event counts from ``run_start``,
  else from its own start. Without any timestamp, measured durations (``wall_s``) are
  used. A draft that spends time (a tool or model call) and has no time is flagged.
- **Cost**: a model call's ``cost_usd`` goes to the event's extra and the run's total.
"""

from __future__ import annotations

import math
from typing import Any

from msgspec import Struct, field

from efc_tui.model import Event, EventKind, Status
from efc_tui.parsers.status import classify_observation, infer_kind, is_failure

CHARS_PER_TOKEN = 4
#: 128 + SIGPIPE: a pipeline's producer killed because its reader exited first
SIGPIPE_EXIT = 141


#: the fields of an Event in the order :func:`finalize` passes them
#: (``tests/readers/test_finalize_events.py`` holds it to ``Event``'s own)
EVENT_FIELDS = (
    "index",
    "step",
    "kind",
    "tool",
    "status",
    "action_text",
    "observation_text",
    "tokens_in",
    "tokens_out",
    "tool_calls",
    "wall_s",
    "ops",
    "refs",
    "checks",
    "memory_write",
    "plan",
    "truncated",
    "timestamp",
    "oracle",
    "flags",
    "extra",
)


def estimate_tokens(text: str) -> int:
    """Tokens estimated from text length, 4 characters per token (SPEC §4)."""
    return len(text) // CHARS_PER_TOKEN


class Draft(Struct, eq=False):
    """A feedback event under construction; :func:`finalize` makes it an Event."""

    #: fixed kind; None means infer it (tool calls: from tool and action; else message)
    kind: EventKind | None = None
    tool: str | None = None
    action: str = ""
    observation: str = ""
    step: int = 0
    #: a tool call: counts as one tool call and expects a result
    is_call: bool = False
    has_result: bool = False
    #: the call's id in the log (joins its result)
    call_id: str | None = None
    #: hints for the status classifier
    exit_code: int | None = None
    is_error: bool | None = None
    timed_out: bool | None = None
    #: a status the reader knows for sure (api errors, rejected actions)
    status: Status | None = None
    #: this draft carries a model call (its usage, or an estimate of it, and one operation)
    model_call: bool = False
    #: another event of the model response whose first draft carries the usage
    sibling: bool = False
    #: that first draft, when the reader knows it (else: the nearest model call before)
    batch_of: Draft | None = None
    #: the tokens of this draft are counted on another draft (cumulative usage logs)
    usage_elsewhere: bool = False
    #: its usage is a share of run totals (:func:`share_totals`), flagged ``tokens``
    shared_usage: bool = False
    tokens_in: int | None = None
    tokens_out: int | None = None
    cache_read: int = 0
    cache_write: int = 0
    reasoning_tokens: int = 0
    cost_usd: float | None = None
    #: all the text the model generated for this call (thought + actions), to estimate output
    gen_text: str = ""
    #: when the action was taken and when its result arrived (unix seconds)
    t_start: float | None = None
    t_end: float | None = None
    #: when the model call that produced this draft began (first event's duration)
    t_model: float | None = None
    #: a measured duration (used when the run has no timestamps at all)
    wall_s: float | None = None
    #: the time before this event was spent waiting for a human: not counted
    idle: bool = False
    memory_write: str | None = None
    plan: str | None = None
    truncated: bool = False
    images: int = 0
    #: reader bookkeeping (ids of model responses whose usage this draft carries, ...)
    keys: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def set_usage(
        self,
        tin: int,
        tout: int,
        cache_read: int = 0,
        cache_write: int = 0,
        reasoning: int = 0,
        cost: float | None = None,
    ) -> None:
        """Add a model call's usage (``tin`` counts cached input tokens too)."""
        self.model_call = True
        self.tokens_in = (self.tokens_in or 0) + tin
        self.tokens_out = (self.tokens_out or 0) + tout
        self.cache_read += cache_read
        self.cache_write += cache_write
        self.reasoning_tokens += reasoning
        if cost is not None:
            self.cost_usd = (self.cost_usd or 0.0) + cost

    @property
    def has_usage(self) -> bool:
        return self.tokens_in is not None or self.tokens_out is not None

    def add_thought(self, text: str) -> None:
        if not text:
            return
        prev = self.extra.get("thought")
        self.extra["thought"] = f"{prev}\n{text}" if isinstance(prev, str) and prev else text
        self.gen_text = f"{text}\n{self.gen_text}" if self.gen_text else text


class ReadAgain(Exception):
    """A line that would change drafts already finalized by a read that goes on from a
    settled line (``parsers/resume.py``): the log must be read whole, from now on
    (``always``: a log that reuses message ids) or this time (a response without an
    event at the end of the log, which the last event takes while nothing follows)."""

    def __init__(self, message: str, *, always: bool) -> None:
        super().__init__(message)
        self.always = always


class Carry(Struct):
    """What :func:`finalize` carries from one draft to the next: the state after a run's
    first ``index`` drafts, to finalize the drafts after them alone (a log read on from
    where an earlier read stopped, ``parsers/resume.py``). ``any_usage`` / ``any_ts`` /
    ``any_dur``: whether those drafts record any usage, timestamp or duration (the whole
    run's answer is theirs or the later drafts')."""

    index: int = 0
    prev_failed: bool = False
    prev_end: float | None = None
    response_estimated: bool = False
    any_usage: bool = False
    any_ts: bool = False
    any_dur: bool = False


class Finalized(Struct):
    """The events of a run's drafts, with the run's totals and flags."""

    events: list[Event]
    #: run-level sentences about what was estimated or missing
    flags: list[str]
    tokens_in: int = 0
    tokens_out: int = 0
    cache_read: int = 0
    cache_write: int = 0
    #: the sum of the model calls' recorded cost; None when none records one
    cost_usd: float | None = None
    #: the state after the last draft (to finalize the drafts that follow them alone)
    carry: Carry = field(default_factory=Carry)


def _kind_and_status(d: Draft, after_failure: bool) -> tuple[EventKind, Status, Any, list[str]]:
    flags: list[str] = []
    kind = d.kind
    if kind is None:
        if d.is_call:
            kind = infer_kind(d.tool, d.action, after_failure=after_failure)
            flags.append("kind")
        else:
            kind = EventKind.MESSAGE
    status, checks = d.status, None
    if status is None:
        if d.is_call and d.has_result:
            exit_code, is_error = d.exit_code, d.is_error
            if exit_code == SIGPIPE_EXIT and "|" in d.action:
                # a pipeline whose reader stopped early (`find ... | head`, under pipefail):
                # the producer was cut off, the output is what was asked for
                exit_code, is_error = None, None
            status, checks = classify_observation(
                d.observation,
                exit_code=exit_code,
                is_error=is_error,
                timed_out=d.timed_out,
                is_check=kind is EventKind.CHECK,
                command=d.action if exit_code is not None else None,
            )
            if status is Status.OTHER and is_error:
                # the format says the tool ran and failed, the text names no kind of failure:
                # a tool that answers a well-formed call with an error (docs/formats.md)
                status = Status.RUNTIME_ERROR
            flags.append("status")
        else:
            status = Status.NONE
    return kind, status, checks, flags


def finalize(
    drafts: list[Draft], *, run_start: float | None = None, carry: Carry | None = None
) -> Finalized:
    """Events from drafts, in order, by the rules in the module docstring. ``carry``: the
    drafts follow the first ``carry.index`` drafts of the run, finalized before (their
    events are not returned; the run-level flags and totals cover these drafts only)."""
    events: list[Event] = []
    c = carry or Carry(prev_end=run_start)
    any_usage, any_ts, any_dur = c.any_usage, c.any_ts, c.any_dur
    for d in drafts:  # one pass for the three (most runs have none of them)
        if not any_usage and (d.tokens_in is not None or d.tokens_out is not None):
            any_usage = True
        if not any_ts and (d.t_end is not None or d.t_start is not None):
            any_ts = True
        if not any_dur and d.wall_s is not None:
            any_dur = True
    prev_failed = c.prev_failed
    prev_end = c.prev_end
    no_result = est_calls = est_other = no_wall = 0
    response_estimated = c.response_estimated
    base = c.index
    tin_sum = tout_sum = cr_sum = cw_sum = 0
    cost: float | None = None
    last = len(drafts) - 1
    shares = batch_shares(drafts)
    none = Status.NONE
    for i, d in enumerate(drafts):
        kind, status, checks, flags = _kind_and_status(d, prev_failed)
        extra = dict(d.extra) if d.extra else {}
        if status is not none:
            prev_failed = is_failure(status)
        if d.is_call and not d.has_result and not (i == last and kind is EventKind.GENERATION):
            extra["no_result"] = True
            no_result += 1
        if d.exit_code is not None:
            extra.setdefault("exit_code", d.exit_code)
        memory_write, plan = d.memory_write, d.plan
        if kind is EventKind.MEMORY and memory_write is None:
            memory_write = d.action or d.observation
        if kind is EventKind.PLAN and plan is None:
            plan = d.action or d.observation
        # tokens (a batch's share, when the draft is one of a batch: batch_shares)
        share = shares.get(i) if shares else None
        has_usage = d.tokens_in is not None or d.tokens_out is not None  # d.has_usage
        cache_read, cache_write, reasoning, usd = (
            d.cache_read,
            d.cache_write,
            d.reasoning_tokens,
            d.cost_usd,
        )
        if share is not None and (has_usage or d.model_call or d.sibling):
            cache_read, cache_write, reasoning, usd = (
                share.cache_read,
                share.cache_write,
                share.reasoning,
                share.cost_usd,
            )
        if has_usage:
            tin, tout = d.tokens_in or 0, d.tokens_out or 0
            if share is not None:
                tin, tout = share.tokens_in, share.tokens_out
            if d.model_call:
                response_estimated = False
            if d.shared_usage:
                flags.append("tokens")
        elif d.usage_elsewhere:
            tin = tout = 0
        elif d.model_call:
            tout = (
                share.tokens_out if share is not None else estimate_tokens(d.gen_text or d.action)
            )
            tin = estimate_tokens(d.observation)
            flags.append("tokens")
            est_calls += 1
            response_estimated = True
        elif d.sibling:
            tout = share.tokens_out if share is not None else 0
            tin = share.tokens_in if share is not None else 0
            if response_estimated or not any_usage:
                tin += estimate_tokens(d.observation)
                flags.append("tokens")
            elif share is not None and share.estimated:
                flags.append("tokens")
        elif not any_usage:
            tout = estimate_tokens(d.gen_text or d.action)
            tin = estimate_tokens(d.observation)
            flags.append("tokens")
            est_other += 1
        else:
            tin = tout = 0
        if cache_read:
            extra["cache_read_tokens"] = cache_read
        if cache_write:
            extra["cache_write_tokens"] = cache_write
        if reasoning:
            extra["reasoning_tokens"] = reasoning
        if usd is not None:
            extra["cost_usd"] = usd
        if d.cost_usd is not None:  # the run's total from the whole response, not its shares
            cost = (cost or 0.0) + d.cost_usd
        tin_sum += tin
        tout_sum += tout
        cr_sum += cache_read
        cw_sum += cache_write
        # wall time
        end = d.t_end if d.t_end is not None else d.t_start
        wall = 0.0
        spends_time = d.is_call or d.model_call
        if any_ts:
            if end is None:
                if spends_time:
                    flags.append("wall_s")
                    no_wall += 1
            else:
                if prev_end is not None:
                    if not d.idle:
                        wall = max(0.0, end - prev_end)
                    prev_end = max(prev_end, end)
                else:
                    start = d.t_model if d.t_model is not None else d.t_start
                    if start is not None and not d.idle:
                        wall = max(0.0, end - start)
                    prev_end = end
        elif d.wall_s is not None:
            wall = max(0.0, d.wall_s)
        elif spends_time:
            flags.append("wall_s")
            no_wall += 1
        if d.images:
            extra["images"] = d.images
        tool_calls = 1 if d.is_call else 0
        # positional, in EVENT_FIELDS' order: a Struct's keywords are matched one by one
        # (0.8 us an event; 0.15 us so)
        events.append(
            Event(
                base + i,  # index
                d.step,
                kind,
                d.tool,
                status,
                d.action,  # action_text
                d.observation,  # observation_text
                int(tin),
                int(tout),
                tool_calls,
                float(wall),  # wall_s
                # operations (SPEC §4): the model call, the tool call, the memory write
                (1 if d.model_call else 0) + tool_calls + (1 if memory_write else 0),
                (),  # refs
                checks,
                memory_write,
                plan,
                d.truncated,
                d.t_start if d.t_start is not None else d.t_end,  # timestamp
                None,  # oracle
                tuple(flags),
                extra,
            )
        )
    run_flags: list[str] = []
    if no_result:
        run_flags.append(
            f"{no_result} tool call(s) have no result in the log (interrupted, or the log is cut short)"
        )
    if drafts and not any_usage:
        run_flags.append(
            "tokens: the log records no token usage; estimated from text length at 4 chars/token"
        )
    elif est_calls:
        run_flags.append(
            f"tokens: {est_calls} model call(s) have no usage in the log; estimated at 4 chars/token"
        )
    if drafts and not any_ts and not any_dur:
        run_flags.append("wall time: the log records no timestamps or durations; counted as 0 s")
    elif no_wall:
        run_flags.append(
            f"wall time: {no_wall} tool or model call(s) have no timestamp; counted as 0 s"
        )
    after = Carry(
        base + len(drafts), prev_failed, prev_end, response_estimated, any_usage, any_ts, any_dur
    )
    return Finalized(events, run_flags, tin_sum, tout_sum, cr_sum, cw_sum, cost, after)


class Share(Struct, frozen=True):
    """One event's even share of its model response's usage (:func:`batch_shares`)."""

    tokens_in: int
    tokens_out: int
    cache_read: int
    cache_write: int
    reasoning: int
    cost_usd: float | None
    #: the response's usage is an estimate or a share of run totals (flag ``tokens``)
    estimated: bool = False


def batch_shares(drafts: list[Draft]) -> dict[int, Share]:
    """Each event of a batch (a model response's first draft and its ``sibling`` drafts:
    parallel tool calls) with its even share of the response's usage, by draft index.
    Integer counts are split exactly (:func:`apportion`, equal weights: the first events
    take the remainder); dollars are split as cost / n. Without recorded usage, the
    response's estimated output is split. Drafts outside a batch are not in the result."""
    members: dict[int, list[int]] = {}
    position: dict[int, int] | None = None  # made when a draft names its first one
    current: int | None = None
    for i, d in enumerate(drafts):
        if d.model_call:
            # a response whose usage another draft counts has nothing here to share
            current = None if d.usage_elsewhere and not d.has_usage else i
        elif d.sibling and not d.has_usage and not d.usage_elsewhere:
            if d.batch_of is not None:
                if position is None:
                    position = {id(x): k for k, x in enumerate(drafts)}
                first = position.get(id(d.batch_of))
            else:
                first = current
            if first is not None:
                members.setdefault(first, [first]).append(i)
    out: dict[int, Share] = {}
    for first, idx in members.items():
        d, n = drafts[first], len(idx)
        equal = [1.0] * n
        if d.has_usage:
            tin, tout = d.tokens_in or 0, d.tokens_out or 0
        else:
            tin, tout = 0, estimate_tokens(d.gen_text or d.action)
        usd = None if d.cost_usd is None else d.cost_usd / n
        for k, parts in enumerate(
            zip(
                apportion(tin, equal),
                apportion(tout, equal),
                apportion(d.cache_read, equal),
                apportion(d.cache_write, equal),
                apportion(d.reasoning_tokens, equal),
                strict=True,
            )
        ):
            out[idx[k]] = Share(*parts, cost_usd=usd, estimated=d.shared_usage or not d.has_usage)
    return out


def share_totals(
    drafts: list[Draft], tokens_in: int, tokens_out: int, *, base_chars: int = 0
) -> int:
    """Share a run's token totals out over its model calls when the log keeps only the
    totals (SWE-agent ``model_stats``, Cursor's ``result`` line), exactly (largest
    remainder): input in proportion to the context each call saw (``base_chars`` of system
    prompt, then all text of the drafts before it), output in proportion to the text it
    generated. The shares are flagged ``tokens``. Returns the number of calls."""
    calls = [d for d in drafts if d.model_call]
    if not calls:
        return 0
    context = float(base_chars)
    w_in: list[float] = []
    w_out: list[float] = []
    for d in drafts:
        generated = d.gen_text or d.action
        if d.model_call:
            w_in.append(context)
            w_out.append(float(max(1, len(generated))))
        context += len(generated) + len(d.observation)
    for d, tin, tout in zip(
        calls, apportion(tokens_in, w_in), apportion(tokens_out, w_out), strict=True
    ):
        d.tokens_in, d.tokens_out = tin, tout
        d.shared_usage = True
    return len(calls)


def apportion(total: int, weights: list[float]) -> list[int]:
    """Split an integer total in proportion to weights, exactly (largest remainder)."""
    n = len(weights)
    if n == 0:
        return []
    total = max(0, int(total))
    w = [max(0.0, x) for x in weights]
    s = sum(w)
    if s <= 0:
        w = [1.0] * n
        s = float(n)
    raw = [total * x / s for x in w]
    out = [math.floor(r) for r in raw]
    rest = total - sum(out)
    if rest:
        # largest remainders first, earlier ones first among equals (a stable sort keeps
        # their order, reversed or not); no key function called per part
        left = [r - o for r, o in zip(raw, out, strict=True)]
        for k in sorted(range(n), key=left.__getitem__, reverse=True)[:rest]:
            out[k] += 1
    return out


class ThoughtBuffer:
    """Assistant text or reasoning waiting to see whether a tool call of the same model
    response follows: then it is that call's thought; otherwise it becomes a ``reflect``
    event of its own when flushed."""

    __slots__ = ("extra", "key", "parts", "step", "t", "thinking")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.key: str | None = None
        self.t: float | None = None
        self.thinking = False
        self.step = 0
        self.extra: dict[str, Any] = {}

    def __bool__(self) -> bool:
        return bool(self.parts)

    def add(
        self,
        text: str,
        key: str | None,
        t: float | None,
        step: int,
        *,
        thinking: bool = False,
        extra: dict[str, Any] | None = None,
    ) -> None:
        if not text:
            return
        self.parts.append(text)
        self.key = key
        self.t = t if t is not None else self.t
        self.step = step
        self.thinking = self.thinking or thinking
        if extra:
            self.extra.update(extra)

    def take(self) -> str:
        text = "\n".join(self.parts)
        self.parts = []
        self.key = None
        self.t = None
        self.thinking = False
        self.extra = {}
        return text

    def flush(self) -> Draft | None:
        """The buffered text as a reflect draft (None when empty)."""
        if not self.parts:
            return None
        t, thinking, step, extra = self.t, self.thinking, self.step, dict(self.extra)
        text = self.take()
        if thinking:
            extra["thinking"] = True
        return Draft(
            kind=EventKind.REFLECT, action=text, gen_text=text, t_start=t, step=step, extra=extra
        )
