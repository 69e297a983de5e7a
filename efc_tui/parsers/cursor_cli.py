"""Cursor CLI ``stream-json`` logs (``cursor-agent -p --output-format stream-json``).

The log is JSONL, one event per line; some collections keep it wrapped in a JSON document
``{"schema_version": "cursor-jsonl-v1", "source_format": "jsonl", "steps": [events]}``
(read the same way). Events are routed on ``type``:

- ``system`` / ``init``: ``session_id`` (the run id), ``model`` (Cursor's display name),
  ``cwd``; ``user``: the prompt, a ``message`` event;
- ``thinking`` (``delta`` fragments, then ``completed``): the model's reasoning, joined and
  kept as the next action's ``extra["reasoning"]``;
- ``assistant``: text of a model call (``model_call_id``); text followed by a tool call of
  the same model call is that call's thought, otherwise a ``reflect`` event;
- ``tool_call`` ``started`` / ``completed`` (joined by ``call_id``): one event per call.
  ``tool_call`` holds one ``<kind>ToolCall`` object (``shellToolCall``, ``readToolCall``,
  ``editToolCall``, ``grepToolCall``, ``globToolCall``, ``updateTodosToolCall``,
  ``mcpToolCall``, …) with ``args`` and ``result``: the tool is the kind (``shell``,
  ``read``, …), the action its command / arguments, the observation the result's output;
  a ``failure`` / ``error`` result is a failure (``exitCode`` a status hint), ``rejected``
  a static reject. Calls of one model call after the first carry no usage of their own;
- ``result``: how the run ended (``subtype``, ``is_error``, ``duration_ms``) and the
  session's token totals (``usage``: ``inputTokens`` without the cache,
  ``cacheReadTokens``, ``cacheWriteTokens``, ``outputTokens``).

Cursor records no per-call usage: the ``result`` totals are shared out over the model
calls (input by context, output by generated text; flagged ``tokens``) and kept as the
run's source totals; without them tokens are estimated from text. ``timestamp_ms`` gives
wall time (the prompt has none).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from efc_tui.errors import InputError
from efc_tui.model import EventKind, Run, Status
from efc_tui.parsers._builder import RunBuilder
from efc_tui.parsers._content import content_text, text_of
from efc_tui.parsers._drafts import Draft, share_totals
from efc_tui.parsers._msg import ToolCall
from efc_tui.parsers._source import (
    JsonlSource,
    guarded,
    jsonl_layout,
    load_document,
    stem,
    trim_note,
)
from efc_tui.parsers._time import parse_time
from efc_tui.parsers._totals import set_source_totals, totals_from_counts
from efc_tui.parsers._values import (
    as_dict,
    as_int,
    as_list,
    as_str,
    dumps,
    id_str,
    opt_count,
    opt_str,
)
from efc_tui.parsers.base import ReadOptions, read_head
from efc_tui.parsers.sniffs import CURSOR_TYPES

NAME = "cursor-cli"
_FAILED = ("failure", "error")


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    yield from guarded("Cursor CLI", path, _read(path, options))


def _read(path: Path, options: ReadOptions) -> Iterator[Run]:
    head = read_head(path)
    source: JsonlSource | None = None
    warnings: list[str] = []
    wrapper: dict[str, Any] = {}
    events: Iterable[Any]
    if jsonl_layout(path, head, options):
        source = JsonlSource(path, options)
        events = (obj for _, obj in source)
    else:
        doc, warnings = load_document(path, options)
        if not isinstance(doc, dict) or not isinstance(doc.get("steps"), list):
            raise InputError("not a Cursor CLI log (no JSONL events and no steps list)", path)
        wrapper = doc
        events = doc["steps"]
    log = _Log(path)
    for obj in events:
        if isinstance(obj, dict):
            log.event(obj)
    if source is not None:
        source.require(
            log.known, "Cursor CLI", "not a Cursor CLI log: no line has a known event type"
        )
    elif log.known == 0:
        raise InputError("not a Cursor CLI log: no step has a known event type", path)
    run = log.finish()
    note = trim_note(wrapper, len(as_list(wrapper.get("steps"))))
    if note:
        run.flags.append(note)
    if source is not None:
        source.settle(run)
    run.warnings.extend(warnings)
    yield run


def tool_call_parts(tool_call: Any) -> tuple[str | None, Any, dict[str, Any] | None, str | None]:
    """(tool name, arguments, result body, result kind) of a Cursor ``tool_call`` object."""
    tc = as_dict(tool_call)
    for key, body in tc.items():
        if isinstance(key, str) and key.endswith("ToolCall") and isinstance(body, dict):
            name = key[: -len("ToolCall")] or key
            args = body.get("args")
            if name == "mcp":
                a = as_dict(args)
                name = f"mcp:{as_str(a.get('toolName')) or as_str(a.get('name')) or '?'}"
                args = a.get("args", args)
            result = as_dict(body.get("result"))
            kind = next((k for k in result if isinstance(result.get(k), dict)), None)
            return name, args, (as_dict(result.get(kind)) if kind else None), kind
    return None, tool_call, None, None


#: Cursor's bookkeeping in a call's arguments (not what the agent asked for)
_ARG_NOISE = {
    "toolCallId",
    "parsingResult",
    "simpleCommands",
    "hasInputRedirect",
    "hasOutputRedirect",
    "fileOutputThresholdBytes",
    "isBackground",
    "skipApproval",
    "timeoutBehavior",
    "closeStdin",
    "workingDirectory",
    "timeout",
    "streamContent",
}


def _action(args: Any) -> Any:
    """The arguments as the action: a shell call's command, else the arguments without
    Cursor's bookkeeping (an edit's full new text is its result's diff, not repeated here)."""
    a = as_dict(args)
    if isinstance(a.get("command"), str):
        return a["command"]
    if a:
        return {k: v for k, v in a.items() if k not in _ARG_NOISE} or a
    return args


