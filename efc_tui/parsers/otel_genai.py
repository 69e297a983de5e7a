"""OpenTelemetry GenAI spans (FORMATS.md §9).

Reads OTLP JSON (``{"resourceSpans": [...]}``, one document or one per JSONL line), SDK
span dumps (a JSON array of spans: JS ``ReadableSpan`` style with ``spanContext``,
``[sec, nanos]`` times and a flat attribute map, or Python ``to_json`` style with
``context`` and ISO times), and a bare flat attribute map of one span.

One run per trace. Model-call spans (GenAI semconv ``gen_ai.*`` usage / messages /
operation ``chat``; Vercel AI SDK ``ai.prompt.messages`` / ``ai.response.*``; OpenLLMetry
``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*``; OpenInference ``llm.*``) are read in
start order; a model-call span that contains another (``ai.generateText`` around its
``doGenerate``, an agent span around its calls) is an aggregate and is skipped, so usage
is not counted twice. Each call's input messages beyond those already seen become message
/ tool-result events, its output the assistant turn (text, or one event per tool call).
Tool spans (``execute_tool``, ``ai.toolCall``, OpenInference ``TOOL``) are the results of
those calls, joined by call id (a tool result repeated in a later input is ignored). A
model-call span with status ERROR is an ``error`` / ``api_error`` event. Span start / end
times give the wall time. All spans of a file are held in memory to group them by trace.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from efc_tui.errors import InputError
from efc_tui.model import Run, Status
from efc_tui.parsers._builder import RunBuilder
from efc_tui.parsers._content import result_text, text_of
from efc_tui.parsers._msg import Msg, Result, ToolCall, Usage, chat_message, tool_call_from
from efc_tui.parsers._source import (
    JsonlSource,
    guarded,
    jsonl_layout,
    load_document,
    stem,
)
from efc_tui.parsers._time import parse_time
from efc_tui.parsers._values import (
    as_dict,
    as_float,
    as_int,
    as_list,
    id_str,
    opt_count,
    opt_str,
    parse_json_text,
)
from efc_tui.parsers.base import ReadOptions, read_head
from efc_tui.parsers.sniffs import otel_attr_map, otel_span_dump

NAME = "otel-genai"
_LLM_OPS = {"chat", "text_completion", "generate_content", "completion"}
# ---------------------------------------------------------------------------- spans


class Span(Struct):
    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start: float | None
    end: float | None
    attrs: dict[str, Any]
    events: list[tuple[str, float | None, dict[str, Any]]] = field(default_factory=list)
    error: bool = False
    status_message: str = ""
    order: int = 0


def _otlp_value(v: Any, depth: int = 0) -> Any:
    v = as_dict(v)
    if depth > 20:
        return None
    if "stringValue" in v:
        return v["stringValue"]
    if "intValue" in v:
        return as_int(v["intValue"]) if as_int(v["intValue"]) is not None else v["intValue"]
    if "doubleValue" in v:
        return as_float(v["doubleValue"])
    if "boolValue" in v:
        return bool(v["boolValue"])
    if "arrayValue" in v:
        return [_otlp_value(x, depth + 1) for x in as_list(as_dict(v["arrayValue"]).get("values"))]
    if "kvlistValue" in v:
        return _otlp_attrs(as_dict(v["kvlistValue"]).get("values"), depth + 1)
    if "bytesValue" in v:
        return opt_str(v["bytesValue"])
    return None


def _otlp_attrs(items: Any, depth: int = 0) -> dict[str, Any]:
    if isinstance(items, dict):  # already a flat map
        return dict(items)
    out: dict[str, Any] = {}
    for kv in as_list(items):
        kv = as_dict(kv)
        key = opt_str(kv.get("key"))
        if key is not None:
            out[key] = _otlp_value(kv.get("value"), depth)
    return out


def _nanos(value: Any) -> float | None:
    f = as_float(value)
    return None if f is None or f <= 0 else f / 1e9


def _status(st: Any) -> tuple[bool, str]:
    st = as_dict(st)
    code = st.get("code", st.get("status_code"))
    err = code in (2, "2", "STATUS_CODE_ERROR", "ERROR", "StatusCode.ERROR")
    return err, opt_str(st.get("message") or st.get("description")) or ""


def _spans_from_otlp(doc: dict[str, Any], order: list[int]) -> Iterator[Span]:
    for rs in as_list(doc.get("resourceSpans")):
        rs = as_dict(rs)
        for ss in as_list(rs.get("scopeSpans")) + as_list(rs.get("instrumentationLibrarySpans")):
            for sp in as_list(as_dict(ss).get("spans")):
                sp = as_dict(sp)
                err, msg = _status(sp.get("status"))
                order[0] += 1
                yield Span(
                    trace_id=opt_str(sp.get("traceId")) or "",
                    span_id=opt_str(sp.get("spanId")) or f"#{order[0]}",
                    parent_id=opt_str(sp.get("parentSpanId")) or None,
                    name=opt_str(sp.get("name")) or "",
                    start=_nanos(sp.get("startTimeUnixNano")),
                    end=_nanos(sp.get("endTimeUnixNano")),
                    attrs=_otlp_attrs(sp.get("attributes")),
                    events=[
                        (
                            opt_str(as_dict(e).get("name")) or "",
                            _nanos(as_dict(e).get("timeUnixNano")),
                            _otlp_attrs(as_dict(e).get("attributes")),
                        )
                        for e in as_list(sp.get("events"))
                    ],
                    error=err,
                    status_message=msg,
                    order=order[0],
                )


def _span_from_dump(sp: dict[str, Any], order: list[int]) -> Span:
    ctx = as_dict(sp.get("spanContext") or sp.get("context"))
    order[0] += 1
    err, msg = _status(sp.get("status"))
    parent = (
        sp.get("parentSpanId")
        or sp.get("parent_id")
        or as_dict(sp.get("parentSpanContext")).get("spanId")
    )
    return Span(
        trace_id=opt_str(ctx.get("traceId") or ctx.get("trace_id") or sp.get("traceId")) or "",
        span_id=opt_str(ctx.get("spanId") or ctx.get("span_id") or sp.get("spanId"))
        or f"#{order[0]}",
        parent_id=opt_str(parent) or None,
        name=opt_str(sp.get("name")) or "",
        start=parse_time(sp.get("startTime") if "startTime" in sp else sp.get("start_time")),
        end=parse_time(sp.get("endTime") if "endTime" in sp else sp.get("end_time")),
        attrs=_otlp_attrs(sp.get("attributes")),
        events=[
            (
                opt_str(as_dict(e).get("name")) or "",
                parse_time(as_dict(e).get("time") or as_dict(e).get("timestamp")),
                _otlp_attrs(as_dict(e).get("attributes")),
            )
            for e in as_list(sp.get("events"))
        ],
        error=err,
        status_message=msg,
        order=order[0],
    )


def _load_spans(
    path: Path, options: ReadOptions, warnings: list[str]
) -> tuple[list[Span], JsonlSource | None]:
    order = [0]
    head = read_head(path)
    if jsonl_layout(path, head, options):
        lines = JsonlSource(path, options)
        spans: list[Span] = []
        for lineno, obj in lines:
            if not isinstance(obj, dict) or not isinstance(obj.get("resourceSpans"), list):
                lines.bad("not an OTLP JSON export line (no resourceSpans)", lineno)
                continue
            spans.extend(_spans_from_otlp(obj, order))
        return spans, lines
    doc, notes = load_document(path, options)
    warnings.extend(notes)
    if isinstance(doc, dict) and isinstance(doc.get("resourceSpans"), list):
        return list(_spans_from_otlp(doc, order)), None
    if isinstance(doc, list) and doc and all(otel_span_dump(x) for x in doc):
        return [_span_from_dump(x, order) for x in doc], None
    if otel_span_dump(doc):
        return [_span_from_dump(doc, order)], None
    if otel_attr_map(doc):
        return [Span("", "attributes", None, stem(path), None, None, dict(doc))], None
    raise InputError(
        "not OpenTelemetry spans (no resourceSpans, span list or gen_ai.* attributes)", path
    )


# ---------------------------------------------------------------------------- span roles


def _is_tool_span(sp: Span) -> bool:
    a = sp.attrs
    return (
        a.get("gen_ai.operation.name") == "execute_tool"
        or a.get("openinference.span.kind") in ("TOOL", "tool")
        or sp.name.startswith("ai.toolCall")
        or ("ai.toolCall.name" in a)
    )


def _is_llm_span(sp: Span) -> bool:
    a = sp.attrs
    if _is_tool_span(sp):
        return False
    if a.get("gen_ai.operation.name") in _LLM_OPS or a.get("openinference.span.kind") in (
        "LLM",
        "llm",
    ):
        return True
    for k in a:
        if k.startswith(
            (
                "gen_ai.usage.",
                "gen_ai.input.messages",
                "gen_ai.output.messages",
                "gen_ai.prompt.",
                "gen_ai.completion.",
                "ai.prompt",
                "ai.response.text",
                "ai.response.toolCalls",
                "ai.usage.",
                "llm.input_messages.",
                "llm.output_messages.",
                "llm.token_count.",
            )
        ):
            return True
    return any(
        name.startswith(("gen_ai.user.message", "gen_ai.choice", "gen_ai.system.message"))
        for name, _, _ in sp.events
    )


def _drop_aggregates(spans: list[Span]) -> list[Span]:
    """Model-call spans that contain another model-call span are aggregates."""
    by_id = {s.span_id: s for s in spans}
    have_parents = any(s.parent_id for s in spans)
    aggregate: set[str] = set()
    if have_parents:
        for s in spans:
            p = by_id.get(s.parent_id or "")
            seen = 0
            while p is not None and seen < 1000:
                aggregate.add(p.span_id)
                p = by_id.get(p.parent_id or "")
                seen += 1
    else:
        for a in spans:
            for b in spans:
                if a is b or a.start is None or a.end is None or b.start is None or b.end is None:
                    continue
                if a.start <= b.start and b.end <= a.end and (a.start, a.end) != (b.start, b.end):
                    aggregate.add(a.span_id)
    return [s for s in spans if s.span_id not in aggregate]


# ---------------------------------------------------------------------------- messages


def _semconv_msg(m: Any) -> Msg | None:
    """GenAI semconv (>= 1.37) ``{role, parts[...]}`` message."""
    m = as_dict(m)
    if "parts" not in m:
        return chat_message(m)
    role = opt_str(m.get("role")) or "user"
    msg = Msg(role=role)
    texts: list[str] = []
    for p in as_list(m.get("parts")):
        p = as_dict(p)
        typ = p.get("type")
        if typ == "text":
            texts.append(opt_str(p.get("content")) or opt_str(p.get("text")) or "")
        elif typ == "tool_call":
            msg.calls.append(
                ToolCall(
                    id_str(p.get("id")), opt_str(p.get("name")), parse_json_text(p.get("arguments"))
                )
            )
        elif typ == "tool_call_response":
            msg.results.append(
                Result(id_str(p.get("id")), result_text(p.get("response", p.get("result"))))
            )
        elif typ == "reasoning":
            msg.reasoning += opt_str(p.get("content")) or ""
        elif typ in ("blob", "uri", "file", "image"):
            texts.append(
                text_of({"type": "image", "source": {"data": p.get("content")}})
                if typ == "blob" and isinstance(p.get("content"), str)
                else f"[{typ}]"
            )
    msg.text = "\n".join(t for t in texts if t)
    return msg


def _vercel_msg(m: Any) -> Msg | None:
    m = as_dict(m)
    content = m.get("content")
    if not isinstance(content, list):
        return chat_message(m)
    role = opt_str(m.get("role")) or "user"
    msg = Msg(role=role)
    texts: list[str] = []
    for p in content:
        p = as_dict(p)
        typ = p.get("type")
        if typ == "tool-call":
            call = tool_call_from(p)
            if call is not None:
                msg.calls.append(call)
        elif typ == "tool-result":
            out = p.get("output", p.get("result"))
            is_err = bool(p.get("isError"))
            if (
                isinstance(out, dict)
                and "value" in out
                and out.get("type") in ("text", "json", "error-text", "error-json")
            ):
                is_err = str(out.get("type")).startswith("error")
                out = out.get("value")
            msg.results.append(
                Result(
                    id_str(p.get("toolCallId")),
                    result_text(out),
                    opt_str(p.get("toolName")),
                    True if is_err else None,
                )
            )
        elif typ == "reasoning":
            msg.reasoning += opt_str(p.get("text")) or ""
        elif typ in ("image", "file"):
            texts.append(text_of({"type": "image", "image": p.get("image") or p.get("data")}))
        else:
            texts.append(text_of(p))
    msg.text = "\n".join(t for t in texts if t)
    return msg


def _indexed(a: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """``prefix.N.key`` attributes grouped by N (OpenLLMetry / OpenInference)."""
    groups: dict[int, dict[str, Any]] = {}
    pat = re.compile(re.escape(prefix) + r"\.(\d+)\.(.+)$")
    for k, v in a.items():
        m = pat.match(k)
        if m:
            groups.setdefault(int(m.group(1)), {})[m.group(2)] = v
    return [groups[i] for i in sorted(groups)]


def _flat_msg(g: dict[str, Any], pfx: str = "") -> Msg:
    """One indexed message: keys ``role``, ``content``, ``tool_call_id``,
    ``tool_calls.M.{id,name,arguments}`` (OpenInference nests under ``message.`` and
    ``tool_call.function.``)."""
    role = opt_str(g.get(pfx + "role")) or "user"
    msg = Msg(role=role, text=opt_str(g.get(pfx + "content")) or "")
    calls: dict[int, dict[str, Any]] = {}
    for k, v in g.items():
        m = re.match(re.escape(pfx) + r"tool_calls\.(\d+)\.(?:tool_call\.)?(?:function\.)?(.+)$", k)
        if m:
            calls.setdefault(int(m.group(1)), {})[m.group(2)] = v
    for i in sorted(calls):
        c = calls[i]
        msg.calls.append(
            ToolCall(
                id_str(c.get("id")), opt_str(c.get("name")), parse_json_text(c.get("arguments"))
            )
        )
    if role == "tool":
        msg.results.append(Result(id_str(g.get(pfx + "tool_call_id")), msg.text))
        msg.text = ""
    return msg


def _json_list(v: Any) -> list[Any]:
    v = parse_json_text(v)
    if isinstance(v, dict) and isinstance(v.get("messages"), list):
        return v["messages"]
    return v if isinstance(v, list) else []


def _io(sp: Span) -> tuple[list[Msg], list[Msg]]:
    """A model-call span's input and output messages, whichever convention it uses."""
    a = sp.attrs
    ins: list[Msg | None] = []
    outs: list[Msg | None] = []
    if "gen_ai.input.messages" in a or "gen_ai.output.messages" in a:
        sys_parts = _json_list(a.get("gen_ai.system_instructions"))
        if sys_parts:
            ins.append(
                Msg(
                    "system",
                    text="\n".join(opt_str(as_dict(p).get("content")) or "" for p in sys_parts),
                )
            )
        ins += [_semconv_msg(m) for m in _json_list(a.get("gen_ai.input.messages"))]
        outs += [_semconv_msg(m) for m in _json_list(a.get("gen_ai.output.messages"))]
    elif (
        "ai.prompt.messages" in a
        or "ai.response.text" in a
        or "ai.response.toolCalls" in a
        or "ai.prompt" in a
    ):
        prompt = a.get("ai.prompt.messages")
        if prompt is None and "ai.prompt" in a:
            p = as_dict(parse_json_text(a.get("ai.prompt")))
            prompt = p.get("messages")
            if not prompt:
                if p.get("system"):
                    ins.append(Msg("system", text=text_of(p.get("system"))))
                if p.get("prompt"):
                    ins.append(Msg("user", text=text_of(p.get("prompt"))))
        ins += [_vercel_msg(m) for m in _json_list(prompt)]
        out = Msg("assistant", text=opt_str(a.get("ai.response.text")) or "")
        out.reasoning = opt_str(a.get("ai.response.reasoning")) or ""
        for tc in _json_list(a.get("ai.response.toolCalls")):
            call = tool_call_from(tc)
            if call is not None:
                out.calls.append(call)
        outs.append(out)
    elif any(k.startswith("gen_ai.prompt.") or k.startswith("gen_ai.completion.") for k in a):
        ins += [_flat_msg(g) for g in _indexed(a, "gen_ai.prompt")]
        outs += [
            _flat_msg({**g, "role": g.get("role") or "assistant"})
            for g in _indexed(a, "gen_ai.completion")
        ]
    elif any(k.startswith(("llm.input_messages.", "llm.output_messages.")) for k in a):
        ins += [_flat_msg(g, "message.") for g in _indexed(a, "llm.input_messages")]
        outs += [
            _flat_msg({**g, "message.role": g.get("message.role") or "assistant"}, "message.")
            for g in _indexed(a, "llm.output_messages")
        ]
    else:
        for name, _, ea in sp.events:
            body = ea.get("content", ea.get("body"))
            if name == "gen_ai.choice":
                inner = as_dict(parse_json_text(ea.get("message")))
                outs.append(
                    chat_message({"role": "assistant", **inner})
                    if inner
                    else Msg("assistant", text=result_text(body))
                )
            elif name.startswith("gen_ai.") and name.endswith(".message"):
                role = name[len("gen_ai.") : -len(".message")]
                m = {"role": role, "content": parse_json_text(body) if body is not None else ""}
                if ea.get("id"):
                    m["tool_call_id"] = ea.get("id")
                if ea.get("tool_calls"):
                    m["tool_calls"] = parse_json_text(ea.get("tool_calls"))
                ins.append(chat_message(m))
    return [m for m in ins if m is not None], [m for m in outs if m is not None]


