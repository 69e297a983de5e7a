"""What a shell command is for, read from its words: a check (and which kind), a file view,
a yes/no probe. Used by ``status`` for an event's kind (``infer_kind``) and for how its
output is read (``classify_observation``); docs/formats.md, "How an event's verdict is set".

A command is cut into simple commands at ``&&``, ``||``, ``;``, ``|``, newlines and
parentheses (quotes respected, heredoc bodies skipped); in each, leading ``VAR=value``
assignments and wrappers (``sudo``, ``timeout 60``, ``env``, ``time``, ``nohup``, ``xvfb-run``,
``uv run``, ``poetry run``, ``npx``...) are skipped to reach the program and its arguments.

Check classes (``check_class``):

- ``RUNNER``: a program that judges the work and says so by its exit status: test runners
  (pytest, unittest, tox, jest, go test, cargo test, mvn test, ``tests/runtests.py``...),
  linters and type checkers (ruff, flake8, pylint, mypy, eslint, tsc, shellcheck...), builds
  and compilers (make, mvn compile/package, gradle build, cargo build/check, go build,
  npm run build, javac, gcc, rustc, ponyc, dotnet build, ``python -m py_compile``...). Exit 0
  is ``passed``.
- ``SCRIPT``: a program the agent wrote to reproduce, test or verify (``python
  reproduce_issue.py``, ``node test_fix.js``, ``java ReproduceIssue``, ``bash verify.sh``, an
  inline ``python -c`` / heredoc script that asserts or verifies). Its verdict is what it
  prints (a success line, a FAIL line, a caught error); exit 0 alone is no verdict.

Not checks: installs (``pip install pytest``), probes (``which pytest``, ``pytest --version``),
reading files (``sed -n 1,9p pylint/lint.py``), exploration.
"""

from __future__ import annotations

import re
from enum import Enum
from functools import lru_cache

from efc_tui._lazy_re import LazyPattern
from efc_tui.model import EventKind
from efc_tui.parsers._patterns import _Guarded, _StartGuarded

_MAX = 4000
#: commands whose reading is kept: an event's command is read by the kind rules and two or
#: three times by the status rules, and agents rerun the same command (``_parse``)
_CACHED = 512
#: tool calls whose kind is kept (``infer_kind``): a results file's runs of one task are
#: hundreds of calls apart (tau-bench: 69% of calls repeat one kept, 42% with 512); at most
#: 2,048 commands of 4,000 characters
_KINDS_CACHED = 2048


class CheckClass(Enum):
    RUNNER = "runner"
    SCRIPT = "script"


_SEP = re.compile(r"&&|\|\||[;|\n()]")
#: what ``_segments`` stops at: quotes, escapes and the separators' characters
_SPECIAL = re.compile(r"[\"'\\&|;\n()]")
_IN_DOUBLE = re.compile(r'["\\]')
_WORD = re.compile(r"\"((?:[^\"\\]|\\.)*)\"|'([^']*)'|(\S+)")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1[^\n]*\n(.*?)(?:\n\s*\2\s*(?:\n|$)|\Z)", re.DOTALL)
_ASSIGN = re.compile(r"^[A-Za-z_]\w*=")
#: programs that run the rest of their arguments as a command (and how many arguments of
#: their own they take before it, beyond options)
_WRAPPERS = {
    "sudo": 0,
    "env": 0,
    "time": 0,
    "nohup": 0,
    "nice": 0,
    "stdbuf": 0,
    "xvfb-run": 0,
    "exec": 0,
    "timeout": 1,
    "npx": 0,
    "bunx": 0,
    "pnpx": 0,
}
_RUN_VIA = {"uv", "poetry", "pipenv", "pdm", "hatch", "conda", "rye"}  # `X run CMD`

