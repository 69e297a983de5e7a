"""OpenHands completion logs (``llm_completions/<instance>/<model>-<time>.json``): the
request and response of one LLM call, written when ``log_completions`` is on. The last
file of a run holds the whole conversation, so one file is one run.

The document is ``{messages, response, args, kwargs, timestamp, cost}``; with mocked
function calling (models without native tool calls) ``messages`` is the text form the
model saw and ``fncall_messages`` / ``fncall_response`` the native form. ``messages`` is
read, in either form:

- an assistant message's tool calls are its ``tool_calls`` (native) or its
  ``<function=NAME><parameter=KEY>VALUE</parameter></function>`` blocks (mocked); each is one
  event whose action is the command (``execute_bash``) or the arguments;
- a tool result is a ``role: "tool"`` message (joined by ``tool_call_id``) or a user message
  ``EXECUTION RESULT of [NAME]:`` (the oldest open call); its outcome is read from OpenHands'
  conventions in the text (``_signals.openhands_hints``: ``[Command finished with exit code
  N]``, ``ERROR:`` from the file editor, ``[The command has no new output after N
  seconds]``, ``[Error occurred in processing last action]``);
- other user messages are ``message`` events; the system prompt is not an event;
- ``response`` is the call this file logs: its message is the last model turn, with the
  response's usage and the file's ``cost`` and ``timestamp``.

``run_id`` is the file name; ``task_id`` the instance folder above it (``llm_completions/
<instance>/``). Earlier calls' usage is not in the file: their tokens are estimated (flagged).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from efc_tui.model import Run
from efc_tui.parsers._builder import RunBuilder
from efc_tui.parsers._content import content_text
from efc_tui.parsers._msg import ToolCall, chat_message, usage_openai
from efc_tui.parsers._signals import openhands_hints
from efc_tui.parsers._source import stem
from efc_tui.parsers._time import parse_time
from efc_tui.parsers._values import as_dict, as_float, as_list, opt_str

_RESULT = re.compile(r"^EXECUTION RESULT of \[(?P<name>[^\]\n]+)\]:\n?")
_FUNCTION = re.compile(r"<function=(?P<name>[^>\s]+)>(?P<body>.*?)(?:</function>|$)", re.DOTALL)
_PARAM = re.compile(r"<parameter=(?P<key>[^>\s]+)>(?P<value>.*?)</parameter>", re.DOTALL)
#: the start of the system prompt of OpenHands' CodeAct agents
SYSTEM_MARK = "You are OpenHands agent"


def is_completion_log(doc: Any) -> bool:
    """An OpenHands completion log (``sniffs.openhands_completion_head`` recognised the file):
    a ``messages`` list that is not an evaluation record's ``history``; ``response``,
    ``kwargs``, ``fncall_messages`` may be absent (a request saved alone)."""
    return (
        isinstance(doc, dict)
        and isinstance(doc.get("messages"), list)
        and not isinstance(doc.get("history"), list)
    )


def _mocked_calls(text: str) -> tuple[str, list[ToolCall]]:
    """(the text before the first call, the calls) of a mocked function-calling message."""
    calls: list[ToolCall] = []
    first = None
    for m in _FUNCTION.finditer(text):
        first = m.start() if first is None else first
        args = {p.group("key"): p.group("value").strip("\n") for p in _PARAM.finditer(m["body"])}
        calls.append(ToolCall(None, m.group("name"), args))
    return (text[:first].strip() if first is not None else text), calls


def completion_run(doc: dict[str, Any], path: Path) -> Run:
    """One completion log as a run (module docstring)."""
    response = as_dict(doc.get("response"))
    model = opt_str(response.get("model")) or opt_str(as_dict(doc.get("kwargs")).get("model"))
    instance = path.parent.name if path.parent.parent.name == "llm_completions" else None
    run = Run(
        run_id=stem(path),
        task_id=instance,
        harness="openhands",
        model=model,
        source_format="openhands",
        source_path=str(path),
        extra={"completion_log": True},
    )
    b = RunBuilder(run)
    for raw in as_list(doc.get("messages")):
        _feed(b, raw)
    choices = as_list(response.get("choices"))
    if choices:
        ts = parse_time(doc.get("timestamp"))
        usage = usage_openai(response.get("usage"))
        cost = as_float(doc.get("cost"))
        if usage is not None and cost is not None:
            usage.cost = cost
        _feed(b, as_dict(choices[0]).get("message"), usage=usage, ts=ts, model=model)
    return b.finish()


def _feed(
    b: RunBuilder,
    raw: Any,
    *,
    usage: Any = None,
    ts: float | None = None,
    model: str | None = None,
) -> None:
    msg = chat_message(raw)
    if msg is None:
        return
    role = msg.role.lower()
    if role == "system":
        return
    if role == "assistant":
        text, calls = msg.text, list(msg.calls)
        if not calls:
            text, calls = _mocked_calls(msg.text)
        b.assistant(
            text, calls, usage=usage, reasoning=msg.reasoning, t_start=ts, t_end=ts, model=model
        )
        return
    if role == "tool":
        for r in msg.results:
            _result(b, r.call_id, r.text, r.name)
        return
    text, _ = content_text(as_dict(raw).get("content"))
    m = _RESULT.match(text)
    if m is not None:  # no call open (one the reader could not parse): an orphan result
        _result(b, None, text, m.group("name"))
    elif text:
        b.message(text, role=role)


def _result(b: RunBuilder, call_id: str | None, text: str, name: str | None) -> None:
    m = _RESULT.match(text)
    h = openhands_hints(text[m.end() :] if m else text)
    b.result(
        call_id,
        text,
        name=name,
        exit_code=h.exit_code,
        is_error=h.is_error,
        timed_out=h.timed_out,
    )
