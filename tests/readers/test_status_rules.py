"""Each rule of the status classifier's table (``status.RULES``), on excerpts of real logs:
the rule is the one that decides, and the status is the one a careful reader gives
(../shared/event-labels/GUIDE.md). The ids are the shared labels' (e0…), the tau-bench
fixtures' (t…, c…) or the GUIDE's examples; the rest name the log they come from.

Then the false alarms the rules must not raise (file views, probes, source code that
contains "error"), and the check commands (``_commands.check_class``)."""

from __future__ import annotations

import pytest

from efc_tui.model import EventKind, Status
from efc_tui.parsers import status
from efc_tui.parsers._commands import CheckClass, check_class, is_view
from efc_tui.parsers.status import classify_observation, infer_kind

S = Status

# (rule, status, text, hints): hints are classify_observation's keywords
CASES: list[tuple[str, Status, str, dict[str, object]]] = [
    ("timed-out flag", S.TIMEOUT, "", {"timed_out": True}),
    ("killed (exit 137)", S.TIMEOUT, "", {"exit_code": 137}),
    # OpenClaw's poll that waited out its limit (harbor_openclaw_sample, GUIDE rule 7)
    ("killed or hung", S.TIMEOUT, "(no new output)\n\nProcess still running.", {}),
    # e0158 (Claude Code): `npx create-next-app` stopped at its second question
    (
        "unanswered interactive prompt",
        S.RUNTIME_ERROR,
        "\x1b[?25l\x1b[2K\x1b[1G\x1b[36m?\x1b[39m \x1b[1mWould you like to use Turbopack? "
        "(recommended)\x1b[22m \x1b[90m›\x1b[39m No / Yes\x1b[2K\x1b[1G\x1b[32m✔\x1b[39m "
        "\x1b[1mWould you like to use Turbopack? (recommended)\x1b[22m … No / Yes\n"
        "\x1b[?25h\x1b[?25l\x1b[36m?\x1b[39m \x1b[1mWould you like to customize the import "
        "alias (`@/*` by default)?\x1b[22m \x1b[90m›\x1b[39m No / Yes\nnpm warn Unknown env "
        'config "store-dir".',
        {"command": "npx create-next-app@latest todo-app --typescript"},
    ),
    # apt / a script asking for confirmation with nobody to answer
    ("unanswered interactive prompt", S.RUNTIME_ERROR, "Do you want to continue? [Y/n] ", {}),
    (
        "test runner could not start",
        S.RUNTIME_ERROR,
        "============================ no tests ran in 0.01s =============================",
        {"exit_code": 5, "is_check": True, "command": "pytest -k nothing_matches"},
    ),
    # ccb 0a8110c6edb5 (Harbor ATIF): the runner refused an option (GUIDE rule 3)
    (
        "test runner could not start",
        S.RUNTIME_ERROR,
        "Plugin: helpconfig, Hook: pytest_cmdline_parse\nUsageError: usage: __main__.py "
        "[options] [file_or_dir] [file_or_dir] [...]\n__main__.py: error: unrecognized "
        "arguments: --timeout=60",
        {"is_check": True},
    ),
    # e0215
    (
        "test summary",
        S.PASSED,
        "<returncode>0</returncode>\n<output>\n..                                       "
        "                                 [100%]\n2 passed in 0.01s\n</output>",
        {"exit_code": 0, "is_check": True, "command": "python -m pytest -q test_calc.py"},
    ),
    # e0213
    (
        "test summary with failures",
        S.ASSERTION_ERROR,
        "FAILED test_calc.py::test_mean - assert 3.3333333333333335 == 2.5\n2 failed in 0.03s",
        {"exit_code": 1, "is_check": True, "command": "python -m pytest -q test_calc.py"},
    ),
    ("exit 126 / 127", S.STATIC_REJECT, "", {"exit_code": 127}),
    # e0509
    (
        "command not found",
        S.STATIC_REJECT,
        "/bin/bash: line 10530: javac: command not found",
        {"is_check": True, "command": "javac -cp . test_number_input.java"},
    ),
    ("command not found", S.STATIC_REJECT, "sh: 1: jq: not found", {}),
    # e0561
    (
        "executable or runner missing",
        S.STATIC_REJECT,
        "/bin/bash: line 47782: /fasterxml__jackson-dataformat-xml/jdk-11.0.2/bin/javac: "
        "No such file or directory",
        {},
    ),
    # apache__dubbo-7041 (multi_swe_bench_java_sweagent)
    (
        "executable or runner missing",
        S.STATIC_REJECT,
        "Error: JAVA_HOME is not defined correctly.\n  We cannot execute /path/to/install/"
        "directory/zulu8.56.0.23-ca-jdk8.0.302-linux_x64/bin/java",
        {},
    ),
    # e0791
    (
        "executable or runner missing",
        S.STATIC_REJECT,
        "/opt/miniconda3/envs/testbed/bin/python: No module named pytest",
        {"exit_code": 1, "is_check": True, "command": "python -m pytest sympy/x.py"},
    ),
    # e0143
    (
        "permission denied",
        S.STATIC_REJECT,
        "Claude requested permissions to write to /home/u/CLAUDE.md, but you haven't granted "
        "it yet.",
        {"is_error": True},
    ),
    # e0017
    (
        "permission denied",
        S.STATIC_REJECT,
        '    renames(path, new_path)\n  File "/usr/local/lib/python3.8/dist-packages/pip/'
        '_internal/utils/misc.py", line 350, in renames\nPermissionError: [Errno 13] '
        "Permission denied: '/usr/local/lib/python3.8/dist-packages/pytest'",
        {},
    ),
    # e0855: prose sent as a command
    (
        "syntax error in the command",
        S.STATIC_REJECT,
        "/bin/bash: line 2: unexpected EOF while looking for matching `''\n"
        "/bin/bash: line 4: syntax error: unexpected end of file",
        {},
    ),
    # e0435
    (
        "bad tool arguments",
        S.STATIC_REJECT,
        "ERROR:\nInvalid `view_range` parameter: [100, 150]. Its second element `150` should "
        "be smaller than the number of lines in the file: `122`.",
        {"is_error": True},
    ),
    # e0844
    ("bad tool arguments", S.STATIC_REJECT, "Error: <line> must be less than or equal to 1048", {}),
    # c022 (tau-bench)
    (
        "bad tool arguments",
        S.STATIC_REJECT,
        "Error: GetReservationDetails.invoke() got an unexpected keyword argument 'origin'",
        {"is_error": True},
    ),
    # e0731
    (
        "harness or policy refusal",
        S.STATIC_REJECT,
        "ERROR: Cannot execute multiple commands at once.\nPlease run each command separately "
        "OR chain them into a single command via && or ;",
        {},
    ),
    # c020 (tau-bench, a crashed run)
    (
        "model or provider call failed",
        S.API_ERROR,
        'litellm.APIError: APIError: XaiException - {"code":"The caller does not have '
        'permission to execute the specified operation","error":"Content violates usage '
        'guidelines."}',
        {"is_error": True},
    ),
    # written in the shape of Python's traceback (../shared has no TimeoutError traceback)
    (
        "timeout exception",
        S.TIMEOUT,
        'Traceback (most recent call last):\n  File "test_server.py", line 21, in <module>\n'
        "    wait_ready(5)\nTimeoutError: server did not answer in 5 s",
        {"exit_code": 1, "is_check": True, "command": "python test_server.py"},
    ),
    # e0798 (GUIDE)
    (
        "timed out",
        S.TIMEOUT,
        'Traceback (most recent call last):\n  File "reproduce_issue.py", line 9, in <module>\n'
        "subprocess.TimeoutExpired: Command '['python', 'manage.py', 'runserver']' timed out "
        "after 5 seconds",
        {},
    ),
    # pydata__xarray-4356 (swebench_verified_minisweagent)
    (
        "assertion exception",
        S.ASSERTION_ERROR,
        'Traceback (most recent call last):\n  File "/testbed/test_fix.py", line 57, in '
        '<module>\n    test_sum_min_count_multi_dim()\n  File "/testbed/test_fix.py", line 19, '
        "in test_sum_min_count_multi_dim\n    assert np.isnan(res)\nAssertionError\nTest failed: ",
        {"exit_code": 0, "is_check": True, "command": "python test_fix.py"},
    ),
    # e0168 (GUIDE, Inspect)
    ("timed out", S.TIMEOUT, "Command timed out before completing.", {}),
    # psf__requests-2317 (swebench_verified_minisweagent)
    (
        "timed out",
        S.TIMEOUT,
        "The last command <command>python3 test_requests.py</command> timed out and has been "
        "killed.",
        {},
    ),
    # a pytest run whose summary was cut off (swebench_verified_minisweagent)
    (
        "assertion failed",
        S.ASSERTION_ERROR,
        "    def test_mean():\n>       assert mean([1, 2, 7]) == 2.5\nE       assert "
        "3.3333333333333335 == 2.5",
        {},
    ),
    # c018 (tau-bench): the agent's own code crashed reading a reply (GUIDE rule 8)
    (
        "traceback",
        S.RUNTIME_ERROR,
        "'content'\nTraceback (most recent call last):\n  File \"tau_bench/run.py\", line 78, "
        "in _run\n    res = agent.solve(\nKeyError: 'content'",
        {"is_error": True},
    ),
    # a SyntaxError raised by importing project code is an error, not a rejection (rule 4)
    (
        "traceback",
        S.RUNTIME_ERROR,
        'Traceback (most recent call last):\n  File "/testbed/test_fix.py", line 1, in <module>'
        '\n    import xarray as xr\n  File "/testbed/xarray/core/ops.py", line 40\n    '
        "def f(:\n          ^\nSyntaxError: invalid syntax",
        {"exit_code": 1},
    ),
    # e0074 (GUIDE, OpenClaw)
    (
        "build or compile error",
        S.RUNTIME_ERROR,
        "CONFLICT (content): Merge conflict in _includes/about.md\nerror: could not apply "
        "650dba4... about\n(Command exited with code 1)",
        {"exit_code": 1},
    ),
    (
        "build or compile error",
        S.RUNTIME_ERROR,
        "ReproduceIssue.java:12: error: cannot find symbol\n        ObjectMapper m = new "
        "ObjectMapper();\n        ^\n1 error",
        {"is_check": True},
    ),
    # 0xpolygon__bor (harbor_openclaw_sample): go test that did not compile
    (
        "build or compile error",
        S.RUNTIME_ERROR,
        "# github.com/ethereum/go-ethereum/core/blockstm [github.com/ethereum/go-ethereum/core/"
        "blockstm.test]\n./dag_terminalbench_test.go:149:3: declared and not used: keyC\nFAIL\t"
        "github.com/ethereum/go-ethereum/core/blockstm [build failed]\n\n(Command exited with "
        "code 1)",
        {"exit_code": 1, "is_check": True, "command": "go test -run TestTerminalBench -v 2>&1"},
    ),
    # e0288
    (
        "check printed FAIL",
        S.ASSERTION_ERROR,
        "<returncode>0</returncode>\n<output>\nFAILURE: alter_db_table was called!\nArgs: "
        "call(<class '__fake__.NewModel'>, 'my_table', 'my_table')\n</output>",
        {"exit_code": 0, "is_check": True, "command": "python3 reproduce_issue.py"},
    ),
    # e0272
    (
        "check printed FAIL",
        S.ASSERTION_ERROR,
        "CustomUserForm cleaned password: new_password\nCustomUserForm accepted new password "
        "(BAD - unless disabled=True)\n",
        {"exit_code": 0, "is_check": True, "command": "python reproduce_issue.py"},
    ),
    # polygon__bor (Harbor ATIF): go test behind `|| echo`
    (
        "check printed FAIL",
        S.ASSERTION_ERROR,
        "=== RUN   TestTerminalBenchUpdateDeps\n--- FAIL: TestTerminalBenchUpdateDeps (0.00s)\n"
        "FAIL\nTimeout or error",
        {"is_check": True},
    ),
    # ccb 002fffc64a42 (Harbor ATIF): a crossed line that reports a caught error
    (
        "error line",
        S.RUNTIME_ERROR,
        "✗ Failed to import dispatch_array_function: cannot import name 'version' from "
        "partially initialized module 'numpy'",
        {"is_check": True},
    ),
    # written after the check scripts of ccb 0a8110c6edb5 (Harbor ATIF), which print
    # "✓ name" / "✗ name" per check (../shared holds the scripts, not such an output)
    (
        "check printed a cross",
        S.ASSERTION_ERROR,
        "✓ Imports pytest\n✗ DeserializationError class\n✓ read_cache method",
        {"is_check": True},
    ),
    # e0516
    (
        "file argument missing",
        S.RUNTIME_ERROR,
        "/bin/bash: line 13113: cd: fastjson/: No such file or directory",
        {},
    ),
    # e0726
    (
        "file argument missing",
        S.RUNTIME_ERROR,
        "ls: cannot access '/workspace/.github/workflows/': No such file or directory",
        {"command": "ls /workspace/.github/workflows/ | head -20"},
    ),
    # e0582
    (
        "error line",
        S.RUNTIME_ERROR,
        "Usage: search_file <search_term> [<file>]\nError: File name StdDeserializer.java not "
        "found. Please provide a valid file name.",
        {},
    ),
    # google__gson (multi_swe_bench_java_sweagent): SWE-agent's open on a missing file
    (
        "file argument missing",
        S.RUNTIME_ERROR,
        "File gson/src/main/java/com/google/gson/internal/bind/TypeAdapterRuntimeTypeWrapper.java"
        " not found",
        {},
    ),
    # a035 (tests/fixtures/verdicts/atif_more.jsonl): an edit the tool could not carry out
    (
        "error line",
        S.RUNTIME_ERROR,
        "<tool_use_error>Found 2 matches of the string to replace, but replace_all is false. To "
        "replace all occurrences, set replace_all to true.</tool_use_error>",
        {},
    ),
    # e0724: Claude Code's harness refuses an edit of a file not read first
    (
        "harness or policy refusal",
        S.STATIC_REJECT,
        "<tool_use_error>File has not been read yet. Read it first before writing to it."
        "</tool_use_error>\n\n[error] tool reported failure",
        {},
    ),
    # a036 (tests/fixtures/verdicts/atif_more.jsonl): the go tool's own error
    (
        "build or compile error",
        S.RUNTIME_ERROR,
        "go: errors parsing go.mod:\n/workspace/grafana--26d36ec/apps/dashboard/go.mod:3: "
        "invalid go version '1.25.3': must match format 1.23",
        {},
    ),
    # e0877 (GUIDE, tau-bench)
    ("error line", S.RUNTIME_ERROR, "Error: user not found", {}),
    # e0768: a caught exception printed with exit 0
    (
        "error line",
        S.RUNTIME_ERROR,
        "<returncode>0</returncode>\n<output>\nError: in_bulk()'s field_name must be a unique "
        "field but 'slug' isn't.\n</output>",
        {"exit_code": 0, "is_check": True, "command": "python3 reproduce_issue.py"},
    ),
    # e0792
    (
        "error line",
        S.RUNTIME_ERROR,
        "Failed to import LaTeXParser: Could not deserialize ATN with version 3 (expected 4).",
        {"exit_code": 0, "command": "python3 debug_import.py"},
    ),
    # written after e0786's shape (../shared has a check printing "Error: ...", not a
    # named exception, without a traceback at exit 0)
    (
        "check printed an exception",
        S.RUNTIME_ERROR,
        "Testing nested Indexed...\nTypeError: 'Indexed' object is not subscriptable",
        {"exit_code": 0, "is_check": True, "command": "python3 test_nested.py"},
    ),
    # e0289 (GUIDE)
    (
        "check printed success",
        S.PASSED,
        "<returncode>0</returncode>\n<output>\nSUCCESS: alter_db_table was NOT called.\n</output>",
        {"exit_code": 0, "is_check": True, "command": "python3 reproduce_issue.py"},
    ),
    # e0258
    (
        "check printed success",
        S.PASSED,
        "Attempting filter with Window expression...\nCaught expected exception: "
        "NotSupportedError: Window is disallowed in the filter clause.",
        {"exit_code": 0, "is_check": True, "command": "python3 test_window_filter.py"},
    ),
    # e0033 (Harbor ATIF)
    (
        "check printed success",
        S.PASSED,
        "   Compiling style_tests v0.0.1 (/workspace/tests)\n    Finished `dev` profile "
        "[unoptimized + debuginfo] target(s) in 41.20s",
        {"is_check": True},
    ),
    # e0018 (Harbor ATIF)
    (
        "check printed a tick",
        S.PASSED,
        "Component Verification:\n✓ Imports pytest\n✓ DeserializationError class\n"
        "✓ _map_exceptions context manager",
        {"is_check": True},
    ),
    # sympy__sympy-21612 (sweagent_1x_swebench)
    (
        "installed",
        S.PASSED,
        "Installing collected packages: antlr4-python3-runtime\nSuccessfully installed "
        "antlr4-python3-runtime-4.13.2",
        {},
    ),
]