def _files(value: Any, depth: int = 0) -> list[str] | None:
    """A ``files`` list of paths anywhere in a grep / glob result (workspace-nested)."""
    v = as_dict(value)
    files = v.get("files")
    if isinstance(files, list) and all(isinstance(x, str) for x in files):
        return files
    if depth < 4:
        for sub in v.values():
            found = _files(sub, depth + 1)
            if found is not None:
                return found
    return None


def _todos(todos: Any) -> str:
    return "\n".join(
        f"- [{as_str(as_dict(t).get('status')).removeprefix('TODO_STATUS_').lower() or '?'}] "
        f"{as_str(as_dict(t).get('content'))}"
        for t in as_list(todos)
    )


def _result_text(body: dict[str, Any]) -> str:
    """A call's result as text: its output, content or diff, the files found, the todo
    list; otherwise the result as JSON."""
    for key in ("interleavedOutput", "output", "content", "diffString", "message", "error"):
        v = body.get(key)
        if isinstance(v, str) and v:
            return v
    out = "\n".join(x for x in (as_str(body.get("stdout")), as_str(body.get("stderr"))) if x)
    if out:
        return out
    files = _files(body)
    if files is not None:
        return "\n".join(files)
    if isinstance(body.get("todos"), list):
        return _todos(body["todos"])
    return dumps(body)


