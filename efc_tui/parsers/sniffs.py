"""Every reader's sniff, in one light module: the confidence in [0, 1] that a file's head
(``base.Sniff``) is that reader's format, 0 for "not mine".

Why they live here and not beside their readers: detection (``parsers.detect``) asks every
format that could still win, and a reader's module costs its whole import graph (zipfile,
zstandard, ``_msg``, ``_builder``, ``_drafts``, ...). Here a sniff costs only this module,
so detecting a file imports the winning reader alone. Each function is named after its
reader's module (``sniffs.mini_swe_agent`` is the mini-swe-agent reader's sniff), in
``registry.FORMATS`` order, with the private helpers it needs. Detection caps each score at
its format's ``ceiling`` there (a branch that returns more counts for no more). A helper
that both a sniff and its reader use lives here, and the reader imports it from here.

Imports stay light (stdlib, orjson, ``base``, ``_source``'s sniffing helpers, ``_values``):
nothing that pulls in a reader's machinery. Regular expressions are given as strings and
compiled by ``re`` on first use (and cached there), so a detection compiles only those its
branches reach.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from efc_tui.parsers._source import first_line_cut, is_jsonl, whole_doc
from efc_tui.parsers._values import as_dict, as_list, as_str
from efc_tui.parsers.base import SNIFF_BYTES, Sniff

# --------------------------------------------------------------------------- native


def native(s: Sniff) -> float:
    first = s.first_line_object
    if isinstance(first, dict) and first.get("type") == "run":
        schema = first.get("schema")
        if isinstance(schema, str) and schema.startswith("efc-trace/"):
            return 1.0
        return 0.6
    return 0.0


# --------------------------------------------------------------------------- mini-swe-agent

#: the submission command of mini-swe-agent's v2 and v1 (the reader marks it a generation)
MINI_SUBMIT_MARKERS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
_MINI_MARKERS = tuple(m.encode() for m in MINI_SUBMIT_MARKERS)


def mini_swe_agent(s: Sniff) -> float:
    if s.first_char != "{":
        return 0.0
    # Each pattern starts with its key: a substring test (20x faster) skips it in most files.
    # The keys are ASCII: looked for in the bytes, a head that is not ASCII is not decoded.
    if s.has(b'"trajectory_format"') and re.search(
        r'"trajectory_format"\s*:\s*"mini-swe-agent', s.text
    ):
        return 1.0
    if s.has(b'"mini_version"') and re.search(r'"mini_version"\s*:', s.text):
        return 0.95
    if any(s.has(m) for m in _MINI_MARKERS) and s.has(b'"messages"') and s.has(b'"info"'):
        return 0.7
    return 0.0


# --------------------------------------------------------------------------- SWE-agent


def swe_agent(s: Sniff) -> float:
    if s.first_char != "{":
        return 0.0
    # the (ASCII) key in the bytes first: the pattern, whose first character is everywhere
    # in JSON, takes 23 us a 64 KB head that lacks it
    if not s.has(b'"trajectory"'):
        return 0.0
    text = s.text
    if not re.search(r'"trajectory"\s*:\s*\[', text):
        return 0.0
    if re.search(r'"(?:history|environment)"\s*:', text):
        return 0.9
    if re.search(r'"(?:action|observation|thought|response|execution_time)"\s*:', text):
        return 0.8
    return 0.0


# --------------------------------------------------------------------------- Claude Code

CLAUDE_LINE_TYPES = {"user", "assistant", "system", "summary"}
CLAUDE_META_TYPES = {
    "file-history-snapshot",
    "queue-operation",
    "permission-mode",
    "progress",
    "attachment",
    "custom-title",
    "ai-title",
    "agent-name",
    "last-prompt",
    "mode",
    "worktree-state",
}
CLAUDE_ID_KEYS = ("sessionId", "uuid", "parentUuid", "leafUuid")
_CLAUDE_HEAD_TEXT = 64 * 1024


def claude_stream_json_line(obj: dict[str, Any]) -> bool:
    """A line of ``claude -p --output-format stream-json`` (snake-case ``session_id``)."""
    typ = obj.get("type")
    if "session_id" not in obj or "model_call_id" in obj:
        return False
    if typ == "system":
        return obj.get("subtype") != "init" or "tools" in obj or "claude_code_version" in obj
    return typ in ("assistant", "user", "result", "stream_event") and (
        "parent_tool_use_id" in obj or "uuid" in obj or typ == "result"
    )


def _first_json_line(head: bytes) -> Any:
    for raw in head.split(b"\n")[:50]:
        if raw.lstrip().startswith(b"{"):
            try:
                return orjson.loads(raw)
            except orjson.JSONDecodeError:
                return None
    return None


def claude_code(s: Sniff) -> float:
    first = s.first_line_object
    if first is None and s.path.name.lower().endswith(".txt"):
        first = _first_json_line(s.head)  # console output before the first JSON line
    if isinstance(first, dict):
        typ = first.get("type")
        if isinstance(typ, str) and (
            typ in CLAUDE_META_TYPES
            or (typ in CLAUDE_LINE_TYPES and any(k in first for k in CLAUDE_ID_KEYS))
        ):
            return 0.95
        if isinstance(typ, str) and claude_stream_json_line(first):
            return 0.9
        return 0.0
    # a first line too long for the head does not parse: recognise it from its keys
    cut = first_line_cut(s.head)
    if cut is not None:
        text = cut[:_CLAUDE_HEAD_TEXT].decode("utf-8", errors="replace")
        if (
            re.match(
                r'^\s*\{\s*"(?:parentUuid|isSidechain|leafUuid|type|userType|uuid|sessionId)"\s*:',
                text,
            )
            and re.search(r'"(?:sessionId|parentUuid|leafUuid)"\s*:', text)
            and re.search(
                r'"type"\s*:\s*"(?:user|assistant|summary|system|file-history-snapshot)"', text
            )
        ):
            return 0.8
    return 0.0


# --------------------------------------------------------------------------- Codex

CODEX_LINE_TYPES = {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}


def codex(s: Sniff) -> float:
    first = s.first_line_object
    if isinstance(first, dict):
        if as_str(first.get("type")) in CODEX_LINE_TYPES and "payload" in first:
            return 0.95
        if (
            {"id", "timestamp"} <= first.keys()
            and ("instructions" in first or "git" in first)
            and (
                s.has(b'"type":"message"') or s.has(b'"type": "message"') or s.has(b'"record_type"')
            )
        ):
            return 0.5  # an early rollout: a session header, then bare response items
        return 0.0
    cut = first_line_cut(s.head)  # a first line too long for the head
    if cut is not None and re.match(
        r'^\s*\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"type"\s*:\s*"'
        r'(?:session_meta|response_item|event_msg|turn_context|compacted)"',
        cut[:4096].decode("utf-8", errors="replace"),
    ):
        return 0.85
    return 0.0


# --------------------------------------------------------------------------- Inspect AI


def inspect_log(doc: Any) -> bool:
    """An Inspect AI ``.json`` log: an ``eval`` header with a version or status."""
    return (
        isinstance(doc, dict)
        and isinstance(doc.get("eval"), dict)
        and ("version" in doc or "status" in doc)
        and ("samples" in doc or "results" in doc or "status" in doc)
    )


def inspect_ai(s: Sniff) -> float:
    if s.is_zip:
        h = s.head
        if (
            b"header.json" in h
            or b"_journal/start.json" in h
            or (b"samples/" in h and b"_epoch_" in h)
        ):
            return 1.0
        return 0.4 if s.path.name.lower().endswith(".eval") else 0.0
    text = s.text.lstrip()
    if not text.startswith("{"):
        return 0.0
    doc = whole_doc(s)
    if doc is not None:
        return 0.95 if inspect_log(doc) else 0.0
    if re.match(r'\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:', text) and '"eval"' in text:
        return 0.95
    head = text[:8000]
    if (
        re.search(r'"version"\s*:\s*\d', head)
        and re.search(r'"eval"\s*:\s*\{', head)
        and '"run_id"' in head
    ):
        return 0.8
    return 0.0


# --------------------------------------------------------------------------- ATIF


def atif(s: Sniff) -> float:
    if not s.text.lstrip().startswith("{"):
        return 0.0
    if s.has(b'"schema_version"') and re.search(r'"schema_version"\s*:\s*"ATIF-v', s.text):
        return 0.98
    doc = whole_doc(s)
    if (
        isinstance(doc, dict)
        and isinstance(doc.get("steps"), list)
        and isinstance(doc.get("agent"), dict)
        and "session_id" in doc
    ):
        return 0.6
    return 0.0


# --------------------------------------------------------------------------- OpenHands

_OPENHANDS_SOURCE = r'"source"\s*:\s*"(?:agent|user|environment)"'
_OPENHANDS_KIND = r'"(?:action|observation)"\s*:\s*"'


def openhands_event(obj: Any) -> bool:
    """An OpenHands event: from the agent, user or environment, an action or observation."""
    return (
        isinstance(obj, dict)
        and obj.get("source") in ("agent", "user", "environment")
        and ("action" in obj or "observation" in obj)
    )


def openhands_wrapper(obj: Any) -> bool:
    """An object whose ``history`` holds OpenHands events (an evaluation output record)."""
    if not isinstance(obj, dict):
        return False
    hist = obj.get("history")
    return isinstance(hist, list) and any(openhands_event(e) for e in hist[:20])


def openhands_completion_head(s: Sniff) -> bool:
    """The start of an OpenHands completion log (one LLM call's request and response):
    ``{"messages": [`` with the CodeAct agent's system prompt or its tool results in text
    form, or a file in an ``llm_completions`` folder."""
    text = s.text.lstrip()
    if not re.match(r'\{\s*"messages"\s*:\s*\[', text):
        return False
    return (
        "You are OpenHands agent" in text[:8000]
        or "EXECUTION RESULT of [" in text
        or "llm_completions" in s.path.parts
    )


def openhands(s: Sniff) -> float:
    text = s.text.lstrip()
    if is_jsonl(s):
        return 0.85 if openhands_wrapper(s.first_line_object) else 0.0
    doc = whole_doc(s)
    if doc is not None:
        if isinstance(doc, list):
            events = [e for e in doc[:20] if isinstance(e, dict)]
            n = sum(1 for e in events if openhands_event(e))
            return 0.9 if n and n >= 0.8 * len(events) else 0.0
        if openhands_wrapper(doc):
            return 0.85
        if openhands_completion_head(s) and isinstance(doc, dict) and "messages" in doc:
            return 0.85
        return 0.5 if openhands_event(doc) and "id" in doc and "timestamp" in doc else 0.0
    if openhands_completion_head(s):
        return 0.85
    head = text[:6000]
    if (
        text.startswith("[")
        and re.search(_OPENHANDS_SOURCE, head)
        and re.search(_OPENHANDS_KIND, head)
        and '"timestamp"' in head
    ):
        return 0.9
    if (
        first_line_cut(s.head) is not None
        and re.match(r'\{\s*"instance_id"\s*:', text)
        and (
            re.search(r'"history"\s*:\s*\[', text)
            or '"agent_class"' in text
            or '"git_patch"' in text
        )
    ):
        return 0.8  # an evaluation output.jsonl whose first record is longer than the head
    if (
        text.startswith("{")
        and re.search(r'"history"\s*:\s*\[', head)
        and re.search(_OPENHANDS_SOURCE, head)
        and re.search(_OPENHANDS_KIND, head)
    ):
        return 0.8
    return 0.0


# --------------------------------------------------------------------------- chat APIs


def is_openai_response(doc: Any) -> bool:
    """An OpenAI ``chat.completion`` response document."""
    return (
        isinstance(doc, dict)
        and doc.get("object") == "chat.completion"
        and isinstance(doc.get("choices"), list)
    )


def is_anthropic_response(doc: Any) -> bool:
    """An Anthropic Messages response document."""
    return (
        isinstance(doc, dict)
        and doc.get("type") == "message"
        and doc.get("role") == "assistant"
        and isinstance(doc.get("content"), list)
    )


def openai_chat(s: Sniff) -> float:
    text = s.text.lstrip()
    if text.startswith(("data:", "event:", ":")):
        return 0.95 if "chat.completion.chunk" in text[:8192] else 0.0
    if is_openai_response(whole_doc(s)):
        return 0.9
    if whole_doc(s) is None and not is_jsonl(s) and re.match(r'\{\s*"(?:id|object)"\s*:', text):
        head = text[:4096].replace(" ", "")
        if '"object":"chat.completion"' in head:
            return 0.85  # a response too large to parse from the head
    return chat_score(chat_markers(s), "oai")


def anthropic_messages(s: Sniff) -> float:
    text = s.text.lstrip()
    if text.startswith(("data:", "event:", ":")):
        head = text[:4096]
        return 0.95 if "message_start" in head or "content_block_start" in head else 0.0
    if is_anthropic_response(whole_doc(s)):
        return 0.9
    if (
        re.match(r'\{\s*"(?:id|type|role|model|content)"\s*:', text)
        and whole_doc(s) is None
        and not is_jsonl(s)
    ):
        head = text[:4096].replace(" ", "")
        if '"type":"message"' in head and '"role":"assistant"' in head:
            return 0.8  # a response too large to parse from the head
    return chat_score(chat_markers(s), "anth")


_OAI_ROLES = {"tool", "function", "developer"}
_OAI_PARTS = {"image_url", "input_audio"}
_ANTH_BLOCKS = {"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use"}
_OAI_RE = (
    r'"tool_calls"\s*:|"role"\s*:\s*"(?:tool|function|developer)"|"tool_call_id"\s*:|"image_url"'
    r'|"max_completion_tokens"|"chat\.completion'
)
_ANTH_RE = (
    r'"type"\s*:\s*"(?:tool_use|tool_result|thinking|redacted_thinking)"|"input_schema"\s*:'
    r'|"anthropic_version"|"stop_sequences"|"tool_use_id"\s*:'
)
_AGENT_HEAD = (
    r'"trajectory_format"|"schema_version"|"projectHash"|"resourceSpans"|"history"\s*:\s*\['
    r'|"eval"\s*:\s*\{|"samples"\s*:\s*\['
)


class ChatMarkers:
    """How OpenAI-like and how Anthropic-like a chat document looks."""

    __slots__ = ("anth", "oai", "shape")

    def __init__(self) -> None:
        self.oai = 0
        self.anth = 0
        self.shape = ""  # "request" | "list" | "jsonl-messages" | "jsonl-docs" | "" (not chat)


def _message_markers(m: Any, mk: ChatMarkers) -> bool:
    if not isinstance(m, dict) or not isinstance(m.get("role"), str):
        return False
    if (
        m.get("role") in _OAI_ROLES
        or "tool_calls" in m
        or "tool_call_id" in m
        or "function_call" in m
    ):
        mk.oai += 1
    for block in as_list(m.get("content")):
        typ = as_dict(block).get("type")
        if typ in _ANTH_BLOCKS or (typ == "image" and "source" in as_dict(block)):
            mk.anth += 1
        elif typ in _OAI_PARTS:
            mk.oai += 1
    return True


def _request_markers(doc: dict[str, Any], mk: ChatMarkers) -> None:
    if doc.get("system") is not None or "anthropic_version" in doc or "stop_sequences" in doc:
        mk.anth += 1
    if "thinking" in doc and isinstance(doc.get("thinking"), dict):
        mk.anth += 1
    if "max_completion_tokens" in doc or "response_format" in doc or "logprobs" in doc:
        mk.oai += 1
    for tool in as_list(doc.get("tools")):
        t = as_dict(tool)
        if "input_schema" in t:
            mk.anth += 1
        elif t.get("type") == "function" or "function" in t:
            mk.oai += 1
    if "max_tokens" in doc and mk.oai == 0:
        mk.anth += 1


def chat_markers(s: Sniff) -> ChatMarkers:
    """Markers of a chat file (cached on the sniff): whole documents are parsed, JSONL
    heads parsed line by line, large documents searched with regular expressions."""
    if "chat" in s._cache:
        return s._cache["chat"]
    mk = ChatMarkers()
    s._cache["chat"] = mk
    if is_jsonl(s):
        first = s.first_line_object
        if (
            isinstance(first, dict)
            and isinstance(first.get("role"), str)
            and "messages" not in first
        ):
            if any(
                k in first for k in ("sessionId", "uuid", "parentUuid", "payload", "session_id")
            ):
                return mk
            mk.shape = "jsonl-messages"
            for raw in s.head.split(b"\n")[:200]:
                try:
                    _message_markers(orjson.loads(raw), mk)
                except orjson.JSONDecodeError:
                    continue
        elif (
            isinstance(first, dict)
            and isinstance(first.get("messages"), list)
            and _not_agent_traj(first)
        ):
            mk.shape = "jsonl-docs"
            for m in first["messages"][:200]:
                _message_markers(m, mk)
            _request_markers(first, mk)
        return mk
    doc = whole_doc(s)
    if isinstance(doc, dict) and isinstance(doc.get("messages"), list) and _not_agent_traj(doc):
        if any(_message_markers(m, mk) for m in doc["messages"][:500]) or not doc["messages"]:
            mk.shape = "request"
            _request_markers(doc, mk)
        return mk
    if isinstance(doc, dict) and isinstance(as_dict(doc.get("request")).get("messages"), list):
        mk.shape = "request"
        for m in doc["request"]["messages"][:500]:
            _message_markers(m, mk)
        _request_markers(doc["request"], mk)
        if is_anthropic_response(doc.get("response")):
            mk.anth += 2
        if is_openai_response(doc.get("response")):
            mk.oai += 2
        return mk
    if isinstance(doc, list):
        items = [m for m in doc[:500]]
        if items and all(_message_markers(m, mk) for m in items):
            mk.shape = "list"
        else:
            mk.oai = mk.anth = 0
        return mk
    if doc is None and len(s.head) >= SNIFF_BYTES:
        text = s.text.lstrip()
        head = text[:SNIFF_BYTES]
        if (
            text.startswith("{")
            and re.search(r'"messages"\s*:\s*\[', head)
            and re.search(r'"role"\s*:', head)
        ):
            if not re.search(_AGENT_HEAD, head) and not re.match(
                r'\{\s*"(?:info|version|status|eval)"\s*:', text
            ):
                mk.shape = "request"
                mk.oai = len(re.findall(_OAI_RE, head))
                mk.anth = len(re.findall(_ANTH_RE, head))
                if re.search(r'"max_tokens"\s*:', head) and mk.oai == 0:
                    mk.anth += 1
        elif (
            re.match(r'\{\s*"role"\s*:\s*"(?:system|developer|user|assistant|tool)"', text)
            and "\n" not in text
        ):
            mk.shape = "jsonl-messages"  # a first line longer than the head
            mk.oai = len(re.findall(_OAI_RE, head))
            mk.anth = len(re.findall(_ANTH_RE, head))
        elif text.startswith("[") and re.match(r'\[\s*\{\s*"role"\s*:', text):
            mk.shape = "list"
            mk.oai = len(re.findall(_OAI_RE, head))
            mk.anth = len(re.findall(_ANTH_RE, head))
    return mk


def _not_agent_traj(doc: dict[str, Any]) -> bool:
    """Agent trajectories that also hold a ``messages`` list (mini-swe-agent, Gemini CLI)
    belong to their own readers."""
    return not (
        "trajectory_format" in doc or "projectHash" in doc or isinstance(doc.get("info"), dict)
    )


def chat_score(mk: ChatMarkers, mine: str) -> float:
    """Confidence for the OpenAI (``mine="oai"``) or Anthropic reader: low, generic
    numbers, so any specific format outranks them."""
    if not mk.shape:
        return 0.0
    ours, theirs = (mk.oai, mk.anth) if mine == "oai" else (mk.anth, mk.oai)
    if ours > theirs:
        score = 0.5
    elif ours == theirs:
        score = (0.35 if mine == "oai" else 0.3) if ours == 0 else (0.4 if mine == "oai" else 0.38)
    else:
        score = 0.2
    if mk.shape in ("list", "jsonl-messages", "jsonl-docs"):
        score -= 0.05
    return score


# --------------------------------------------------------------------------- OpenTelemetry GenAI


def otel_span_dump(obj: Any) -> bool:
    """A span as an SDK's console or JSON exporter dumps it (``attributes`` and a context)."""
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("attributes"), dict)
        and ("spanContext" in obj or "context" in obj or "traceId" in obj)
        and "name" in obj
    )


def otel_attr_map(obj: Any) -> bool:
    """A bare map of a span's GenAI attributes."""
    return (
        isinstance(obj, dict)
        and any(
            isinstance(k, str) and k.startswith(("gen_ai.", "llm.", "ai.prompt", "ai.response"))
            for k in obj
        )
        and "messages" not in obj
    )


def otel_genai(s: Sniff) -> float:
    text = s.text.lstrip()
    if is_jsonl(s):
        first = s.first_line_object
        return (
            0.95
            if isinstance(first, dict) and isinstance(first.get("resourceSpans"), list)
            else 0.0
        )
    doc = whole_doc(s)
    if doc is not None:
        if isinstance(doc, dict) and isinstance(doc.get("resourceSpans"), list):
            return 0.95
        if isinstance(doc, list) and doc and all(otel_span_dump(x) for x in doc[:20]):
            return 0.9
        if otel_span_dump(doc):
            return 0.85
        if otel_attr_map(doc):
            return 0.8
        return 0.0
    head = text[:8000]
    if text.startswith("{") and re.match(r'\{\s*"resourceSpans"\s*:', text):
        return 0.95
    if text.startswith("[") and '"spanContext"' in head and '"attributes"' in head:
        return 0.9
    if (
        text.startswith("{")
        and re.search(r'"(?:gen_ai|llm|ai)\.[\w.]+"\s*:', head)
        and '"resourceSpans"' in head
    ):
        return 0.9
    return 0.0


# --------------------------------------------------------------------------- Gemini CLI


def gemini_meta(obj: Any) -> bool:
    """A Gemini CLI session object (or JSONL metadata line): ``sessionId`` and ``projectHash``."""
    return isinstance(obj, dict) and isinstance(obj.get("sessionId"), str) and "projectHash" in obj


def gemini_cli(s: Sniff) -> float:
    if is_jsonl(s):
        return 0.95 if gemini_meta(s.first_line_object) else 0.0
    doc = whole_doc(s)
    if doc is not None:
        return 0.95 if gemini_meta(doc) and isinstance(doc.get("messages"), list) else 0.0
    head = s.text.lstrip()[:8000]
    if (
        head.startswith("{")
        and re.search(r'"projectHash"\s*:', head)
        and re.search(r'"sessionId"\s*:', head)
        and re.search(r'"messages"\s*:\s*\[', head)
    ):
        return 0.9
    return 0.0


# --------------------------------------------------------------------------- tau-bench


def tau_entry(e: Any) -> bool:
    """One task's entry of a tau-bench results list."""
    return isinstance(e, dict) and "task_id" in e and "reward" in e and ("traj" in e or "info" in e)


def tau_bench(s: Sniff) -> float:
    text = s.text.lstrip()
    if not text.startswith("["):
        return 0.0
    doc = whole_doc(s)
    if isinstance(doc, list):
        return 0.9 if doc and tau_entry(doc[0]) else 0.0
    head = text[:65536]
    if (
        doc is None
        and re.match(r'^\[\s*\{\s*"task_id"\s*:\s*-?\d+\s*,', head)
        and '"reward"' in head
    ):
        return 0.85  # a results file larger than the head
    return 0.0


# --------------------------------------------------------------------------- Cursor CLI

CURSOR_TYPES = {"system", "user", "assistant", "thinking", "tool_call", "result"}


def _is_cursor_line(obj: Any) -> bool:
    o = as_dict(obj)
    typ = o.get("type")
    if typ in ("tool_call", "thinking") or "model_call_id" in o:
        return True
    # an init line without Claude Code's tool list (Claude's stream-json has "tools")
    return (
        typ == "system"
        and o.get("subtype") == "init"
        and "session_id" in o
        and "tools" not in o
        and "apiKeySource" in o
    )


def cursor_cli(s: Sniff) -> float:
    text = s.text.lstrip()
    if text.startswith("{") and re.search(r'"schema_version"\s*:\s*"cursor', text[:4096]):
        return 0.95
    if is_jsonl(s):
        first = s.first_line_object
        if _is_cursor_line(first) or (
            as_dict(first).get("type") in CURSOR_TYPES
            and "session_id" in as_dict(first)
            and re.search(
                r'"type"\s*:\s*"(?:tool_call|thinking)"|"model_call_id"\s*:|"timestamp_ms"\s*:',
                text,
            )
        ):
            return 0.9
        return 0.0
    doc = whole_doc(s)
    if isinstance(doc, dict) and any(_is_cursor_line(x) for x in as_list(doc.get("steps"))[:50]):
        return 0.85
    return 0.0


# --------------------------------------------------------------------------- Terminal-Bench


def cast_header(obj: Any) -> bool:
    """An asciinema v2 recording's header line."""
    o = as_dict(obj)
    return o.get("version") == 2 and "width" in o and "height" in o


def terminal_bench(s: Sniff) -> float:
    if not cast_header(s.first_line_object):
        return 0.0
    return 0.9 if s.path.name.lower().endswith(".cast") or s.path.parent.name == "sessions" else 0.7


# --------------------------------------------------------------------------- OpenAI Agents SDK

#: Responses-API items that are the model's output (the rest are inputs)
AGENTS_OUTPUT_TYPES = {
    "reasoning",
    "function_call",
    "computer_call",
    "local_shell_call",
    "custom_tool_call",
    "mcp_call",
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "shell_call",
    "apply_patch_call",
    "mcp_list_tools",
    "mcp_approval_request",
}


def agents_span(obj: Any) -> bool:
    """An Agents SDK trace or span object."""
    return isinstance(obj, dict) and obj.get("object") in ("trace", "trace.span")


def _agents_item(obj: Any) -> bool:
    o = as_dict(obj)
    typ = o.get("type")
    return isinstance(typ, str) and (
        typ in AGENTS_OUTPUT_TYPES or typ == "message" or typ.endswith("_call_output")
    )


def agents_run_state(doc: Any) -> bool:
    """A serialized ``RunState``."""
    d = as_dict(doc)
    return "$schemaVersion" in d and ("generated_items" in d or "model_responses" in d)


def openai_agents(s: Sniff) -> float:
    text = s.text.lstrip()
    first = s.first_line_object
    if agents_span(first):
        return 0.9
    doc = whole_doc(s)
    if isinstance(doc, dict):
        if agents_run_state(doc):
            return 0.95
        return 0.9 if any(agents_span(x) for x in as_list(doc.get("data"))[:20]) else 0.0
    if isinstance(doc, list):
        if any(agents_span(x) for x in doc[:20]):
            return 0.9
        # an input list: typed Responses items beside (or instead of) role messages
        return (
            0.6
            if doc
            and any(_agents_item(x) for x in doc[:200])
            and all(_agents_item(x) or "role" in as_dict(x) for x in doc[:200])
            else 0.0
        )
    head = text[:65536]
    if (
        doc is None
        and text.startswith("{")
        and re.search(r'"\$schemaVersion"\s*:', head[:2000])
        and '"generated_items"' in head
    ):
        return 0.9
    if doc is None and re.search(r'"object"\s*:\s*"trace(?:\.span)?"', head[:4000]):
        return 0.85
    return 0.0