@pytest.mark.parametrize(("rule", "want", "text", "hints"), CASES)
def test_rule_on_a_real_excerpt(rule: str, want: Status, text: str, hints: dict) -> None:
    got = classify_observation(text, **hints)[0]
    assert got is want
    obs = status._Obs(
        text,
        hints.get("exit_code"),
        hints.get("is_error"),
        hints.get("timed_out"),
        bool(hints.get("is_check")),
        hints.get("command"),
    )
    first = next(r for r in status.RULES if r.test(obs))
    assert first.name == rule and first.status is want


def test_every_rule_has_a_real_excerpt() -> None:
    assert {r.name for r in status.RULES} == {rule for rule, *_ in CASES}


# (text, hints): no verdict, though a rule's words are there
NO_VERDICT: list[tuple[str, dict[str, object]]] = [
    # every question of the scaffolder answered (✔): it went on
    (
        "\x1b[?25l? Would you like to use ESLint? › No / Yes\x1b[2K\x1b[1G✔ Would you like to "
        "use ESLint? … Yes\n\x1b[?25hCreating a new Next.js app in /app/todo.",
        {"command": "npx create-next-app@latest todo --yes"},
    ),
    # e0766: a probe printing an error message of its own wording
    (
        "<returncode>0</returncode>\n<output>\nError getting pk: RelatedModel has no field named"
        " 'pk'\n</output>",
        {"exit_code": 0, "command": "python3 probe_pk.py"},
    ),
    # e0239: a probe (not a check) printing the exception it caught
    ("TypeError: None is not a valid Unit", {"exit_code": 0, "command": "python3 probe.py"}),
    # e0765: source code with "Error" in it, shown by grep
    (
        "                        errors.append(\n                            checks.Error(\n",
        {"exit_code": 0, "command": 'grep -C 5 "models.E015" django/db/models/base.py'},
    ),
    # a file view whose text holds failure words
    (
        "Error: boom\nTraceback (most recent call last):\nAssertionError\n",
        {"exit_code": 0, "command": "cat docs/troubleshooting.md"},
    ),
    # e0773: grep finding nothing
    ("<returncode>1</returncode>\n<output>\n</output>", {"exit_code": 1, "command": "grep x y"}),
    # GUIDE rule 1: a presence probe that finds nothing
    ("R not found", {"exit_code": 0, "command": 'which R || echo "R not found"'}),
    # ccb 0008ad20ef51 (Harbor ATIF): a write whose echoed content is prose about SIGKILL
    (
        "File created successfully at: /workspace/result.json\n[metadata] "
        '{"content": "leaving a pending SIGKILL that causes the NFS getattr to return"}',
        {},
    ),
    # GUIDE rule 7: a command moved to the background
    ("Command still running (session quiet-river, pid 4242).", {}),
    # e0242: a test script printing values, no verdict (GUIDE rule 2)
    (
        "Testing Card.fromstring with non-ascii bytes...\nCard image: 'COMMENT AAAA'",
        {"exit_code": 0, "is_check": True, "command": "python test_non_ascii.py"},
    ),
    # pip's resolver notice at exit 0
    (
        "ERROR: pip's dependency resolver does not currently take into account all the "
        "packages that are installed.",
        {"exit_code": 0, "command": "pip install -e ."},
    ),
]


