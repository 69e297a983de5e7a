"""Gemini CLI chat sessions (``~/.gemini/tmp/<projectHash>/chats/session-*.json`` and the
newer ``session-*.jsonl``; FORMATS.md §10).

One run per session (``run_id`` = ``sessionId``). ``user`` messages are ``message``
events; each ``gemini`` message is one model call: its ``tokens`` are the usage (``input``
already includes ``cached``; tool-use prompt tokens are added to the input, ``thoughts``
to the output), ``thoughts`` go to ``extra["reasoning"]``, and each of its ``toolCalls``
(``{id, name, args, result, status, timestamp}``) is one event whose result is the
``functionResponse`` output (``status: "error"`` is a failure, ``"cancelled"`` a refused
call: ``static_reject``). Text with no tool call is ``reflect``. ``error`` messages are
``error`` / ``api_error`` events, ``info`` / ``warning`` messages ``message`` events.

In the JSONL form the first line holds the session metadata, later lines are messages
(a message re-written under the same id replaces the earlier one in place), ``$set``
metadata updates and ``$rewindTo`` records (which drop that message and everything after
it). The ``toolCalls`` layout comes from Gemini CLI's source; the only real sample has no
tool use.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from efc_tui.errors import InputError
from efc_tui.model import Run, Status
from efc_tui.parsers._builder import RunBuilder
from efc_tui.parsers._content import result_text, text_of
from efc_tui.parsers._msg import ToolCall, Usage
from efc_tui.parsers._source import (
    JsonlSource,
    guarded,
    jsonl_layout,
    load_document,
    stem,
)
from efc_tui.parsers._time import parse_time
from efc_tui.parsers._values import as_dict, as_list, dumps, id_str, opt_count, opt_str
from efc_tui.parsers.base import ReadOptions, read_head
from efc_tui.parsers.sniffs import gemini_meta

NAME = "gemini-cli"


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    yield from guarded("Gemini CLI", path, _read(path, options))


def _read(path: Path, options: ReadOptions) -> Iterator[Run]:
    head = read_head(path)
    lines: JsonlSource | None = None
    warnings: list[str] = []
    if jsonl_layout(path, head, options):
        lines = JsonlSource(path, options)
        meta: dict[str, Any] = {}
        messages: dict[str, dict[str, Any]] = {}
        for lineno, obj in lines:
            if not isinstance(obj, dict):
                lines.bad("expected a JSON object", lineno)
                continue
            if "$rewindTo" in obj:
                target = obj.get("$rewindTo")
                keys = list(messages)
                if target in messages:
                    for k in keys[keys.index(target) :]:
                        del messages[k]
                else:
                    messages.clear()
            elif isinstance(obj.get("$set"), dict):
                meta.update(obj["$set"])
            elif isinstance(obj.get("id"), str) and "type" in obj:
                messages[obj["id"]] = obj  # a re-write keeps the first position
            elif gemini_meta(obj):
                meta.update(obj)
            # anything else: an unknown record kind, ignored
        if not gemini_meta(meta):
            raise InputError(
                "not a Gemini CLI session (no sessionId / projectHash metadata line)", path
            )
        doc = {**meta, "messages": list(meta.get("messages") or []) or list(messages.values())}
    else:
        doc, warnings = load_document(path, options)
        if not gemini_meta(doc) or not isinstance(doc.get("messages"), list):
            raise InputError(
                "not a Gemini CLI session (no sessionId / projectHash / messages)", path
            )
    run = _run(doc, path)
    if lines is not None:
        lines.settle(run)
    run.warnings.extend(warnings)
    yield run


def _usage(tokens: Any) -> Usage | None:
    t = as_dict(tokens)
    tin, tout = opt_count(t.get("input")), opt_count(t.get("output"))
    if tin is None and tout is None:
        return None
    tool, thoughts = opt_count(t.get("tool")) or 0, opt_count(t.get("thoughts")) or 0
    return Usage(
        (tin or 0) + tool,
        (tout or 0) + thoughts,
        opt_count(t.get("cached")) or None,
        None,
        thoughts or None,
    )


def _tool_result(tc: dict[str, Any]) -> tuple[str, bool]:
    """A tool call's result text and whether the functionResponse reports an error."""
    texts: list[str] = []
    is_err = False
    res = tc.get("result")
    for part in res if isinstance(res, list) else [res] if res is not None else []:
        part = as_dict(part)
        fr = as_dict(part.get("functionResponse") or part.get("function_response"))
        if fr:
            resp = fr.get("response")
            r = as_dict(resp)
            if "error" in r:
                is_err = True
                texts.append(result_text(r.get("error")))
            elif "output" in r:
                texts.append(result_text(r.get("output")))
            else:
                texts.append(result_text(resp))
        else:
            t = text_of(part)
            if t:
                texts.append(t)
    text = "\n".join(t for t in texts if t)
    if not text:
        disp = tc.get("resultDisplay")
        text = disp if isinstance(disp, str) else (dumps(disp) if disp else "")
    return text, is_err


def _run(doc: dict[str, Any], path: Path) -> Run:
    extra = {
        k: doc[k]
        for k in ("projectHash", "startTime", "lastUpdated", "summary", "kind")
        if doc.get(k)
    }
    run = Run(
        run_id=id_str(doc.get("sessionId")) or stem(path),
        harness="gemini-cli",
        source_format=NAME,
        source_path=str(path),
        extra=extra,
    )
    b = RunBuilder(run)
    for m in doc["messages"]:
        if not isinstance(m, dict):
            continue
        typ = opt_str(m.get("type")) or "user"
        ts = parse_time(m.get("timestamp"))
        text = text_of(m.get("content"))
        if typ == "gemini":
            model = opt_str(m.get("model"))
            if run.model is None:
                run.model = model
            thoughts = "\n".join(
                ": ".join(
                    x
                    for x in (
                        opt_str(as_dict(t).get("subject")),
                        opt_str(as_dict(t).get("description")),
                    )
                    if x
                )
                for t in as_list(m.get("thoughts"))
            )
            calls = [as_dict(tc) for tc in as_list(m.get("toolCalls"))]
            drafts = b.assistant(
                text,
                [
                    ToolCall(id_str(tc.get("id")), opt_str(tc.get("name")), tc.get("args"))
                    for tc in calls
                ],
                usage=_usage(m.get("tokens")),
                reasoning=thoughts,
                t_end=ts,
                model=model,
                always=True,
            )
            for d, tc in zip(drafts if calls else [], calls, strict=False):
                status_raw = opt_str(tc.get("status"))
                out, is_err = _tool_result(tc)
                if (
                    status_raw
                    in (None, "scheduled", "validating", "executing", "awaiting_approval")
                    and not out
                ):
                    continue  # never ran: no result
                b.fill(
                    d,
                    out,
                    is_error=True if (is_err or status_raw == "error") else None,
                    ts=parse_time(tc.get("timestamp")) or ts,
                    status=Status.STATIC_REJECT if status_raw == "cancelled" else None,
                    extra={"tool_status": status_raw} if status_raw else None,
                )
        elif typ == "error":
            b.error(text or "error", ts=ts)
        else:
            b.message(text, role=typ, ts=ts)
    return b.finish()
