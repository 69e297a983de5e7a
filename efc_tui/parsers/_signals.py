"""Outcome conventions that more than one log format writes into a tool result's text.

A reader sets a tool result's hints (exit code, is-error, timed-out) from its format's
structured fields first; these helpers read the conventions some producers write into the
text instead, each in one place because several formats carry them (docs/formats.md,
"Verdict signals per format"):

- Claude Code's Bash results start ``Exit code N`` (Claude Code sessions, and Harbor's
  ATIF conversion of them);
- Harbor's ATIF conversion appends ``[error] tool reported failure`` to a result the tool
  flagged as an error;
- OpenHands' file editor (openhands-aci) answers a call it could not carry out with
  ``ERROR:`` and the reason; its shell results end ``[The command completed with exit code
  N.]`` and/or ``[Command finished with exit code N]``,
  a hung command ``[The command has no new output after N seconds ...]`` or ``[The command
  timed out after N seconds ...]``, an error observation ``[Error occurred in processing
  last action]`` (OpenHands event streams, its completion logs, and ATIF conversions);
- a JSON answer ``{"status": "error", "error": ...}`` (OpenClaw's tools, and many MCP /
  function tools) or ``{"error": ...}`` is a failed call;
- Claude Code's refusals: a tool use the user (or the permission mode) did not allow.

The text classifier (``status.classify_observation``) then types the failure from the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import orjson

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


@dataclass(slots=True)
class Hints:
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


def harbor_failure(text: str) -> bool:
    """Harbor's ATIF conversion marked the result as a failure of the tool."""
    return text.rstrip().endswith(HARBOR_FAILURE_MARK)


def openhands_hints(text: str) -> Hints:
    """OpenHands' conventions in a tool result's text (module docstring)."""
    h = Hints()
    if text.startswith("ERROR:"):
        h.is_error = True
    tail = text[-600:]
    codes = _OH_EXIT.findall(tail)
    if codes and int(codes[-1]) != -1:  # -1: still running, or unknown
        h.exit_code = int(codes[-1])
    if _OH_HUNG.search(tail):
        h.timed_out = True
    if tail.rstrip().endswith(_OH_ERROR_SUFFIX):
        h.is_error = True
    return h


def json_error(text: str) -> str | None:
    """The message of a JSON answer that reports a failed call (``{"status": "error", ...}``
    or ``{"error": ...}`` with a non-empty error), else None."""
    s = text.strip()
    if not (s.startswith("{") and s.endswith("}")) or len(s) > _JSON_ERROR_MAX:
        return None
    if '"error"' not in s:
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
    if err not in (None, "", False, {}, []) and not (
        isinstance(status, str) and status.lower() in ("ok", "success", "completed")
    ):
        return _message(err) or "error"
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
