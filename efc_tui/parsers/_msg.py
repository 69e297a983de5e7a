"""Chat messages and model usage in one dialect-neutral shape.

:func:`chat_message` reads an OpenAI Chat Completions, Anthropic Messages, Inspect or
OpenTelemetry-semconv message into a :class:`Msg` (its text, reasoning, tool calls and
tool results); :func:`usage_openai` / :func:`usage_anthropic` read a response's usage into
a :class:`Usage` whose ``input`` counts every input token, cached ones included
(docs/formats.md, "Tokens").
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field

from efc_tui.parsers._content import (
    is_call_block,
    is_result_block,
    reasoning_of,
    result_text,
    text_of,
)
from efc_tui.parsers._values import (
    as_dict,
    as_float,
    id_str,
    opt_count,
    opt_str,
    parse_json_text,
)

# --------------------------------------------------------------------------- messages


class ToolCall(Struct):
    """A tool call: its id, the tool's name and its arguments (parsed when JSON)."""

    id: str | None
    name: str | None
    args: Any = None


class Result(Struct):
    """A tool result: the call it answers, its text, and whether it says it failed."""

    call_id: str | None
    text: str
    name: str | None = None
    is_error: bool | None = None


class Msg(Struct):
    """One chat message in a dialect-neutral shape."""

    role: str
    text: str = ""
    calls: list[ToolCall] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    reasoning: str = ""
    id: str | None = None


def tool_call_from(obj: Any) -> ToolCall | None:
    """A tool call from the OpenAI (``{id, function: {name, arguments}}``), Inspect
    (``{id, function: "name", arguments}``), Anthropic (``{id, name, input}``) or
    semconv / Vercel (``{id|toolCallId, name|toolName, arguments|args|input}``) shapes."""
    if not isinstance(obj, dict):
        return None
    get = obj.get
    fn = get("function")
    if isinstance(fn, dict):  # OpenAI's shape
        name = opt_str(fn.get("name"))
        args = parse_json_text(fn.get("arguments"))
    else:
        name = opt_str(fn) or opt_str(obj.get("name")) or opt_str(obj.get("toolName"))
        args = None
        for key in ("arguments", "input", "args", "parameters"):
            if key in obj:
                args = parse_json_text(obj[key])
                break
    cid = id_str(get("id")) or id_str(get("toolCallId")) or id_str(get("call_id"))
    if name is None and args is None:
        return None
    return ToolCall(id=cid, name=name, args=args)


def _blocks(msg: Msg, content: Any) -> None:
    """The text, reasoning, tool calls and results of content that is not plain text:
    Anthropic tool_use / tool_result blocks (semconv parts use the same walk), or any
    other shape ``text_of`` reads."""
    blocks = content if isinstance(content, list) else []
    rest: list[Any] = []
    for b in blocks:
        if is_call_block(b):
            call = tool_call_from(b)
            if call is not None:
                msg.calls.append(call)
        elif is_result_block(b):
            cid = id_str(b.get("tool_use_id")) or id_str(b.get("toolCallId")) or id_str(b.get("id"))
            body = (
                b.get("content")
                if "content" in b
                else b.get("output", b.get("result", b.get("response")))
            )
            msg.results.append(
                Result(
                    cid,
                    result_text(body),
                    opt_str(b.get("toolName") or b.get("name")),
                    bool(b.get("is_error")) if "is_error" in b else None,
                )
            )
        else:
            rest.append(b)
    msg.text = text_of(rest if isinstance(content, list) else content)
    msg.reasoning = reasoning_of(blocks)


#: roles whose text is a tool's result
_RESULT_ROLES = frozenset({"tool", "function", "ipython"})