@pytest.mark.parametrize(("text", "hints"), NO_VERDICT)
def test_no_false_alarm(text: str, hints: dict) -> None:
    assert classify_observation(text, **hints)[0] is S.NONE


def test_terminal_line_endings() -> None:
    """A terminal recording's lines end \\r\\n (Terminal-Bench, terminus): the line rules
    read them as lines (tests/fixtures/formats/tb1_run's shape)."""
    screen = (
        "root@c0ffee:/app# cd src\r\nbash: cd: src: No such file or directory\r\nroot@c0ffee:/app# "
    )
    assert classify_observation(screen)[0] is S.RUNTIME_ERROR


def test_a_tool_s_own_connection_error_is_no_api_error() -> None:
    """GUIDE rule 8: a fetch tool's ConnectionError is the tool's failure; the same error in
    a model client's call is the provider's."""
    tool = (
        'Traceback (most recent call last):\n  File "tools/fetch.py", line 12, in fetch_url\n'
        "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='example.org', port=443)"
        ": Max retries exceeded (Caused by NewConnectionError('Connection refused'))"
    )
    assert classify_observation(tool, is_error=True)[0] is S.RUNTIME_ERROR
    model = (
        'Traceback (most recent call last):\n  File "litellm/main.py", line 2100, in '
        "completion\nrequests.exceptions.ConnectionError: ('Connection aborted.', "
        "ConnectionResetError(10054, 'An existing connection was forcibly closed'))"
    )
    assert classify_observation(model, is_error=True)[0] is S.API_ERROR