#: programs that are checks whatever their arguments (but --version / --help)
_RUNNER_PROGRAMS = {
    "pytest",
    "py.test",
    "tox",
    "nox",
    "nosetests",
    "trial",
    "mypy",
    "pyright",
    "pyre",
    "flake8",
    "pylint",
    "pyflakes",
    "pycodestyle",
    "bandit",
    "eslint",
    "tsc",
    "jest",
    "vitest",
    "mocha",
    "ava",
    "karma",
    "playwright",
    "cypress",
    "rspec",
    "phpunit",
    "shellcheck",
    "ctest",
    "javac",
    "kotlinc",
    "scalac",
    "gcc",
    "g++",
    "cc",
    "c++",
    "clang",
    "clang++",
    "rustc",
    "ponyc",
    "make",
    "gmake",
    "ninja",
    "bazel",
    "sbt",
    "golangci-lint",
    "staticcheck",
    "clippy-driver",
    "hadolint",
    "yamllint",
    "stylelint",
    "prettier",  # only with --check (below)
    "black",  # only with --check (below)
    "isort",  # only with --check / --check-only (below)
    "ruff",  # check / format --check (below)
    "runtests.py",
    "runtests",
    "run_tests.py",
    "run_tests.sh",
}
#: make targets that neither build nor test
_MAKE_NOT_CHECKS = {"clean", "distclean", "install", "uninstall", "help", "deps", "setup", "env"}
#: a project's own test runner called by its path (bin/test, ./runtests)
_PATH_RUNNERS = {"test", "tests", "runtests", "run_tests", "run-tests", "check"}
#: options of java / node / go run that take a value (the class path, a module path...)
_VALUE_OPTIONS = {"-cp", "-classpath", "--class-path", "-p", "--module-path", "-r", "--require"}
_NEEDS_CHECK_FLAG = {"prettier", "black", "isort"}
#: program -> its subcommands that test, build or lint
_SUBCOMMANDS = {
    "go": {"test", "vet", "build"},
    "cargo": {"test", "check", "clippy", "build", "nextest"},
    "mvn": {"test", "verify", "compile", "test-compile", "package", "install"},
    "mvnw": {"test", "verify", "compile", "test-compile", "package", "install"},
    "gradle": {"test", "check", "build", "compileJava", "assemble"},
    "gradlew": {"test", "check", "build", "compileJava", "assemble"},
    "dotnet": {"test", "build"},
    "swift": {"test", "build"},
    "deno": {"test", "check", "lint"},
    "bun": {"test"},
    "cmake": {"--build"},
    "ruff": {"check"},
    "php": {"artisan"},
}
_NPM = {"npm", "yarn", "pnpm", "bun"}
_NPM_SCRIPTS = re.compile(r"^(?:test|build|lint|check|typecheck|type-check|tsc|verify|e2e)(?::|$)")
_PY_CHECK_MODULES = {
    "pytest",
    "unittest",
    "nose",
    "mypy",
    "pyright",
    "flake8",
    "pylint",
    "pyflakes",
    "pycodestyle",
    "py_compile",
    "compileall",
    "tox",
    "doctest",
}
_PY_CHECK_FLAGGED = {"black", "isort", "ruff"}
#: a script file the agent runs to check its work: reproduce_issue.py, test_fix.py,
#: verify.sh, check_output.js, ReproduceIssue (java), SubTypeValidatorTest...
_SCRIPT_NAME = re.compile(
    r"(?:^|[_\-./])(?:test|tests|repro|reproduce|reproduction|verify|verification|validate|"
    r"check|eval|evaluate|smoke)(?:[_\-.]|$)|^(?:Test|Repro|Reproduce|Verify|Check)[A-Z0-9_]|"
    r"(?:Test|Tests|Reproduction|Repro|Reproducer|Check|Verify|Verification)(?:[A-Z0-9_.]|$)",
)
_SCRIPT_EXT = re.compile(r"\.(?:py|js|mjs|cjs|ts|sh|rb|php|pl|java|go)$")
_INTERPRETERS = re.compile(
    r"^(?:python[\d.]*|pypy[\d.]*|node|ts-node|tsx|bash|sh|zsh|ruby|php|perl)$"
)
#: an inline script that verifies: asserts, or says it verifies / validates / tests
_INLINE_CHECK = re.compile(
    r"^\s*assert\b|\b(?:verif(?:y|ies|ied|ication)|validat(?:e|es|ion)|sanity check)\b"
    r"|\bprint\([^)\n]*\b(?:PASS|FAIL|OK|SUCCESS|Valid)",
    re.IGNORECASE | re.MULTILINE,
)
#: programs whose output is a file's or a listing's text: what they print is no verdict
_VIEWERS = {
    "cat",
    "head",
    "tail",
    "nl",
    "less",
    "more",
    "bat",
    "tac",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "ls",
    "tree",
    "find",
    "wc",
    "file",
    "stat",
    "xxd",
    "od",
    "hexdump",
    "strings",
    "jq",
    "awk",
}
_GIT_VIEWS = {"diff", "show", "log", "status", "blame", "grep", "ls-files"}
#: programs whose exit status 1 means "no" rather than "failed"
_YES_NO = {
    "grep",
    "egrep",
    "fgrep",
    "zgrep",
    "rg",
    "ag",
    "ack",
    "diff",
    "cmp",
    "test",
    "[",
    "[[",
    "which",
    "type",
    "hash",
    "pgrep",
}


