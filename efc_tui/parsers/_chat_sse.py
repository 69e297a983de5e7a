"""OpenAI Chat Completions and Anthropic Messages responses, whole or streamed.

A response document becomes one assistant :class:`~efc_tui.parsers._msg.Msg` and its
usage; a server-sent-events capture (``*.sse.txt``) is re-assembled first: OpenAI
``chat.completion.chunk`` content and tool-call argument fragments concatenated by index,
Anthropic ``content_block_*`` deltas joined (``input_json_delta`` fragments parsed).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson
from msgspec import Struct

from efc_tui.errors import InputError
from efc_tui.parsers._msg import Msg, ToolCall, Usage, chat_message, usage_anthropic, usage_openai
from efc_tui.parsers._source import decode_json
from efc_tui.parsers._values import as_dict, as_int, as_list, id_str, opt_str, parse_json_text
from efc_tui.parsers.base import ReadOptions, open_binary


def openai_response_msg(doc: dict[str, Any]) -> tuple[Msg, Usage | None]:
    choices = as_list(doc.get("choices"))
    m = as_dict(as_dict(choices[0]).get("message")) if choices else {}
    msg = chat_message({**m, "role": "assistant"}) or Msg("assistant")
    return msg, usage_openai(doc.get("usage"))


def anthropic_response_msg(doc: dict[str, Any]) -> tuple[Msg, Usage | None]:
    msg = chat_message({"role": "assistant", "content": doc.get("content"), "id": doc.get("id")})
    return msg or Msg("assistant"), usage_anthropic(doc.get("usage"))


class SseEvent(Struct):
    line: int
    name: str | None
    data: Any


def sse_events(path: Path, options: ReadOptions, warnings: list[str]) -> Iterator[SseEvent]:
    """``event:`` / ``data:`` records of a server-sent-events capture; ``[DONE]`` ends it.
    A bad ``data:`` JSON line is an InputError (file:line) unless lenient; a broken last
    line is a warning."""
    name: str | None = None
    with open_binary(path, options) as f:
        try:
            lines = f.read().split(b"\n")
        except (EOFError, OSError, zlib.error) as exc:
            raise InputError(f"cannot read (corrupt compressed data?): {exc}", path) from None
    last = len(lines)
    while last > 0 and not lines[last - 1].strip():
        last -= 1
    for i, raw in enumerate(lines[:last], start=1):
        line = raw.rstrip(b"\r")
        if not line.strip():
            name = None
            continue
        if line.startswith(b"event:"):
            name = line[6:].strip().decode("utf-8", errors="replace")
            continue
        if not line.startswith(b"data:"):
            continue  # comments, id:, retry:
        payload = line[5:].strip()
        if payload == b"[DONE]":
            return
        try:
            data = decode_json(payload)
        except (orjson.JSONDecodeError, RecursionError) as exc:
            if i == len(lines):  # the last line, with no newline after it
                warnings.append(f"{path}:{i}: truncated last line ignored (a stream cut off?)")
                return
            if not options.lenient:
                raise InputError(
                    f"not valid JSON in SSE data ({getattr(exc, 'msg', exc)})", path, i
                ) from None
            warnings.append(f"{path}:{i}: skipped: not valid JSON in SSE data")
            continue
        yield SseEvent(i, name, data)


def assemble_openai_sse(events: Iterable[SseEvent]) -> tuple[dict[str, Any], Msg, Usage | None]:
    """Concatenate ``chat.completion.chunk`` deltas (tool calls by index)."""
    meta: dict[str, Any] = {}
    text: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    usage = None
    for ev in events:
        d = as_dict(ev.data)
        for key in ("id", "model", "created"):
            if d.get(key) is not None:
                meta.setdefault(key, d[key])
        if d.get("usage"):
            usage = usage_openai(d.get("usage"))
        for ch in as_list(d.get("choices")):
            ch = as_dict(ch)
            if as_int(ch.get("index")) not in (None, 0):
                continue
            delta = as_dict(ch.get("delta"))
            if isinstance(delta.get("content"), str):
                text.append(delta["content"])
            for key in ("reasoning_content", "reasoning"):
                if isinstance(delta.get(key), str):
                    reasoning.append(delta[key])
            for tc in as_list(delta.get("tool_calls")):
                tc = as_dict(tc)
                idx = as_int(tc.get("index")) or 0
                slot = calls.setdefault(idx, {"id": None, "name": None, "args": []})
                if tc.get("id"):
                    slot["id"] = id_str(tc.get("id"))
                fn = as_dict(tc.get("function"))
                if fn.get("name"):
                    slot["name"] = opt_str(fn.get("name"))
                if isinstance(fn.get("arguments"), str):
                    slot["args"].append(fn["arguments"])
            fc = as_dict(delta.get("function_call"))
            if fc:
                slot = calls.setdefault(-1, {"id": None, "name": None, "args": []})
                if fc.get("name"):
                    slot["name"] = opt_str(fc.get("name"))
                if isinstance(fc.get("arguments"), str):
                    slot["args"].append(fc["arguments"])
            if ch.get("finish_reason"):
                meta["finish_reason"] = ch.get("finish_reason")
    msg = Msg("assistant", text="".join(text), reasoning="".join(reasoning))
    for idx in sorted(calls):
        slot = calls[idx]
        msg.calls.append(ToolCall(slot["id"], slot["name"], parse_json_text("".join(slot["args"]))))
    return meta, msg, usage


def assemble_anthropic_sse(
    events: Iterable[SseEvent], errors: list[dict[str, Any]]
) -> tuple[dict[str, Any], Msg, Usage | None]:
    """Rebuild the message from ``message_start`` / ``content_block_*`` / ``message_delta``;
    stream ``error`` events are appended to ``errors``."""
    message: dict[str, Any] = {}
    usage: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, list[str]] = {}
    for ev in events:
        d = as_dict(ev.data)
        typ = d.get("type") or ev.name
        if typ == "message_start":
            message = dict(as_dict(d.get("message")))
            usage.update(as_dict(message.get("usage")))
        elif typ == "content_block_start":
            idx = as_int(d.get("index")) or 0
            blocks[idx] = dict(as_dict(d.get("content_block")))
        elif typ == "content_block_delta":
            idx = as_int(d.get("index")) or 0
            block = blocks.setdefault(idx, {"type": "text", "text": ""})
            delta = as_dict(d.get("delta"))
            dt = delta.get("type")
            if dt == "text_delta" and isinstance(delta.get("text"), str):
                block["text"] = (block.get("text") or "") + delta["text"]
            elif dt == "input_json_delta" and isinstance(delta.get("partial_json"), str):
                partial.setdefault(idx, []).append(delta["partial_json"])
            elif dt == "thinking_delta" and isinstance(delta.get("thinking"), str):
                block["thinking"] = (block.get("thinking") or "") + delta["thinking"]
        elif typ == "message_delta":
            usage.update({k: v for k, v in as_dict(d.get("usage")).items() if v is not None})
            stop = as_dict(d.get("delta")).get("stop_reason")
            if stop:
                message["stop_reason"] = stop
        elif typ == "error":
            errors.append(as_dict(d.get("error")))
    for idx, parts in partial.items():
        if idx in blocks:
            raw = "".join(parts)
            blocks[idx]["input"] = (
                parse_json_text(raw) if raw.strip() else as_dict(blocks[idx].get("input"))
            )
    message["content"] = [blocks[i] for i in sorted(blocks)]
    message["usage"] = usage
    msg, u = anthropic_response_msg(message)
    meta = {k: message.get(k) for k in ("id", "model", "stop_reason") if message.get(k) is not None}
    return meta, msg, u