def _usage(a: dict[str, Any]) -> Usage | None:
    def first(*keys: str) -> int | None:
        for k in keys:
            v = opt_count(a.get(k))
            if v is not None:
                return v
        return None

    tin = first(
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.prompt_tokens",
        "ai.usage.inputTokens",
        "ai.usage.promptTokens",
        "llm.token_count.prompt",
    )
    tout = first(
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.completion_tokens",
        "ai.usage.outputTokens",
        "ai.usage.completionTokens",
        "llm.token_count.completion",
    )
    if tin is None and tout is None:
        return None
    cr = first(
        "gen_ai.usage.cache_read.input_tokens",
        "gen_ai.usage.cache_read_input_tokens",
        "ai.usage.cachedInputTokens",
        "llm.token_count.prompt_details.cache_read",
    )
    cw = first(
        "gen_ai.usage.cache_creation.input_tokens",
        "gen_ai.usage.cache_creation_input_tokens",
        "llm.token_count.prompt_details.cache_write",
    )
    reasoning = first(
        "gen_ai.usage.reasoning_tokens",
        "ai.usage.reasoningTokens",
        "llm.token_count.completion_details.reasoning",
    )
    return Usage(
        tin,
        tout,
        cr,
        cw,
        reasoning,
        as_float(a.get("gen_ai.usage.cost") or a.get("llm.cost.total")),
    )


