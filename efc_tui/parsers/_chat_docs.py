"""OpenAI Chat Completions and Anthropic Messages files, read by the ``openai-chat`` and
``anthropic-messages`` readers (the reader's name only sets ``source_format``): request
bodies (message histories), responses, SSE captures (``_chat_sse``), bare message lists,
``{"request", "response"}`` records, and JSONL of messages (one run) or of conversations
(one run each). Their shared detection (``sniffs.chat_markers`` / ``sniffs.chat_score``:
low, generic confidences, so every specific agent format outranks them) is in ``sniffs``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from efc_tui.errors import InputError
from efc_tui.model import Run
from efc_tui.parsers._builder import RunBuilder
from efc_tui.parsers._chat_sse import (
    anthropic_response_msg,
    assemble_anthropic_sse,
    assemble_openai_sse,
    openai_response_msg,
    sse_events,
)
from efc_tui.parsers._msg import chat_message, usage_anthropic, usage_openai
from efc_tui.parsers._source import (
    JsonlSource,
    jsonl_layout,
    load_document,
    stem,
)
from efc_tui.parsers._time import parse_time
from efc_tui.parsers._values import as_dict, as_list, dumps, id_str, opt_str
from efc_tui.parsers.base import ReadOptions, read_head
from efc_tui.parsers.sniffs import is_anthropic_response, is_openai_response


def _new_run(fmt: str, path: Path, run_id: str | None, model: Any = None) -> Run:
    return Run(
        run_id=run_id or stem(path), model=opt_str(model), source_format=fmt, source_path=str(path)
    )


def chat_doc_run(doc: Any, path: Path, fmt: str, run_id: str | None = None) -> Run:
    """One JSON document (request, response, conversation or list of messages) as a run."""
    if is_openai_response(doc) or is_anthropic_response(doc):
        msg, usage = (
            openai_response_msg(doc) if is_openai_response(doc) else anthropic_response_msg(doc)
        )
        run = _new_run(fmt, path, run_id or id_str(doc.get("id")), doc.get("model"))
        for key in ("stop_reason", "system_fingerprint"):
            if doc.get(key) is not None:
                run.extra[key] = doc[key]
        choices = as_list(doc.get("choices"))
        if choices and as_dict(choices[0]).get("finish_reason") is not None:
            run.extra["finish_reason"] = as_dict(choices[0]).get("finish_reason")
        ts = parse_time(doc.get("created"))
        b = RunBuilder(run)
        b.feed(msg, usage=usage, t_start=ts, t_end=ts, model=opt_str(doc.get("model")))
        return b.finish()
    if isinstance(doc, dict) and isinstance(doc.get("request"), dict):
        # {"request": {...}, "response": {...}} logging records
        req = doc["request"]
        resp = doc.get("response")
        if isinstance(req.get("messages"), list) and (
            is_openai_response(resp) or is_anthropic_response(resp)
        ):
            return _conversation(req, path, fmt, run_id, response=resp)
        return chat_doc_run(req, path, fmt, run_id)
    if isinstance(doc, dict) and isinstance(doc.get("messages"), list):
        return _conversation(doc, path, fmt, run_id)
    if isinstance(doc, list) and doc and all(isinstance(m, dict) and "role" in m for m in doc):
        return _conversation({"messages": doc}, path, fmt, run_id)
    raise InputError("not a chat request, response or message list", path)


def _conversation(
    doc: dict[str, Any], path: Path, fmt: str, run_id: str | None, response: Any = None
) -> Run:
    run = _new_run(fmt, path, run_id, doc.get("model"))
    b = RunBuilder(run)
    for m in doc["messages"]:  # a top-level Anthropic "system" prompt is not an event
        msg = chat_message(m)
        if msg is None:
            continue
        ts = parse_time(as_dict(m).get("timestamp") or as_dict(m).get("created_at"))
        b.feed(msg, t_start=ts, t_end=ts)
    if response is not None:
        msg, usage = (
            openai_response_msg(response)
            if is_openai_response(response)
            else anthropic_response_msg(response)
        )
        ts = parse_time(as_dict(response).get("created"))
        b.feed(
            msg, usage=usage, t_start=ts, t_end=ts, model=opt_str(as_dict(response).get("model"))
        )
        if run.model is None:
            run.model = opt_str(as_dict(response).get("model"))
    return b.finish()


def read_chat_file(path: Path, options: ReadOptions, fmt: str) -> Iterator[Run]:
    """Every run of an OpenAI / Anthropic chat file (JSON, JSONL or an SSE capture)."""
    head = read_head(path)
    if not head.head.strip():
        raise InputError("empty file", path)
    first = head.text.lstrip()[:6]
    if first.startswith(("data:", "event:")):
        yield _sse_run(path, options, fmt)
        return
    if jsonl_layout(path, head, options):
        yield from _jsonl_runs(path, options, fmt)
        return
    doc, warnings = load_document(path, options)
    run = chat_doc_run(doc, path, fmt)
    run.warnings.extend(warnings)
    yield run


def _sse_run(path: Path, options: ReadOptions, fmt: str) -> Run:
    warnings: list[str] = []
    events = list(sse_events(path, options, warnings))
    if not events:
        raise InputError("no data events in this SSE stream", path)
    run = _new_run(fmt, path, None)
    b = RunBuilder(run)
    anthropic = any(
        as_dict(e.data).get("type") == "message_start" or e.name == "message_start" for e in events
    )
    errors: list[dict[str, Any]] = []
    if anthropic:
        meta, msg, usage = assemble_anthropic_sse(events, errors)
    else:
        meta, msg, usage = assemble_openai_sse(events)
    run.run_id = id_str(meta.get("id")) or run.run_id
    run.model = opt_str(meta.get("model"))
    for key in ("stop_reason", "finish_reason"):
        if meta.get(key):
            run.extra[key] = meta[key]
    ts = parse_time(meta.get("created"))
    if msg.text or msg.calls or msg.reasoning or (usage is not None and usage.known):
        b.feed(msg, usage=usage, t_start=ts, t_end=ts, model=run.model)
    for err in errors:
        b.error(opt_str(err.get("message")) or dumps(err), extra={"error_type": err.get("type")})
    run = b.finish()
    run.extra["streamed"] = True
    run.warnings.extend(warnings)
    return run


def _jsonl_runs(path: Path, options: ReadOptions, fmt: str) -> Iterator[Run]:
    lines = JsonlSource(path, options)
    builder: RunBuilder | None = None
    n = 0
    for lineno, obj in lines:
        if isinstance(obj, dict) and "role" in obj and "messages" not in obj:
            if builder is None:
                builder = RunBuilder(_new_run(fmt, path, None))
            msg = chat_message(obj)
            if msg is None:
                lines.bad("not a chat message", lineno)
                continue
            ts = parse_time(obj.get("timestamp") or obj.get("created_at"))
            usage = usage_openai(obj.get("usage")) or usage_anthropic(obj.get("usage"))
            builder.feed(msg, usage=usage, t_start=ts, t_end=ts, model=opt_str(obj.get("model")))
            if builder.run.model is None and obj.get("model"):
                builder.run.model = opt_str(obj.get("model"))
            continue
        try:
            run = chat_doc_run(obj, path, fmt, f"{stem(path)}:{lineno}")
        except InputError as exc:
            lines.bad(exc.reason, lineno)
            continue
        n += 1
        yield lines.settle(run)
    if builder is not None:
        yield lines.settle(builder.finish())
    elif n == 0:
        raise InputError("no chat messages or conversations in this file", path)
