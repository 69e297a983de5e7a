"""Readers for mini-swe-agent, SWE-agent, Claude Code and Codex CLI logs (issue 3).

Numbers asserted on the real files in ../shared/fixtures/real were read off the files by
hand (message counts, return codes, usage fields); our own fixtures in
tests/fixtures/agents/ were written for the awkward cases and their numbers are the ones
we put in.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from efc_tui.cli import app
from efc_tui.errors import InputError
from efc_tui.model import EventKind, Run, Status
from efc_tui.parsers import detect, get_reader, load
from efc_tui.parsers._content import content_text
from efc_tui.parsers._drafts import apportion
from efc_tui.parsers._time import parse_time
from efc_tui.parsers.base import ReadOptions
from efc_tui.parsers.status import classify_observation
from tests.conftest import FIXTURES

AGENTS = FIXTURES / "agents"
runner = CliRunner()


def one(path: Path, fmt: str | None = None, *, lenient: bool = False) -> Run:
    runs = list(load(path, fmt, lenient=lenient))
    assert len(runs) == 1
    return runs[0]


def kinds(run: Run) -> list[str]:
    return [e.kind.value for e in run.events]


def statuses(run: Run) -> list[str]:
    return [e.status.value for e in run.events]


def calls(run: Run) -> int:
    return sum(e.tool_calls for e in run.events)


# --------------------------------------------------------------------------- real files


def test_every_real_file_of_our_formats_parses(real_fixtures: Path) -> None:
    expected = {
        "mini-swe-agent": "mini-swe-agent",
        "swe-agent": "swe-agent",
        "claude-code": "claude-code",
        "codex-rollout": "codex",
    }
    seen = 0
    for folder, reader in expected.items():
        for path in sorted((real_fixtures / folder).rglob("*")):
            if not path.is_file() or path.name.startswith("swebench_report"):
                continue  # the SWE-bench report is a label source, not a trajectory
            assert detect(path).name == reader, path
            run = one(path)
            assert run.source_format == reader
            assert run.events, path
            for i, e in enumerate(run.events):
                assert e.index == i
                assert e.tokens_in >= 0 and e.tokens_out >= 0 and e.wall_s >= 0
            seen += 1
    assert seen == 9


def test_mini_v1_text_mode(real_fixtures: Path) -> None:
    run = one(real_fixtures / "mini-swe-agent" / "harbor-rfc_hello-world.v1.traj.json")
    # system (no event), task (message), 3 x (assistant bash block + <returncode> reply)
    assert kinds(run) == ["message", "generation", "tool", "generation"]
    assert [e.action_text for e in run.events[1:]] == [
        'echo "Hello, world!" > hello.txt',
        "cat hello.txt",
        "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
    ]
    assert calls(run) == 3
    assert statuses(run) == ["none"] * 4
    assert [e.extra.get("exit_code") for e in run.events] == [None, 0, 0, None]
    assert run.events[3].extra["submission"] is True
    assert run.events[1].extra["thought"].startswith("THOUGHT: To create a file")
    assert run.model == "anthropic/claude-3-5-sonnet-20241022"
    assert run.success is None  # the report beside it names another instance
    # usage: prompt 752 + 841 + 919, completion 69 + 53 + 77
    assert sum(e.tokens_in for e in run.events) == 2512
    assert sum(e.tokens_out for e in run.events) == 199
    assert not any("tokens" in e.flags for e in run.events)
    # v1 has only response.created: 1760078127, ...128, ...130
    assert [e.wall_s for e in run.events] == [0.0, 0.0, 1.0, 2.0]
    assert run.cost_usd == pytest.approx(0.010521)
    assert run.extra["exit_status"] == "Submitted"


def test_mini_v2_tool_calls_with_report(real_fixtures: Path) -> None:
    run = one(real_fixtures / "mini-swe-agent" / "sqlfluff__sqlfluff-2419.traj.json")
    # 41 assistant messages with one tool call each, 40 tool messages, one exit message
    assert len(run.events) == 42 and calls(run) == 41
    assert run.task_id == "sqlfluff__sqlfluff-2419" and run.task_family == "sqlfluff__sqlfluff"
    assert run.model == "deepseek/deepseek-chat"
    assert run.success is True  # resolved: true in the report beside it
    assert "swebench_report" in (run.success_from or "") and run.reward == 1.0
    ev = run.events
    # non-zero return codes: messages 41 (1, a traceback), 49 (1, grep no match), 61 (4, pytest
    # found no tests), 67 (1, ImportError traceback), 71 (1, grep no match)
    assert ev[20].status is Status.RUNTIME_ERROR and ev[20].extra["exit_code"] == 1
    assert ev[24].action_text.startswith("grep -n") and ev[24].status is Status.NONE
    assert ev[30].kind is EventKind.CHECK and ev[30].status is Status.RUNTIME_ERROR
    assert ev[30].extra["exit_code"] == 4
    assert ev[33].status is Status.RUNTIME_ERROR
    assert ev[35].action_text.startswith("grep -r") and ev[35].status is Status.NONE
    # `pytest -k L060 -v | head`: exit 0 through the pipe, but the summary shows 3 failures
    assert ev[32].kind is EventKind.CHECK and ev[32].status is Status.ASSERTION_ERROR
    assert ev[32].checks is not None and ev[32].checks.failed == 3
    # the last command submits; the exit message carries the patch
    assert ev[41].kind is EventKind.GENERATION and ev[41].observation_text.startswith("diff --git")
    assert sum(e.tokens_in for e in ev) == 332906 and sum(e.tokens_out for e in ev) == 5196
    assert (
        ev[1].tokens_in == 1540
        and ev[1].tokens_out == 85
        and ev[1].extra["cache_read_tokens"] == 320
    )
    assert ev[1].extra["cost_usd"] == pytest.approx(0.00038626)
    # wall time: first timestamp to last, no event counted twice
    assert sum(e.wall_s for e in ev) == pytest.approx(256.2453827857971)
    assert ev[1].wall_s == pytest.approx(1775890959.089275 - 1775890958.6460054)


def test_swe_agent_1x(real_fixtures: Path) -> None:
    run = one(real_fixtures / "swe-agent" / "6e44b9__sweagenttestrepo-1c2844.traj")
    assert kinds(run) == ["message", "tool", "tool", "generation", "tool", "generation"]
    assert [e.tool for e in run.events] == [None, "find_file", "open", "edit", "bash", "submit"]
    assert calls(run) == 5 and statuses(run) == ["none"] * 6
    assert run.model == "gpt-4o" and run.task_id == "SWE-agent__test-repo-i1"
    assert run.success is None and run.extra["exit_status"] == "submitted"
    # run totals only (tokens_sent 7141, tokens_received 243): shared out, flagged
    assert sum(e.tokens_in for e in run.events) == 7141
    assert sum(e.tokens_out for e in run.events) == 243
    assert all("tokens" in e.flags for e in run.events[1:])
    assert any("only run totals" in f for f in run.flags)
    ins = [e.tokens_in for e in run.events[1:]]
    assert ins == sorted(ins)  # later calls read a longer context
    assert run.events[1].wall_s == pytest.approx(0.2814128329991945)


def test_swe_agent_0x(real_fixtures: Path) -> None:
    run = one(real_fixtures / "swe-agent" / "pydicom__pydicom-1458.traj")
    assert len(run.events) == 13 and calls(run) == 12
    assert [e.tool for e in run.events[1:4]] == ["create", "edit", "bash"]
    # step 3 runs the script: traceback; steps 6-8 are edits rejected by the linter
    assert run.events[3].status is Status.RUNTIME_ERROR
    assert statuses(run)[6:10] == ["static_reject"] * 3 + ["none"]
    assert kinds(run)[6:10] == ["repair"] * 4
    assert run.events[12].kind is EventKind.GENERATION
    assert run.model is None  # 0.x does not record it and the folder name is not kept here
    assert sum(e.tokens_in for e in run.events) == 122612
    assert sum(e.tokens_out for e in run.events) == 1369
    assert all("wall_s" in e.flags for e in run.events[1:])
    assert run.cost_usd == pytest.approx(1.26719)


def test_claude_code_dedupes_usage_by_message_id(real_fixtures: Path) -> None:
    run = one(real_fixtures / "claude-code" / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
    # 15 assistant lines, 7 API messages, 12 tool_use blocks, 2 user prompt lines
    assert run.extra["usage"]["api_messages"] == 7
    assert len(run.events) == 15 and calls(run) == 12
    assert kinds(run).count("memory") == 3
    assert (run.events[2].memory_write or "").startswith("- [in_progress]")
    # last usage line of each message: input + cache_creation + cache_read, and output
    assert sum(e.tokens_in for e in run.events) == 116010
    assert sum(e.tokens_out for e in run.events) == 953
    assert run.events[2].tokens_in == 3 + 10816 + 4734 and run.events[2].tokens_out == 322
    # the message with one Bash and four Globs: its usage shared evenly over the five
    assert [e.tokens_out for e in run.events[3:8]] == [57] * 5
    assert len({e.tokens_in for e in run.events[3:8]}) == 1
    # Write refused for lack of permission (is_error + Claude Code's refusal text): rejected
    write = run.events[12]
    assert write.tool == "Write" and write.status is Status.STATIC_REJECT
    assert run.events[14].kind is EventKind.REFLECT
    assert (
        run.model == "claude-sonnet-4-20250514"
        and run.task_id == "1af7fc5e-8455-4414-9ccd-011d40f70b2a"
    )


def test_a_batch_of_parallel_calls_shares_its_response_evenly(real_fixtures: Path) -> None:
    """Two parallel Globs of one response (`**/*.md` in ./.claude and ~/.claude: the session
    of issue 30, where they cost ΔC 17.25 and 0.39) take equal shares of its tokens; the run's token and C_raw
    totals are those of the rule that put the whole response on the first call."""
    from unittest import mock

    from efc_tui.parsers import _drafts
    from efc_tui.scoring.raw_cost import raw_cost

    path = (
        real_fixtures / "claude-code" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.first107lines.jsonl"
    )
    run = one(path)
    with mock.patch.object(_drafts, "batch_shares", lambda drafts: {}):  # all on the first
        first_only = one(path)
    globs = [e for e in run.events if e.tool == "Glob" and e.step == run.events[2].step]
    assert [e.index for e in globs] == [2, 3]
    for name in ("tokens_in", "tokens_out"):
        assert getattr(globs[0], name) == getattr(globs[1], name) > 0
        assert getattr(first_only.events[3], name) == 0  # the old rule, for contrast
    assert globs[0].extra["cache_read_tokens"] == globs[1].extra["cache_read_tokens"]
    for name in ("tokens_in", "tokens_out"):
        assert sum(getattr(e, name) for e in run.events) == sum(
            getattr(e, name) for e in first_only.events
        )
    c_new, c_old = float(raw_cost(run).delta.sum()), float(raw_cost(first_only).delta.sum())
    assert c_new == pytest.approx(c_old, rel=1e-12, abs=0)
    # the two calls now differ only by their own tool call, time and operation
    cost = raw_cost(run)
    assert cost.parts(2)["tokens"] == cost.parts(3)["tokens"]


def test_claude_code_inline_sidechains(real_fixtures: Path) -> None:
    run = one(real_fixtures / "claude-code" / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl")
    # 21 tool_use blocks, each with its result; 20 API messages
    assert calls(run) == 21 and len(run.events) == 28
    assert not any(e.extra.get("no_result") for e in run.events)
    side = [e for e in run.events if e.extra.get("sidechain")]
    assert len(side) == 12
    # the first Task call lacks its prompt: InputValidationError inside <tool_use_error>
    assert run.events[6].tool == "Task" and run.events[6].status is Status.STATIC_REJECT
    # Edit before Read is refused, and the retry after the Read is a repair
    assert run.events[23].tool == "Edit" and run.events[23].status is Status.STATIC_REJECT
    assert run.events[25].tool == "MultiEdit" and run.events[25].kind is EventKind.REPAIR
    # subagent totals from the Task results are not added on top of the sidechain usage
    assert sum(e.tokens_in for e in run.events) == 372135
    assert sum(e.tokens_out for e in run.events) == 3629
    assert run.extra["subagent_reported_tokens"] == 13751 + 20218
    assert run.events[7].extra["subagent"]["totalTokens"] == 13751


def test_claude_code_truncated_copy_and_summary_line(real_fixtures: Path) -> None:
    run = one(
        real_fixtures / "claude-code" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.first107lines.jsonl"
    )
    assert run.extra["titles"] == ["Empty Repo Setup: CLAUDE.md Foundation Created"]
    assert not any(e.extra.get("compaction") for e in run.events)  # a title, not a compaction
    # the copy stops before two Task results and the last Bash result
    assert [e.tool for e in run.events if e.extra.get("no_result")] == ["Task", "Task", "Bash"]
    assert calls(run) == 42


def test_claude_code_semisynthetic_new_line_types(real_fixtures: Path) -> None:
    run = one(
        real_fixtures / "claude-code" / "semisynthetic" / "agent-sessions_stage0_claude_small.jsonl"
    )
    errors = [e for e in run.events if e.kind is EventKind.ERROR]
    assert errors and all(e.status is Status.API_ERROR for e in errors)
    assert [e.extra.get("http_status") for e in errors if e.extra.get("subtype") == "error"] == [
        429
    ]
    assert sum(1 for e in run.events if e.extra.get("compaction")) == 3
    assert any(e.extra.get("images") == 1 for e in run.events)


def test_codex_semisynthetic(real_fixtures: Path) -> None:
    run = one(
        real_fixtures
        / "codex-rollout"
        / "semisynthetic"
        / "agent-sessions_stage0_codex_small.jsonl"
    )
    assert run.task_id == "019fc8be-3658-7ca3-9e29-000000000000"
    assert run.model == "gpt-5.6-luna"
    # token_count: input 16341 (3584 cached), output 81, shared evenly over the response's
    # four calls (the first calls take the remainders)
    first = run.events[1]
    assert (first.tool, first.tokens_in, first.tokens_out) == ("shell", 4086, 21)
    assert [e.tokens_in for e in run.events[1:5]] == [4086, 4085, 4085, 4085]
    assert sum(e.tokens_out for e in run.events[1:5]) == 81
    assert sum(e.extra["cache_read_tokens"] for e in run.events[1:5]) == 3584
    # user_message (event) and the user message item are one event
    assert [e.observation_text for e in run.events].count("List the files") == 1


# --------------------------------------------------------------------------- own fixtures


def test_claude_interrupted_session() -> None:
    run = one(AGENTS / "claude_interrupted.jsonl")
    assert kinds(run) == [
        "message",
        "check",
        "tool",
        "repair",
        "check",
        "message",
        "reflect",
        "message",
        "message",
        "memory",
        "tool",
        "error",
    ]
    assert statuses(run) == [
        "none",
        "assertion_error",
        "none",
        "none",
        "passed",
        "none",
        "none",
        "none",
        "none",
        "none",
        "none",
        "api_error",
    ]
    ev = run.events
    assert ev[1].checks is not None and (ev[1].checks.passed, ev[1].checks.failed) == (1, 1)
    assert ev[1].extra["thought"] == "I'll run the tests first."
    # parallel calls of one message: its usage (1110 in, 40 out) shared evenly
    assert (ev[1].tokens_in, ev[1].tokens_out, ev[2].tokens_in, ev[2].tokens_out) == (
        555,
        20,
        555,
        20,
    )
    assert sum(e.tokens_in for e in ev) == 5341 and sum(e.tokens_out for e in ev) == 255
    assert ev[5].extra["images"] == 1 and "[image: image/png" in ev[5].observation_text
    assert "iVBOR" not in ev[5].observation_text  # base64 stays out of the text
    assert ev[7].extra["compaction"] and ev[8].extra["compaction"]
    assert (
        ev[9].memory_write is not None
        and "[in_progress] Add a subtraction test" in ev[9].memory_write
    )
    assert ev[10].extra["no_result"] is True
    # the truncated last line is a warning, not an error
    assert len(run.warnings) == 1 and "truncated last line" in run.warnings[0]
    assert ":19:" in run.warnings[0]
    # wall time: the 4m48s the human took to write the next prompt is not counted
    assert [round(e.wall_s, 3) for e in ev] == [0, 5, 0.2, 2.9, 3.9, 0, 4, 1, 0, 2.1, 1.9, 11]


def test_claude_subagent_file_is_its_own_run(tmp_path: Path) -> None:
    lines = []
    for raw in (AGENTS / "claude_interrupted.jsonl").read_text().splitlines()[:10]:
        obj = json.loads(raw)
        obj["isSidechain"] = True
        obj["agentId"] = "a1b2c3"
        lines.append(json.dumps(obj))
    path = tmp_path / "agent-a1b2c3.jsonl"
    path.write_text("\n".join(lines) + "\n")
    run = one(path)
    assert run.extra["subagent_of"] == "11111111-2222-3333-4444-555555555555"
    assert all(e.extra.get("sidechain") for e in run.events)
    assert any("subagent transcript" in f for f in run.flags)
    assert not any("inlined" in f for f in run.flags)


def test_non_utf8_bytes_are_replaced() -> None:
    run = one(AGENTS / "claude_latin1.jsonl")
    assert run.events[1].observation_text.startswith("caf\ufffd ok \ufffd")
    assert run.events[1].status is Status.PASSED
    assert any("invalid UTF-8" in w for w in run.warnings)
    orjson.dumps(run.events[1].observation_text)  # exportable


def test_non_utf8_in_json_documents(tmp_path: Path) -> None:
    src = (AGENTS / "mini_v2_parallel.traj.json").read_bytes()
    bad = tmp_path / "x.traj.json"
    bad.write_bytes(src.replace(b"Find where", b"Find wh\xe9re"))
    run = one(bad)
    assert run.events[0].observation_text.startswith("Find wh\ufffdre")
    assert run.warnings and "invalid UTF-8" in run.warnings[0]


def test_codex_session() -> None:
    run = one(AGENTS / "codex_session.jsonl")
    assert kinds(run) == [
        "message",
        "message",
        "check",
        "tool",
        "plan",
        "repair",
        "check",
        "error",
        "reflect",
        "message",
        "message",
        "tool",
    ]
    assert statuses(run) == [
        "none",
        "none",
        "assertion_error",
        "none",
        "none",
        "none",
        "passed",
        "api_error",
        "none",
        "none",
        "none",
        "none",
    ]
    ev = run.events
    assert (
        ev[0].extra["context"] is True
        and ev[1].observation_text == "Fix the failing test in calc.py"
    )
    assert ev[2].extra["thought"] == "**Running tests**"
    assert ev[2].extra["exit_code"] == 1 and ev[3].extra["exit_code"] == 0
    assert ev[4].plan == "Fix add()\n- [in_progress] Fix add()\n- [pending] Run the tests"
    assert ev[5].tool == "apply_patch" and ev[5].action_text.startswith("*** Begin Patch")
    assert ev[9].extra["compaction"] and ev[9].observation_text.startswith("Summary:")
    assert ev[11].extra["no_result"] is True
    # token_count deltas: 5000, 6000, 6500, 6700, 6800, 7000 in; the repeated count skipped
    # (the first response's 5000 shared by its two parallel calls)
    assert [e.tokens_in for e in ev if e.tokens_in] == [2500, 2500, 6000, 6500, 6700, 6800, 7000]
    assert sum(e.tokens_in for e in ev) == 38000 and sum(e.tokens_out for e in ev) == 450
    assert ev[2].extra["cache_read_tokens"] == ev[3].extra["cache_read_tokens"] == 500
    assert (ev[3].tokens_in, ev[3].tokens_out) == (ev[2].tokens_in, ev[2].tokens_out)
    assert run.model == "gpt-5-codex" and run.extra["models"] == ["gpt-5-codex", "gpt-5"]
    assert [round(e.wall_s, 3) for e in ev] == [0.001, 0, 4, 0, 2, 2.5, 2.5, 1, 2, 45, 0, 3]
    assert run.extra["turns_aborted"] == 1


def test_codex_interrupted_session() -> None:
    run = one(AGENTS / "codex_interrupted.jsonl")
    assert kinds(run) == ["message", "message", "check", "tool"]
    assert [e.extra.get("no_result") for e in run.events] == [None, None, True, True]
    assert "truncated last line" in run.warnings[0] and ":12:" in run.warnings[0]


def test_mini_v2_text_mode_format_error_timeout_and_report() -> None:
    run = one(AGENTS / "mini_with_report" / "demo__calc-1.traj.json")
    assert kinds(run) == ["message", "check", "error", "repair", "tool", "check", "generation"]
    assert statuses(run) == [
        "none",
        "assertion_error",
        "static_reject",
        "none",
        "timeout",
        "passed",
        "none",
    ]
    assert run.events[2].extra["format_error"] is True
    assert run.success is False and (run.success_from or "").endswith("report.json")
    assert (
        sum(e.tokens_in for e in run.events) == 7500
        and sum(e.tokens_out for e in run.events) == 195
    )
    assert run.model == "openai/gpt-4o-mini"


def test_mini_parallel_tool_calls_and_missing_result() -> None:
    run = one(AGENTS / "mini_v2_parallel.traj.json")
    ev = run.events
    assert [e.action_text for e in ev[1:4]] == [
        "grep -rn 'def add' .",
        "ls -la",
        "python -c 'import calc'",
    ]
    # LimitsExceeded: the harness's stop is an error event of its own (timeout-like), no
    # verdict on the call it cut off
    assert (ev[4].kind, ev[4].status) == (EventKind.ERROR, Status.TIMEOUT)
    assert ev[4].observation_text == "LimitsExceeded" and len(ev) == 5
    # results arrive in the other order and are joined by tool_call_id
    assert ev[1].observation_text.endswith("./calc.py:1:def add(a, b):\n</output>")
    assert ev[2].observation_text.startswith("<returncode>0</returncode>\n<output>\ncalc.py")
    # the first response's 800 shared by its two parallel calls
    assert (ev[1].tokens_in, ev[2].tokens_in, ev[3].tokens_in) == (400, 400, 900)
    assert ev[3].extra["no_result"] is True and ev[3].status is Status.NONE
    assert any("no result" in f for f in run.flags)
    assert run.success is None and run.extra["exit_status"] == "LimitsExceeded"


def test_swe_agent_1x_fixture() -> None:
    run = one(AGENTS / "swe_agent_1x.traj")
    assert kinds(run) == ["message", "tool", "check", "repair", "error"]
    # the harness's exit_cost step: a budget limit, timeout-like (GUIDE rule 7)
    assert statuses(run) == ["none", "none", "assertion_error", "none", "timeout"]
    assert run.model == "claude-3-7-sonnet-20250219"  # replay_config is a JSON string here
    assert run.task_id == "demo__calc-2"
    assert (
        sum(e.tokens_in for e in run.events) == 9000
        and sum(e.tokens_out for e in run.events) == 300
    )
    assert [e.wall_s for e in run.events] == [0.0, 0.5, 2.0, 0.3, 0.0]


@pytest.mark.parametrize("fmt", ["mini-swe-agent", "swe-agent", "claude-code", "codex"])
def test_empty_file_is_an_input_error(fmt: str) -> None:
    path = AGENTS / "empty.jsonl"
    with pytest.raises(InputError) as err:
        list(get_reader(fmt).read(path, ReadOptions()))
    assert "empty.jsonl" in str(err.value) and "empty" in err.value.reason
    with pytest.raises(InputError):
        detect(path)


@pytest.mark.parametrize("fmt", ["mini-swe-agent", "swe-agent", "claude-code", "codex"])
def test_garbled_file_is_an_input_error_naming_it(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "garbled.jsonl"
    path.write_bytes(b"\x00\x01 this is not json\n{]\n")
    with pytest.raises(InputError) as err:
        list(get_reader(fmt).read(path, ReadOptions()))
    assert err.value.path == str(path)


@pytest.mark.parametrize("fmt", ["mini-swe-agent", "swe-agent"])
def test_wrong_json_document_is_an_input_error(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"hello": [1, 2, 3]}))
    with pytest.raises(InputError, match="not a"):
        list(get_reader(fmt).read(path, ReadOptions()))
    cut = tmp_path / "cut.traj.json"
    cut.write_bytes((AGENTS / "mini_v2_parallel.traj.json").read_bytes()[:500])
    with pytest.raises(InputError, match="cut short"):
        list(get_reader(fmt).read(cut, ReadOptions()))


@pytest.mark.parametrize("name", ["claude_interrupted.jsonl", "codex_session.jsonl"])
def test_malformed_middle_line_strict_and_lenient(tmp_path: Path, name: str) -> None:
    lines = (AGENTS / name).read_bytes().split(b"\n")
    lines[3] = b'{"type": "user", broken'
    path = tmp_path / name
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(InputError) as err:
        list(load(path))
    assert err.value.line == 4 and err.value.path == str(path)
    run = one(path, lenient=True)
    assert any(f == "lenient: 1 malformed line(s) skipped" for f in run.flags)
    assert any(":4: skipped" in w for w in run.warnings)


def test_unknown_line_types_are_ignored(tmp_path: Path) -> None:
    src = (AGENTS / "codex_session.jsonl").read_text()
    extra = '{"timestamp":"2025-10-01T10:00:00.500Z","type":"brand_new_thing","payload":{"x":1}}\n'
    extra += '{"timestamp":"2025-10-01T10:00:00.600Z","type":"event_msg","payload":{"type":"new_event"}}\n'
    path = tmp_path / "codex.jsonl"
    path.write_text(src.replace("\n", "\n" + extra, 1))
    assert len(one(path).events) == 12
    src = (AGENTS / "claude_interrupted.jsonl").read_text()
    path = tmp_path / "claude.jsonl"
    path.write_text(src.replace("\n", '\n{"type":"brand-new","sessionId":"x","weird":[1]}\n', 1))
    assert len(one(path).events) == 12


def _claude_line(obj: dict) -> bytes:
    return orjson.dumps(obj) + b"\n"


def test_ten_megabyte_lines(tmp_path: Path) -> None:
    big = "x" * (10 * 1024 * 1024)
    base = {"sessionId": "s", "isSidechain": False, "timestamp": "2025-09-03T10:00:00Z"}
    lines = [
        {
            **base,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "message": {"role": "user", "content": "go"},
        },
        {
            **base,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "model": "claude-x",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {"command": "cat big"},
                    }
                ],
                "usage": {"input_tokens": 1, "output_tokens": 2},
            },
        },
        {
            **base,
            "type": "user",
            "uuid": "u2",
            "parentUuid": "a1",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": big}],
            },
        },
    ]
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"".join(_claude_line(o) for o in lines))
    run = one(path)
    assert len(run.events[1].observation_text) == len(big)
    # a 10 MB FIRST line: detection cannot parse it from the head and reads its text instead
    first = tmp_path / "first.jsonl"
    first.write_bytes(
        b"".join(
            _claude_line(o)
            for o in [
                {
                    "parentUuid": None,
                    **base,
                    "type": "user",
                    "uuid": "u0",
                    "message": {"role": "user", "content": big},
                },
                *lines[1:],
            ]
        )
    )
    assert detect(first).name == "claude-code"
    assert len(one(first).events[0].observation_text) == len(big)
    codex = tmp_path / "rollout.jsonl"
    meta = {
        "timestamp": "2025-10-01T10:00:00.000Z",
        "type": "session_meta",
        "payload": {"id": "abc", "base_instructions": {"text": big}},
    }
    item = {
        "timestamp": "2025-10-01T10:00:01.000Z",
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "hi"}],
        },
    }
    codex.write_bytes(orjson.dumps(meta) + b"\n" + orjson.dumps(item) + b"\n")
    assert detect(codex).name == "codex"
    assert one(codex).task_id == "abc"


def test_detection_prefers_content_over_extension(tmp_path: Path) -> None:
    # a Codex rollout saved as .json, a mini trajectory saved as .traj
    p = tmp_path / "rollout.json"
    p.write_bytes((AGENTS / "codex_session.jsonl").read_bytes())
    assert detect(p).name == "codex"
    q = tmp_path / "x.traj"
    q.write_bytes((AGENTS / "mini_v2_parallel.traj.json").read_bytes())
    assert detect(q).name == "mini-swe-agent"
    r = tmp_path / "y.json"
    r.write_bytes((AGENTS / "swe_agent_1x.traj").read_bytes())
    assert detect(r).name == "swe-agent"


def test_gzipped_session(tmp_path: Path) -> None:
    import gzip

    p = tmp_path / "s.jsonl.gz"
    p.write_bytes(gzip.compress((AGENTS / "claude_interrupted.jsonl").read_bytes()))
    assert detect(p).name == "claude-code"
    assert len(one(p).events) == 12


# --------------------------------------------------------------------------- helpers


def test_parse_time() -> None:
    assert parse_time("2025-09-03T00:47:19.293Z") == pytest.approx(1756860439.293)
    assert parse_time("2025-09-03T00:47:19.2931234Z") == pytest.approx(1756860439.293123)
    assert parse_time("2025-09-03T02:47:19+02:00") == pytest.approx(1756860439.0)
    assert parse_time("2025-09-03T00:47:19") == pytest.approx(1756860439.0)  # naive: UTC
    assert parse_time(1775890958.6460054) == 1775890958.6460054
    assert parse_time(1756860439293) == pytest.approx(1756860439.293)  # milliseconds
    for bad in ("[trimmed for fixture]", "", None, True, float("nan"), -5, {"a": 1}):
        assert parse_time(bad) is None


def test_apportion_is_exact() -> None:
    assert apportion(10, [1, 1, 1]) == [4, 3, 3]
    assert apportion(7141, [1, 2, 3, 4, 5]) == [476, 952, 1428, 1904, 2381]
    assert sum(apportion(1369, [0.3, 7, 2, 0])) == 1369
    assert apportion(5, [0, 0]) == [3, 2]
    assert apportion(3, []) == []


def test_content_text_blocks() -> None:
    text, images = content_text(
        [
            {"type": "text", "text": "a"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/jpeg", "data": "QUJD"},
            },
            {"type": "tool_result", "content": [{"type": "text", "text": "b"}]},
            {"type": "weird"},
            3,
            None,
        ]
    )
    assert text == "a\n[image: image/jpeg, 3 bytes]\nb" and images == 1
    assert content_text(None) == ("", 0) and content_text("s") == ("s", 0)


# --------------------------------------------------------------------------- shared classifier


def test_classifier_grep_no_match_is_no_verdict() -> None:
    # exit 1 from grep / diff / test means "no", not "failed" (when the text shows no failure)
    assert classify_observation("", exit_code=1, command="grep -n foo bar.py")[0] is Status.NONE
    assert (
        classify_observation("", exit_code=1, command="cd src && grep -r x . 2>&1")[0]
        is Status.NONE
    )
    assert (
        classify_observation("1c1\n< a\n---\n> b", exit_code=1, command="diff a b")[0]
        is Status.NONE
    )
    # a failure shown through the pipe still counts
    tb = 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad\n'
    assert (
        classify_observation(tb, exit_code=1, command="python x.py | grep -v warn")[0]
        is Status.RUNTIME_ERROR
    )
    # other commands, exit 2 from grep, and no command: unchanged behaviour
    assert classify_observation("", exit_code=1, command="python x.py")[0] is Status.RUNTIME_ERROR
    assert classify_observation("", exit_code=2, command="grep x nofile")[0] is Status.RUNTIME_ERROR
    assert classify_observation("", exit_code=1)[0] is Status.RUNTIME_ERROR
    assert classify_observation("", exit_code=1, command="grep && make")[0] is Status.RUNTIME_ERROR


def test_classifier_swe_agent_lint_rejection() -> None:
    text = (
        "Your proposed edit has introduced new syntax error(s). Please understand the fixes and "
        "retry your edit commmand.\n\nERRORS:\n- E999 SyntaxError: unmatched ']'\n"
    )
    assert classify_observation(text)[0] is Status.STATIC_REJECT


# --------------------------------------------------------------------------- CLI


def _real_or_own(real: Path | None) -> list[tuple[str, Path]]:
    own = [
        ("mini-swe-agent", AGENTS / "mini_v2_parallel.traj.json"),
        ("swe-agent", AGENTS / "swe_agent_1x.traj"),
        ("claude-code", AGENTS / "claude_interrupted.jsonl"),
        ("codex", AGENTS / "codex_session.jsonl"),
    ]
    if real is None:
        return own
    return [
        ("mini-swe-agent", real / "mini-swe-agent" / "sqlfluff__sqlfluff-2419.traj.json"),
        ("swe-agent", real / "swe-agent" / "pydicom__pydicom-1458.traj"),
        ("claude-code", real / "claude-code" / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"),
        (
            "codex",
            real / "codex-rollout" / "semisynthetic" / "agent-sessions_stage0_codex_small.jsonl",
        ),
        *own,
    ]


def test_cli_score_and_validate(real_fixtures: Path) -> None:
    for name, path in _real_or_own(real_fixtures):
        r = runner.invoke(app, ["score", "--jsonl", "-q", str(path)])
        assert r.exit_code == 0, (path, r.output)
        row = json.loads(r.stdout.strip().splitlines()[0])
        assert row["source_format"] == name and row["events"] > 0
        r = runner.invoke(app, ["validate", str(path)])
        assert r.exit_code == 0, (path, r.output)
        assert f"ok: {name}," in r.stdout
        r = runner.invoke(app, ["score", "-q", "--format", name, str(path)])
        assert r.exit_code == 0


def test_cli_own_fixtures_without_shared() -> None:
    for name, path in _real_or_own(None):
        r = runner.invoke(app, ["validate", str(path)])
        assert r.exit_code == 0 and f"ok: {name}," in r.stdout
    r = runner.invoke(app, ["score", str(AGENTS / "empty.jsonl")])
    assert r.exit_code == 2 and "empty" in r.output
    r = runner.invoke(app, ["formats"])
    for name in ("mini-swe-agent", "swe-agent", "claude-code", "codex"):
        assert name in r.stdout