def _model(a: dict[str, Any]) -> str | None:
    for k in (
        "gen_ai.response.model",
        "gen_ai.request.model",
        "ai.response.model",
        "ai.model.id",
        "llm.model_name",
    ):
        v = opt_str(a.get(k))
        if v:
            return v
    return None


# ---------------------------------------------------------------------------- runs


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    yield from guarded("OpenTelemetry", path, _read(path, options))


def _read(path: Path, options: ReadOptions) -> Iterator[Run]:
    warnings: list[str] = []
    spans, lines = _load_spans(path, options, warnings)
    traces: dict[str, dict[str, Span]] = {}
    for sp in spans:  # a span exported twice (a retried export) counts once: the last copy
        traces.setdefault(sp.trace_id, {})[sp.span_id] = sp
    made = 0
    for trace_id, by_id in traces.items():
        group = list(by_id.values())
        llm = [s for s in group if _is_llm_span(s)]
        tools = [s for s in group if _is_tool_span(s)]
        if not llm and not tools:
            continue
        keep = _drop_aggregates(llm) + tools
        keep.sort(key=lambda s: (s.start if s.start is not None else float("inf"), s.order))
        run = _trace_run(trace_id, group, keep, path, len(traces) > 1)
        if lines is not None:
            lines.settle(run)
        run.warnings.extend(warnings)
        made += 1
        yield run
    if made == 0:
        if lines is not None and lines.skipped and not spans:
            raise InputError(f"no OTLP spans; {lines.skipped} malformed line(s) skipped", path)
        raise InputError("no GenAI model-call or tool spans in these OpenTelemetry spans", path)