# --- checks from the command -----------------------------------------------------------------

RUNNERS = [
    "python -m pytest -q test_calc.py",
    "cd /testbed && PYTHONPATH=. python -m unittest tests.test_a",
    "./tests/runtests.py many_to_one",
    "bin/test sympy/matrices/tests/test_matrices.py",
    "timeout 60 pytest -x",
    "uv run pytest",
    "./mvnw test",
    "mvn compile exec:java -Dexec.mainClass=ReproduceIssue",
    "./gradlew build",
    "cargo build --release",
    '. "$HOME/.cargo/env" && cd /workspace && cargo check --package style_tests 2>&1',
    "go test ./core/... -run TestX -v 2>&1 || echo failed",
    "npm run build",
    "npx tsc --noEmit",
    "make",
    "javac -cp . test_number_input.java",
    "ruff check .",
    "mypy efc_tui",
]
SCRIPTS = [
    "python3 reproduce_issue.py",
    "python test_standard_scaler.py",
    "java -cp .:jackson-databind-2.15.3.jar ReproduceIssue",
    "java EnumDeserializeTest",
    "node test_fix.js",
    "bash verify.sh",
    "python3 -c \"import json; d = json.load(open('a.json')); print('Valid JSON')\"",
    "python3 << 'EOF'\n# Verify the test file can be imported\nimport ast\nEOF",
]
NOT_CHECKS = [
    "pip uninstall -y pytest-timeout pytest pytestqt pytest-cov 2>&1 | tail -10",  # e0017
    "sed -n '150,200p' pylint/lint/pylinter.py",  # e0778
    "make -n build",  # e0446
    "make clean",
    "which pytest",
    "pytest --version",
    'python3 -m pylint --help | grep -A 2 "\\-v"',
    "python3 debug_import.py",
    "cat tests/test_a.py",
    '{"summary": "User (make sure to verify) wants a refund"}',  # a JSON tool call
]


