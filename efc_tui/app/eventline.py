"""An event in one line: what the agent did, and what came back (no Textual here).

The ledger's ``action`` and ``outcome`` columns, the detail pane's first lines and the
compare view read these. ``action_line``: the command, or the tool and its main argument
("Read package.json", "Glob **/*.md in ./.claude/commands"); a message shows who spoke and
its first line. ``outcome_line``: the exit status, the tests passed/failed, the first error
line, else the first line of the observation. ``edit_diff``: an edit as a unified diff
(Claude Code Edit / MultiEdit / Write, ``str_replace_editor``, ``apply_patch``).

Everything here is bounded (only the first ``SCAN`` characters of a text are looked at)
and returns plain strings: callers sanitize (``efc_tui.report.text``) before anything is drawn.
"""

from __future__ import annotations

import json
import re
from typing import Any

from efc_tui._lazy import lazy_module
from efc_tui.model import Event, EventKind, Status

# for the few events that are edits: imported when first needed (efc_tui._lazy)
difflib = lazy_module("difflib")
shlex = lazy_module("shlex")

#: characters of an action / observation looked at for one line (a JSON action is parsed
#: only when it is shorter than this)
SCAN = 200_000
#: keys holding a tool call's main argument, most telling first
_MAIN_KEYS = (
    "command",
    "cmd",
    "pattern",
    "file_path",
    "path",
    "notebook_path",
    "query",
    "url",
    "description",
    "prompt",
    "code",
    "content",
)
_SHELL = {
    "shell_command",
    "local_shell",
    "bash",
    "sh",
    "shell",
    "zsh",
    "terminal",
    "run",
    "exec",
    "execute",
    "cmd",
    "run_command",
}
#: edit tools whose action is shown as a diff
EDIT_TOOLS = {"edit", "multiedit", "write", "str_replace_editor", "apply_patch", "file_editor"}
_ERROR_LINE = re.compile(
    r"^\s*(?:E\s+)?(?:[\w.]*(?:Error|Exception|Interrupt)\b.*|error(?:\[\w+\])?:.*|fatal:.*|"
    r"FAILED\b.*|.*\bcommand not found\b.*|.*: No such file or directory.*|"
    r".*\bPermission denied\b.*|<tool_use_error>.*)$",
    re.MULTILINE | re.IGNORECASE,
)
_TAG = re.compile(r"</?[\w-]+>")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.MULTILINE)
#: Claude Code's Read numbers its lines ("     1→")
_LINE_NO = re.compile(r"^\s*\d+→", re.MULTILINE)
#: lines a harness puts before the output (Codex: "Exit code: 0", "Wall time: …")
_HARNESS_NOTE = re.compile(r"^(?:Exit code|Wall time|Output):.*\n?", re.MULTILINE)


def first_line(text: str, limit: int = 400) -> str:
    """The first non-blank line of ``text`` (stripped, at most ``limit`` characters), with
    " …" when more lines follow."""
    head = text[:SCAN]
    lines = head.strip().splitlines()
    if not lines:
        return ""
    line = lines[0].strip()[:limit]
    return line + " …" if len(lines) > 1 else line


def _json_args(text: str) -> dict[str, Any] | None:
    s = text.lstrip()
    if not s.startswith("{") or len(s) > SCAN:
        return None
    try:
        value = json.loads(s)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _main_argument(args: dict[str, Any]) -> str:
    for key in _MAIN_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            main = first_line(value)
            if key == "pattern" and isinstance(args.get("path"), str):
                main += f" in {args['path']}"
            return main
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return first_line(" ".join(value))  # a command given as argv
    for value in args.values():
        if isinstance(value, str) and value.strip():
            return first_line(value)
    return ""


