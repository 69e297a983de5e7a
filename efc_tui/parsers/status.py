"""One status classifier and kind inference shared by every reader (SPEC §2).

``classify_observation`` reads an observation's text (plus any structured hints the format
keeps: exit code, an is-error flag, a timeout flag) and returns the event's status and,
where the text shows them, the counts of passed / failed checks.

Decisions (documented in docs/formats.md):
- A zero exit code is a ``passed`` verdict only for check events (tests, linters, type
  checks, verifiers); for an ordinary command it carries no verdict (``none``).
- A non-zero exit code, an is-error flag or a traceback is a failure, its kind read from
  the text (assertion, syntax, timeout, not-found, API/rate-limit), ``runtime_error`` or
  ``other`` when the text says nothing more.
"""

from __future__ import annotations

import re

from efc_tui import _fast
from efc_tui._lazy_re import LazyPattern
from efc_tui.model import Checks, EventKind, Status

# Only the tail of long output is searched for summaries and exception lines, and only the
# head for "command not found"-like rejections: bounded work on megabyte observations.
_TAIL = 8000
_HEAD = 4000


class _Guarded(LazyPattern[str]):
    """A regular expression behind substring pre-filters: ``search`` answers exactly as the
    pattern's own ``search`` does, but runs it only when the text holds one of ``keys``, one
    of which every match contains (most observations hold none, and a case-insensitive
    alternation tries every alternative at every position: ~0.5 ms on 1 KB of text).

    A case-insensitive pattern has lower-case keys, looked for in the lower-cased text, and
    only in ASCII text: Unicode case folding lets a few other letters (ſ, K, ı, İ) match
    ASCII ones, so a non-ASCII text always runs the pattern.

    The pattern is compiled the first time a text gets past the keys: most runs never need
    some of them (compiling all six took ~20 M instructions at every start of the app)."""

    __slots__ = ("fold", "keys")

    def __init__(self, pattern: str, flags: int, keys: tuple[str, ...]) -> None:
        super().__init__(pattern, flags)
        self.keys = keys
        self.fold = bool(flags & re.IGNORECASE)
        assert not self.fold or all(k == k.lower() for k in keys)

    def search(self, text: str) -> re.Match[str] | None:
        where = text
        if self.fold:
            if not text.isascii():
                return self.rx.search(text)
            where = text.lower()
        for k in self.keys:  # a plain loop: a generator costs more than the scans
            if k in where:
                return self.rx.search(text)
        return None