def _strip_heredocs(command: str) -> tuple[str, list[str]]:
    bodies: list[str] = []

    def keep(m: re.Match[str]) -> str:
        bodies.append(m.group(3))
        return "\n"

    return _HEREDOC.sub(keep, command), bodies


def _words(segment: str) -> list[str]:
    """The words of a simple command, quotes removed (a rough shell split: good enough to
    find a program and its first arguments): ``_WORD``'s matches, each the one group that
    took part. A segment without quotes has only ``\\S+`` words, which ``str.split`` finds
    (both split at ``str.isspace``): 0.3 us for a pytest command, 3.7 us by the pattern."""
    if '"' not in segment and "'" not in segment:
        return segment.split()
    return ["".join(groups) for groups in _WORD.findall(segment)]  # two of the three are ""


def _program(words: list[str]) -> list[str]:
    """The words from the program on: assignments and wrappers skipped."""
    i = 0
    while i < len(words):
        w = words[i]
        if _ASSIGN.match(w):
            i += 1
            continue
        base = w.rsplit("/", 1)[-1]
        if base in _WRAPPERS:
            i += 1
            skip = _WRAPPERS[base]
            while i < len(words) and words[i].startswith("-"):
                i += 1
            i += skip
            continue
        if base in _RUN_VIA and i + 1 < len(words) and words[i + 1] == "run":
            i += 2
            while i < len(words) and words[i].startswith("-"):
                i += 1
            continue
        return words[i:]
    return []


def _segments(text: str) -> list[str]:
    """``text`` cut at the shell's separators that stand outside quotes (a backslash
    escapes the next character, outside quotes and inside double quotes). It jumps from
    one character that matters to the next (``_SPECIAL``)."""
    out: list[str] = []
    start = i = 0
    while (m := _SPECIAL.search(text, i)) is not None:
        i = m.start()
        c = text[i]
        if c == "'":
            end = text.find("'", i + 1)
            i = len(text) if end < 0 else end + 1
        elif c == '"':
            i += 1
            while (q := _IN_DOUBLE.search(text, i)) is not None and text[q.start()] == "\\":
                i = q.start() + 2
            i = len(text) if q is None else q.end()
        elif c == "\\":
            i += 2
        elif (sep := _SEP.match(text, i)) is not None:
            out.append(text[start:i])
            start = i = sep.end()
        else:  # a single "&"
            i += 1
    out.append(text[start:])
    return out


@lru_cache(maxsize=_CACHED)
def _parse(text: str) -> tuple[list[list[str]], list[str]]:
    """The simple commands of a command's first ``_MAX`` characters (``text``), each as its
    words from the program on, and its heredoc bodies: read once for every rule that asks
    (callers do not modify them)."""
    text, bodies = _strip_heredocs(text)
    out = []
    for seg in _segments(text):
        words = _program(_words(seg))
        if words:
            out.append(words)
    return out, bodies


def simple_commands(command: str) -> list[list[str]]:
    """The simple commands of a shell command, each as its words from the program on."""
    return [list(words) for words in _parse(command[:_MAX])[0]]


def _script_name(word: str) -> bool:
    name = word.rsplit("/", 1)[-1]
    return bool(_SCRIPT_NAME.search(name))


