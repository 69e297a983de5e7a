"""One status classifier and kind inference shared by every reader (SPEC §2).

``classify_observation`` reads an observation's text (plus the structured hints the format
keeps: exit code, an is-error flag, a timeout flag, the command) and returns the event's
status and, where the text shows them, the counts of passed / failed checks. A reader sets
those hints from its format's own fields first; this classifier is the fallback that
types a failure from the text and finds the verdicts the text alone shows.

``RULES`` is the one ordered table (first match wins), each rule named, with the status it
gives and what it looks for; docs/formats.md ("How an event's verdict is set") lists it and
tests/readers/test_status_rules.py tests each on a real excerpt. What no rule matches falls
through: a non-zero exit is ``runtime_error`` (``none`` for a yes/no probe such as grep
finding nothing), an is-error flag ``other``, exit 0 of a test runner, build, linter or type
checker ``passed``, anything else ``none``.

Every rule that can fire without a failure flag names the substrings one of which its
match holds (``keys``): ``_HINTS`` is their union, the substring pre-filter that lets most
observations skip every regular expression. The compiled pre-filter (``_speedups.no_hints``)
receives the same lists, and the head and tail sizes, from here at import
(``_install_hints``): they are written once.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from msgspec import Struct

from efc_tui import _fast
from efc_tui._lazy_re import LazyPattern, last_line_match
from efc_tui.model import Checks, Status
from efc_tui.parsers._commands import (
    _EDIT_CMD,  # noqa: F401  (re-exported: tests check its pre-filter)
    _EDIT_ECHO,  # noqa: F401  (re-exported: tests check its pre-filter)
    CheckClass,
    answers_yes_no,
    check_class,
    infer_kind,
    is_check_command,
    is_view,
)
from efc_tui.parsers._patterns import _Guarded, _LineGuarded, _Plain, _StartGuarded
from efc_tui.parsers._summaries import _ANSI, _SUMMARY_HINTS, _SUMMARY_PAIR, parse_checks
from efc_tui.parsers._summaries import _TAIL as _SUMMARY_TAIL

__all__ = [
    "RULES",
    "Rule",
    "classify_observation",
    "infer_kind",
    "is_check_command",
    "is_failure",
    "parse_checks",
]

# Only the head and the tail of long output are searched: bounded work on megabyte
# observations.
_TAIL = 8000
_HEAD = 4000


_TRACEBACK = "Traceback (most recent call last):"
_EXC_LINE = LazyPattern(
    r"^(?:E\s+)?(?P<name>[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failure))\b(?::|$)",
    re.MULTILINE,
)
#: one of these is in every match of ``_EXC_LINE`` (``last_line_match``)
_EXC_WORDS = ("Error", "Exception", "Exit", "Interrupt", "Warning", "Failure")
_TIMEOUT_EXC = {"TimeoutError", "TimeoutExpired", "ReadTimeout", "ConnectTimeout"}


class _Obs:
    """One observation as the rules see it: its text (head and tail), its hints, and what
    its command is (a check, a file view)."""

    __slots__ = (
        "_checks",
        "_exc",
        "_hints",
        "check",
        "cls",
        "command",
        "exit_code",
        "flagged",
        "head",
        "is_error",
        "parts",
        "text",
        "timed_out",
        "traceback",
        "view",
    )

    def __init__(
        self,
        text: str,
        exit_code: int | None,
        is_error: bool | None,
        timed_out: bool | None,
        is_check: bool,
        command: str | None,
    ) -> None:
        if "\x1b" in text[:_HEAD] or "\x1b" in text[-_TAIL:]:
            text = _ANSI.rx.sub("", text)
        if "\r" in text:  # terminal recordings end lines with \r\n; the rules read lines
            text = text.replace("\r\n", "\n")
        self.text = text
        self.head = text[:_HEAD]
        self.parts = (text,) if len(text) <= _HEAD + _TAIL else (self.head, text[-_TAIL:])
        self.exit_code = exit_code
        self.is_error = bool(is_error)
        self.timed_out = bool(timed_out)
        self.flagged = self.is_error or (exit_code is not None and exit_code != 0)
        self.check = is_check
        self.command = command or ""
        self.cls = check_class(self.command) if command and is_check else None
        self.view = bool(command) and not is_check and is_view(self.command)
        self.traceback = _TRACEBACK in text
        self._checks: Checks | bool | None = False  # False: not read yet
        self._exc: Status | bool | None = False
        self._hints: frozenset[str] | bool | None = False

    def checks(self) -> Checks | None:
        """The test counts of the text (None for a file view's text)."""
        if self._checks is False:
            self._checks = None if self.view and not self.flagged else parse_checks(self.text)
        return self._checks  # type: ignore[return-value]

    def exception_status(self) -> Status | None:
        if self._exc is False:
            self._exc = _exception_status(self)
        return self._exc  # type: ignore[return-value]

    @property
    def tail(self) -> str:
        return self.parts[-1][-_TAIL:]

    def last_exception(self) -> str | None:
        found = last_line_match(_EXC_LINE.rx, self.tail, _EXC_WORDS)
        return found.group("name") if found is not None else None

    def hints(self) -> frozenset[str] | None:
        """The ``_HINTS`` the compiled scan (``found_hints``) finds in the parts the rules
        read; None when there is no compiled scan."""
        hints = self._hints
        if hints is False:
            fast = _fast.speedups()
            text = self.text
            hints = self._hints = (
                fast.found_hints(text) if fast is not None and type(text) is str else None
            )
        return hints  # type: ignore[return-value]

    def may_hold(self, keys: frozenset[str]) -> bool:
        """False when the compiled scan finds none of ``keys``, a rule's keys; True when it
        finds one, or when there is no compiled scan. A text rule none of whose keys is
        there cannot match, so it is not searched: on a real SWE-agent log, nearly every
        rule of a failed command's output (19 rules, 118 keys searched one by one)."""
        hints = self.hints()
        return hints is None or not hints.isdisjoint(keys)

    def finds(self, pattern: _Guarded | _Plain) -> bool:
        # one or two parts: a generator (any) would cost more than most searches
        search = pattern.search
        return search(self.parts[0]) is not None or (
            len(self.parts) > 1 and search(self.parts[1]) is not None
        )


class Rule(Struct, frozen=True):
    """One row of the classifier's table: ``status`` when ``test`` holds of an observation.

    ``keys``: for a rule that can fire without a failure flag (a non-zero exit, is-error,
    timed-out), the substrings one of which the text must hold for it to fire (the
    pre-filter's hints); empty for a rule that needs a flag. ``guard``: the keys a text
    rule's test itself asks for (``_Obs.may_hold``), flag or no flag: ``first_rule`` does
    not call the test of a rule none of whose guard keys the text holds."""

    name: str
    status: Status
    says: str
    test: Callable[[_Obs], bool]
    keys: tuple[str, ...] = ()
    guard: frozenset[str] = frozenset()


def _text_rule(
    name: str,
    status: Status,
    says: str,
    pattern: str,
    keys: tuple[str, ...],
    *,
    views: bool = False,
    when: Callable[[_Obs], bool] | None = None,
) -> Rule:
    """A rule that looks for ``pattern`` (case-sensitive, multi-line) in the head and the
    tail of the text. ``views``: it also reads the output of a file view (cat, grep, ls...),
    whose text is otherwise no verdict; ``when``: a further condition."""
    rx = _LineGuarded(pattern, re.MULTILINE, keys) if keys else _Plain(pattern, re.MULTILINE)
    key_set = frozenset(keys)  # every match holds one of them (and they are all in _HINTS)

    def test(o: _Obs) -> bool:
        if o.view and not views and not o.flagged:
            return False
        if status is Status.PASSED and o.flagged:
            return False
        if when is not None and not when(o):
            return False
        if key_set and not o.may_hold(key_set):
            return False
        return o.finds(rx)

    test.pattern = rx  # type: ignore[attr-defined]  # for tests and the docs
    return Rule(name, status, says, test, keys, key_set)


def _no_traceback(o: _Obs) -> bool:
    return not o.traceback


def _is_check(o: _Obs) -> bool:
    return o.check


def _api(o: _Obs) -> bool:
    if not (o.flagged or o.traceback):
        return False
    if o.finds(_API_CLASS):
        return True
    # the client first: its keys are looked for as they are, where the words' search
    # lower-cases the text, or runs its pattern when the text is not ASCII (13 us on 1.5 KB)
    return o.finds(_LLM_CLIENT) and o.finds(_API_WORDS)


#: every match starts with one of its keys: searched only where one occurs (most failed
#: outputs hold "Error", where the alternation behind \b was tried at every position)
_API_CLASS = _StartGuarded(
    r"\b(?:RateLimitError|APIConnectionError|APIStatusError|APITimeoutError|APIError|"
    r"InternalServerError|ServiceUnavailableError|BadGatewayError|ContextWindowExceededError|"
    r"AuthenticationError)\b|overloaded_error|insufficient_quota|context_length_exceeded",
    0,
    (
        "RateLimitError",
        "APIConnectionError",
        "APIStatusError",
        "APITimeoutError",
        "APIError",
        "InternalServerError",
        "ServiceUnavailableError",
        "BadGatewayError",
        "ContextWindowExceededError",
        "AuthenticationError",
        "overloaded_error",
        "insufficient_quota",
        "context_length_exceeded",
    ),
)
_API_WORDS = _Guarded(
    r"rate[ _-]?limit|too many requests|overloaded|maximum context length|"
    r"connection (?:aborted|reset|refused|error)|ConnectionResetError|ServiceResponseError|"
    r"RemoteDisconnected|\b(?:429|500|502|503|529)\b",
    re.IGNORECASE,
    (
        "limit",
        "too many requests",
        "overloaded",
        "maximum context length",
        "connection",
        "serviceresponseerror",
        "remotedisconnected",
        "429",
        "500",
        "502",
        "503",
        "529",
    ),
)
_LLM_KEYS = tuple(
    "litellm openai anthropic azure. google.genai vertexai bedrock mistralai groq cohere "  # noqa: SIM905
    "XaiException completion( /chat/completions messages.create".split()
)
#: a model provider's client in the text: the failure was in the call to the model (every
#: match starts with a key: searched only where one occurs)
_LLM_CLIENT = _StartGuarded(
    r"\b(?:litellm|openai|anthropic|azure\.(?:ai|core)|google\.genai|vertexai|bedrock|"
    r"mistralai|groq|cohere|XaiException)\b|\bcompletion\(|/chat/completions|messages\.create",
    0,
    _LLM_KEYS,
)


def _exception_status(o: _Obs) -> Status | None:
    if not o.flagged and (not o.traceback or o.view):
        return None
    exc = o.last_exception()
    if exc is None:
        return Status.RUNTIME_ERROR if o.traceback else None
    short = exc.rsplit(".", 1)[-1]
    if short in _TIMEOUT_EXC:
        return Status.TIMEOUT
    if short == "AssertionError":
        return Status.ASSERTION_ERROR
    return Status.RUNTIME_ERROR


def _exception_rule(status: Status) -> Callable[[_Obs], bool]:
    return lambda o: o.exception_status() is status


#: an interactive question as prompt libraries draw it (inquirer, prompts, clack): the
#: question, then ``›`` before the choices; once answered it is redrawn with ``✔``
_PROMPT_ASKED = LazyPattern(r"\?\s+([^\n?›…]{3,200}\?)[^\n›]*›")
_PROMPT_ANSWERED = LazyPattern(r"✔\s+([^\n?›…]{3,200}\?)")
_YES_NO_AT_END = LazyPattern(r"[(\[][yY]/[nN][)\]]\s*[:?]?\s*$")


def _unanswered_prompt(tail: str) -> bool:
    """True when the text asks an interactive question it never shows answered."""
    if ("/n" in tail or "/N" in tail) and _YES_NO_AT_END.rx.search(tail):  # y/N, Y/n...
        return True
    if "›" not in tail:
        return False
    asked = {q.strip() for q in _PROMPT_ASKED.rx.findall(tail)}
    answered = {q.strip() for q in _PROMPT_ANSWERED.rx.findall(tail)}
    return bool(asked - answered)


RULES: tuple[Rule, ...] = (
    Rule(
        "timed-out flag",
        Status.TIMEOUT,
        "the format says the action timed out",
        lambda o: o.timed_out,
    ),
    Rule(
        "killed (exit 137)",
        Status.TIMEOUT,
        "exit code 137 (SIGKILL: out of time or memory)",
        lambda o: o.exit_code in (137, -9),
    ),
    _text_rule(
        "killed or hung",
        Status.TIMEOUT,
        "`Killed`, killed by SIGKILL / signal 9, a poll that hit its limit with `(no new output)`",
        r"^[ \t]*Killed\b|\b(?:[Kk]illed|[Tt]erminated) by (?:signal )?(?:SIGKILL|signal 9|9)\b"
        r"|\bsignal: killed\b|\bOOM[- ]?[Kk]illed\b|\(no new output\)",
        ("Killed", "killed", "erminated by", "no new output"),
    ),
    Rule(
        "unanswered interactive prompt",
        Status.RUNTIME_ERROR,
        "the command stopped at an interactive question nobody answered (a scaffolder's "
        "`? Question › No / Yes` with no `✔ Question` answer after it, or output ending in "
        "`(y/N)` / `[Y/n]`): it could not finish without input",
        lambda o: not o.view and _unanswered_prompt(o.tail),
        # the pre-filter's keys are ASCII: prompt libraries hide the cursor (ESC[?25l)
        # while a question waits; a plain-text log keeps its (y/N)
        ("?25l", "(y/N", "[y/N", "(Y/n", "[Y/n"),
    ),
    _text_rule(
        "test runner could not start",
        Status.RUNTIME_ERROR,
        "a check's runner could not start or selected no tests (import or configuration "
        "error, bad path or option, exit 5)",
        r"^=* ?no tests ran\b|^Interrupted: \d+ errors? during collection|^ERROR collecting "
        r"|^ERROR: (?:file or directory not found|not found): |^collected 0 items[ \t]*$"
        r"|unrecognized arguments|^UsageError: ",
        (
            "no tests ran",
            "during collection",
            "ERROR collecting",
            "ERROR: ",
            "collected 0 items",
            "unrecognized arguments",
            "UsageError: ",
        ),
        when=_is_check,
    ),
    Rule(
        "test summary",
        Status.PASSED,
        "a test runner's summary with no failed or errored test (pytest, unittest, cargo, "
        "jest, Maven); with one, the next rule",
        lambda o: (c := o.checks()) is not None and c.ran > 0 and c.failed == 0,
        _SUMMARY_HINTS,
    ),
    Rule(
        "test summary with failures",
        Status.ASSERTION_ERROR,
        "a test runner's summary with failed or errored tests",
        lambda o: (c := o.checks()) is not None and c.ran > 0 and c.failed > 0,
        _SUMMARY_HINTS,
    ),
    Rule(
        "exit 126 / 127",
        Status.STATIC_REJECT,
        "the shell could not run the command (not executable, not found)",
        lambda o: o.exit_code in (126, 127),
    ),
    _text_rule(
        "command not found",
        Status.STATIC_REJECT,
        "`X: command not found`, `sh: 1: X: not found`, not recognized as a command",
        r"command not found|^(?:[\w/.-]*sh|/bin/\w+): (?:\d+: |line \d+: )?[^\s:]+: not found$"
        r"|is not recognized as an internal or external command",
        ("command not found", ": not found", "not recognized as"),
        views=True,
    ),
    _text_rule(
        "executable or runner missing",
        Status.STATIC_REJECT,
        "the program run is missing: `…/bin/javac: No such file or directory` from the "
        "shell, `/usr/bin/env: …`, `JAVA_HOME is not defined correctly`, `python: No module "
        "named pytest`, `can't open file`, `Could not find or load main class`",
        r"^(?:[\w/.-]*/)?(?:ba|z|da|k)?sh: (?:line \d+: |\d+: )?[^\s:]+: No such file or directory$"
        r"|^/usr/bin/env: .*No such file or directory|JAVA_HOME (?:is not defined correctly"
        r"|is not set|environment variable is not (?:defined|set))"
        r"|^\S*python[\d.]*: No module named [\w.]+[ \t]*$"
        r"|No module named '?(?:pytest|nose|mypy|pylint|flake8|ruff|tox|black)'?$"
        r"|can't open file|Could not find or load main class",
        (
            "No such file or directory",
            "JAVA_HOME",
            "No module named",
            "can't open file",
            "Could not find or load main class",
        ),
        views=True,
    ),
    _text_rule(
        "permission denied",
        Status.STATIC_REJECT,
        "permission denied (shell, PermissionError errno 13, EACCES), or a tool use the "
        "user or the permission mode did not allow",
        r"Permission denied|PermissionError: \[Errno 13\]|Operation not permitted|\bEACCES\b"
        r"|requested permissions to|haven't granted it|The user doesn't want to (?:proceed|take)"
        r"|Permission to use \S+ (?:has been|was) denied",
        (
            "Permission denied",
            "PermissionError",
            "Operation not permitted",
            "EACCES",
            "requested permissions to",
            "haven't granted",
            "doesn't want to",
            "Permission to use",
        ),
    ),
    _text_rule(
        "syntax error in the command",
        Status.STATIC_REJECT,
        "the shell or the interpreter could not parse the command or script itself (bash "
        "`syntax error near unexpected token`, a SyntaxError with no traceback, an edit the "
        "harness's lint refused); a SyntaxError raised by an import is an error",
        r"syntax error near unexpected token|syntax error: unexpected end of file"
        r"|unexpected EOF while looking for matching|^[ \t]*(?:SyntaxError|IndentationError|TabError)\b"
        r"|introduced new syntax error|\bE999 SyntaxError\b",
        ("syntax error", "unexpected EOF", "SyntaxError", "IndentationError", "TabError"),
        when=_no_traceback,
    ),
    _text_rule(
        "bad tool arguments",
        Status.STATIC_REJECT,
        "the harness or tool refused the call's arguments: validation errors, a missing or "
        "invalid parameter, an unknown tool, an unexpected keyword argument, a line number out "
        "of range, an action the harness could not parse",
        r"\bInvalid (?:tool|command|arguments?|JSON|input|parameters?|value for)\b"
        r"|\bInvalid `\w+` parameter|\bParameter `\w+` is required|\bMissing required "
        r"(?:fields?|parameters?|arguments?|property)\b|\bvalidation errors? for \w+"
        r"|\bField required\b|unrecognized arguments|\bUnknown (?:tool|command|action)\b"
        r"|not a valid tool|InputValidationError|^Error: <?\w+>? must be "
        r"(?:less than|greater than|between|at least|at most)"
        r"|^Error: [\w.]+\(\) (?:got an unexpected keyword argument|missing \d+ required)"
        r"|response had parsing errors|EXACTLY ONE|did not contain a (?:valid )?(?:command|action)",
        (
            "nvalid ",
            "Parameter `",
            "Missing required",
            "validation error",
            "Field required",
            "unrecognized arguments",
            "Unknown ",
            "not a valid tool",
            "InputValidationError",
            "Error: ",
            "parsing errors",
            "EXACTLY ONE",
            "did not contain",
        ),
        when=_no_traceback,
    ),
    _text_rule(
        "harness or policy refusal",
        Status.STATIC_REJECT,
        "a harness, sandbox or policy refused to run the action (`exec preflight … refusing "
        "to run`, `Cannot execute multiple commands at once`, `Blocked:`, a guardrail, pip's "
        "externally-managed-environment, Claude Code's "
        "`File has not been read yet`)",
        r"refusing to run|Cannot execute multiple commands at once|^Blocked: "
        r"|\bguardrail\b[^\n]*\btripped\b|externally-managed-environment"
        r"|not allowed to (?:run|execute|use)\b|File has not been read yet|(?:denied|blocked) by (?:the )?(?:policy|sandbox)",
        (
            "refusing to run",
            "Cannot execute multiple",
            "Blocked: ",
            "guardrail",
            "externally-managed",
            "not allowed to ",
            "has not been read yet",
            "denied by ",
            "blocked by ",
        ),
    ),
    Rule(
        "model or provider call failed",
        Status.API_ERROR,
        "a failure flagged or with a traceback that names a provider error (RateLimitError, "
        "overloaded, context length, APIError) or a connection failure inside a model "
        "client's call; a tool's own network error is an error",
        _api,
    ),
    Rule(
        "timeout exception",
        Status.TIMEOUT,
        "a traceback (or a flagged failure) ending in TimeoutError / TimeoutExpired",
        _exception_rule(Status.TIMEOUT),
        (_TRACEBACK,),
    ),
    Rule(
        "assertion exception",
        Status.ASSERTION_ERROR,
        "a traceback (or a flagged failure) ending in AssertionError",
        _exception_rule(Status.ASSERTION_ERROR),
        (_TRACEBACK,),
    ),
    _text_rule(
        "timed out",
        Status.TIMEOUT,
        "the text says the action timed out",
        r"^[ \t]*(?:Error: )?(?:The )?(?:[Cc]ommand |[Pp]rocess |[Rr]equest |[Oo]peration )?[Tt]imed out\b"
        r"|\b(?:[Cc]ommand|[Pp]rocess|[Oo]peration|[Rr]equest|[Cc]onnection|[Rr]ead|[Ee]xecution|"
        r"[Tt]ask|[Jj]ob|[Tt]ests?|[Cc]all|[Ss]cript|[Ss]ession)s? (?:has |have |was |had )?timed out"
        r"|\btimed out (?:after\b|and (?:has been |was )?(?:killed|terminated|stopped))"
        r"|\bTimeoutError\b|\bTimeoutExpired\b|[Dd]eadline exceeded"
        r"|\bTimeout after\b|\b[Tt]imeout of \d+",
        (
            "imed out",
            "TimeoutError",
            "TimeoutExpired",
            "eadline exceeded",
            "Timeout after",
            "imeout of ",
        ),
    ),
    _text_rule(
        "assertion failed",
        Status.ASSERTION_ERROR,
        "an assertion failed: AssertionError, pytest's `FAILED ` / `E   assert` lines",
        r"\bAssertionError\b|^FAILED |^E       assert\b|\b[Aa]ssert(?:ion)? failed\b",
        ("AssertionError", "FAILED ", "E       assert", "ssert failed", "ssertion failed"),
    ),
    Rule(
        "traceback",
        Status.RUNTIME_ERROR,
        "any other traceback, or a flagged failure that ends in an exception",
        _exception_rule(Status.RUNTIME_ERROR),
        (_TRACEBACK,),
    ),
    _text_rule(
        "build or compile error",
        Status.RUNTIME_ERROR,
        "a compiler's or build tool's error (`X.java:5: error:`, `gcc: error:`, `go: errors "
        "parsing`, `error[E0425]`, `error "
        "TS2304`, BUILD FAILURE, `make: ***`, `npm ERR!`, `[ERROR]`, go's `[build failed]`, "
        "git's `error:`)",
        r"^[^\s:]+:\d+(?::\d+)?: (?:fatal )?error\b|^[\w.+-]+: (?:fatal )?error: "
        r"|^[\w.+-]+: errors? [a-z]+ing\b|^error(?:\[E\d+\])?: |\berror TS\d+:"
        r"|BUILD FAILURE|BUILD FAILED|COMPILATION ERROR|^make(?:\[\d+\])?: \*\*\*|npm ERR!"
        r"|^\[ERROR\] |Compilation failed|could not compile|\[(?:build|setup) failed\]",
        (
            ": error",
            ": fatal error",
            "error: ",
            "error[E",
            "error TS",
            "BUILD FAIL",
            "COMPILATION ERROR",
            "make: ***",
            "make[",
            "npm ERR!",
            "[ERROR] ",
            "Compilation failed",
            "could not compile",
            "build failed]",
            "setup failed]",
        ),
    ),
    _text_rule(
        "check printed FAIL",
        Status.ASSERTION_ERROR,
        "a check (test or reproduction script, runner) printed its own FAIL / FAILURE / "
        "FAILED / BAD verdict (go test's `--- FAIL`)",
        r"(?<![\w-])(?:FAIL|FAILED|FAILURE)(?![\w-])|(?<=[ (\[\t])BAD(?![\w-])|^BAD:",
        ("FAIL", " BAD", "(BAD", "[BAD", "\tBAD", "BAD:"),
        when=_is_check,
    ),
    _text_rule(
        "error line",
        Status.RUNTIME_ERROR,
        "a line that reports a failure: `Error: …` (a tool's answer, a caught exception), "
        "`An error occurred`, `Failed to …`, `fatal: …`, `No replacement was performed`, a "
        "Claude Code `<tool_use_error>` that is no argument error",
        r"^(?:[ \t]*[✗✘❌•*-][ \t]*)?(?:(?:Error|ERROR): (?!pip's dependency resolver)\S"
        r"|An error occurred\b|Failed to \w)|^<tool_use_error>(?!InputValidationError)"
        r"|^fatal: |No replacement was performed|did not appear verbatim",
        (
            "Error: ",
            "ERROR: ",
            "An error occurred",
            "Failed to ",
            "fatal: ",
            "No replacement was performed",
            "did not appear verbatim",
            "<tool_use_error>",
        ),
    ),
    _text_rule(
        "check printed a cross",
        Status.ASSERTION_ERROR,
        "a check printed a line starting ✗ / ✘ / ❌",
        r"^[ \t]*[✗✘❌]",
        ("✗", "✘", "❌"),
        when=_is_check,
    ),
    _text_rule(
        "file argument missing",
        Status.RUNTIME_ERROR,
        "a program's own message that a path it was given does not exist (`cd: x: No such "
        "file or directory`, `ls: cannot access`, `find: 'x'`, SWE-agent `File x not found`)",
        r"^(?:[^\s:]+: )+(?:line \d+: )?(?:[^\s:]+: )*(?:cannot access |cannot open |can't cd to )?"
        r"['‘\"]?[^\n]*?['’\"]?: No such file or directory$|^(?:Error: )?File (?:name )?\S+ not found",
        ("No such file or directory", "not found"),
        views=True,
    ),
    _text_rule(
        "check printed an exception",
        Status.RUNTIME_ERROR,
        "a check (or a flagged failure) printed an exception without a traceback "
        "(`ValueError: …` at the start of a line: caught and printed)",
        r"^(?:[A-Z][a-z]+)+(?:Error|Exception): \S",
        ("rror: ", "xception: "),
        when=lambda o: o.check or o.flagged,
    ),
    _text_rule(
        "check printed success",
        Status.PASSED,
        "a check printed its own success: SUCCESS / PASS / OK lines, `All tests passed`, "
        "BUILD SUCCESS, cargo's `Finished`, `succeeded`, an expected exception caught",
        r"^[ \t]*[^\w\n]{0,3}[ \t]*(?:SUCCESS|Success|PASS|PASSED)\b|\bAll (?:\w+ )*(?:tests?|checks?|"
        r"assertions?|cases?) (?:passed|succeeded|OK)|\bBUILD SUCCESS|\bsucceeded\b"
        r"|\b[Cc]aught expected\b|(?<!not )(?<!n't )\bas expected\b|^[ \t]*Finished\b|[Cc]ompiled successfully"
        r"|\bwithout errors\b|^[ \t]*(?:Valid|VALID)\b|\bworks correctly\b",
        (
            "SUCCESS",
            "Success",
            "PASS",
            "All ",
            "succeeded",
            "aught expected",
            "as expected",
            "Finished",
            "ompiled successfully",
            "without errors",
            "Valid",
            "VALID",
            "works correctly",
        ),
        when=_is_check,
    ),
    _text_rule(
        "check printed a tick",
        Status.PASSED,
        "a check printed lines starting ✓ / ✔ / ✅ (and no cross)",
        r"^[ \t]*[✓✔✅]",
        ("✓", "✔", "✅"),
        when=_is_check,
    ),
    _text_rule(
        "installed",
        Status.PASSED,
        "an install finished: `Successfully installed …`",
        r"^Successfully installed ",
        ("Successfully installed",),
    ),
)
#: the substrings that let an observation with no failure flag skip every rule (see Rule.keys)
_HINTS: tuple[str, ...] = tuple(dict.fromkeys(k for r in RULES for k in r.keys))


#: members read once: ``Status.NONE`` goes through the enum class's attribute hook (about
#: 0.15 us a read on Python 3.11), which the per-observation paths below would pay each time
_NONE, _PASSED = Status.NONE, Status.PASSED


def _fallthrough(o: _Obs) -> Status:
    """The status of an observation no rule matched (module docstring)."""
    if o.exit_code is not None and o.exit_code != 0:
        if o.exit_code == 1 and o.command and not o.check and answers_yes_no(o.command):
            return Status.NONE
        return Status.RUNTIME_ERROR
    if o.is_error:
        return Status.OTHER
    if o.exit_code == 0 and o.check and o.cls is not CheckClass.SCRIPT:
        return Status.PASSED
    return Status.NONE


def classify_observation(
    text: str,
    *,
    exit_code: int | None = None,
    is_error: bool | None = None,
    timed_out: bool | None = None,
    is_check: bool = False,
    command: str | None = None,
) -> tuple[Status, Checks | None]:
    """Status and check counts of an observation (SPEC §2): the first rule of ``RULES``
    that matches, else the fall-through (module docstring).

    ``command`` is the shell command (or tool call) that produced the output, when the
    format keeps it: it tells a test runner (exit 0 passes) from a check script (its
    printed verdict counts), and a file view (its text is no verdict) from the rest.
    """
    text = text or ""
    hinted = False
    if not timed_out and not is_error and (exit_code is None or exit_code == 0):
        # No failure flagged: a text where no rule's keys and no summary hint are found
        # needs no regular expression (the compiled scan; the rules give the same answer).
        fast = _fast.speedups()
        script = command and is_check and check_class(command) is CheckClass.SCRIPT
        if fast is not None and type(text) is str and not script:
            if fast.no_hints(text):
                return (_PASSED if exit_code == 0 and is_check else _NONE), None
            hinted = True  # the compiled scan found a hint: no need to look again
    o = _Obs(text, exit_code, is_error, timed_out, is_check, command)
    checks = o.checks()
    quiet = not o.flagged and not o.timed_out and checks is None
    if quiet and o.cls is not CheckClass.SCRIPT and not (hinted or _has_failure_hint(o.text)):
        return _fallthrough(o), None
    return first_rule(o), checks


def first_rule(o: _Obs) -> Status:
    """The status of the first rule of ``RULES`` that holds of ``o``, else the
    fall-through: what ``classify_observation`` answers without its pre-filters. A text
    rule none of whose keys the compiled scan found is passed over without a call: its
    test would answer no (``Rule.guard``), and the call and the checks before its own
    look at the keys cost more than the look (a failed output: 19 of 29 rules, 13 -> 9 us)."""
    hints = o.hints()
    for rule in RULES:
        guard = rule.guard
        if guard and hints is not None and hints.isdisjoint(guard):
            continue
        if rule.test(o):
            return rule.status
    return _fallthrough(o)


def _has_failure_hint(text: str) -> bool:
    """True when the head or tail of a text contains one of ``_HINTS`` (or it starts with
    FAILED): the pure-Python twin of the compiled ``no_hints``' failure part."""
    if len(text) <= _HEAD + _TAIL:
        parts: tuple[str, ...] = (text,)
    else:
        parts = (text[:_HEAD], text[-_TAIL:])
    for part in parts:
        for h in _HINTS:
            if h in part:
                return True
    return text.startswith("FAILED ")


def _install_hints() -> None:
    """Give the compiled pre-filter its needle lists and how much of a text each part
    searches (module docstring)."""
    fast = _fast._MODULE
    if fast is not None and hasattr(fast, "set_hints"):
        fast.set_hints(_SUMMARY_HINTS, _SUMMARY_PAIR, _HINTS, _HEAD, _TAIL, _SUMMARY_TAIL)


_install_hints()


def is_failure(status: Status) -> bool:
    return status is not _NONE and status is not _PASSED