def action_line(ev: Event) -> str:
    """What the agent did at ``ev``, in one line (plain text, not yet sanitized)."""
    tool = (ev.tool or "").strip()
    text = ev.action_text
    if ev.kind is EventKind.MESSAGE and not tool:
        who = str(ev.extra.get("role") or "user")
        body = first_line(_TAG.sub(" ", ev.observation_text or text))
        return f"{who}: {body}" if body else who
    if not tool:
        said = first_line(text or ev.observation_text)
        label = {EventKind.REFLECT: "says", EventKind.ERROR: "error"}.get(ev.kind, ev.kind.value)
        return f"{label}: {said}" if said else label
    args = _json_args(text)
    if args is not None:
        main = _main_argument(args)
        if tool.lower() == "multiedit" and isinstance(args.get("edits"), list):
            main += f" ({len(args['edits'])} edits)"
        return f"{tool} {main}".rstrip()
    files = _PATCH_FILE.findall(text[:SCAN])
    if files:  # apply_patch: the files it touches
        return f"{tool} {' '.join(files)}"
    body = " ".join(first_line(text).split())
    state = ev.extra.get("state")
    if tool == "edit" and isinstance(state, dict) and isinstance(state.get("open_file"), str):
        # SWE-agent's "edit 287:295" edits the file it has open: name it
        name = state["open_file"].rsplit("/", 1)[-1]
        return f"edit {name} {body.removeprefix('edit ').removesuffix(' …')}".rstrip()
    if tool.lower() in _SHELL:
        return f"$ {body}" if body else tool
    if ev.kind is EventKind.MEMORY and body.startswith("- ["):
        items = [ln for ln in text[:SCAN].splitlines() if ln.startswith("- [")]
        doing = [ln for ln in items if ln.startswith("- [in_progress]")]
        now = (doing or items)[0].split("]", 1)[1].strip() if items else ""
        return f"{tool} {len(items)} items; now: {now}"
    if body.lower().startswith(tool.lower()):
        return "editor" + body[len(tool) :] if tool == "str_replace_editor" else body
    return f"{tool} {body}".rstrip()


def readable_action(ev: Event) -> str | None:
    """A tool call's JSON arguments as "key: value" lines, strings with their own line
    breaks (not ``\\n`` escapes); None when the action is not a JSON object."""
    args = _json_args(ev.action_text)
    if args is None:
        return None
    lines = []
    for key, value in args.items():
        if not isinstance(value, str):
            value = json.dumps(value, ensure_ascii=False, indent=1)
        sep = "\n" if "\n" in value else " "
        lines.append(f"{key}:{sep}{value}")
    return "\n".join(lines)


def _checks_text(ev: Event) -> str | None:
    c = ev.checks
    if c is None or not c.ran:
        return None
    parts = []
    if c.failed:
        parts.append(f"{c.failed} failed")
    parts.append(f"{c.passed} passed")
    return ", ".join(parts)


def error_line(text: str) -> str | None:
    """The first line of ``text`` that reads as an error (an exception, ``error:``, a
    failed test, a missing file or command), stripped; None when there is none."""
    m = _ERROR_LINE.search(text[:SCAN])
    if m is None:
        return None
    line = _TAG.sub(" ", m.group(0)).strip()
    return line[:400] or None


_STATUS_WORD = {
    Status.PASSED: "passed",
    Status.ASSERTION_ERROR: "assertion failed",
    Status.RUNTIME_ERROR: "error",
    Status.TIMEOUT: "timed out",
    Status.STATIC_REJECT: "rejected",
    Status.API_ERROR: "API error",
    Status.OTHER: "failed",
}


