"""OpenAI Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

One JSONL file is one run, read line by line. Every line is ``{timestamp, type, payload}``;
unknown line and payload types are ignored (this format changes often, and no real rollout
was available to check against, see FORMATS.md §4).

- ``response_item`` payloads are the conversation. ``function_call`` / ``custom_tool_call``
  / ``local_shell_call`` / ``tool_search_call`` are tool calls (one event each; action = the
  shell command, the patch, the plan, or the JSON arguments), joined to their
  ``*_output`` by ``call_id``. ``web_search_call`` and ``image_generation_call`` are tool
  events whose results are not in the log. The kind is inferred from tool and command
  (``apply_patch`` is ``generation`` / ``repair``, ``update_plan`` is ``plan`` with ``plan``
  set, tests are ``check``). ``reasoning`` and assistant text of the same model response
  that precede a tool call are its ``extra["thought"]``; otherwise they are a ``reflect``
  event. User messages are ``message`` events (context preambles such as
  ``<environment_context>`` included, marked ``extra["context"]``); developer/system
  messages are not events.
- Exit codes: ``exec_command_end.exit_code`` (event), or inside the output: the older JSON
  string ``{"output", "metadata": {"exit_code", "duration_seconds"}}`` or the newer
  ``Exit code: N`` / ``Process exited with code N`` headers. ``patch_apply_end.success``
  and MCP ``isError`` / ``Err`` results are error hints. A command or patch the user
  declined ("exec command rejected by user", "patch rejected by user"), the guardian
  refused ("rejected due to unacceptable risk") or the sandbox denied is ``static_reject``.
- ``event_msg`` ``user_message`` / ``agent_message`` duplicate the response items: each
  one is matched against the other source and used only once. ``error`` and
  ``stream_error`` are ``error`` events with status ``api_error``. ``compacted`` lines and
  ``context_compacted`` events are one ``message`` event with ``extra["compaction"]``.

Tokens: ``event_msg`` ``token_count`` after each model response. The difference of
``info.total_token_usage`` between consecutive counts is that response's usage (repeated
counts are skipped; ``last_token_usage`` when there is no total); ``input_tokens`` includes
``cached_input_tokens`` (kept as ``cache_read_tokens``), ``output_tokens`` includes
reasoning. The usage sits on the response's first event. No cost is stored. Timestamps
(ISO) give wall time. Model: ``turn_context.model`` (it can change per turn; the run's
model is the one most responses used, all of them in ``extra["models"]``). Task id:
``session_meta.payload.id``. Success: not recorded (None). Sub-agent and forked sessions
are separate files, read as runs of their own.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from efc_tui.model import EventKind, Run, Status
from efc_tui.parsers._content import content_text
from efc_tui.parsers._drafts import Draft, ThoughtBuffer, finalize
from efc_tui.parsers._signals import codex_refusal, refused
from efc_tui.parsers._source import JsonlSource
from efc_tui.parsers._time import parse_time
from efc_tui.parsers._values import (
    as_count,
    as_dict,
    as_float,
    as_int,
    as_list,
    as_str,
    dumps,
    opt_str,
    parse_json_text,
)
from efc_tui.parsers.base import ReadOptions
from efc_tui.parsers.sniffs import CODEX_LINE_TYPES

NAME = "codex"
_CALL_TYPES = {"function_call", "custom_tool_call", "local_shell_call", "tool_search_call"}
_OUTPUT_TYPES = {
    "function_call_output",
    "custom_tool_call_output",
    "tool_search_output",
    "local_shell_call_output",
}
_SHELLS = {
    "bash",
    "sh",
    "zsh",
    "/bin/bash",
    "/bin/sh",
    "/bin/zsh",
    "/usr/bin/bash",
    "powershell",
    "pwsh",
}
_CONTEXT_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md",
    "<permissions",
    "<user_shell_command>",
    "<turn_aborted>",
)
_EXIT_HEADER = re.compile(r"^Exit code: (-?\d+)\s*\nWall time: ([\d.]+) seconds?", re.MULTILINE)
_PROCESS_EXIT = re.compile(r"Process exited with code (-?\d+)")
_IMAGE_LINE = re.compile(r"^\[image(?:: [^\]\n]*)?\]$\n?", re.MULTILINE)  # _content.image_note
_WALL = re.compile(r"^Wall time: ([\d.]+) seconds?", re.MULTILINE)


def _command(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(x, str) for x in value):
        if len(value) >= 3 and value[0] in _SHELLS and value[1] in ("-lc", "-c", "-Command"):
            return value[2]
        return shlex.join(value)
    return None


def _render_plan(args: dict[str, Any]) -> str:
    lines = []
    if isinstance(args.get("explanation"), str) and args["explanation"]:
        lines.append(args["explanation"])
    for item in as_list(args.get("plan")):
        item = as_dict(item)
        lines.append(f"- [{as_str(item.get('status')) or '?'}] {as_str(item.get('step'))}")
    return "\n".join(lines)


def _call_action(p: dict[str, Any]) -> tuple[str, str]:
    """(tool name, action text) of a tool-call response item."""
    typ = p.get("type")
    if typ == "local_shell_call":
        action = as_dict(p.get("action"))
        return "local_shell", _command(action.get("command")) or dumps(action)
    name = as_str(p.get("name")) or as_str(p.get("type"))
    raw = p.get("arguments") if typ in ("function_call", "tool_search_call") else p.get("input")
    args = parse_json_text(raw)
    if isinstance(args, dict):
        cmd = _command(args.get("command")) or _command(args.get("cmd"))
        if cmd is not None:
            return name, cmd
        if name == "update_plan":
            return name, _render_plan(args)
        for k in ("input", "patch"):
            if isinstance(args.get(k), str):
                return name, args[k]
        return name, dumps(args)
    if isinstance(args, str):
        return name, args
    return name, "" if args is None else dumps(args)


def _output(p: dict[str, Any]) -> tuple[str, int | None, float | None, bool | None, int]:
    """(text, exit code, duration s, is_error, images) of a tool output item."""
    out = p.get("output")
    if p.get("type") == "tool_search_output" and out is None:
        out = dumps(p.get("tools")) if p.get("tools") is not None else ""
    exit_code: int | None = None
    duration: float | None = None
    is_error: bool | None = None
    images = 0
    if isinstance(out, str):
        text = out
        s = out.lstrip()
        if s.startswith("{") and '"output"' in s[:4000]:
            try:
                inner = orjson.loads(s)
            except orjson.JSONDecodeError:
                inner = None
            if isinstance(inner, dict) and isinstance(inner.get("output"), str):
                text = inner["output"]
                meta = as_dict(inner.get("metadata"))
                exit_code = as_int(meta.get("exit_code"))
                duration = as_float(meta.get("duration_seconds"))
        if exit_code is None:
            m = _EXIT_HEADER.search(text[:300])
            if m:
                exit_code, duration = int(m.group(1)), float(m.group(2))
            else:
                m2 = _PROCESS_EXIT.search(text[:600])
                if m2:
                    exit_code = int(m2.group(1))
                    w = _WALL.search(text[:600])
                    duration = float(w.group(1)) if w else None
    elif isinstance(out, dict) and ("content" in out or "success" in out) and "type" not in out:
        text, images = content_text(out.get("content"))
        if out.get("success") is False:
            is_error = True
    else:
        text, images = content_text(out)
    return text, exit_code, duration, is_error, images


def _triple(u: dict[str, Any]) -> tuple[int, int, int]:
    """(input, cached input, output) tokens of a ``token_count`` usage."""
    return (
        as_count(u.get("input_tokens")),
        as_count(u.get("cached_input_tokens")),
        as_count(u.get("output_tokens")),
    )


class _Rollout:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.drafts: list[Draft] = []
        self.buffer = ThoughtBuffer()
        self.by_call: dict[str, Draft] = {}
        self.hints: dict[str, dict[str, Any]] = {}
        self.pending_em: Counter[tuple[str, str]] = Counter()  # event_msg copies not yet matched
        self.pending_ri: Counter[tuple[str, str]] = (
            Counter()
        )  # response_item copies not yet matched
        self.since_count: list[Draft] = []  # model-output drafts since the last token_count
        self.carry: tuple[int, int, int] | None = None
        self.last_total: tuple[int, int, int] | None = None
        self.model: str | None = None
        self.models: Counter[str] = Counter()
        self.turn_models: list[str] = []
        self.meta: dict[str, Any] = {}
        self.sessions = 0
        self.step = 0
        self.start: float | None = None
        self.known = 0
        self.aborted = 0
        self.ts: float | None = None
        self.raw_ts: Any = None
        self.counted_responses = 0
        self.bare = False

    # -- drafts
    def emit(self, d: Draft, model_output: bool = False) -> None:
        if model_output:
            if not self.since_count:
                self.step += 1
                d.model_call = True
            else:  # another output of the same model response: its tokens are the first's
                first = self.since_count[0]
                d.sibling = True
                d.batch_of = first
                first.gen_text = f"{first.gen_text}\n{d.gen_text or d.action}".strip("\n")
            d.step = self.step
            self.since_count.append(d)
        else:
            d.step = self.step
        if self.model and model_output:
            d.extra.setdefault("model", self.model)
        self.drafts.append(d)

    def flush(self) -> None:
        d = self.buffer.flush()
        if d is not None:
            self.emit(d, model_output=True)

    def _thought_into(self, d: Draft) -> None:
        if self.buffer:
            thinking = self.buffer.thinking
            d.add_thought(self.buffer.take())
            if thinking:
                d.extra["reasoning"] = True

    # -- lines
    def line(self, obj: dict[str, Any]) -> None:
        typ = as_str(obj.get("type"))
        payload = obj.get("payload")
        if typ not in CODEX_LINE_TYPES or not isinstance(payload, dict):
            if not self.bare or not typ:
                return
            payload, typ = obj, "response_item"  # early rollouts: bare response items
        self.known += 1
        raw_ts = obj.get("timestamp")
        if type(raw_ts) is not str or raw_ts != self.raw_ts:  # lines written together share it
            self.raw_ts = raw_ts
            self.ts = parse_time(raw_ts)
        if self.ts is not None and self.start is None:
            self.start = self.ts
        if typ == "session_meta":
            self.sessions += 1
            if not self.meta:
                self.meta = payload
        elif typ == "turn_context":
            model = opt_str(payload.get("model"))
            if model:
                self.model = model
                if model not in self.turn_models:
                    self.turn_models.append(model)
        elif typ == "response_item":
            self.response_item(payload)
        elif typ == "event_msg":
            self.event_msg(payload)
        elif typ == "compacted":
            self.flush()
            self.compaction(
                as_str(payload.get("message")), len(as_list(payload.get("replacement_history")))
            )

    def response_item(self, p: dict[str, Any]) -> None:
        ptype = as_str(p.get("type"))
        ts = self.ts
        if ptype == "message":
            role = p.get("role")
            text, images = content_text(p.get("content"))
            if role == "assistant":
                if self._dedupe("agent", text, "ri"):
                    return
                d = Draft(
                    kind=EventKind.REFLECT,
                    action=text,
                    gen_text=text,
                    t_start=ts,
                    images=images,
                    extra={"role": "assistant"},
                )
                self._thought_into(d)
                self.emit(d, model_output=True)
            elif role == "user":
                self.flush()
                if self._dedupe("user", text, "ri"):
                    return
                self.user_message(text, images, ts)
            # developer / system messages are instructions, not events
        elif ptype == "reasoning":
            parts = [as_str(as_dict(x).get("text")) for x in as_list(p.get("summary"))]
            parts += [as_str(as_dict(x).get("text")) for x in as_list(p.get("content"))]
            text = "\n".join(x for x in parts if x)
            # held until we know whether a tool call of the same response follows
            # (encrypted-only reasoning has no text and makes no event)
            self.buffer.add(text, "reasoning", ts, self.step, thinking=True)
        elif ptype in _CALL_TYPES:
            name, action = _call_action(p)
            d = Draft(tool=name, action=action, is_call=True, t_start=ts)
            self._thought_into(d)
            d.gen_text = f"{d.gen_text}\n{action}" if d.gen_text else action
            cid = opt_str(p.get("call_id")) or opt_str(p.get("id"))
            if cid:
                d.extra["call_id"] = cid
                self.by_call[cid] = d
            if (
                p.get("type") == "custom_tool_call"
                and isinstance(p.get("input"), str)
                and name == "apply_patch"
            ):
                d.action = p["input"]
            self.emit(d, model_output=True)
        elif ptype in _OUTPUT_TYPES:
            self.flush()
            cid = opt_str(p.get("call_id"))
            target = self.by_call.get(cid) if cid else None
            if target is None or target.has_result:
                target = Draft(is_call=True, t_start=ts, extra={"orphan_result": True})
                if cid:
                    target.extra["call_id"] = cid
                self.emit(target)
            text, code, dur, err, images = _output(p)
            target.observation = text
            target.has_result = True
            target.images += images
            target.t_end = ts
            if code is not None:
                target.exit_code = code
            if dur is not None:
                target.extra["duration_s"] = dur
            if err is not None:
                target.is_error = err
            if codex_refusal(text):
                refused(target)  # never ran: declined or sandbox-denied
        elif ptype in ("web_search_call", "image_generation_call"):
            act = as_dict(p.get("action"))
            q = as_str(act.get("query")) or as_str(p.get("revised_prompt")) or dumps(act or p)
            tool = "web_search" if ptype == "web_search_call" else "image_generation"
            ws = Draft(
                tool=tool,
                action=q,
                is_call=True,
                has_result=True,
                t_start=ts,
                observation=as_str(p.get("status")),
                extra={"result_not_logged": True},
            )
            self._thought_into(ws)
            self.emit(ws, model_output=True)
        elif ptype in ("compaction", "compaction_summary"):
            self.flush()
            self.compaction(content_text(p.get("summary") or p.get("content"))[0], 0)
        # ghost_snapshot, agent_message (inter-agent), ... are not events

    def _dedupe(self, role: str, text: str, source: str) -> bool:
        """True when this message is the second copy of one already used: ``event_msg``
        (source "em") and ``response_item`` (source "ri") both record user and assistant
        messages, in either order."""
        key = (role, (_IMAGE_LINE.sub("", text) if "[image" in text else text).strip())
        other = self.pending_em if source == "ri" else self.pending_ri
        if other[key] > 0:
            other[key] -= 1
            if other[key] == 0:
                del other[key]
            return True
        own = self.pending_ri if source == "ri" else self.pending_em
        own[key] += 1
        return False

    def user_message(self, text: str, images: int, ts: float | None) -> None:
        extra: dict[str, Any] = {"role": "user"}
        context = text.lstrip().startswith(_CONTEXT_PREFIXES)
        if context:
            extra["context"] = True
        self.emit(Draft(observation=text, images=images, t_start=ts, idle=not context, extra=extra))

    def compaction(self, text: str, history: int) -> None:
        last = self.drafts[-1] if self.drafts else None
        if last is not None and last.extra.get("compaction") and not last.observation:
            last.observation = text
            return
        if last is not None and last.extra.get("compaction") and not text:
            return
        extra: dict[str, Any] = {"compaction": True}
        if history:
            extra["replacement_history"] = history
        self.emit(Draft(observation=text, t_start=self.ts, extra=extra))

    def event_msg(self, p: dict[str, Any]) -> None:
        ptype = as_str(p.get("type"))
        ts = self.ts
        if ptype == "user_message":
            self.flush()
            text = as_str(p.get("message"))
            if self._dedupe("user", text, "em"):
                return
            images = len(as_list(p.get("images"))) + len(as_list(p.get("local_images")))
            self.user_message(text, images, ts)
        elif ptype == "agent_message":
            text = as_str(p.get("message"))
            if self._dedupe("agent", text, "em"):
                return
            d = Draft(
                kind=EventKind.REFLECT,
                action=text,
                gen_text=text,
                t_start=ts,
                extra={"role": "assistant"},
            )
            self._thought_into(d)
            self.emit(d, model_output=True)
        elif ptype == "token_count":
            self.token_count(p)
        elif ptype == "exec_command_end":
            cid = opt_str(p.get("call_id"))
            if cid:
                h = self.hints.setdefault(cid, {})
                code = as_int(p.get("exit_code"))
                if code is not None:
                    h["exit_code"] = code
                dur = p.get("duration")
                secs = (
                    as_float(dur)
                    if not isinstance(dur, dict)
                    else (
                        (as_float(dur.get("secs")) or 0.0)
                        + (as_float(dur.get("nanos")) or 0.0) / 1e9
                    )
                )
                if secs is not None:
                    h["duration_s"] = secs
        elif ptype == "patch_apply_end":
            cid = opt_str(p.get("call_id"))
            if cid and isinstance(p.get("success"), bool):
                self.hints.setdefault(cid, {})["is_error"] = not p["success"]
        elif ptype == "mcp_tool_call_end":
            cid = opt_str(p.get("call_id"))
            result = as_dict(p.get("result"))
            if cid and result:
                err = "Err" in result or as_dict(result.get("Ok")).get("isError") is True
                self.hints.setdefault(cid, {})["is_error"] = err
        elif ptype in ("error", "stream_error"):
            self.flush()
            text = as_str(p.get("message")) or ptype
            extra = {"event": ptype}
            if p.get("codex_error_info") is not None:
                extra["codex_error_info"] = p["codex_error_info"]
            self.emit(
                Draft(
                    kind=EventKind.ERROR,
                    status=Status.API_ERROR,
                    observation=text,
                    t_start=ts,
                    extra=extra,
                )
            )
        elif ptype == "context_compacted":
            self.flush()
            self.compaction("", 0)
        elif ptype == "turn_aborted":
            self.aborted += 1
        # task_started / task_complete / agent_reasoning (a copy of reasoning) / ... : not events

    def token_count(self, p: dict[str, Any]) -> None:
        info = p.get("info")
        if not isinstance(info, dict):
            return
        total = info.get("total_token_usage")
        last = info.get("last_token_usage")
        usage: tuple[int, int, int] | None = None
        if isinstance(total, dict):
            t = _triple(total)
            prev = self.last_total
            if t == prev:
                return  # the same count again (rate-limit updates repeat it)
            if prev is not None and t[0] >= prev[0] and t[1] >= prev[1] and t[2] >= prev[2]:
                usage = (t[0] - prev[0], t[1] - prev[1], t[2] - prev[2])
            elif isinstance(last, dict):
                usage = _triple(last)
            else:
                usage = t
            self.last_total = t
        elif isinstance(last, dict):
            usage = _triple(last)
        if usage is None or usage == (0, 0, 0):
            return
        self.flush()
        self.counted_responses += 1
        if self.model:
            self.models[self.model] += 1
        carrier = next((d for d in self.since_count if d.model_call), None)
        if carrier is None and self.since_count:
            carrier = self.since_count[0]
        if carrier is not None:
            carrier.set_usage(usage[0], usage[2], cache_read=usage[1])
        else:
            c = self.carry or (0, 0, 0)
            self.carry = (c[0] + usage[0], c[1] + usage[1], c[2] + usage[2])
        self.since_count = []

    def finish(self, source: JsonlSource) -> Run:
        self.flush()
        if self.carry is not None:
            target = next((d for d in self.drafts if d.model_call and d.tokens_in is None), None)
            target = target or (self.drafts[-1] if self.drafts else None)
            if target is not None:
                target.set_usage(self.carry[0], self.carry[2], cache_read=self.carry[1])
        for d in self.drafts:
            cid = d.extra.get("call_id")
            h = self.hints.get(cid) if isinstance(cid, str) else None
            if h:
                if d.exit_code is None and "exit_code" in h:
                    d.exit_code = h["exit_code"]
                if d.is_error is None and "is_error" in h:
                    d.is_error = h["is_error"]
                if "duration_s" in h:
                    d.extra.setdefault("duration_s", h["duration_s"])
        fin = finalize(self.drafts, run_start=self.start)
        stem = self.path.name.removesuffix(".gz").removesuffix(".jsonl")
        sid = opt_str(self.meta.get("id")) or opt_str(self.meta.get("session_id"))
        model = (
            self.models.most_common(1)[0][0]
            if self.models
            else (self.turn_models[0] if self.turn_models else None)
        )
        run = Run(
            run_id=stem,
            events=fin.events,
            task_id=sid or stem,
            harness=NAME,
            model=model,
            source_format=NAME,
            source_path=str(self.path),
            flags=list(fin.flags),
        )
        if len(self.turn_models) > 1:
            run.extra["models"] = list(self.turn_models)
        for k in ("cli_version", "originator", "cwd", "model_provider", "source"):
            v = self.meta.get(k)
            if isinstance(v, str) and v:
                run.extra[k] = v
        if sid:
            run.extra["session_id"] = sid
        for k in ("parent_thread_id", "forked_from_id"):
            v = opt_str(self.meta.get(k))
            if v:
                run.extra[k] = v
        git = as_dict(self.meta.get("git"))
        if git:
            run.extra["git"] = {k: v for k, v in git.items() if isinstance(v, str)}
        if self.sessions > 1:
            run.flags.append(
                f"{self.sessions} session_meta lines: the first one is the run's header"
            )
        if self.aborted:
            run.extra["turns_aborted"] = self.aborted
        run.extra["usage"] = {
            "tokens_in": fin.tokens_in,
            "tokens_out": fin.tokens_out,
            "cache_read_tokens": fin.cache_read,
            "model_responses_counted": self.counted_responses,
        }
        if self.bare:
            run.flags.append("an early rollout layout (bare response items, no line envelope)")
        if not self.drafts:
            run.flags.append("the rollout holds no messages or tool calls")
        flags, warnings = source.run_notes()
        run.flags.extend(flags)
        run.warnings.extend(warnings)
        return run


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    source = JsonlSource(path, options)
    rollout = _Rollout(path)
    first = True
    for lineno, obj in source:
        if first:
            first = False
            # early rollouts: a bare header {id, timestamp, instructions?}, then bare items
            if (
                as_str(obj.get("type")) not in CODEX_LINE_TYPES
                and "id" in obj
                and "timestamp" in obj
            ):
                rollout.bare = True
                rollout.meta = obj
                rollout.known += 1
                continue
        try:
            rollout.line(obj)
        except (TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
            source.bad(f"unexpected structure ({type(exc).__name__}: {exc})", lineno)
    source.require(
        rollout.known, "rollout", "not a Codex rollout: no {timestamp, type, payload} line"
    )
    yield rollout.finish(source)
