"""Claude Code session logs (``~/.claude/projects/<project>/<sessionId>.jsonl``).

One JSONL file is one run, read line by line (only that run's events are in memory).
Lines are routed on ``type``; unknown types (new ones keep appearing) are ignored.

- ``assistant`` lines are Anthropic API messages, written one line per content block and
  sharing ``message.id``. Each ``tool_use`` block is one event (tool = the tool name,
  action = the Bash command / TodoWrite list / ExitPlanMode plan / JSON of the input). Text
  and thinking blocks of the same message that come before a tool call are that call's
  ``extra["thought"]``; otherwise they are a ``reflect`` event. The kind is inferred from
  tool and command (``TodoWrite`` is ``memory`` with ``memory_write`` set, ``ExitPlanMode``
  ``plan``, ``Edit``/``Write``/``MultiEdit`` ``generation`` or, after a failure, ``repair``,
  test commands ``check``, the rest ``tool``).
- ``user`` lines with ``tool_result`` blocks are joined to their call by ``tool_use_id``
  (then ``sourceToolUseID``, then the oldest open call); ``is_error`` and an ``Exit code N``
  prefix are hints for the status classifier; an is-error result that says the tool use
  was not allowed (permission not granted, the user said no) is ``static_reject``. Images in results or prompts are kept out of
  the text (a placeholder with their size; ``extra["images"]`` counts them). Other ``user``
  lines are ``message`` events: the human's prompts (time spent waiting for them is not
  wall time), slash commands, ``isMeta`` injections, and compaction summaries
  (``isCompactSummary``; ``extra["compaction"]``).
- ``system`` lines: ``api_error`` / ``error`` and API refusals are ``error`` events with
  status ``api_error``; ``compact_boundary`` is a ``message`` event with
  ``extra["compaction"]``; other subtypes (hooks, durations, local commands) are not events.
  Assistant messages written by the client (model ``<synthetic>``) are ``error`` events when
  they report an API error, else ``message`` events.
- ``summary`` lines are session titles for the resume list, not compactions: kept in the
  run's ``extra["titles"]``.

Subagents (``Task`` tool): in 1.0.x their lines sit in the same file with
``isSidechain: true``. They are kept in this run, in file order, marked
``extra["sidechain"] = True`` (one session = one run, so the session's cost includes its
subagents'). Their own ``usage`` is counted; the totals a ``Task`` result reports
(``totalTokens``...) are only kept in that event's ``extra["subagent"]``, never added, so
nothing is counted twice. Later versions write subagents to separate ``agent-<id>.jsonl``
files: each is read as a run of its own (``extra["subagent_of"]`` = the parent session).

``claude -p --output-format stream-json`` (Harbor's ``agent/claude-code.txt``) is read the
same way: its lines carry ``session_id`` and ``parent_tool_use_id`` (subagents); its
``system``/``init`` line gives model and version, its ``result`` line the exit status,
``total_cost_usd`` and the session's usage totals (source totals, checked against the
events). Console text between the JSON lines of a ``.txt`` capture is skipped and counted.

Tokens: ``message.usage`` per API message, de-duplicated by ``message.id`` (the lines of one
message repeat it; the largest value of each field is taken, as some lines are written
before streaming ends). ``tokens_in`` = ``input_tokens + cache_creation_input_tokens +
cache_read_input_tokens`` (the cache parts in ``extra``); ``tokens_out`` = ``output_tokens``.
The usage sits on the message's first event. No cost is stored (run ``extra["usage"]`` has
the totals). Timestamps (ISO) give wall time. Model: the most used ``message.model`` of the
main thread. Task id: ``sessionId``. Success: not recorded (None).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from efc_tui.model import EventKind, Run, Status
from efc_tui.parsers._content import content_text
from efc_tui.parsers._drafts import (
    Carry,
    Draft,
    Finalized,
    ReadAgain,
    ThoughtBuffer,
    finalize,
)
from efc_tui.parsers._signals import claude_exit_code, claude_refusal, refused
from efc_tui.parsers._source import JsonlSource
from efc_tui.parsers._time import parse_time
from efc_tui.parsers._totals import set_source_totals, totals_from_counts
from efc_tui.parsers._values import (
    as_count,
    as_dict,
    as_float,
    as_int,
    as_list,
    as_str,
    dumps,
    opt_count,
    opt_str,
)
from efc_tui.parsers.base import ReadOptions
from efc_tui.parsers.sniffs import (
    CLAUDE_ID_KEYS,
    CLAUDE_LINE_TYPES,
    CLAUDE_META_TYPES,
    claude_stream_json_line,
)

NAME = "claude-code"


def _sealed(digests: Any, key: str) -> bool:
    from efc_tui.compact import stable_digest

    return stable_digest(key) in digests


_SYNTHETIC = "<synthetic>"


def _sidechain(obj: dict[str, Any]) -> bool:
    """A subagent's line: ``isSidechain`` (session logs) or a ``parent_tool_use_id``
    (stream-json)."""
    return bool(obj.get("isSidechain")) or obj.get("parent_tool_use_id") is not None


def _render_todos(todos: Any) -> str:
    lines = []
    for t in as_list(todos):
        t = as_dict(t)
        lines.append(f"- [{as_str(t.get('status')) or '?'}] {as_str(t.get('content'))}")
    return "\n".join(lines)


def _action(name: str, inp: Any) -> str:
    """The action text of a tool call: what a reader of the ledger needs to see."""
    if not isinstance(inp, dict):
        return as_str(inp) if isinstance(inp, str) else dumps(inp)
    if isinstance(inp.get("command"), str):
        return inp["command"]
    low = name.lower()
    if low == "todowrite" and "todos" in inp:
        return _render_todos(inp["todos"])
    if low == "exitplanmode" and isinstance(inp.get("plan"), str):
        return inp["plan"]
    return dumps(inp)


class _Session:
    """The state of one session while its lines stream past."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.drafts: list[Draft] = []
        self.buffer = ThoughtBuffer()
        self.by_tool_id: dict[str, Draft] = {}
        self.open_calls: dict[int, Draft] = {}  # calls without a result, oldest first
        self.carriers: dict[str, Draft] = {}
        self.orphan_keys: list[str] = []
        self.usage: dict[str, list[int]] = {}
        self.models: Counter[str] = Counter()
        self.side_models: Counter[str] = Counter()
        self.msg_seen: set[str] = set()
        #: digests of the message and tool-call ids of sealed drafts (``seal``; None: none)
        self.sealed_msgs: Any = None
        self.sealed_tools: Any = None
        self.step = 0
        self.start: float | None = None
        self.session_id: str | None = None
        self.versions: list[str] = []
        self.last_version: Any = None
        self.cwd: str | None = None
        self.branch: str | None = None
        self.titles: list[str] = []
        self.known_lines = 0
        self.sidechain_events = 0
        self.all_sidechain = True
        self.agent_id: str | None = None
        self.subagent_reported = 0
        self.orphan_results = 0
        self.costs: dict[str, float] = {}
        self.init: dict[str, Any] = {}
        self.result: dict[str, Any] = {}

    # -- drafts
    def emit(self, d: Draft, key: str | None = None, sidechain: bool = False) -> None:
        if sidechain:
            d.extra["sidechain"] = True
            self.sidechain_events += 1
        if key is not None and key not in self.carriers:
            self.carriers[key] = d
            d.keys.append(key)
            d.model_call = True
        elif key is not None:
            # another event of the same API message: its output is the carrier's
            carrier = self.carriers[key]
            d.sibling = True
            d.batch_of = carrier
            carrier.gen_text = f"{carrier.gen_text}\n{d.gen_text or d.action}".strip("\n")
        if self.orphan_keys:
            for k in self.orphan_keys:
                if k not in self.carriers:
                    self.carriers[k] = d
                    d.keys.append(k)
            self.orphan_keys.clear()
        self.drafts.append(d)

    def flush(self) -> None:
        if self.buffer:
            key = self.buffer.key
            side = bool(self.buffer.extra.pop("_sidechain", False))
            d = self.buffer.flush()
            if d is not None:
                self.emit(d, key, side)

    # -- lines
    def line(self, obj: dict[str, Any]) -> None:
        typ = obj.get("type")
        if not isinstance(typ, str):
            return
        if (
            typ in CLAUDE_LINE_TYPES
            or typ in CLAUDE_META_TYPES
            or any(k in obj for k in CLAUDE_ID_KEYS)
            or claude_stream_json_line(obj)
        ):
            self.known_lines += 1
        if self.session_id is None:
            self.session_id = opt_str(obj.get("sessionId")) or opt_str(obj.get("session_id"))
        ts = parse_time(obj.get("timestamp"))
        if ts is not None and self.start is None:
            self.start = ts
        if typ == "assistant":
            side = _sidechain(obj)
            self.assistant(obj, ts, side)
            self.meta(obj, side)
        elif typ == "user":
            side = _sidechain(obj)
            self.flush()
            self.user(obj, ts, side)
            self.meta(obj, side)
        elif typ == "system":
            self.flush()
            self.system(obj, ts)
        elif typ == "result":
            self.flush()
            self.result = obj
        elif typ == "summary":
            title = opt_str(obj.get("summary"))
            if title and len(self.titles) < 50:
                self.titles.append(title)

    def meta(self, obj: dict[str, Any], side: bool) -> None:
        """What a user or assistant line says of the session (``side``: a subagent's)."""
        v = obj.get("version")
        if v != self.last_version:  # the lines of a session repeat it
            self.last_version = v
            v = opt_str(v)
            if v and v not in self.versions and len(self.versions) < 20:
                self.versions.append(v)
        if self.cwd is None:
            self.cwd = opt_str(obj.get("cwd"))
        if self.branch is None:
            self.branch = opt_str(obj.get("gitBranch"))
        if not side:
            self.all_sidechain = False
        if self.agent_id is None:
            self.agent_id = opt_str(obj.get("agentId"))

    def assistant(self, obj: dict[str, Any], ts: float | None, side: bool) -> None:
        msg = as_dict(obj.get("message"))
        model = as_str(msg.get("model"))
        key = opt_str(msg.get("id")) or opt_str(obj.get("requestId")) or opt_str(obj.get("uuid"))
        if self.buffer and self.buffer.key != key:
            self.flush()
        content = msg.get("content")
        if model == _SYNTHETIC or obj.get("isApiErrorMessage"):
            self.flush()
            text, images = content_text(content)
            is_err = bool(obj.get("isApiErrorMessage") or obj.get("error"))
            d = Draft(
                kind=EventKind.ERROR if is_err else EventKind.MESSAGE,
                status=Status.API_ERROR if is_err else None,
                observation=text,
                images=images,
                step=self.step,
                t_start=ts,
                extra={"role": "assistant", "synthetic": True},
            )
            self.emit(d, None, side)
            return
        if key is not None and self.sealed_msgs is not None and _sealed(self.sealed_msgs, key):
            # a line of a message whose drafts are sealed (logs that reuse message ids)
            raise ReadAgain(f"message {key} continues after its drafts were finalized", always=True)
        if key is not None and key not in self.msg_seen:
            self.msg_seen.add(key)
            self.step += 1
            if model:
                (self.side_models if side else self.models)[model] += 1
        cost = as_float(obj.get("costUSD"))
        if cost is not None and key is not None:  # early versions: the message's cost, per line
            self.costs[key] = max(cost, self.costs.get(key, 0.0))
        u = msg.get("usage")
        if isinstance(u, dict) and key is not None:
            vals = [
                as_count(u.get("input_tokens")),
                as_count(u.get("cache_creation_input_tokens")),
                as_count(u.get("cache_read_input_tokens")),
                as_count(u.get("output_tokens")),
            ]
            prev = self.usage.get(key)
            self.usage[key] = (
                vals if prev is None else [max(a, b) for a, b in zip(prev, vals, strict=True)]
            )
        blocks = (
            content
            if isinstance(content, list)
            else ([{"type": "text", "text": content}] if isinstance(content, str) else [])
        )
        made = False
        for block in blocks:
            b = as_dict(block)
            btype = b.get("type")
            if btype == "text" or btype == "thinking" or btype == "redacted_thinking":
                text = as_str(b.get("text")) if btype == "text" else as_str(b.get("thinking"))
                if text:
                    self.buffer.add(
                        text,
                        key,
                        ts,
                        self.step,
                        thinking=btype != "text",
                        extra={"_sidechain": True} if side else None,
                    )
                    made = True
            elif btype == "tool_use" or btype == "server_tool_use":
                name = as_str(b.get("name")) or "tool"
                inp = b.get("input")
                d = Draft(
                    tool=name, action=_action(name, inp), is_call=True, step=self.step, t_start=ts
                )
                if self.buffer and self.buffer.key == key:
                    d.add_thought(self.buffer.take())
                d.gen_text = f"{d.gen_text}\n{d.action}" if d.gen_text else d.action
                tid = opt_str(b.get("id"))
                if tid:
                    d.extra["tool_use_id"] = tid
                    self.by_tool_id[tid] = d
                inp_d = as_dict(inp)
                low = name.lower()
                if low == "todowrite":
                    d.memory_write = d.action
                elif low == "exitplanmode":
                    d.plan = d.action
                elif low == "task":
                    for k in ("subagent_type", "description"):
                        if isinstance(inp_d.get(k), str):
                            d.extra[k] = inp_d[k]
                self.open_calls[id(d)] = d
                self.emit(d, key, side)
                made = True
        if (
            not made
            and key is not None
            and key not in self.carriers
            and key not in self.orphan_keys
        ):
            self.orphan_keys.append(key)

    def _take_call(self, tid: str | None) -> Draft | None:
        d = self.by_tool_id.get(tid) if tid else None
        if d is None and tid and self.sealed_tools is not None and _sealed(self.sealed_tools, tid):
            return None  # the result of a sealed call (which has its result) again
        if d is None:
            # no id to join on: the oldest open call that has no id either
            d = next((c for c in self.open_calls.values() if "tool_use_id" not in c.extra), None)
        if d is None or d.has_result:
            return None
        self.open_calls.pop(id(d), None)
        return d

    def user(self, obj: dict[str, Any], ts: float | None, side: bool) -> None:
        msg = as_dict(obj.get("message"))
        content = msg.get("content")
        result = obj.get("toolUseResult")
        if isinstance(content, list) and any(
            as_dict(b).get("type") == "tool_result" for b in content
        ):
            rest: list[Any] = []
            for block in content:
                b = as_dict(block)
                if b.get("type") != "tool_result":
                    rest.append(block)
                    continue
                tid = opt_str(b.get("tool_use_id")) or opt_str(obj.get("sourceToolUseID"))
                d = self._take_call(tid)
                text, images = content_text(b.get("content"))
                if not text and isinstance(b.get("text"), str):
                    text = b["text"]
                if d is None:
                    d = Draft(
                        is_call=True, step=self.step, t_start=ts, extra={"orphan_result": True}
                    )
                    if tid:
                        d.extra["tool_use_id"] = tid
                    self.orphan_results += 1
                    self.emit(d, None, side)
                d.observation = text
                d.has_result = True
                d.images += images
                d.t_end = ts
                if isinstance(b.get("is_error"), bool):
                    d.is_error = b["is_error"]
                self._structured(d, result)
                if d.exit_code is None and (d.tool or "").lower() == "bash":
                    d.exit_code = claude_exit_code(text)
                if d.is_error and claude_refusal(text):
                    refused(d)  # not allowed to run: nothing was done
            if rest:
                text, images = content_text(rest)
                if text or images:
                    self.emit(
                        Draft(
                            observation=text,
                            images=images,
                            step=self.step,
                            t_start=ts,
                            extra={"role": "user", "injected": True},
                        ),
                        None,
                        side,
                    )
            return
        text, images = content_text(content)
        if not text and not images:
            return
        extra: dict[str, Any] = {"role": "user"}
        idle = not side
        if obj.get("isCompactSummary"):
            extra["compaction"] = True
            idle = False
        if obj.get("isMeta"):
            extra["meta"] = True
            idle = False
        if text.startswith("<command-name>") or "<command-name>" in text[:200]:
            extra["command"] = True
        if text.startswith(("<local-command-stdout>", "<local-command-stderr>")):
            idle = False
        if text.startswith("[Request interrupted"):
            extra["interrupted"] = True
            idle = False
        self.emit(
            Draft(
                observation=text, images=images, step=self.step, t_start=ts, idle=idle, extra=extra
            ),
            None,
            side,
        )

    def _structured(self, d: Draft, result: Any) -> None:
        """Hints from the line's ``toolUseResult`` (tool-specific structured result)."""
        r = as_dict(result)
        if not r:
            return
        if r.get("interrupted") is True:
            d.extra["interrupted"] = True
        if isinstance(r.get("is_error"), bool) and d.is_error is None:
            d.is_error = r["is_error"]
        for k in ("exitCode", "exit_code", "returnCode"):
            code = as_int(r.get(k))
            if code is not None:
                d.exit_code = code
                break
        if "totalTokens" in r or "totalDurationMs" in r:
            sub = {
                k: r[k] for k in ("totalTokens", "totalDurationMs", "totalToolUseCount") if k in r
            }
            d.extra["subagent"] = sub
            self.subagent_reported += as_count(r.get("totalTokens"))
        if "newTodos" in r and (d.tool or "").lower() == "todowrite":
            d.memory_write = _render_todos(r["newTodos"])

    def system(self, obj: dict[str, Any], ts: float | None) -> None:
        sub = as_str(obj.get("subtype"))
        if sub == "init" and "session_id" in obj:  # stream-json: the session's settings
            self.init = self.init or obj
            self.cwd = self.cwd or opt_str(obj.get("cwd"))
            v = opt_str(obj.get("claude_code_version"))
            if v and v not in self.versions:
                self.versions.append(v)
            return
        side = _sidechain(obj)
        err = obj.get("error")
        if sub in ("api_error", "error") or (sub == "" and isinstance(err, dict)):
            e = as_dict(err)
            text = (
                as_str(e.get("message")) or as_str(e.get("formatted")) or as_str(obj.get("content"))
            )
            if not text and isinstance(err, str):
                text = err
            extra: dict[str, Any] = {"subtype": sub or "error"}
            status = as_int(e.get("status"))
            if status is not None:
                extra["http_status"] = status
            for k in ("retryAttempt", "maxRetries"):
                if as_int(obj.get(k)) is not None:
                    extra[k] = obj[k]
            self.emit(
                Draft(
                    kind=EventKind.ERROR,
                    status=Status.API_ERROR,
                    observation=text or sub,
                    step=self.step,
                    t_start=ts,
                    extra=extra,
                ),
                None,
                side,
            )
        elif sub in ("api_refusal", "model_refusal_fallback"):
            text = as_str(obj.get("apiRefusalExplanation")) or as_str(obj.get("content")) or sub
            self.emit(
                Draft(
                    kind=EventKind.ERROR,
                    status=Status.API_ERROR,
                    observation=text,
                    step=self.step,
                    t_start=ts,
                    extra={"subtype": sub},
                ),
                None,
                side,
            )
        elif sub == "compact_boundary":
            meta = as_dict(obj.get("compactMetadata"))
            extra = {"compaction": True, "subtype": sub}
            for k in ("trigger", "preTokens"):
                if k in meta:
                    extra[k] = meta[k]
            text = as_str(obj.get("content")) or "context compacted"
            self.emit(Draft(observation=text, step=self.step, t_start=ts, extra=extra), None, side)

    def feed(self, lineno: int, obj: dict[str, Any], source: JsonlSource) -> None:
        """One line of the log (a line of an unexpected structure is the source's to judge)."""
        try:
            self.line(obj)
        except (TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
            source.bad(f"unexpected structure ({type(exc).__name__}: {exc})", lineno)

    def check(self, source: JsonlSource) -> None:
        source.require(
            self.known_lines,
            "session",
            "not a Claude Code session: no line has a known type and session ids",
        )

    # -- reading on from a settled line (``parsers/resume.py``)
    def seal(self, carry: Carry | None) -> Finalized | None:
        """At a settled line (every call has its result, no text waits for a call, no
        response without an event): finalize the drafts so far, which no later line can
        change, and let go of them. None (nothing sealed) elsewhere, or while the drafts
        record no usage or no time yet (a later line could change how they are counted)."""
        if not self.drafts or self.open_calls or self.buffer or self.orphan_keys:
            return None
        drafts = self.drafts
        c = carry or Carry()
        if not (c.any_usage or any(k in self.usage for d in drafts for k in d.keys)):
            return None
        if not (c.any_ts or any(d.t_start is not None or d.t_end is not None for d in drafts)):
            return None
        self._apply_usage(drafts)
        fin = finalize(drafts, run_start=self.start, carry=carry)
        self.drafts = []
        # every id seen so far is a sealed draft's: kept as digests, which a later line
        # naming one is checked against (the drafts themselves are let go of)
        from efc_tui.compact import IntSet, stable_digest

        if self.sealed_msgs is None:
            self.sealed_msgs, self.sealed_tools = IntSet(), IntSet()
        self.sealed_msgs |= {stable_digest(k) for k in self.msg_seen}
        self.sealed_tools |= {stable_digest(t) for t in self.by_tool_id}
        for ids in (self.msg_seen, self.by_tool_id, self.carriers, self.usage, self.costs):
            ids.clear()
        return fin

    def _apply_usage(self, drafts: list[Draft]) -> None:
        for d in drafts:
            for k in d.keys:
                u = self.usage.get(k)
                if u is not None:
                    inp, cw, cr, out = u
                    d.set_usage(
                        inp + cw + cr, out, cache_read=cr, cache_write=cw, cost=self.costs.get(k)
                    )
                elif k in self.costs:
                    d.cost_usd = (d.cost_usd or 0.0) + self.costs[k]

    # -- the run
    def finish(self, source: JsonlSource, carry: Carry | None = None) -> Run:
        """The run of the drafts read (those after ``carry.index`` when reading on from a
        settled line: their events only)."""
        self.flush()
        if self.orphan_keys and not self.drafts and carry is not None and carry.index:
            raise ReadAgain("a response without an event ends the log", always=False)
        if self.orphan_keys and self.drafts:
            last = self.drafts[-1]
            for k in self.orphan_keys:
                if k not in self.carriers:
                    self.carriers[k] = last
                    last.keys.append(k)
        self._apply_usage(self.drafts)
        fin = finalize(self.drafts, run_start=self.start, carry=carry)
        any_drafts = bool(self.drafts) or (carry is not None and carry.index > 0)
        stem = self.path.name.removesuffix(".gz").removesuffix(".jsonl")
        model = None
        if self.models:
            model = self.models.most_common(1)[0][0]
        elif self.side_models:
            model = self.side_models.most_common(1)[0][0]
        run = Run(
            run_id=stem,
            events=fin.events,
            task_id=self.session_id or stem,
            harness=NAME,
            model=model,
            source_format=NAME,
            source_path=str(self.path),
            flags=list(fin.flags),
        )
        all_models = sorted(set(self.models) | set(self.side_models))
        if len(all_models) > 1:
            run.extra["models"] = all_models
        if self.session_id:
            run.extra["session_id"] = self.session_id
        if self.versions:
            run.extra["cli_version"] = (
                self.versions[0] if len(self.versions) == 1 else self.versions
            )
        if self.cwd:
            run.extra["cwd"] = self.cwd
        if self.branch:
            run.extra["git_branch"] = self.branch
        if self.titles:
            run.extra["titles"] = self.titles
        run.extra["usage"] = {
            "tokens_in": fin.tokens_in,
            "tokens_out": fin.tokens_out,
            "cache_read_tokens": fin.cache_read,
            "cache_write_tokens": fin.cache_write,
            "api_messages": len(self.usage),
        }
        if self.sidechain_events and not (self.all_sidechain and any_drafts):
            run.flags.append(
                f"{self.sidechain_events} event(s) come from subagents (Task sidechains) inlined in the "
                "session: marked extra['sidechain']"
            )
        if self.subagent_reported:
            run.extra["subagent_reported_tokens"] = self.subagent_reported
            run.flags.append(
                f"subagent totals reported by Task results ({self.subagent_reported} tokens) are not added: "
                "each sidechain message's own usage is counted instead"
            )
        if any_drafts and (self.all_sidechain and (self.agent_id or stem.startswith("agent-"))):
            run.extra["subagent_of"] = self.session_id
            run.flags.append(
                f"a subagent transcript of session {self.session_id}: read as a run of its own"
            )
        if self.orphan_results:
            run.flags.append(
                f"{self.orphan_results} tool result(s) have no matching tool call in the file"
            )
        if not any_drafts:
            run.flags.append("the session holds no messages (only metadata lines)")
        run.cost_usd = round(fin.cost_usd, 10) if fin.cost_usd is not None else None
        if run.model is None:
            run.model = opt_str(self.init.get("model"))
        if self.result or self.init:
            self._stream_result(run)
        if source.text_lines:
            run.flags.append(f"{source.text_lines} line(s) of console text (not JSON) skipped")
        flags, warnings = source.run_notes()
        run.flags.extend(flags)
        run.warnings.extend(warnings)
        return run

    def _stream_result(self, run: Run) -> None:
        """What ``stream-json``'s ``init`` and ``result`` lines add: how the run ended, its
        duration, its cost and the session's token totals (kept as source totals)."""
        run.extra["stream_json"] = True
        run.run_id = (
            self.session_id or run.run_id
        )  # the file is named after the harness (claude-code.txt)
        res = self.result
        if not res:
            run.flags.append(
                "stream-json without a result line: the run did not finish (or the log is cut short)"
            )
            return
        run.exit_status = opt_str(res.get("subtype"))
        for key in ("num_turns", "duration_ms", "duration_api_ms", "is_error"):
            if res.get(key) is not None:
                run.extra[key] = res[key]
        total = as_float(res.get("total_cost_usd"))
        if total is None:
            total = as_float(res.get("cost_usd"))
        if total is not None:  # the session's own total (the calls' sum is checked against it)
            run.cost_usd = total
        u = as_dict(res.get("usage"))
        cw, cr = (
            as_count(u.get("cache_creation_input_tokens")),
            as_count(u.get("cache_read_input_tokens")),
        )
        base = opt_count(u.get("input_tokens"))
        if u and self.sidechain_events == 0:  # the totals cover the main thread only
            set_source_totals(
                run,
                totals_from_counts(
                    input_tokens=None if base is None else base + cw + cr,
                    output_tokens=u.get("output_tokens"),
                    cache_tokens=cr,
                    cost_usd=total,
                    source=f"{self.path.name} result line",
                    cache_separate=False,
                ),
            )


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    session, source = start(path, options)
    for lineno, obj in source:
        session.feed(lineno, obj, source)
    session.check(source)
    yield session.finish(source)


def start(path: Path, options: ReadOptions) -> tuple[_Session, JsonlSource]:
    """A session's state before its first line, and its source (``parsers/resume.py``)."""
    text = path.name.lower().endswith((".txt", ".txt.gz"))
    return _Session(path), JsonlSource(path, options, text_lines_ok=text)
