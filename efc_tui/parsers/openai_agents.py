"""OpenAI Agents SDK (openai/openai-agents-python) logs, in the three shapes it leaves:

- **Exported traces**: what a tracing processor writes, ``Trace.export()`` /
  ``Span.export()`` objects, one per JSONL line (or a JSON list, or the exporter's
  ``{"data": [...]}`` payload): ``{"object": "trace", "id", "workflow_name", "group_id"}``
  and ``{"object": "trace.span", "id", "trace_id", "parent_id", "started_at",
  "ended_at", "span_data", "error"}``. One run per trace. ``span_data.type``:
  ``generation`` (a Chat Completions call: ``input`` / ``output`` messages, ``model``,
  ``usage``), ``response`` (a Responses call: ``response_id`` and, in recent versions,
  ``usage``; no text), ``function`` (a tool call: ``name``, ``input`` = its JSON
  arguments, ``output``), ``handoff`` (``from_agent`` → ``to_agent``), ``guardrail``
  (``triggered``), ``agent`` (the agent's name and tools), ``custom`` (the ``task`` span
  carries the run's ``usage``), and others (``mcp_tools``, speech) that are not events.
- **``RunResult.to_input_list()``**: a JSON list of Responses-API input items: messages
  (``{"role", "content"}`` or ``{"type": "message", ...}``), ``function_call``
  (``call_id``, ``name``, ``arguments``), ``function_call_output`` (``call_id``,
  ``output``), ``reasoning`` (``summary``), and other ``*_call`` / ``*_call_output``
  items (computer, local shell, custom tools, MCP).
- **``RunState.to_json()``**: ``{"$schemaVersion", "current_agent", "original_input",
  "model_responses": [{"usage", "output", "response_id"}], "generated_items": [{"type",
  "raw_item", "agent", ...}], "context": {"usage", ...}, "current_step", ...}``.

A tool result is a failure (``is_error``, typed by the text classifier) when its function
span has an ``error``, when it is the SDK's default tool-error answer (``An error occurred
while running the tool. Please try again. Error: ...``) or a JSON ``{"error": ...}``
answer; its exit code is the shell outcome's ``exit_code`` (``shell_call_output``) or an
``exit_code=N`` line the tool printed (``_signals``), its timeout a ``timeout`` outcome.

Output items between two inputs (a user message, a tool result) are one model response:
its text and reasoning are the thought of its first tool call (or a ``reflect`` event), its
usage on that call. Function spans follow the response span that asked for them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from efc_tui.errors import InputError
from efc_tui.model import EventKind, Run, Status
from efc_tui.parsers._builder import RunBuilder
from efc_tui.parsers._content import content_text, reasoning_of, result_text, text_of
from efc_tui.parsers._drafts import Draft
from efc_tui.parsers._msg import ToolCall, Usage, chat_message, usage_openai
from efc_tui.parsers._signals import agents_tool_error, json_error, reported_exit_code
from efc_tui.parsers._source import (
    JsonlSource,
    guarded,
    jsonl_layout,
    load_document,
    stem,
)
from efc_tui.parsers._time import parse_time
from efc_tui.parsers._totals import set_source_totals, totals_from_counts
from efc_tui.parsers._values import (
    as_dict,
    as_list,
    as_str,
    dumps,
    id_str,
    opt_str,
    parse_json_text,
)
from efc_tui.parsers.base import ReadOptions, read_head
from efc_tui.parsers.sniffs import AGENTS_OUTPUT_TYPES, agents_run_state, agents_span

NAME = "openai-agents"


# --------------------------------------------------------------------------- reading


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    yield from guarded("OpenAI Agents SDK", path, _read(path, options))


def _read(path: Path, options: ReadOptions) -> Iterator[Run]:
    head = read_head(path)
    if jsonl_layout(path, head, options):
        source = JsonlSource(path, options)
        objs = [obj for _, obj in source if agents_span(obj)]
        source.require(
            len(objs), "trace or span", "not OpenAI Agents SDK traces: no trace or span objects"
        )
        for run in _trace_runs(objs, path):
            yield source.settle(run)
        return
    doc, warnings = load_document(path, options)
    if agents_run_state(doc):
        runs = [_run_state(as_dict(doc), path)]
    elif isinstance(doc, dict) and any(agents_span(x) for x in as_list(doc.get("data"))):
        runs = list(_trace_runs(as_list(doc["data"]), path))
    elif isinstance(doc, list) and any(agents_span(x) for x in doc):
        runs = list(_trace_runs(doc, path))
    elif isinstance(doc, list):
        run = _new_run(path, stem(path))
        b = RunBuilder(run)
        _Items(b).feed(doc)
        run = b.finish()
        run.extra["shape"] = "to_input_list"
        runs = [run]
    else:
        raise InputError("not an OpenAI Agents SDK log (no spans, input items or run state)", path)
    for run in runs:
        run.warnings.extend(warnings)
        yield run


def _new_run(path: Path, run_id: str) -> Run:
    return Run(run_id=run_id, harness=NAME, source_format=NAME, source_path=str(path))


# --------------------------------------------------------------------------- input items


class _Items(Struct):
    """Responses-API items in order: outputs gathered into one model response until an
    input (a user message, a tool result) arrives."""

    b: RunBuilder
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    model: str | None = None

    def feed(self, items: Iterable[Any], usage_of: dict[str, Usage] | None = None) -> None:
        for item in items:
            if isinstance(item, dict):
                self.item(item, usage_of or {})
        self.flush()

    def flush(self) -> list[Draft]:
        if not (self.text or self.reasoning or self.calls or self.usage):
            return []
        drafts = self.b.assistant(
            "\n".join(self.text),
            self.calls,
            usage=self.usage,
            reasoning="\n".join(self.reasoning),
            model=self.model,
        )
        self.text, self.reasoning, self.calls, self.usage = [], [], [], None
        return drafts

    def item(self, it: dict[str, Any], usage_of: dict[str, Usage]) -> None:
        typ = as_str(it.get("type"))
        role = as_str(it.get("role"))
        iid = id_str(it.get("id"))
        if iid and iid in usage_of and self.usage is None and not (self.text or self.calls):
            self.usage = usage_of[iid]  # the first item of a model response carries its usage
        if role == "assistant" or (typ == "message" and role in ("", "assistant")):
            self.text.append(text_of(it.get("content")))
            return
        if typ == "reasoning":
            self.reasoning.append(reasoning_of(it) or text_of(it.get("summary")))
            return
        if typ in AGENTS_OUTPUT_TYPES:
            self.calls.append(_item_call(it))
            return
        self.flush()
        if typ.endswith("_call_output"):
            out = it.get("output")
            text = result_text(out if not isinstance(out, dict) else out.get("text", out))
            code, timed_out = _shell_outcome(out)
            self.b.result(
                id_str(it.get("call_id")),
                text,
                is_error=True if _failed(text) or it.get("status") == "failed" else None,
                exit_code=code if code is not None else reported_exit_code(text),
                timed_out=timed_out,
            )
        elif role in ("user", "system", "developer") or typ == "message":
            text, _ = content_text(it.get("content"))
            if role == "user" and text:
                self.b.message(text, role="user")


def _failed(text: str) -> bool:
    """A tool answer that says the call failed: the SDK's default tool-error text, or a JSON
    ``{"error": ...}`` / ``{"status": "error"}`` answer."""
    return agents_tool_error(text) or json_error(text) is not None


def _shell_outcome(out: Any) -> tuple[int | None, bool | None]:
    """(exit code, timed out) of a shell tool's structured output: ``shell_call_output``'s
    ``[{stdout, stderr, outcome: {type: "exit", exit_code} | {type: "timeout"}}]``."""
    code: int | None = None
    timed_out: bool | None = None
    for part in as_list(out) if isinstance(out, list) else [out]:
        outcome = as_dict(as_dict(part).get("outcome"))
        if outcome.get("type") == "timeout":
            timed_out = True
        c = outcome.get("exit_code", as_dict(part).get("exit_code"))
        if isinstance(c, int) and not isinstance(c, bool):
            code = c if code in (None, 0) else code  # the first failing command's code
    return code, timed_out


def _item_call(it: dict[str, Any]) -> ToolCall:
    typ = as_str(it.get("type"))
    cid = id_str(it.get("call_id")) or id_str(it.get("id"))
    if typ == "function_call" or typ == "custom_tool_call":
        args = parse_json_text(it.get("arguments") if "arguments" in it else it.get("input"))
        return ToolCall(cid, opt_str(it.get("name")) or typ, args)
    name = typ.removesuffix("_call")
    args = (
        it.get("action")
        or it.get("arguments")
        or it.get("query")
        or {k: v for k, v in it.items() if k not in ("type", "id", "call_id", "status")}
    )
    return ToolCall(cid, opt_str(it.get("name")) or name, parse_json_text(args))


def _run_state(doc: dict[str, Any], path: Path) -> Run:
    run = _new_run(path, stem(path))
    agent = opt_str(as_dict(doc.get("current_agent")).get("name"))
    if agent:
        run.extra["agent"] = agent
    run.extra["shape"] = "RunState"
    for key in ("current_turn", "max_turns", "conversation_id"):
        if doc.get(key) is not None:
            run.extra[key] = doc[key]
    b = RunBuilder(run)
    items = _Items(b)
    original = doc.get("original_input")
    if isinstance(original, str):
        b.message(original, role="user")
    else:
        items.feed(as_list(original))
    usage_of: dict[str, Usage] = {}
    for resp in (as_dict(r) for r in as_list(doc.get("model_responses"))):
        u = usage_openai(resp.get("usage"))
        outputs = [as_dict(o) for o in as_list(resp.get("output"))]
        first = next((id_str(o.get("id")) for o in outputs if id_str(o.get("id"))), None)
        if u is not None and first:
            usage_of[first] = u
    generated = [as_dict(g).get("raw_item") for g in as_list(doc.get("generated_items"))]
    items.feed(generated, usage_of)
    if as_dict(doc.get("current_step")).get("type") == "next_step_interruption":
        waiting = as_list(as_dict(as_dict(doc["current_step"]).get("data")).get("interruptions"))
        run.flags.append(
            f"the run is paused waiting for {len(waiting)} approval(s) (a human-in-the-loop interruption)"
        )
    run = b.finish()
    total = usage_openai(as_dict(doc.get("context")).get("usage"))
    if total is not None and total.known:
        set_source_totals(
            run,
            totals_from_counts(
                input_tokens=total.input,
                output_tokens=total.output,
                cache_tokens=total.cache_read,
                source=f"{path.name} context.usage",
                cache_separate=False,
            ),
        )
    return run


# --------------------------------------------------------------------------- traces


def _trace_runs(objs: list[Any], path: Path) -> Iterator[Run]:
    traces: dict[str, dict[str, Any]] = {}
    spans: dict[str, dict[str, dict[str, Any]]] = {}
    order: list[str] = []
    for obj in objs:
        if not isinstance(obj, dict):
            continue
        if obj.get("object") == "trace":
            tid = id_str(obj.get("id")) or "?"
            traces[tid] = obj
        elif obj.get("object") == "trace.span":
            tid = id_str(obj.get("trace_id")) or "?"
            sid = id_str(obj.get("id")) or f"#{len(spans.get(tid, {}))}"
            spans.setdefault(tid, {})[sid] = obj  # a span exported twice counts once
        else:
            continue
        if tid not in order:
            order.append(tid)
    for tid in order:
        group = sorted(
            spans.get(tid, {}).values(),
            key=lambda s: parse_time(s.get("started_at")) or float("inf"),
        )
        yield _trace_run(tid, traces.get(tid, {}), group, path)


def _trace_run(tid: str, trace: dict[str, Any], group: list[dict[str, Any]], path: Path) -> Run:
    run = _new_run(path, tid)
    run.task_id = opt_str(trace.get("workflow_name"))
    if opt_str(trace.get("group_id")):
        run.extra["group_id"] = trace["group_id"]
    b = RunBuilder(run)
    agents: list[str] = []
    pending: tuple[Usage | None, float | None, float | None] | None = None  # a response's usage
    first: Draft | None = None  # the first call of the latest response span
    from_generation = seen_input = False
    task_usage: Usage | None = None

    def settle() -> None:
        nonlocal pending
        if pending is not None:
            usage, t0, t1 = pending
            b.assistant("", (), usage=usage, t_start=t0, t_end=t1, always=True)
            pending = None

    for sp in group:
        data = as_dict(sp.get("span_data"))
        typ = as_str(data.get("type"))
        t0, t1 = parse_time(sp.get("started_at")), parse_time(sp.get("ended_at"))
        err = as_dict(sp.get("error"))
        if typ == "agent":
            name = opt_str(data.get("name"))
            if name and name not in agents:
                agents.append(name)
        elif typ in ("response", "generation"):
            settle()
            first = None
            from_generation = typ == "generation"
            usage = usage_openai(data.get("usage"))
            model = opt_str(data.get("model"))
            run.model = run.model or model
            if err:
                b.error(as_str(err.get("message")) or dumps(err), ts=t1, extra={"span": typ})
                continue
            if typ == "generation" and data.get("output"):
                if not seen_input:  # the first call's input holds the task (later ones repeat it)
                    seen_input = True
                    for m in as_list(data.get("input")):
                        msg = chat_message(m)
                        if msg is not None and msg.role == "user":
                            b.feed(msg, t_end=t0)
                msgs = [
                    chat_message({**as_dict(m), "role": "assistant"})
                    for m in as_list(data.get("output"))
                ]
                text = "\n".join(m.text for m in msgs if m is not None and m.text)
                calls = [c for m in msgs if m is not None for c in m.calls]
                b.assistant(
                    text, calls, usage=usage, t_start=t0, t_end=t1, model=model, always=True
                )
            else:
                pending = (usage, t0, t1)
        elif typ == "function":
            args = parse_json_text(data.get("input"))
            name = opt_str(data.get("name")) or "function"
            out = data.get("output")
            text = out if isinstance(out, str) else ("" if out is None else dumps(out))
            if err and not text:
                text = as_str(err.get("message")) or dumps(err)
            failed = True if err or _failed(text) else None
            code = reported_exit_code(text)
            extra = {"mcp_data": data["mcp_data"]} if data.get("mcp_data") else None
            if pending is None and from_generation and b.open_calls():
                # the generation span listed its calls: this is the oldest one's result
                b.result(None, text, name=name, ts=t1, is_error=failed, exit_code=code, extra=extra)
                continue
            call = ToolCall(None, name, args)
            if pending is not None:
                usage, p0, p1 = pending
                pending = None
                [d] = b.assistant("", [call], usage=usage, t_start=p0, t_end=p1)
                first = d
            elif first is not None:
                d = b.more_call(first, call, ts=t0)
            else:
                d = b.call(name, args, ts=t0)
            b.fill(d, text, ts=t1, is_error=failed, exit_code=code, extra=extra)
        elif typ == "handoff":
            settle()
            b.message(
                f"handoff: {as_str(data.get('from_agent'))} -> {as_str(data.get('to_agent'))}",
                role="system",
                ts=t1,
                extra={"handoff": True},
            )
        elif typ == "guardrail" and data.get("triggered"):
            settle()
            b.error(
                f"guardrail {as_str(data.get('name'))} tripped",
                ts=t1,
                status=Status.STATIC_REJECT,
                extra={"guardrail": as_str(data.get("name"))},
            )
        elif typ == "custom" and as_dict(data.get("data")).get("sdk_span_type") == "task":
            task_usage = usage_openai(as_dict(data.get("data")).get("usage")) or task_usage
    settle()
    if agents:
        run.extra["agents"] = agents
    run = b.finish()
    if task_usage is not None and task_usage.known:
        set_source_totals(
            run,
            totals_from_counts(
                input_tokens=task_usage.input,
                output_tokens=task_usage.output,
                cache_tokens=task_usage.cache_read,
                source=f"{path.name} task span usage",
                cache_separate=False,
            ),
        )
    for e in run.events:
        if e.kind is EventKind.REFLECT and not e.action_text:
            e.extra.setdefault("text_not_exported", True)
    return run