def _check_of(words: list[str], bodies: list[str]) -> CheckClass | None:
    prog = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    if any(a in ("--version", "-V", "--help", "-h", "--collect-only", "--co") for a in args):
        return None  # asks the program about itself (or what it would run): a probe
    if prog in ("make", "gmake"):
        if any(a in ("-n", "--dry-run", "--just-print", "-p", "-q", "--question") for a in args):
            return None
        targets = [a for a in args if not a.startswith("-") and "=" not in a]
        if targets and all(t in _MAKE_NOT_CHECKS for t in targets):
            return None
        return CheckClass.RUNNER
    if prog in _NEEDS_CHECK_FLAG:
        return CheckClass.RUNNER if any(a.startswith("--check") for a in args) else None
    if prog == "ruff":
        return CheckClass.RUNNER if args[:1] == ["check"] or "--check" in args else None
    if prog in _RUNNER_PROGRAMS or ("/" in words[0] and prog in _PATH_RUNNERS):
        return CheckClass.RUNNER
    if prog in _SUBCOMMANDS:
        subs = [a for a in args if not a.startswith("-") or a == "--build"]
        if any(s in _SUBCOMMANDS[prog] or s.split(":")[0] in _SUBCOMMANDS[prog] for s in subs[:3]):
            return CheckClass.RUNNER
        return None
    if prog in _NPM:
        rest = [a for a in args if not a.startswith("-")]
        if rest[:1] == ["run"] or rest[:1] == ["run-script"]:
            rest = rest[1:]
        if rest and _NPM_SCRIPTS.match(rest[0]):
            return CheckClass.RUNNER
        return None
    if re.match(r"^python[\d.]*$|^pypy[\d.]*$", prog):
        if "-m" in args:
            mod = args[args.index("-m") + 1] if args.index("-m") + 1 < len(args) else ""
            if mod in _PY_CHECK_MODULES:
                return CheckClass.RUNNER
            if mod in _PY_CHECK_FLAGGED:
                return _check_of([mod, *args[args.index("-m") + 2 :]], bodies)
            return None
        if "-c" in args:
            code = args[args.index("-c") + 1] if args.index("-c") + 1 < len(args) else ""
            return CheckClass.SCRIPT if _INLINE_CHECK.search(code) else None
        script = next((a for a in args if not a.startswith("-")), None)
        if script is None:  # python3 << 'EOF' ... EOF
            return CheckClass.SCRIPT if any(_INLINE_CHECK.search(b) for b in bodies) else None
        if script.rsplit("/", 1)[-1] in _RUNNER_PROGRAMS:  # tests/runtests.py
            return CheckClass.RUNNER
        return CheckClass.SCRIPT if _script_name(script) else None
    if prog in ("java", "kotlin", "scala", "dotnet", "go") or _INTERPRETERS.match(prog):
        if prog == "go" and args[:1] != ["run"]:
            return None
        target = None
        skip = False
        for a in args:
            if skip:
                skip = False
            elif a in _VALUE_OPTIONS:
                skip = True
            elif not a.startswith("-") and a != "run":
                target = a
                break
        if target is not None and _script_name(target):
            return CheckClass.SCRIPT
        return None
    if _SCRIPT_EXT.search(prog) or "/" in words[0]:
        if prog in _RUNNER_PROGRAMS:
            return CheckClass.RUNNER
        return CheckClass.SCRIPT if _script_name(prog) else None
    return None


def check_class(command: str) -> CheckClass | None:
    """Whether a command checks the work, and how its outcome is read (module docstring).
    A command of several parts is a check when one is; a runner wins over a script."""
    return _check_class(command[:_MAX])


@lru_cache(maxsize=_CACHED)
def _check_class(text: str) -> CheckClass | None:
    simple, bodies = _parse(text)
    found = None
    for words in simple:
        c = _check_of(words, bodies)
        if c is CheckClass.RUNNER:
            return c
        found = found or c
    return found


def is_view(command: str) -> bool:
    """True when every part of the command only shows files, listings or search results
    (cat, sed -n, head, grep, ls, git diff...): its output is text, not a verdict."""
    parts = _parse(command[:_MAX])[0]
    if not parts:
        return False
    for words in parts:
        prog = words[0].rsplit("/", 1)[-1]
        if prog == "cd" or prog == "echo" or prog == "printf":
            continue
        if prog == "sed" and "-i" not in words and not any(w.startswith("-i") for w in words):
            continue
        if prog == "git" and len(words) > 1 and words[1] in _GIT_VIEWS:
            continue
        if prog not in _VIEWERS:
            return False
    return True


def answers_yes_no(command: str) -> bool:
    """True when the last part of the command answers yes/no by its exit status (grep
    finding nothing, diff finding differences, test, which), so exit 1 is no failure."""
    parts = _parse(command[-2000:])[0]  # under _MAX
    if not parts:
        return False
    words = parts[-1]
    prog = words[0].rsplit("/", 1)[-1]
    if prog in _YES_NO and not ("/" in words[0] and prog in ("test", "[", "[[")):
        return True
    if prog in ("pip", "pip3") and words[1:2] == ["show"]:
        return True
    return prog == "command" and "-v" in words[1:2]


# ----------------------------------------------------------------------------- kinds

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
#: shell commands that write files: sed -i, cat > f, cat << EOF > f, tee, patches (a heredoc
#: fed to an interpreter runs a script: no edit) ... (tried only where a match can start:
#: ``sed -n`` views hold one of the words, and the pattern alone starts at every position)
_EDIT_CMD = _StartGuarded(
    r"\bsed\s+-i|\bcat\s*>|\bcat\s+<<[^\n]*>\s*\S|\btee\s|\bapply_patch\b|\bgit apply\b"
    r"|\bpatch\s+-p",
    re.MULTILINE,
    ("sed", "cat", "tee", "apply_patch", "git apply", "patch"),
)
#: ... and a line that echoes into a file (echo > f). Two patterns, not one alternation: the
#: regular expression engine finds no characters a match of the two together starts with,
#: and tries every alternative at every position (4-7x slower on agents' commands)
_EDIT_ECHO = _Guarded(
    r"^\s*(?:echo|printf)\b[^|;&\n]*>\s*[\w./-]+\.\w+\s*$", re.MULTILINE, ("echo", "printf")
)


