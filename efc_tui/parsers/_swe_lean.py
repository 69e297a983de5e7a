"""A SWE-agent trajectory decoded without what its reader never reads (issue 31).

``history`` repeats every step's thought, action and observation (about half of a
document), and 1.x steps repeat the whole prompt under ``query`` or ``messages``. The
reader needs from ``history`` only each message's role and demonstration marks, the text of
the system prompt, of the demonstrations and of the task (the first other user message), and
the assistant messages' first tool name. :func:`lean_document` decodes the document into msgspec
Structs of the known keys, the values the reader does not read kept as ``msgspec.Raw``
(bytes, never built as Python strings), and returns the dict the reader walks, holding only
what it reads, each value decoded by orjson as the whole-document parse would have decoded
it.

It must give what ``orjson.loads`` of the document (``query`` lists stripped, as
``swe_agent.strip_queries`` does) gives the reader, or None, and the caller then reads the
document as before (with its repairs, warnings and errors). None whenever it cannot be
sure: an unknown key anywhere (``forbid_unknown_fields``), a value of another type than the
known shape's (msgspec's ValidationError), invalid JSON, invalid UTF-8 anywhere (msgspec
does not check it in the values it skips), a lone surrogate escape (msgspec refuses them
where orjson does), a number orjson refuses (checked by decoding every skipped value that is
not a string), a nesting past ``MAX_DEPTH`` (each decoded value measured at its level) and a
``"query"`` key inside a value the reader reads (the stripping would have removed it there).
Duplicate keys: the last one wins in both decoders. The Structs hold no cycles, so
the garbage collector does not track them (``gc=False``: a folder makes tens of thousands).
"""

from __future__ import annotations

from typing import Any

import msgspec
import orjson
from msgspec import Raw

from efc_tui.parsers._values import too_deep

_ABSENT = Raw(b"")
_QUOTE = ord('"')


class _Function(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    name: str | None = None
    #: a JSON string (litellm's OpenAI form); an object: the whole parse
    arguments: str | None = None


class _ToolCall(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    function: _Function | None = None
    id: str | None = None
    type: str | None = None


class _Message(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One ``history`` message (0.x and 1.x keys)."""

    role: str | None = None
    content: Raw = _ABSENT
    message_type: str | None = None
    is_demo: bool | None = None
    tool_calls: list[_ToolCall] | None = None
    agent: str | None = None
    thought: str | None = None
    action: str | None = None
    tool_call_ids: list[str] | None = None


class _Step(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One ``trajectory`` step."""

    action: str | None = None
    observation: str | None = None
    response: str | None = None
    thought: str | None = None
    execution_time: float | str | None = None  # as_float reads an int as this float
    #: 0.x: a JSON string; 1.x: a dict of strings (any other shape: the whole parse)
    state: str | dict[str, str | None] | None = None
    query: Raw = _ABSENT
    #: 1.x: the messages the model saw (the prompt again), never read
    messages: list[_Message] | None = None
    extra_info: Raw = _ABSENT


class _Document(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    trajectory: list[_Step]
    history: list[_Message] = []
    info: Raw = _ABSENT
    replay_config: Raw = _ABSENT
    environment: str | None = None


_DECODER = msgspec.json.Decoder(_Document)


class _Unsure(Exception):
    """The lean decoding cannot promise the whole-document result."""


def _value(raw: Raw, level: int, read: bool = True) -> Any:
    """``raw`` as orjson decodes it, at ``level`` levels of nesting in the document (``read``:
    the reader reads it, so a ``query`` key in it is one the whole parse would strip)."""
    view = memoryview(raw)
    if view[0] == _QUOTE:
        return orjson.loads(view)  # a string: msgspec checked its escapes, the caller its UTF-8
    try:
        value = orjson.loads(view)
    except orjson.JSONDecodeError:  # a number past a double's range
        raise _Unsure from None
    if type(value) is dict or type(value) is list:
        text = bytes(view)
        if read and b'"query"' in text:
            raise _Unsure
        if too_deep(text, value, level):
            raise _Unsure
    return value


def _skipped(raw: Raw, level: int = 3) -> None:
    """A value the reader does not read (by default in a step or a message): a string needs
    no more than msgspec's and the UTF-8 checks; anything else is decoded, for what would
    make the whole parse fail or differ."""
    if raw and memoryview(raw)[0] != _QUOTE:
        _value(raw, level, read=False)


def _history(messages: list[_Message]) -> list[dict[str, Any]]:
    """The messages ``swe_agent.convert`` takes something from, with only that: the
    demonstrations, the system prompt and the first other user message (the task), with
    their text; the assistant messages' first tool name. It passes over every other message
    (later user messages, tool outputs, assistant messages without tool calls)."""
    out: list[dict[str, Any]] = []
    task_seen = False
    for m in messages:
        role = m.role
        demo = m.is_demo or m.message_type == "demonstration"
        if demo or role == "system" or (role == "user" and not task_seen):
            task_seen = task_seen or (role == "user" and not demo)
            h: dict[str, Any] = {"role": role, "message_type": m.message_type}
            h["is_demo"] = m.is_demo
            if m.content:
                h["content"] = _value(m.content, 3)
            out.append(h)
        else:
            _skipped(m.content)  # unread, but the whole parse would check it
        calls = m.tool_calls
        if calls and role == "assistant" and not demo:
            f = calls[0].function
            out.append({"role": role, "tool_calls": [{"function": {"name": f.name}} if f else {}]})
    return out


def _steps(steps: list[_Step]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for s in steps:
        st: dict[str, Any] = {
            "action": s.action,
            "observation": s.observation,
            "response": s.response,
            "thought": s.thought,
            "execution_time": s.execution_time,
            "state": s.state,
        }
        query = s.query
        if query and memoryview(query)[0] != 0x5B:  # a list is stripped unread (strip_queries)
            _value(query, 3)
        if s.messages:
            for m in s.messages:
                _skipped(m.content, 5)
        if s.extra_info:
            _skipped(s.extra_info)
        out.append(st)
    return out


def lean_document(data: bytes) -> dict[str, Any] | None:
    """The document's fields the SWE-agent reader reads, as the whole parse gives them, or
    None when that cannot be promised (the caller then parses it all)."""
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        doc = _DECODER.decode(data)
    except (msgspec.DecodeError, RecursionError):  # ValidationError is a DecodeError
        return None
    try:
        out: dict[str, Any] = {
            "trajectory": _steps(doc.trajectory),
            "history": _history(doc.history),
            "environment": doc.environment,
        }
        if doc.info:
            out["info"] = _value(doc.info, 1)
        if doc.replay_config:
            out["replay_config"] = _value(doc.replay_config, 1)
    except _Unsure:
        return None
    return out
