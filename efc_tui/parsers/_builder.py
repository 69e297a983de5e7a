"""A run built from dialect-neutral messages: tool calls paired with their results.

:class:`RunBuilder` is how the message-list readers (Inspect, ATIF, OpenHands, OpenAI /
Anthropic chat, OTel GenAI, Gemini CLI, tau-bench, OpenAI Agents SDK) add events: model
turns, tool results, messages and errors become :class:`~efc_tui.parsers._drafts.Draft`
objects in order, and :meth:`RunBuilder.finish` runs the shared
:func:`~efc_tui.parsers._drafts.finalize` and puts the events on the run.

- One event per tool call + result pair, joined by call id, else to the oldest call still
  open when the result has no id. A result the message flags as an error, or a JSON error
  answer (``_signals.json_error``), is a failure. A call whose result never arrives keeps status
  ``none`` and ``extra["no_result"]``; a result whose call is unknown becomes its own
  event (``extra["orphan_result"]``).
- Assistant text without tool calls is ``reflect`` (readers may choose another kind);
  text that accompanies tool calls goes to the first call's ``extra["thought"]``,
  reasoning to ``extra["reasoning"]``. User and environment messages are ``message``
  events (time spent waiting for a user is not counted); system / developer prompts are
  not events; API / harness errors are ``error`` / ``api_error``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from efc_tui.model import EventKind, Run, Status
from efc_tui.parsers._content import action_text_of
from efc_tui.parsers._drafts import Draft, finalize
from efc_tui.parsers._msg import Msg, ToolCall, Usage
from efc_tui.parsers._signals import json_error

#: message roles that are prompts, not events
PROMPT_ROLES = frozenset({"system", "developer"})
#: message roles whose time before them is a person's, not the agent's
HUMAN_ROLES = frozenset({"user", "human"})
ASSISTANT_ROLES = frozenset({"assistant", "model", "gemini", "ai", "bot"})


def apply_usage(d: Draft, u: Usage | None) -> None:
    """Put a model call's usage on its carrier draft (nothing when it is unknown)."""
    if u is not None and u.known:
        d.set_usage(
            u.input or 0,
            u.output or 0,
            u.cache_read or 0,
            u.cache_write or 0,
            u.reasoning or 0,
            u.cost,
        )