_PYTEST_SUMMARY = LazyPattern(
    r"^=+ (?P<body>[^=\n]*?\b(?:passed|failed|error|errors|skipped|xfailed|xpassed|deselected|no tests ran)\b[^=\n]*?) in [\d.]+\s*s(?:econds)?\b.*?=*\s*$",
    re.MULTILINE,
)
_PYTEST_SHORT = LazyPattern(
    r"^(?P<body>(?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?)(?:, )?)+) in [\d.]+\s*s\b",
    re.MULTILINE,
)
_COUNT = LazyPattern(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")
_UNITTEST_RAN = LazyPattern(r"^Ran (\d+) tests? in [\d.]+s", re.MULTILINE)
_UNITTEST_RESULT = LazyPattern(r"^(OK|FAILED)\b(?: \((?P<detail>[^)]*)\))?", re.MULTILINE)
_UNITTEST_DETAIL = LazyPattern(
    r"(failures|errors|skipped|expected failures|unexpected successes)=(\d+)"
)
_TRACEBACK = "Traceback (most recent call last):"
_EXC_LINE = LazyPattern(
    r"^(?:E\s+)?(?P<name>[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failure))\b(?::|$)",
    re.MULTILINE,
)
_TIMEOUT = _Guarded(
    r"\b(?:timed out|TimeoutError|TimeoutExpired|deadline exceeded|Timeout after\b|timeout of \d+)",
    re.IGNORECASE,
    ("timed out", "timeout", "deadline exceeded"),
)
_STATIC = _Guarded(
    r"(?:command not found|: not found$|is not recognized as an internal or external command"
    r"|No such file or directory: '?[\w./-]+\.(?:py|sh)'?$|can't open file"
    r"|^\s*SyntaxError\b|^\s*IndentationError\b|^\s*TabError\b|invalid syntax"
    r"|Unknown (?:tool|command)|Invalid (?:tool|command|arguments|JSON)|unrecognized arguments"
    r"|tool_use_error|not a valid tool"
    r"|response had parsing errors|Missing required (?:fields?|parameters?|arguments?)\b"
    r"|introduced new syntax error|\bE999 SyntaxError\b)",
    re.IGNORECASE | re.MULTILINE,
    (
        "not found",
        "not recognized",
        "no such file",
        "can't open file",
        "syntax",
        "indentationerror",
        "taberror",
        "unknown ",
        "invalid ",
        "unrecognized arguments",
        "tool_use_error",
        "not a valid tool",
        "parsing errors",
        "missing required",
    ),
)
_API = _Guarded(
    r"(?:\brate[ _-]?limit|RateLimitError|APIConnectionError|APIStatusError|\bAPI ?Error\b"
    r"|overloaded_error|\bOverloaded\b|insufficient_quota|context_length_exceeded"
    r"|HTTP(?: Error)? (?:429|5\d\d)\b|\b(?:429|529) Too Many Requests)",
    re.IGNORECASE,
    (
        "rate",
        "api",
        "overloaded",
        "insufficient_quota",
        "context_length_exceeded",
        "http",
        "too many requests",
    ),
)
_ASSERTION = _Guarded(
    r"\bAssertionError\b|^FAILED |^E\s+assert\b|\bassert(?:ion)? failed\b",
    re.MULTILINE,
    ("AssertionError", "FAILED ", "assert"),
)
_STATIC_EXC = {"SyntaxError", "IndentationError", "TabError"}
_TIMEOUT_EXC = {
    "TimeoutError",
    "TimeoutExpired",
    "subprocess.TimeoutExpired",
    "asyncio.TimeoutError",
}

# Commands that are checks: tests, linters, type checks, verifiers, evaluators.
_CHECK_CMD = _Guarded(
    r"(?:^|[\s;&|(/])(?:pytest|py\.test|tox|nox|unittest|nosetests|mypy|pyright|ruff|flake8|pylint|"
    r"black --check|isort --check|eslint|tsc|jest|vitest|mocha|cargo (?:test|check|clippy)|"
    r"go (?:test|vet)|npm (?:run )?test|yarn test|pnpm test|make (?:test|check)|ctest|"
    r"mvn (?:test|verify)|gradle test|rspec|phpunit|shellcheck|verify|validate)\b",
    re.IGNORECASE,
    (
        "test",
        "tox",
        "nox",
        "mypy",
        "pyright",
        "ruff",
        "flake8",
        "pylint",
        "--check",
        "eslint",
        "tsc",
        "jest",
        "mocha",
        "cargo ",
        "go ",
        "npm ",
        "make ",
        "mvn ",
        "rspec",
        "phpunit",
        "shellcheck",
        "verify",
        "validate",
    ),
)
_EDIT_TOOLS = {
    "edit",
    "write",
    "multiedit",
    "notebookedit",
    "str_replace_editor",
    "str_replace_based_edit_tool",
    "apply_patch",
    "edit_file",
    "write_file",
    "create_file",
    "str_replace",
    "insert",
    "create",
    "replace",
    "patch",
    "file_editor",
}
_SUBMIT_TOOLS = {
    "submit",
    "finish",
    "final_answer",
    "answer",
    "exit",
    "task_complete",
    "mark_task_complete",
}
_MEMORY_TOOLS = {
    "todowrite",
    "memory",
    "scratchpad",
    "save_memory",
    "update_memory",
    "notes",
    "todo",
    "write_todos",
    "todo_write",
    "task_tracker",
}
_PLAN_TOOLS = {"update_plan", "plan", "exitplanmode", "enterplanmode", "write_plan"}
_REFLECT_TOOLS = {"think", "reflect", "thinking", "reasoning"}
_EDIT_CMD = _Guarded(
    r"(?:\bsed\s+-i\b|\bcat\s*>|\btee\s|\bapply_patch\b|\bgit apply\b|\bpatch\s+-p|>\s*[\w./-]+\.\w+\s*(?:<<|$)|<<\s*'?EOF)",
    0,
    ("sed", "tee", "patch", "git apply", ">", "<<"),
)


def parse_checks(text: str) -> Checks | None:
    """Counts of passed / failed checks from a pytest or unittest summary, if present."""
    tail = text[-_TAIL:]
    body = None
    # cheap substring tests first: most observations are not test output
    if (
        "passed" in tail
        or "failed" in tail
        or "no tests ran" in tail
        or ("error" in tail and "==" in tail)
    ):
        for m in _PYTEST_SUMMARY.rx.finditer(tail):
            body = m.group("body")
        if body is None:
            for m in _PYTEST_SHORT.rx.finditer(tail):
                body = m.group("body")
    if body is not None:
        passed = failed = 0
        for n, what in _COUNT.rx.findall(body):
            if what == "passed" or what == "xfailed":
                passed += int(n)
            elif what in ("failed", "error", "errors", "xpassed"):
                failed += int(n)
        return Checks(passed=passed, failed=failed, total=passed + failed)
    if "Ran " not in tail:
        return None
    ran = None
    for m in _UNITTEST_RAN.rx.finditer(tail):
        ran = int(m.group(1))
    if ran is not None:
        failed = 0
        for m in _UNITTEST_RESULT.rx.finditer(tail):
            failed = 0
            if m.group("detail"):
                for what, n in _UNITTEST_DETAIL.rx.findall(m.group("detail")):
                    if what in ("failures", "errors", "unexpected successes"):
                        failed += int(n)
        return Checks(passed=max(0, ran - failed), failed=failed, total=ran)
    return None


def _last_exception(text: str) -> str | None:
    tail = text[-_TAIL:]
    name = None
    for m in _EXC_LINE.rx.finditer(tail):
        name = m.group("name")
    return name


def _failure_from_text(text: str) -> Status | None:
    """The most specific failure the text shows, or None when it shows none."""
    head, tail = text[:_HEAD], text[-_TAIL:]
    if _API.search(head):
        return Status.API_ERROR
    exc = _last_exception(text) if _TRACEBACK in text or "Error" in tail else None
    if exc is not None:
        short = exc.rsplit(".", 1)[-1]
        if short in _STATIC_EXC:
            return Status.STATIC_REJECT
        if short in _TIMEOUT_EXC or exc in _TIMEOUT_EXC:
            return Status.TIMEOUT
        if short == "AssertionError":
            return Status.ASSERTION_ERROR
    if _TIMEOUT.search(tail):
        return Status.TIMEOUT
    if _STATIC.search(head) or _STATIC.search(tail):
        return Status.STATIC_REJECT
    if _ASSERTION.search(tail):
        return Status.ASSERTION_ERROR
    if exc is not None or _TRACEBACK in text:
        return Status.RUNTIME_ERROR
    return None


def classify_observation(
    text: str,
    *,
    exit_code: int | None = None,
    is_error: bool | None = None,
    timed_out: bool | None = None,
    is_check: bool = False,
    command: str | None = None,
) -> tuple[Status, Checks | None]:
    """Status and check counts of an observation (SPEC §2).

    Rules, first match wins: a timeout flag; a test summary (all passed -> passed, else
    assertion_error); exit code 126/127 (static_reject); exit code 1 from a command whose
    last stage only answers yes/no (grep finding nothing, diff finding differences, test)
    when the text shows no failure (none: no verdict); a failure flagged by the format
    (non-zero exit, is_error), typed from the text; a zero exit code (passed for checks,
    none otherwise, unless a traceback shows through a pipe); with no structured hint, an
    unmistakable failure in the text (API errors only when flagged).

    ``command`` is the shell command that produced the output, when the format keeps it.
    """
    text = text or ""
    if not timed_out and not is_error and (exit_code is None or exit_code == 0):
        # No failure flagged: a text where none of the substring pre-filters of
        # parse_checks and _has_failure_hint can hit needs no regular expression (the
        # compiled scan; the rules below give the same answer on such a text).
        fast = _fast.speedups()
        if fast is not None and type(text) is str and fast.no_hints(text):
            return (Status.PASSED if exit_code == 0 and is_check else Status.NONE), None
    checks = parse_checks(text)
    if timed_out:
        return Status.TIMEOUT, checks
    if checks is not None and checks.ran > 0:
        return (Status.PASSED if checks.failed == 0 else Status.ASSERTION_ERROR), checks
    if exit_code in (126, 127):
        return Status.STATIC_REJECT, checks
    if exit_code == 1 and command and not is_check and _answers_yes_no(command):
        failure = _failure_from_text(text) if _has_failure_hint(text) else None
        if failure is None or failure is Status.API_ERROR:
            return Status.NONE, checks
    if is_error or (exit_code is not None and exit_code != 0):
        failure = _failure_from_text(text)
        if failure is not None:
            return failure, checks
        return (Status.RUNTIME_ERROR if exit_code not in (None, 0) else Status.OTHER), checks
    # No failure flagged: only an unmistakable failure in the text counts (never an API
    # error: tool output may mention rate limits). Substring tests keep this cheap.
    failure = _failure_from_text(text) if _has_failure_hint(text) else None
    if failure is Status.API_ERROR:
        failure = None
    if exit_code == 0:
        if failure is not None and _TRACEBACK in text:
            return failure, checks
        return (Status.PASSED if is_check else Status.NONE), checks
    if failure is not None:
        return failure, checks
    return Status.NONE, checks


_HINTS = (
    _TRACEBACK,
    "command not found",
    ": not found",
    "SyntaxError",
    "IndentationError",
    "TabError",
    "not recognized as",
    "nvalid tool",
    "nknown tool",
    "tool_use_error",
    "AssertionError",
    "\nFAILED ",
    "timed out",
    "TimeoutError",
    "can't open file",
    "had parsing errors",
    "Missing required",
)
# The same hints grouped by a substring they share: a group's hints are searched only when
# the text contains its key, so most texts take 9 substring scans instead of 17.
_HINT_GROUPS = (
    ("Error", ("SyntaxError", "IndentationError", "TabError", "AssertionError", "TimeoutError")),
    ("not ", ("command not found", ": not found", "not recognized as")),
    ("tool", ("nvalid tool", "nknown tool", "tool_use_error")),
)
_HINTS_UNGROUPED = tuple(h for h in _HINTS if not any(h in hints for _, hints in _HINT_GROUPS))
assert all(key in h for key, hints in _HINT_GROUPS for h in hints)


def _has_failure_hint(text: str) -> bool:
    """True when the head or tail of a text contains one of ``_HINTS`` (or it starts with FAILED)."""
    if len(text) <= _HEAD + _TAIL:
        parts: tuple[str, ...] = (text,)
    else:
        parts = (text[:_HEAD], text[-_TAIL:])
    for part in parts:
        for h in _HINTS_UNGROUPED:
            if h in part:
                return True
        for key, hints in _HINT_GROUPS:
            if key in part:
                for h in hints:
                    if h in part:
                        return True
    return text.startswith("FAILED ")


# The last stage of a shell command (after the last pipe, ;, && or ||) when it is a command
# whose exit status 1 means "no" rather than "failed": grep/rg finding nothing, diff/cmp
# finding differences, test/[ being false.
_YES_NO_LAST = LazyPattern(
    r"(?:^|[|;&]\s*|\(\s*)(?:[\w./-]*/)?(?:grep|egrep|fgrep|zgrep|rg|ag|ack|diff|cmp|test|\[\[?)\s[^|;&]*$"
)

_DUP_FD = LazyPattern(r"\d*>&\d+|&>")


def _answers_yes_no(command: str) -> bool:
    last = _DUP_FD.rx.sub(" ", command.strip()[-2000:])
    return bool(_YES_NO_LAST.rx.search(last))


def is_check_command(command: str) -> bool:
    """True when a shell command or tool name runs tests, linters, type checks or verifiers."""
    return bool(_CHECK_CMD.search(command[:2000]))


def infer_kind(tool: str | None, command: str = "", *, after_failure: bool = False) -> EventKind:
    """The event kind of a tool call from its tool name and command text (SPEC §2).

    ``after_failure`` says the previous status-bearing event failed, which turns a write
    into a ``repair``.
    """
    name = (tool or "").strip().lower()
    base = name.rsplit("__", 1)[-1].rsplit(".", 1)[-1]
    if base in _MEMORY_TOOLS:
        return EventKind.MEMORY
    if base in _PLAN_TOOLS:
        return EventKind.PLAN
    if base in _REFLECT_TOOLS:
        return EventKind.REFLECT
    if base in _SUBMIT_TOOLS:
        return EventKind.GENERATION
    cmd = command[:2000]
    is_edit = base in _EDIT_TOOLS or (
        base in {"str_replace_editor", "file_editor"} and "view" not in cmd[:40]
    )
    if base in {"str_replace_editor", "file_editor", "str_replace_based_edit_tool"} and re.search(
        r"\bview\b", cmd[:200]
    ):
        is_edit = False
    if not is_edit and cmd and _EDIT_CMD.search(cmd):
        is_edit = True
    if is_edit:
        return EventKind.REPAIR if after_failure else EventKind.GENERATION
    if is_check_command(cmd) or is_check_command(name):
        return EventKind.CHECK
    if cmd.strip().lower().startswith("submit"):
        return EventKind.GENERATION
    return EventKind.TOOL


def is_failure(status: Status) -> bool:
    return status is not Status.NONE and status is not Status.PASSED