def chat_message(m: Any) -> Msg | None:
    """An OpenAI Chat Completions, Anthropic Messages or Inspect message as a Msg."""
    if not isinstance(m, dict):
        return None
    get = m.get  # a message is read field by field, once: the readers' most frequent walk
    role = get("role")
    bare = len(m) == 2  # a role and a text, and no other field (a user's turn)?
    if not isinstance(role, str) or not role:
        role = opt_str(get("type")) or "user"
        bare = False
    content = get("content")
    if bare and isinstance(content, str) and role not in _RESULT_ROLES:
        return Msg(role, content, [], [], "", None)  # no id, reasoning or calls to look for
    mid = get("id")  # absent in most dialects: no helper call then
    if mid is not None:
        mid = id_str(mid)
    if isinstance(content, str):  # plain text (OpenAI chat): no blocks to walk
        msg = Msg(role, content, [], [], "", mid)
    else:
        msg = Msg(role, "", [], [], "", mid)
        if content is not None:
            _blocks(msg, content)
    for key in ("reasoning_content", "reasoning"):
        r = get(key)
        if r and isinstance(r, str):
            msg.reasoning = (msg.reasoning + "\n" + r).strip()
    tool_calls = get("tool_calls")
    if tool_calls and isinstance(tool_calls, list):
        calls = msg.calls
        for tc in tool_calls:
            call = tool_call_from(tc)
            if call is not None:
                calls.append(call)
    fc = get("function_call")
    if isinstance(fc, dict):
        msg.calls.append(
            ToolCall(None, opt_str(fc.get("name")), parse_json_text(fc.get("arguments")))
        )
    if role == "tool":
        err = get("error")
        msg.results.append(
            Result(
                id_str(get("tool_call_id")),
                msg.text,
                opt_str(get("name")) or opt_str(get("function")),
                None if err is None else bool(err),
            )
        )
        msg.text = ""
    elif role == "function" or role == "ipython":
        msg.results.append(Result(None, msg.text, opt_str(get("name"))))
        msg.text = ""
    return msg


# --------------------------------------------------------------------------- usage


class Usage(Struct):
    """One model call's usage: ``input`` counts every input token, cached ones included."""

    input: int | None = None
    output: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None
    reasoning: int | None = None
    cost: float | None = None

    @property
    def known(self) -> bool:
        return self.input is not None or self.output is not None


def usage_openai(u: Any) -> Usage | None:
    """OpenAI / litellm usage: ``prompt_tokens`` already includes cached tokens; so does
    the Responses API ``input_tokens``."""
    u = as_dict(u)
    if not u:
        return None
    tin = opt_count(u.get("prompt_tokens"))
    if tin is None:
        tin = opt_count(u.get("input_tokens"))
    tout = opt_count(u.get("completion_tokens"))
    if tout is None:
        tout = opt_count(u.get("output_tokens"))
    if tin is None and tout is None:
        total = opt_count(u.get("total_tokens"))
        if total is None:
            return None
        tin = total
    details = as_dict(u.get("prompt_tokens_details") or u.get("input_tokens_details"))
    cache_read = opt_count(details.get("cached_tokens"))
    if not cache_read:
        cache_read = opt_count(u.get("cache_read_input_tokens"))
    reasoning = opt_count(
        as_dict(u.get("completion_tokens_details") or u.get("output_tokens_details")).get(
            "reasoning_tokens"
        )
    )
    return Usage(
        tin,
        tout,
        cache_read,
        opt_count(u.get("cache_creation_input_tokens")),
        reasoning,
        as_float(u.get("cost")),
    )


def usage_anthropic(u: Any) -> Usage | None:
    """Anthropic usage: ``input_tokens`` excludes the cache, so the cache is added back."""
    u = as_dict(u)
    if not u:
        return None
    tin = opt_count(u.get("input_tokens"))
    tout = opt_count(u.get("output_tokens"))
    cw = opt_count(u.get("cache_creation_input_tokens"))
    cr = opt_count(u.get("cache_read_input_tokens"))
    if tin is None and tout is None:
        return None
    total_in = (tin or 0) + (cw or 0) + (cr or 0) if tin is not None or cw or cr else None
    return Usage(total_in, tout, cr, cw)