class _Log:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.run = Run(run_id=stem(path), harness=NAME, source_format=NAME, source_path=str(path))
        self.b = RunBuilder(self.run)
        self.known = 0
        self.thinking: list[str] = []
        self.text: list[str] = []
        self.text_call: str | None = None
        self.text_ts: float | None = None
        self.firsts: dict[str, Draft] = {}  # model_call_id -> its first draft
        self.calls: dict[str, Draft] = {}
        self.result: dict[str, Any] = {}

    def event(self, obj: dict[str, Any]) -> None:
        typ = obj.get("type")
        if typ not in CURSOR_TYPES:
            return
        self.known += 1
        ts = parse_time(obj.get("timestamp_ms"))
        sid = id_str(obj.get("session_id"))
        if sid and self.run.task_id is None:
            self.run.task_id = sid
            self.run.run_id = sid
        mcid = opt_str(obj.get("model_call_id"))
        if typ == "system":
            if obj.get("subtype") == "init":
                self.run.model = self.run.model or opt_str(obj.get("model"))
                if opt_str(obj.get("cwd")):
                    self.run.extra["cwd"] = obj["cwd"]
        elif typ == "user":
            self.flush()
            text, _ = content_text(as_dict(obj.get("message")).get("content"))
            if text:
                self.b.message(text, role="user", ts=ts)
        elif typ == "thinking":
            if isinstance(obj.get("text"), str):
                self.thinking.append(obj["text"])
        elif typ == "assistant":
            if self.text and self.text_call != mcid:
                self.flush()
            text = text_of(as_dict(obj.get("message")).get("content"))
            if text:
                self.text.append(text)
                self.text_call, self.text_ts = mcid, ts
        elif typ == "tool_call":
            self.tool_call(obj, mcid, ts)
        elif typ == "result":
            self.flush()
            self.result = obj

    def flush(self) -> None:
        """Assistant text (and reasoning) not followed by a tool call: a reflect event."""
        if not self.text and not self.thinking:
            return
        text, reasoning = "".join(self.text), "".join(self.thinking)
        drafts = self.b.assistant(
            text, (), reasoning=reasoning, t_start=self.text_ts, t_end=self.text_ts
        )
        if drafts and self.text_call:
            self.firsts.setdefault(self.text_call, drafts[0])
        self.text, self.thinking, self.text_call, self.text_ts = [], [], None, None

    def tool_call(self, obj: dict[str, Any], mcid: str | None, ts: float | None) -> None:
        cid = id_str(obj.get("call_id"))
        name, args, body, kind = tool_call_parts(obj.get("tool_call"))
        if obj.get("subtype") == "started" or (cid is not None and cid not in self.calls):
            if self.text and self.text_call != mcid:
                self.flush()
            call = ToolCall(cid, name, _action(args))
            first = self.firsts.get(mcid) if mcid else None
            if first is not None and first.is_call and not self.text:
                d = self.b.more_call(first, call, ts=ts)
            else:
                text, reasoning = "".join(self.text), "".join(self.thinking)
                self.text, self.thinking, self.text_call = [], [], None
                [d] = self.b.assistant(
                    text, [call], reasoning=reasoning, t_start=self.text_ts or ts, t_end=ts
                )
                if mcid:
                    self.firsts[mcid] = d
            if cid is not None:
                self.calls[cid] = d
        if obj.get("subtype") == "completed" and cid is not None and cid in self.calls:
            d = self.calls[cid]
            if body is None:
                self.b.fill(d, dumps(obj.get("tool_call")), ts=ts, truncated=True)
                return
            failed = kind in _FAILED
            if (d.tool or "").lower() in ("updatetodos", "todowrite") and isinstance(
                body.get("todos"), list
            ):
                d.kind, d.memory_write = EventKind.MEMORY, _todos(body["todos"])
            self.b.fill(
                d,
                _result_text(body),
                ts=ts,
                exit_code=as_int(body.get("exitCode")),
                is_error=True if failed else None,
                status=Status.STATIC_REJECT if kind == "rejected" else None,
                extra={"result_kind": kind} if kind else None,
            )

    def finish(self) -> Run:
        self.flush()
        res = self.result
        usage = as_dict(res.get("usage"))
        base_in = opt_count(usage.get("inputTokens"))
        reads = opt_count(usage.get("cacheReadTokens")) or 0
        writes = opt_count(usage.get("cacheWriteTokens")) or 0
        out = opt_count(usage.get("outputTokens"))
        if base_in is not None and out is not None:
            n = share_totals(self.b.drafts, base_in + reads + writes, out)
            if n:
                self.run.flags.append(
                    f"tokens: Cursor keeps only session totals (result.usage: {base_in + reads + writes} in, "
                    f"{out} out); shared over the {n} model calls by context and output length"
                )
        if res:
            self.run.exit_status = opt_str(res.get("subtype"))
            for key in ("duration_ms", "duration_api_ms", "is_error"):
                if res.get(key) is not None:
                    self.run.extra[key] = res[key]
        else:
            self.run.flags.append(
                "no result line: the session did not finish (or the log is cut short)"
            )
        run = self.b.finish()
        if base_in is not None or out is not None:
            # the cache split is the session's only (no call records it): kept, not compared
            run.extra["usage"] = {
                "input_tokens": base_in,
                "cache_read_tokens": reads,
                "cache_write_tokens": writes,
                "output_tokens": out,
            }
            set_source_totals(
                run,
                totals_from_counts(
                    input_tokens=(base_in or 0) + reads + writes,
                    output_tokens=out,
                    source=f"{self.path.name} result.usage",
                    cache_separate=False,
                ),
            )
        return run