def _trace_run(trace_id: str, group: list[Span], keep: list[Span], path: Path, many: bool) -> Run:
    attrs_all = [s.attrs for s in group]
    conv = next(
        (
            opt_str(a.get("gen_ai.conversation.id"))
            for a in attrs_all
            if a.get("gen_ai.conversation.id")
        ),
        None,
    )
    agent = next(
        (opt_str(a.get("gen_ai.agent.name")) for a in attrs_all if a.get("gen_ai.agent.name")), None
    )
    func = next(
        (
            opt_str(a.get("ai.telemetry.functionId"))
            for a in attrs_all
            if a.get("ai.telemetry.functionId")
        ),
        None,
    )
    provider = next(
        (
            opt_str(a.get("gen_ai.provider.name") or a.get("gen_ai.system"))
            for a in attrs_all
            if a.get("gen_ai.provider.name") or a.get("gen_ai.system")
        ),
        None,
    )
    vercel = any(k.startswith("ai.") for a in attrs_all for k in a)
    extra: dict[str, Any] = {"trace_id": trace_id} if trace_id else {}
    if provider:
        extra["provider"] = provider
    run = Run(
        run_id=trace_id or stem(path),
        task_id=conv or func,
        harness=agent or ("vercel-ai-sdk" if vercel else None),
        source_format=NAME,
        source_path=str(path),
        extra=extra,
    )
    b = RunBuilder(run)
    seen = 0
    for sp in keep:
        if _is_tool_span(sp):
            _tool_span(b, sp)
            continue
        ins, outs = _io(sp)
        new = ins[seen:] if len(ins) >= seen else _tail(ins)
        for m in new:
            if m.role in ("assistant", "model"):
                m.calls = [c for c in m.calls if c.id is None or not b.has_call(c.id)]
                if m.calls or m.text:
                    b.feed(m)
            else:
                b.feed(m, t_start=sp.start)
        model = _model(sp.attrs)
        if run.model is None:
            run.model = model
        if sp.error and not outs:
            b.error(
                sp.status_message or f"span {sp.name} failed",
                ts=sp.end or sp.start,
                status=Status.API_ERROR,
                extra={"span": sp.name},
            )
        usage = _usage(sp.attrs)
        for i, m in enumerate(outs or [Msg("assistant")]):
            if not outs and (usage is None or sp.error):
                break
            drafts = b.assistant(
                m.text,
                m.calls,
                usage=usage if i == 0 else None,
                reasoning=m.reasoning,
                t_start=sp.start,
                t_end=sp.end,
                model=model,
                always=i == 0,
            )
            if drafts:
                drafts[0].extra["span"] = sp.name
        if ins or outs:
            seen = len(ins) + len(outs)
    return b.finish()