def outcome_line(ev: Event) -> str:
    """What came back at ``ev`` in one line: exit status, tests, first error line, else the
    observation's first line ("" for an event with nothing back)."""
    parts: list[str] = []
    checks = _checks_text(ev)
    code = ev.extra.get("exit_code")
    if isinstance(code, int) and not isinstance(code, bool):
        parts.append(f"exit {code}")
    elif ev.status is not Status.NONE and not (checks and ev.status is Status.ASSERTION_ERROR):
        parts.append(_STATUS_WORD.get(ev.status, ev.status.value))
    if checks:
        parts.insert(0, checks)  # the tests first: what a person looks for
    obs = ev.observation_text
    if not ev.tool and (ev.kind is EventKind.MESSAGE or not ev.action_text):
        return " · ".join(parts)  # what was said is the action line
    err = error_line(obs) if ev.status is not Status.PASSED and not checks else None
    if err:
        parts.append(err)
    elif not checks:
        body = _LINE_NO.sub("", _HARNESS_NOTE.sub("", _TAG.sub(" ", obs[:SCAN])))
        line = first_line(body).removesuffix(" …")
        if line:
            n = body.strip().count("\n") + 1
            parts.append(f"{line} … ({n:,} lines)" if n > 1 else line)
        elif ev.tool and not parts:
            parts.append("no output" if not ev.extra.get("no_result") else "no result")
    if ev.truncated:
        parts.append("(truncated)")
    return " · ".join(parts)


# -- edits as diffs ---------------------------------------------------------------------------


def _udiff(path: str, old: str, new: str) -> str:
    path = path.lstrip("/")
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), f"a/{path}", f"b/{path}", lineterm="", n=2
    )
    return "\n".join(lines)


def _swe_editor_args(text: str) -> dict[str, str] | None:
    """``str_replace_editor str_replace PATH --old_str '…' --new_str '…'`` (SWE-agent)."""
    try:
        words = shlex.split(text[:SCAN])
    except ValueError:
        return None
    if len(words) < 3 or words[0] != "str_replace_editor":
        return None
    out = {"command": words[1], "path": words[2]}
    key = None
    for w in words[3:]:
        if w.startswith("--"):
            key = w[2:]
            out[key] = ""
        elif key is not None:
            out[key] = w
            key = None
    return out


def edit_diff(ev: Event) -> str | None:
    """The edit ``ev`` makes, as a unified diff; None when it is not an edit this knows."""
    tool = (ev.tool or "").lower()
    text = ev.action_text
    if tool not in EDIT_TOOLS and not text.lstrip().startswith(("*** Begin Patch", "str_replace")):
        return None
    if "*** Begin Patch" in text[:2000]:  # apply_patch: already a patch
        return text[:SCAN]
    args: dict[str, Any] | None = _json_args(text)
    if args is None and tool in {"str_replace_editor", "file_editor"}:
        args = _swe_editor_args(text)
    if args is None:
        return None
    path = str(args.get("file_path") or args.get("path") or "file")
    if isinstance(args.get("edits"), list):  # MultiEdit
        chunks = [
            _udiff(path, str(e.get("old_string", "")), str(e.get("new_string", "")))
            for e in args["edits"]
            if isinstance(e, dict)
        ]
        return "\n".join(c for c in chunks if c) or None
    old = args.get("old_string", args.get("old_str"))
    new = args.get("new_string", args.get("new_str"))
    if isinstance(old, str) and isinstance(new, str):
        return _udiff(path, old, new) or None
    content = args.get("content", args.get("file_text"))
    if isinstance(content, str):  # Write / create: the whole file is new
        return _udiff(path, "", content) or None
    return None


#: SGR colours of a diff's lines in the full-text view (added, removed, hunk header)
_DIFF_SGR = (("+++", ""), ("---", ""), ("+", "\x1b[32m"), ("-", "\x1b[31m"), ("@@", "\x1b[36m"))


def full_action(ev: Event) -> tuple[str, str]:
    """What ``a`` shows for ``ev``, with its title: an edit as a unified diff (added lines
    green, removed red), then the call as logged below it; any other action as logged. A
    patch (``apply_patch``) is its own diff: shown once."""
    text = ev.action_text
    diff = edit_diff(ev)
    if not diff or text.startswith(diff):
        return text, f"action ({len(text):,} chars)"
    lines = []
    for line in diff.split("\n"):
        sgr = next((c for p, c in _DIFF_SGR if line.startswith(p)), "")
        lines.append(f"{sgr}{line}\x1b[0m" if sgr else line)
    shown = "\n".join(lines) + "\n\n── the call as logged ──\n" + text
    return shown, f"action: the edit as a diff, then the call as logged ({len(text):,} chars)"