#: tool names that check: run_tests, lint, typecheck, verify_solution, validate, grade...
_CHECK_TOOL = LazyPattern(
    r"(?:^|_)(?:tests?|pytest|run_tests|lint|linter|typecheck|type_check|verify|validate|"
    r"grade|evaluate|check)(?:_|$)"
)
#: the command inside a tool call's JSON arguments
_ARG_COMMAND = ("command", "cmd", "code", "script", "shell_command")
#: one of those fields' names as JSON text writes it unescaped
_ARG_KEY = re.compile("|".join(f'"{key}"' for key in _ARG_COMMAND))


def _shell_text(command: str) -> str:
    """The shell command of an action: itself, or the command field of JSON arguments
    (a JSON call with no such field runs no shell command)."""
    s = command.lstrip()
    if not s.startswith("{"):
        return command
    s = s[:20000]
    if "\\" not in s and _ARG_KEY.search(s) is None:
        return ""  # no command field, not even an escaped one: nothing to parse for
    try:
        import orjson

        doc = orjson.loads(s)
    except ValueError:
        return ""
    if isinstance(doc, dict):
        for key in _ARG_COMMAND:
            value = doc.get(key)
            if isinstance(value, str):
                return value
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return " ".join(value)
    return ""


def is_check_command(command: str) -> bool:
    """True when a command runs tests, a build or compile, linters, type checks, or a
    reproduction / verification script (``_commands.check_class``)."""
    return check_class(_shell_text(command)) is not None


def infer_kind(tool: str | None, command: str = "", *, after_failure: bool = False) -> EventKind:
    """The event kind of a tool call from its tool name and command text (SPEC §2).

    ``after_failure`` says the previous status-bearing event failed, which turns a write
    into a ``repair``. Only the command's first 4,000 characters are read; a kind is kept
    for the same tool and command (runs of a task call the same tools with the same
    arguments: two thirds of tau-bench's calls repeat one, ``_KINDS_CACHED``).
    """
    return _kind_of(tool, command[:_MAX], after_failure)


@lru_cache(maxsize=_KINDS_CACHED)
def _kind_of(tool: str | None, cmd: str, after_failure: bool) -> EventKind:
    base, kind, checks = _tool_kind(tool)
    if kind is not None:
        return kind
    is_edit = base in _EDIT_TOOLS or (
        base in {"str_replace_editor", "file_editor"} and "view" not in cmd[:40]
    )
    if base in {"str_replace_editor", "file_editor", "str_replace_based_edit_tool"} and re.search(
        r"\bview\b", cmd[:200]
    ):
        is_edit = False
    if not is_edit and cmd and (_EDIT_CMD.search(cmd) or _EDIT_ECHO.search(cmd)):
        is_edit = True
    if is_edit:
        return EventKind.REPAIR if after_failure else EventKind.GENERATION
    if checks or is_check_command(cmd):
        return EventKind.CHECK
    # lower-casing maps each character on its own: the first six tell
    if cmd.lstrip()[:6].lower().startswith("submit"):
        return EventKind.GENERATION
    return EventKind.TOOL


@lru_cache(maxsize=_CACHED)
def _tool_kind(tool: str | None) -> tuple[str, EventKind | None, bool]:
    """A tool name's base (its last ``__`` / ``.`` part, lower case), the kind the name
    alone gives (memory, plan, reflect, a submission) and whether the name says it checks:
    a run calls the same few tools again and again."""
    name = (tool or "").strip().lower()
    base = name.rsplit("__", 1)[-1].rsplit(".", 1)[-1]
    kind = None
    if base in _MEMORY_TOOLS:
        kind = EventKind.MEMORY
    elif base in _PLAN_TOOLS:
        kind = EventKind.PLAN
    elif base in _REFLECT_TOOLS:
        kind = EventKind.REFLECT
    elif base in _SUBMIT_TOOLS:
        kind = EventKind.GENERATION
    return base, kind, bool(base) and _CHECK_TOOL.rx.search(base) is not None