@pytest.mark.parametrize("command", RUNNERS)
def test_runners(command: str) -> None:
    assert check_class(command) is CheckClass.RUNNER
    assert infer_kind("bash", command) is EventKind.CHECK


@pytest.mark.parametrize("command", SCRIPTS)
def test_check_scripts(command: str) -> None:
    assert check_class(command) is CheckClass.SCRIPT
    assert infer_kind("bash", command) is EventKind.CHECK


@pytest.mark.parametrize("command", NOT_CHECKS)
def test_not_checks(command: str) -> None:
    assert infer_kind("bash", command) is not EventKind.CHECK


def test_tools_named_for_checking_and_file_views() -> None:
    assert infer_kind("run_tests") is EventKind.CHECK
    assert infer_kind("transfer_to_human_agents", '{"summary": "verify"}') is EventKind.TOOL
    assert is_view("nl -ba sklearn/base.py | sed -n '47,60p'")
    assert not is_view("sed -i 's/a/b/' f.py") and not is_view("python x.py | grep y")


def test_kinds_from_the_tool_name_and_a_submit_command() -> None:
    # the tool name's verdict is kept per name: asking twice answers the same
    for _ in range(2):
        assert infer_kind("mcp__server__TodoWrite") is EventKind.MEMORY
        assert infer_kind("functions.update_plan") is EventKind.PLAN
        assert infer_kind("lint_code", "{}") is EventKind.CHECK
    assert infer_kind("bash", "  \n SUBMIT") is EventKind.GENERATION
    assert infer_kind("bash", "Submitted_fix") is EventKind.GENERATION
    assert infer_kind("bash", "echo submit") is EventKind.TOOL
    assert infer_kind("bash", "subm") is EventKind.TOOL
    # a JSON call's command field, its name written plainly or escaped
    assert infer_kind("execute", '{"timeout": 5, "command": "pytest -q"}') is EventKind.CHECK
    assert infer_kind("execute", '{"\\u0063md": ["pytest", "-q"]}') is EventKind.CHECK
    assert infer_kind("execute", '{"query": "pytest -q"}') is EventKind.TOOL


