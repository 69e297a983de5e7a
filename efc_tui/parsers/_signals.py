"""Outcome conventions that more than one log format writes into a tool result's text.

A reader sets a tool result's hints (exit code, is-error, timed-out) from its format's
structured fields first; these helpers read the conventions some producers write into the
text instead, each in one place because several formats carry them (docs/formats.md,
"Verdict signals per format"):

- Claude Code's Bash results start ``Exit code N`` (Claude Code sessions, and Harbor's
  ATIF conversion of them);
- Harbor's ATIF conversion appends ``[error] tool reported failure`` to a result the tool
  flagged as an error, and ``[exit_code] N`` after the output of a failed command;
- OpenHands' file editor (openhands-aci) answers a call it could not carry out with
  ``ERROR:`` and the reason; its shell results end ``[The command completed with exit code
  N.]`` and/or ``[Command finished with exit code N]``,
  a hung command ``[The command has no new output after N seconds ...]`` or ``[The command
  timed out after N seconds ...]``, an error observation ``[Error occurred in processing
  last action]`` (OpenHands event streams, its completion logs, and ATIF conversions);
- a JSON answer ``{"status": "error", "error": ...}`` (OpenClaw's tools, and many MCP /
  function tools), ``{"error": ...}``, ``{"isError": true, ...}`` (an MCP tool result),
  ``{"ok": false, ...}`` or ``{"success": false, "error"|"message": ...}`` is a failed call;
- Claude Code's refusals: a tool use the user (or the permission mode) did not allow; Codex's:
  a command or patch the user declined, its guardian refused, or the sandbox denied;
- the OpenAI Agents SDK's default tool-error answer, ``An error occurred while running the
  tool. Please try again. Error: ...`` (Python and JS SDKs, and their ports);
- a shell tool's own report of its exit code: a line starting ``exit_code=N`` /
  ``Exit code: N`` / ``returncode: N`` at the start or the end of the output, mini-swe-agent's ``<returncode>N</returncode>``
  (its own logs, and Harbor's conversion of them), or a JSON answer with ``exit_code``;
- a harness's record of a crashed task or sample: a failed model call (``api_error``) shows
  the model client in its exception or traceback (litellm, openai, anthropic, ... frames,
  ``completion`` calls); otherwise the crash is the agent's or the harness's own (an error).

The text classifier (``status.classify_observation``) then types the failure from the text.
"""

from __future__ import annotations

import re

import orjson
from msgspec import Struct

from efc_tui.model import EventKind, Status
from efc_tui.parsers._drafts import Draft
from efc_tui.parsers._patterns import _Guarded
from efc_tui.parsers.status import classify_observation

_CLAUDE_EXIT = re.compile(r"^Exit code (-?\d+)\b")
HARBOR_FAILURE_MARK = "[error] tool reported failure"
_OH_EXIT = re.compile(r"\[(?:Command finished|The command completed) with exit code (-?\d+)\.?\]")
_OH_HUNG = re.compile(
    r"\[The command (?:has no new output after \d+(?:\.\d+)? seconds|timed out after \d+)"
)
_OH_ERROR_SUFFIX = "[Error occurred in processing last action]"
#: Claude Code's answers to a tool use that was not allowed to run
_CLAUDE_REFUSALS = (
    "requested permissions to ",
    "The user doesn't want to proceed with this tool use",
    "The user doesn't want to take this action right now",
    "Permission to use ",
)
_JSON_ERROR_MAX = 20_000
#: the keys a JSON failure answer is read from (one search, not one per key)
_JSON_ERROR_KEY = re.compile(r'"(?:error|isError|is_error|ok|success)"')
AGENTS_TOOL_ERROR = "An error occurred while running the tool"
#: (tried at every position of a text: behind its one word, which most texts lack)
_EXIT_LINE = _Guarded(
    r"^(?:exit[_ ]?code|return[_ ]?code|exitcode)(?:=|: ?)(-?\d+)(?:[ \t,;]|$)",
    re.IGNORECASE | re.MULTILINE,
    ("code",),
)
#: Harbor's Claude Code conversion: ``[exit_code] N`` after the ``[stdout]`` / ``[stderr]`` parts
_HARBOR_EXIT = re.compile(r"^\[exit_code\] (-?\d+)[ \t]*$", re.MULTILINE)
_RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")
_EXIT_KEYS = ("exit_code", "exitCode", "returncode", "return_code")


class Hints(Struct):
    """What a result's text says about its outcome (None: it says nothing)."""

    exit_code: int | None = None
    is_error: bool | None = None
    timed_out: bool | None = None


def claude_exit_code(text: str) -> int | None:
    """The exit code of a Claude Code Bash result that starts ``Exit code N``."""
    m = _CLAUDE_EXIT.match(text)
    return int(m.group(1)) if m else None


def claude_refusal(text: str) -> bool:
    """A Claude Code tool use that was refused (permission not granted, user said no)."""
    head = text[:400]
    return any(r in head for r in _CLAUDE_REFUSALS)


_CODEX_REFUSALS = (
    "exec command rejected by user",
    "patch rejected by user",
    "This action was rejected due to unacceptable risk",
    "sandbox denied exec error",
)


def refused(d: Draft) -> None:
    """A call that was not allowed to run: ``static_reject``, and a ``tool`` event whatever
    it asked for (a refused write wrote nothing: it is no candidate, no repair)."""
    d.status = Status.STATIC_REJECT
    d.kind = EventKind.TOOL


def codex_refusal(text: str) -> bool:
    """A Codex call that never ran: declined by the user or the guardian, denied by the
    sandbox."""
    return text.lstrip()[:300].startswith(_CODEX_REFUSALS)