def _tail(ins: list[Msg]) -> list[Msg]:
    out: list[Msg] = []
    for m in reversed(ins):
        if m.role in ("assistant", "model"):
            break
        out.append(m)
    return list(reversed(out))


def _tool_span(b: RunBuilder, sp: Span) -> None:
    a = sp.attrs
    name = (
        opt_str(a.get("gen_ai.tool.name") or a.get("ai.toolCall.name") or a.get("tool.name"))
        or sp.name
    )
    cid = opt_str(a.get("gen_ai.tool.call.id") or a.get("ai.toolCall.id") or a.get("tool_call.id"))
    args = a.get(
        "gen_ai.tool.call.arguments",
        a.get("ai.toolCall.args", a.get("ai.toolCall.input", a.get("input.value"))),
    )
    result = a.get(
        "gen_ai.tool.call.result",
        a.get("ai.toolCall.result", a.get("ai.toolCall.output", a.get("output.value"))),
    )
    text = result_text(parse_json_text(result)) if result is not None else ""
    if sp.error and sp.status_message and sp.status_message not in text:
        text = (text + "\n" + sp.status_message).strip()
    is_error = True if sp.error else None
    if cid is None or not b.has_call(cid):
        d = b.call(name, parse_json_text(args), call_id=cid, ts=sp.start)
        b.fill(
            d, text, name=name, is_error=is_error, ts=sp.end or sp.start, extra={"span": sp.name}
        )
    else:
        b.result(
            cid, text, name=name, is_error=is_error, ts=sp.end or sp.start, extra={"span": sp.name}
        )