def test_a_script_s_exit_0_is_no_verdict_but_a_runner_s_is_passed() -> None:
    """GUIDE rules 1-3: exit 0 of a test runner or build passes; a script's needs its line."""
    assert classify_observation("", exit_code=0, is_check=True, command="cargo build")[0] is (
        S.PASSED
    )
    assert classify_observation("3", exit_code=0, is_check=True, command="python t_x.py")[0] is (
        S.PASSED
    )  # not a script by its name: a runner's rule (the kind came from elsewhere)
    out = classify_observation("A    int16", exit_code=0, is_check=True, command="python test_a.py")
    assert out[0] is S.NONE


def test_the_docs_list_the_rules_as_the_code_has_them() -> None:
    """docs/formats.md, "How an event's verdict is set": its table is status.RULES."""
    from tests.conftest import REPO

    doc = (REPO / "docs" / "formats.md").read_text(encoding="utf-8")
    table = doc.split("<!-- rules:", 1)[1].split("<!-- /rules -->", 1)[0]
    rows = [line.split(" | ") for line in table.splitlines() if line.startswith("| ")]
    listed = [(cells[1], cells[2].strip("`"), cells[3].rstrip(" |")) for cells in rows[1:]]
    assert listed == [(r.name, r.status.value, r.says) for r in status.RULES]


@pytest.mark.parametrize(
    ("command", "edits"),
    [
        ("sed -i 's/a/b/' src/x.py", True),
        ("cd /repo && cat > fix.py << 'EOF'\nprint(1)\nEOF", True),
        ("git apply /tmp/p.diff", True),
        ("echo 'x = 1' > config.py", True),
        ("cd /repo\n   printf 'a\\n' >> notes.txt", True),
        ("echo done && ls > /dev/null", False),
        ("echo x | tee", False),
        ("cat README.md", False),
        ("python -c 'print(1)' > out.log; echo ok", False),
    ],
)
def test_shell_edits_are_generations(command: str, edits: bool) -> None:
    kind = infer_kind("bash", command)
    assert (kind is EventKind.GENERATION) is edits
    assert infer_kind("bash", command, after_failure=True) is (EventKind.REPAIR if edits else kind)