def harbor_failure(text: str) -> bool:
    """Harbor's ATIF conversion marked the result as a failure of the tool."""
    return text.rstrip().endswith(HARBOR_FAILURE_MARK)


def openhands_hints(text: str) -> Hints:
    """OpenHands' conventions in a tool result's text (module docstring)."""
    h = Hints()
    if text.startswith("ERROR:"):
        h.is_error = True
    tail = text[-600:]
    if "[" not in tail:  # every mark below is bracketed
        return h
    codes = _OH_EXIT.findall(tail)
    if codes and int(codes[-1]) != -1:  # -1: still running, or unknown
        h.exit_code = int(codes[-1])
    if _OH_HUNG.search(tail):
        h.timed_out = True
    if tail.rstrip().endswith(_OH_ERROR_SUFFIX):
        h.is_error = True
    return h


#: a crash inside a model client (the agent's or a simulated user's ``completion``)
_MODEL_CALL = re.compile(
    r"\b(?:litellm|openai|anthropic|azure\.core|google\.api_core|google\.genai|vertexai|httpx)\.|"
    r"\bin (?:completion|acompletion|generate_next_message|create|generate)\n|"
    r"(?:RateLimit|APIConnection|APIStatus|APITimeout|ServiceResponse|ContextWindowExceeded"
    r"|InternalServer|BadGateway|ServiceUnavailable|Overloaded)Error"
)


def model_call_failed(message: str, traceback: str = "") -> bool:
    """A crash recorded by a harness happened in a call to a model (module docstring)."""
    return bool(_MODEL_CALL.search(message[-4000:]) or _MODEL_CALL.search(traceback[-4000:]))


def crash_status(message: str, traceback: str = "") -> Status:
    """The status of a crash a harness recorded (a task's or sample's error): ``api_error``
    when it happened in a model call, else the failure its message names (the text
    classifier: a validation error of the agent's action is a rejection, a timeout a
    timeout), else ``runtime_error``."""
    if model_call_failed(message, traceback):
        return Status.API_ERROR
    status, _ = classify_observation(message[-4000:], is_error=True)
    if status in (Status.OTHER, Status.NONE, Status.PASSED, Status.API_ERROR):
        return Status.RUNTIME_ERROR
    return status


def agents_tool_error(text: str) -> bool:
    """The OpenAI Agents SDK's answer for a tool that raised (module docstring)."""
    return text.lstrip().startswith(AGENTS_TOOL_ERROR)


def reported_exit_code(text: str) -> int | None:
    """The exit code a shell tool reports in its answer: ``<returncode>N</returncode>``, or a
    line that starts ``exit_code=N`` / ``Exit code: N`` (alone or followed by other fields)
    in its first or last 300 characters, or the ``exit_code`` of a JSON answer (module
    docstring)."""
    m = _RETURNCODE.search(text[:400]) or _EXIT_LINE.search(text[:300])
    if m is None and len(text) > 300:
        m = _EXIT_LINE.search(text[-300:])  # a footer: "...\nexit_code=1"
    if m is None:
        end = text[-3000:]
        if "[exit_code]" in end:
            m = _HARBOR_EXIT.search(end)
    if m:
        return int(m.group(1))
    if not _json_object(text):
        return None
    s = text.strip()
    if s.startswith("{") and s.endswith("}") and len(s) <= _JSON_ERROR_MAX and "code" in s:
        try:
            doc = orjson.loads(s)
        except orjson.JSONDecodeError:
            return None
        if isinstance(doc, dict):
            for key in _EXIT_KEYS:
                if isinstance(doc.get(key), int) and not isinstance(doc.get(key), bool):
                    return int(doc[key])
    return None


def _json_object(text: str) -> bool:
    """Can ``text`` stripped start with ``{``? (Its first 64 characters tell, unless they are
    all blank: no copy of a long text that cannot be a JSON answer.)"""
    head = text[:64].lstrip()
    return not head or head[0] == "{"


def json_error(text: str) -> str | None:
    """The message of a JSON answer that reports a failed call (module docstring), else
    None."""
    if not _json_object(text):
        return None
    s = text.strip()
    if not (s.startswith("{") and s.endswith("}")) or len(s) > _JSON_ERROR_MAX:
        return None
    if _JSON_ERROR_KEY.search(s) is None:
        return None
    try:
        doc = orjson.loads(s)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(doc, dict):
        return None
    err = doc.get("error")
    status = doc.get("status")
    if isinstance(status, str) and status.lower() in ("error", "failed", "failure"):
        return _message(err) or _message(doc.get("message")) or status
    if (
        doc.get("isError") is True
        or doc.get("is_error") is True
        or doc.get("ok") is False
        or (doc.get("success") is False and ("error" in doc or "message" in doc))
    ):
        return _message(err) or _message(doc.get("message")) or _content_text(doc) or "error"
    if err not in (None, "", False, {}, []) and not (
        isinstance(status, str) and status.lower() in ("ok", "success", "completed")
    ):
        return _message(err) or "error"
    return None


def _content_text(doc: dict[str, object]) -> str | None:
    """The text of an MCP result's ``content`` blocks."""
    content = doc.get("content")
    if isinstance(content, list):
        texts = [
            b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
        ]
        return "\n".join(texts) or None
    return None


def _message(value: object) -> str | None:
    if isinstance(value, str):
        return value or None
    if isinstance(value, dict):
        for key in ("message", "detail", "error"):
            if isinstance(value.get(key), str) and value[key]:
                return str(value[key])
        return orjson.dumps(value).decode()
    if value in (None, False):
        return None
    return str(value)