class RunBuilder:
    """Collects one run's drafts in order and turns them into events (module docstring)."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.drafts: list[Draft] = []
        self._by_id: dict[str, Draft] = {}
        self._open: dict[int, Draft] = {}  # calls still waiting for a result, in order
        self._closed: set[str] = set()
        self._step = -1

    # steps -------------------------------------------------------------------
    def next_step(self) -> int:
        self._step += 1
        return self._step

    @property
    def step(self) -> int:
        return max(self._step, 0)

    def has_call(self, call_id: str) -> bool:
        """A call with this id was added (whether or not its result came)."""
        return call_id in self._by_id or call_id in self._closed

    def open_calls(self) -> int:
        """How many calls are still waiting for their result."""
        return len(self._open)

    # adding ------------------------------------------------------------------
    def message(
        self,
        text: str,
        *,
        role: str = "user",
        ts: float | None = None,
        compaction: bool = False,
        extra: dict[str, Any] | None = None,
        kind: EventKind = EventKind.MESSAGE,
    ) -> Draft:
        d = Draft(
            kind=kind,
            observation=text,
            step=self.next_step(),
            t_start=ts,
            t_end=ts,
            idle=role in HUMAN_ROLES,
            extra={"role": role},
        )
        if compaction:
            d.extra["compaction"] = True
        if extra:
            d.extra.update(extra)
        self.drafts.append(d)
        return d

    def error(
        self,
        text: str,
        *,
        ts: float | None = None,
        status: Status = Status.API_ERROR,
        tool: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Draft:
        d = Draft(
            kind=EventKind.ERROR,
            status=status,
            tool=tool,
            observation=text,
            step=self.next_step(),
            t_start=ts,
            t_end=ts,
        )
        if extra:
            d.extra.update(extra)
        self.drafts.append(d)
        return d

    def assistant(
        self,
        text: str,
        calls: Iterable[ToolCall] = (),
        *,
        usage: Usage | None = None,
        reasoning: str = "",
        t_start: float | None = None,
        t_end: float | None = None,
        model: str | None = None,
        text_kind: EventKind = EventKind.REFLECT,
        extra: dict[str, Any] | None = None,
        always: bool = False,
    ) -> list[Draft]:
        """A model turn: one draft per tool call, or one text draft when it made none.

        ``t_start`` / ``t_end`` are when the model call began and answered; tool-call
        drafts end when their result arrives. Returns the drafts added (maybe none: an
        empty turn with no usage adds nothing unless ``always``).
        """
        step = self.next_step()
        out: list[Draft] = []
        answered = t_end if t_end is not None else t_start
        for c in calls:
            cid = c.id
            out.append(
                Draft(
                    tool=c.name,
                    call_id=cid,
                    action=action_text_of(c.args),
                    is_call=True,
                    step=step,
                    t_start=answered,
                    t_model=t_start,
                    sibling=bool(out),
                    extra={} if cid is None else {"tool_call_id": cid},
                )
            )
        if not out and (text or reasoning or always or (usage is not None and usage.known)):
            d = Draft(
                kind=text_kind, action=text or reasoning, step=step, t_start=t_start, t_end=answered
            )
            if text and reasoning:
                d.extra["reasoning"] = reasoning
            out.append(d)
        if not out:
            return out
        first = out[0]
        first.model_call = True
        apply_usage(first, usage)
        generated = [x for x in (text, reasoning) if x]
        generated.extend(d.action for d in out if d.is_call and d.action)
        first.gen_text = "\n".join(generated)
        if first.is_call:
            if text:
                first.extra["thought"] = text
            if reasoning:
                first.extra["reasoning"] = reasoning
        if model:
            first.extra["model"] = model
        if extra:
            first.extra.update(extra)
        for d in out:
            self._add(d)
        return out

    def _add(self, d: Draft) -> None:
        self.drafts.append(d)
        if d.is_call:
            if d.call_id is not None:
                self._by_id[d.call_id] = d
                self._closed.discard(d.call_id)  # an id reused by a later call
            self._open[id(d)] = d

    def more_call(self, first: Draft, call: ToolCall, *, ts: float | None = None) -> Draft:
        """Another tool call of the model response whose first draft is ``first``, for
        formats that write each call of one response as a line of its own."""
        d = Draft(
            tool=call.name,
            call_id=call.id,
            action=action_text_of(call.args),
            is_call=True,
            step=first.step,
            t_start=ts,
            sibling=True,
            batch_of=first,
        )
        if call.id is not None:
            d.extra["tool_call_id"] = call.id
        first.gen_text = "\n".join(x for x in (first.gen_text, d.action) if x)
        self._add(d)
        return d

    def call(
        self,
        name: str | None,
        args: Any,
        *,
        call_id: str | None = None,
        ts: float | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Draft:
        """A tool call made outside a model turn (a solver or the harness called it)."""
        [d] = self.assistant("", [ToolCall(call_id, name, args)], t_end=ts)
        d.model_call = False
        d.gen_text = ""
        if extra:
            d.extra.update(extra)
        return d

    def result(
        self,
        call_id: str | None,
        text: str,
        *,
        name: str | None = None,
        is_error: bool | None = None,
        exit_code: int | None = None,
        timed_out: bool | None = None,
        ts: float | None = None,
        status: Status | None = None,
        truncated: bool = False,
        extra: dict[str, Any] | None = None,
    ) -> Draft | None:
        """The result of a call: joined by id, else to the oldest call still open when the
        id is missing. A second result for a closed call is ignored (returns None)."""
        d: Draft | None = None
        if call_id is not None and call_id in self._by_id:
            d = self._by_id[call_id]
        elif call_id is not None and call_id in self._closed:
            return None
        elif call_id is None and self._open:
            d = self._open[next(iter(self._open))]
        if d is None:
            d = Draft(
                tool=name,
                call_id=call_id,
                is_call=True,
                step=self.step if self._step >= 0 else self.next_step(),
                t_start=ts,
            )
            d.extra["orphan_result"] = True
            if call_id is not None:
                d.extra["tool_call_id"] = call_id
            self.drafts.append(d)
        return self.fill(
            d,
            text,
            name=name,
            is_error=is_error,
            exit_code=exit_code,
            timed_out=timed_out,
            ts=ts,
            status=status,
            truncated=truncated,
            extra=extra,
        )

    def fill(
        self,
        d: Draft,
        text: str,
        *,
        name: str | None = None,
        is_error: bool | None = None,
        exit_code: int | None = None,
        timed_out: bool | None = None,
        ts: float | None = None,
        status: Status | None = None,
        truncated: bool = False,
        extra: dict[str, Any] | None = None,
    ) -> Draft:
        """Give a specific call draft its result (readers that pair by position)."""
        self._open.pop(id(d), None)
        if d.call_id is not None and self._by_id.get(d.call_id) is d:
            self._by_id.pop(d.call_id, None)
            self._closed.add(d.call_id)
        if d.tool is None and name:
            d.tool = name
        d.has_result = True
        d.observation = text
        d.is_error = is_error
        d.exit_code = exit_code
        d.timed_out = timed_out
        d.truncated = truncated
        if status is not None:
            d.status = status
        if ts is not None:
            d.t_end = ts
        if extra:
            d.extra.update(extra)
        return d

    def feed(
        self,
        msg: Msg,
        *,
        usage: Usage | None = None,
        t_start: float | None = None,
        t_end: float | None = None,
        model: str | None = None,
        text_kind: EventKind = EventKind.REFLECT,
    ) -> list[Draft]:
        """Add one dialect-neutral message."""
        out: list[Draft] = []
        role = msg.role.lower()
        if role in ASSISTANT_ROLES:
            return self.assistant(
                msg.text,
                msg.calls,
                usage=usage,
                reasoning=msg.reasoning,
                t_start=t_start,
                t_end=t_end,
                model=model,
                text_kind=text_kind,
            )
        if role in PROMPT_ROLES:
            return out  # system / developer prompts are not feedback events
        ts = t_end if t_end is not None else t_start
        for r in msg.results:
            failed = r.is_error or (True if json_error(r.text) is not None else None)
            d = self.result(r.call_id, r.text, name=r.name, is_error=failed, ts=ts)
            if d is not None:
                out.append(d)
        if msg.text:
            out.append(self.message(msg.text, role=role, ts=ts))
        return out

    # finishing ----------------------------------------------------------------
    def finish(self) -> Run:
        """Decide kinds, statuses, tokens and wall time (``finalize``); put the events, the
        run-level flags and the recorded cost on the run (a cost of 0 for calls that used
        tokens means the harness knew no prices: not kept, flagged)."""
        run = self.run
        fin = finalize(self.drafts)
        run.events = fin.events
        run.flags.extend(f"{run.source_format}: {f}" for f in fin.flags)
        if fin.cost_usd is not None and run.cost_usd is None:
            run.cost_usd = round(fin.cost_usd, 10)
        if run.cost_usd == 0.0 and fin.tokens_in + fin.tokens_out > 0:
            # calls that used tokens at no recorded price: the harness knew no prices
            run.cost_usd = None
            run.flags.append(
                f"{run.source_format}: cost: the log says 0 USD for calls that used tokens "
                "(no prices known): not kept"
            )
        return run
