"""Readers for Inspect AI, Harbor ATIF, OpenHands, OpenAI / Anthropic message lists,
OpenTelemetry GenAI spans and Gemini CLI sessions (issue 3, formats 5-9 + bonus).

Numbers asserted on the real files (../shared/fixtures/real) were read off the files by
hand: event and tool-call counts, statuses, success labels, models and token totals (the
token totals match the files' own aggregates where they have one: Inspect
``stats.model_usage``, ATIF ``final_metrics``, OpenHands ``llm_metrics``). The awkward
cases use the hand-made fixtures in tests/fixtures/more (written by ``_make.py`` there).
"""

from __future__ import annotations

import struct
from pathlib import Path

import orjson
import pytest

from efc_tui.errors import InputError
from efc_tui.model import EventKind, Run, Status
from efc_tui.parsers import detect, get_reader, load
from efc_tui.parsers.base import ReadOptions
from efc_tui.parsers.inspect_ai import _model_inputs_reversed, score_success
from efc_tui.parsers.status import classify_observation, infer_kind
from tests.conftest import FIXTURES

MORE = FIXTURES / "more"
MINE = (
    "inspect-ai",
    "atif",
    "openhands",
    "openai-chat",
    "anthropic-messages",
    "otel-genai",
    "gemini-cli",
)
K = EventKind
S = Status


def runs(path: Path, fmt: str | None = None, *, lenient: bool = False) -> list[Run]:
    return list(load(path, fmt, lenient=lenient))


def one(path: Path, fmt: str | None = None) -> Run:
    [run] = runs(path, fmt)
    return run


def kinds(run: Run) -> list[EventKind]:
    return [e.kind for e in run.events]


def statuses(run: Run) -> list[Status]:
    return [e.status for e in run.events]


def tokens(run: Run) -> tuple[int, int]:
    return sum(e.tokens_in for e in run.events), sum(e.tokens_out for e in run.events)


def read_tokens(run: Run) -> tuple[int, int]:
    """Token totals over the events whose usage was read, not estimated."""
    evs = [e for e in run.events if "tokens" not in e.flags]
    return sum(e.tokens_in for e in evs), sum(e.tokens_out for e in evs)


def tool_calls(run: Run) -> int:
    return sum(e.tool_calls for e in run.events)


# --------------------------------------------------------------------------- Inspect AI (real)


def test_inspect_browser_json(real_fixtures: Path) -> None:
    path = real_fixtures / "inspect-ai" / "2025-05-12T20-27-36-04-00_browser.truncated.json"
    assert detect(path).name == "inspect-ai"
    run = one(path)
    assert run.run_id == "Ta3ZFVTCTcjsb3AEX9FD9v/1#1"
    assert (run.task_id, run.task_family, run.model) == ("1", "browser", "openai/gpt-4o-mini")
    assert run.success is True  # scores.includes.value == "C"
    assert run.source_format == "inspect-ai"
    assert kinds(run) == [K.MESSAGE, K.TOOL, K.TOOL, K.TOOL, K.TOOL, K.GENERATION]
    assert [e.tool for e in run.events[1:5]] == ["web_browser_go"] + ["web_browser_click"] * 3
    assert tool_calls(run) == 4
    assert set(statuses(run)) == {S.NONE}
    assert run.events[1].action_text == '{"url":"https://www.aisi.gov.uk/"}'
    assert run.events[1].observation_text.startswith(
        '[132] link "We are now the AI Security Institute"'
    )
    # the user input is an attachment:// reference, resolved
    assert run.events[0].observation_text.startswith("Use the web browser tool to navigate")
    # stats.model_usage: input 15235 (cache read 9088 included), output 281
    assert tokens(run) == (15235, 281)
    assert sum(e.extra.get("cache_read_tokens", 0) for e in run.events) == 9088
    assert not any("tokens" in e.flags for e in run.events)
    # first model call 20:27:38.462180 .. last model call completed 20:27:56.685060
    assert sum(e.wall_s for e in run.events) == pytest.approx(18.22288, abs=1e-4)
    assert run.events[5].action_text.startswith("The AI Security Institute (AISI)")


def test_inspect_old_transcript_log(real_fixtures: Path) -> None:
    run = one(real_fixtures / "inspect-ai" / "log_formats.json")
    assert run.run_id == "BpiPFmbVcMCRUAXv8ovCTx/1#1"
    assert (run.model, run.success) == ("ollama/llama3.1", False)  # score "I"
    # the system message is a prompt, not an event
    assert kinds(run) == [K.MESSAGE, K.GENERATION]
    assert run.events[0].extra["role"] == "user"
    # tc:// references into transcript.content are resolved
    assert run.events[0].observation_text.startswith(
        "Is the following statement something you would say?"
    )
    assert run.events[1].action_text == "No"
    assert tokens(run) == (66, 2)


def test_inspect_eval_zip(real_fixtures: Path) -> None:
    path = real_fixtures / "inspect-ai" / "log_message_deduplication.eval"
    assert detect(path).name == "inspect-ai"
    run = one(path)
    assert run.run_id == "oNudNHL32se6mcUiF8ingo/0#1"
    assert (run.task_id, run.task_family) == ("0", "inspect_test_utils/guess_number")
    assert (run.model, run.success) == ("hardcoded/hardcoded", False)  # closeness_log 0.0
    assert kinds(run) == [K.MESSAGE] + [K.TOOL] * 5 + [K.GENERATION]
    for e in run.events[1:6]:
        assert (e.tool, e.action_text, e.status) == ("bash", "ls", S.NONE)
        assert e.extra["exit_code"] == 0  # the sandbox exec event's result
        assert e.observation_text.startswith("bin\nboot\ndev")
    assert run.events[6].action_text == "done"
    # the mock model records no usage: every event's tokens are estimated, and flagged
    assert all("tokens" in e.flags for e in run.events)
    assert any("estimated" in f for f in run.flags)


# --------------------------------------------------------------------------- Inspect AI (own)


@pytest.mark.parametrize(
    ("refs", "expected"),
    [
        ([[0, 3]], [2, 1, 0]),
        ([[0, 2], [4, 6]], [5, 4, 1, 0]),  # several ranges: the last one's end first
        ([[5, 99]], [6, 5]),  # an end past the pool: up to the pool's end, as a slice
        ([[9, 12], [3, 2], [2, 2]], []),  # past the pool, backwards, empty
        ([[-1, 3], [1, None], [1], "x", [True, 2], [0, 1]], [0]),  # malformed ranges: skipped
    ],
)
def test_inspect_input_refs_read_from_the_end(refs: list[object], expected: list[int]) -> None:
    """A model event's ``input_refs`` into the ``message_pool``, last message first, exactly
    as the ranges sliced out would be (without copying them: each event's refs span the
    whole conversation so far)."""
    pool = list(range(7))
    assert list(_model_inputs_reversed({"input_refs": refs}, {"message_pool": pool})) == expected
    # an event with its own ``input`` uses that, not the pool
    assert list(
        _model_inputs_reversed({"input": [7, 8], "input_refs": refs}, {"message_pool": pool})
    ) == [8, 7]


def test_inspect_events_statuses_and_parallel_calls() -> None:
    first, second = runs(MORE / "inspect_two_samples.json")
    assert (first.run_id, second.run_id) == ("RUN1/task-a#1", "RUN1/task-a#2")
    assert (first.success, second.success) == (True, False)
    assert first.budget == {"message_limit": 30, "epochs": 2}
    assert kinds(first) == [K.MESSAGE, K.CHECK, K.TOOL, K.MESSAGE, K.TOOL, K.REPAIR, K.GENERATION]
    assert statuses(first) == [
        S.NONE,
        S.ASSERTION_ERROR,
        S.TIMEOUT,
        S.NONE,
        S.STATIC_REJECT,
        S.NONE,
        S.NONE,
    ]
    pytest_ev, timeout_ev = first.events[1], first.events[2]
    # two parallel calls from one model call (1050 - 50 in, 50 out): shared evenly
    assert (pytest_ev.tokens_in, pytest_ev.tokens_out) == (500, 25)
    assert (timeout_ev.tokens_in, timeout_ev.tokens_out) == (500, 25)
    assert pytest_ev.step == timeout_ev.step
    assert pytest_ev.checks is not None
    assert (pytest_ev.checks.passed, pytest_ev.checks.failed) == (2, 1)
    assert pytest_ev.extra["exit_code"] == 1
    assert pytest_ev.extra["thought"] == "Running both."
    # an image in the user message is a note, never base64 text
    assert first.events[0].observation_text == "Make the tests pass.\n[image: image/png, 100 bytes]"
    # "Please continue." came only in a later model call's input
    assert first.events[3].observation_text == "Please continue."
    assert tokens(first) == (1000 + 1200 + 1300 + 1400, 50 + 20 + 30 + 10)
    assert timeout_ev.wall_s == pytest.approx(10.0)
    # sample 2 has no events: built from messages; its sample error is an error event
    assert kinds(second) == [K.MESSAGE, K.TOOL, K.ERROR]
    # the tool message's error (cat: No such file or directory): the call ran and failed
    assert statuses(second)[1:] == [S.RUNTIME_ERROR, S.API_ERROR]
    assert any("no model events" in f for f in second.flags)


def test_inspect_zstd_eval() -> None:
    run = one(MORE / "inspect_zstd.eval")
    assert (run.run_id, run.task_id, run.success) == ("ZRUN/7#1", "7", True)
    assert kinds(run) == [K.MESSAGE, K.GENERATION]
    # total_tokens - output_tokens: Anthropic-style input excluding the cache, added back
    assert (run.events[1].tokens_in, run.events[1].tokens_out) == (115, 2)
    assert run.events[1].extra["cache_write_tokens"] == 100
    assert run.events[1].wall_s == pytest.approx(2.0)


def _zip_with(members: list[tuple[str, bytes, int, bytes | None]]) -> bytes:
    """A ZIP whose member bytes are given raw (``comp``) with the declared method."""
    import zlib

    out = bytearray()
    central = bytearray()
    for name, data, method, comp in members:
        comp = data if comp is None else comp
        crc = zlib.crc32(data) & 0xFFFFFFFF
        nb = name.encode()
        off = len(out)
        out += struct.pack(
            "<IHHHHHIIIHH",
            0x04034B50,
            63,
            0,
            method,
            0,
            0x21,
            crc,
            len(comp),
            len(data),
            len(nb),
            0,
        )
        out += nb + comp
        central += (
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50,
                63,
                63,
                0,
                method,
                0,
                0x21,
                crc,
                len(comp),
                len(data),
                len(nb),
                0,
                0,
                0,
                0,
                0,
                off,
            )
            + nb
        )
    cd = len(out)
    out += central + struct.pack(
        "<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), cd, 0
    )
    return bytes(out)


def test_inspect_eval_bad_members(tmp_path: Path) -> None:
    import zstandard

    sample = orjson.dumps({"id": 1, "epoch": 1, "messages": [{"role": "user", "content": "hi"}]})
    header = orjson.dumps({"version": 2, "status": "success", "eval": {"run_id": "R", "task": "t"}})
    good = zstandard.ZstdCompressor().compress(sample)
    bad = bytearray(good)
    bad[len(bad) // 2] ^= 0xFF
    cases: dict[str, list[tuple[str, bytes, int, bytes | None]]] = {
        "corrupt_zstd": [
            ("header.json", header, 0, None),
            ("samples/1_epoch_1.json", sample, 93, bytes(bad)),
        ],
        "unknown_method": [
            ("header.json", header, 0, None),
            ("samples/1_epoch_1.json", sample, 99, b"??"),
        ],
        "not_json": [
            ("header.json", header, 0, None),
            ("samples/1_epoch_1.json", b"{nope", 0, None),
        ],
        "no_samples": [("header.json", header, 0, None)],
    }
    for name, members in cases.items():
        p = tmp_path / f"{name}.eval"
        p.write_bytes(_zip_with(members))
        assert detect(p).name == "inspect-ai"
        with pytest.raises(InputError) as info:
            runs(p)
        assert str(p) in str(info.value), name
    ok = tmp_path / "ok.eval"
    ok.write_bytes(
        _zip_with([("header.json", header, 0, None), ("samples/1_epoch_1.json", sample, 93, good)])
    )
    assert kinds(one(ok)) == [K.MESSAGE]


def test_garbled_zip_names_the_file() -> None:
    path = MORE / "garbled.eval"
    with pytest.raises(InputError) as info:
        runs(path)
    assert str(path) in str(info.value) and "zip" in info.value.reason


@pytest.mark.parametrize(
    ("value", "label"),
    [
        ("C", True),
        ("I", False),
        ("P", False),
        ("N", False),
        (1.0, True),
        (0.0, False),
        (0.5, False),
        (True, True),
        ({"a": "C", "b": "C"}, True),
        ({"a": "C", "b": "I"}, False),
        ("maybe", None),
        (None, None),
    ],
)
def test_inspect_score_values(value: object, label: bool | None) -> None:
    assert score_success(value) is label


# --------------------------------------------------------------------------- ATIF


def test_atif_terminus_invalid_json(real_fixtures: Path) -> None:
    run = one(real_fixtures / "atif-harbor" / "terminus-2_hello-world-invalid-json.trajectory.json")
    assert (run.model, run.harness, run.success, run.task_id) == (
        "openai/gpt-4o",
        "terminus-2",
        None,
        None,
    )
    assert kinds(run) == [K.MESSAGE, K.TOOL, K.REPAIR, K.GENERATION, K.GENERATION]
    # step 2: no tool call, the harness rejected the response it could not parse
    assert run.events[1].tool is None and run.events[1].status is S.STATIC_REJECT
    assert run.events[1].observation_text.startswith("Previous response had parsing errors")
    # terminus-2 has source_call_id null: results pair with calls by position
    assert run.events[2].action_text == "printf 'Hello, world!\\n' > hello.txt\n"
    assert run.events[2].observation_text.startswith("New Terminal Output:")
    assert [e.tool for e in run.events[3:]] == ["mark_task_complete"] * 2
    assert tool_calls(run) == 4
    assert tokens(run) == (2417, 200)  # final_metrics totals
    assert run.cost_usd == pytest.approx(0.0080425)
    assert run.events[1].extra["reasoning"].startswith("The task is straightforward")
    # ATIF steps here carry no timestamps: every model or tool call's time is unknown (flagged);
    # the user's message takes no agent time and is not flagged
    assert [("wall_s" in e.flags) for e in run.events] == [False, True, True, True, True]


def test_atif_context_summarization(real_fixtures: Path) -> None:
    run = one(
        real_fixtures
        / "atif-harbor"
        / "terminus-2_hello-world-context-summarization.trajectory.json"
    )
    assert len(run.events) == 10 and tool_calls(run) == 7
    comp = run.events[4]
    assert comp.kind is K.MESSAGE and comp.extra["compaction"] is True
    assert len(comp.extra["subagent_trajectory_ref"]) == 3
    # the steps' own metrics; final_metrics (7802 / 1030) also counts the summariser's files
    assert tokens(run) == (6502, 690)
    # the mismatch with final_metrics is flagged, naming both sums, never resolved silently
    assert run.extra["source_totals"]["tokens_in"] == 7802
    assert any(
        f.startswith("source totals: tokens_in 6502 from the events, 7802 in ") for f in run.flags
    )
    assert any(
        f.startswith("source totals: tokens_out 690 from the events, 1030 in ") for f in run.flags
    )
    assert any("3 referenced sub-trajectory file(s) not found" in f for f in run.flags)


def test_atif_openhands_conversion(real_fixtures: Path) -> None:
    run = one(real_fixtures / "atif-harbor" / "openhands_hello-world.trajectory.json")
    # step 1 (the system prompt) is not an event; the other system steps are messages
    assert kinds(run) == [K.MESSAGE] * 3 + [K.GENERATION, K.GENERATION]
    assert [e.extra["role"] for e in run.events[:3]] == ["user", "system", "system"]
    assert [e.tool for e in run.events[3:]] == ["str_replace_editor", "finish"]
    assert run.events[3].observation_text == "File created successfully at: /app/hello.txt"
    assert tokens(run) == (220, 80)
    # a final finish call has no result, as expected: not reported as missing
    assert "no_result" not in run.events[4].extra


def test_atif_harbor_trial_parallel_calls() -> None:
    path = MORE / "harbor_trial" / "hello-world__Ab3xY" / "agent" / "trajectory.json"
    run = one(path)
    assert (run.task_id, run.success, run.reward) == ("hello-world", True, 1.0)
    # ruff's own success line passes its check, so the write after it is no repair
    assert kinds(run) == [K.MESSAGE, K.CHECK, K.CHECK, K.GENERATION, K.CHECK, K.REFLECT]
    # results came back in the other order; joined by source_call_id
    assert run.events[1].action_text == "pytest -q" and run.events[1].status is S.ASSERTION_ERROR
    assert (
        run.events[2].action_text == "ruff check ."
        and run.events[2].observation_text == "All checks passed!"
        and run.events[2].status is S.PASSED
    )
    # one positional result for two calls: the second call has no result
    assert run.events[4].extra["no_result"] is True and run.events[4].status is S.NONE
    assert any("1 tool call(s) have no result" in f for f in run.flags)
    assert [e.wall_s for e in run.events] == [0.0, 5.0, 0.0, 4.0, 0.0, 3.0]
    # the step's 500 tokens and $0.01 shared evenly by its two calls
    assert (run.events[1].tokens_in, run.events[2].tokens_in) == (250, 250)
    assert run.events[1].extra["cost_usd"] == run.events[2].extra["cost_usd"] == 0.005
    # the last step has no metrics, and final_metrics (1100 / 70) are exactly the other steps':
    # it made no model call of its own (no tokens, nothing estimated)
    last = run.events[5]
    assert last.extra["no_model_call"] is True and (
        last.tokens_in,
        last.tokens_out,
        last.flags,
    ) == (0, 0, ())


# --------------------------------------------------------------------------- OpenHands


def test_openhands_wrong_initial_state(real_fixtures: Path) -> None:
    run = one(real_fixtures / "openhands" / "wrong_initial_state.json")
    assert run.model == "claude-3-5-sonnet-20241022"
    assert kinds(run) == [K.MESSAGE, K.TOOL, K.TOOL, K.TOOL, K.GENERATION]
    assert [e.tool for e in run.events] == [
        None,
        "str_replace_editor",
        "execute_bash",
        "str_replace_editor",
        "finish",
    ]
    mv = run.events[2]
    assert mv.action_text == "mv /workspace/game_2048.py /workspace/2048.py"
    assert (mv.extra["exit_code"], mv.status) == (0, S.NONE)
    assert run.events[1].action_text == '{"command":"view","path":"/workspace"}'
    assert tool_calls(run) == 4
    assert tokens(run) == (3475 + 3616 + 3804 + 3933, 95 + 111 + 85 + 67)
    assert run.events[1].wall_s == pytest.approx(54.140581 - 50.239610)


def test_openhands_gui_mode_timeout(real_fixtures: Path) -> None:
    run = one(real_fixtures / "openhands" / "basic_gui_mode.json")
    assert kinds(run) == [K.MESSAGE, K.TOOL, K.GENERATION, K.GENERATION, K.TOOL, K.REFLECT]
    server = run.events[4]
    assert server.action_text == "cd /workspace/todo-app && python3 -m http.server 8000"
    assert server.status is S.TIMEOUT  # exit code -1: "no new output after 30 seconds"
    assert run.extra["final_agent_state"] == "awaiting_user_input"
    assert read_tokens(run) == (3439 + 3601 + 4769 + 5488, 104 + 1142 + 693 + 85)
    assert "tokens" in run.events[5].flags  # the final agent message has no usage


def test_openhands_llm_metrics_are_differenced(real_fixtures: Path) -> None:
    run = one(real_fixtures / "openhands" / "harbor-rfc_openhands_trajectory.json")
    assert run.model == "gpt-5-2025-08-07"
    # the system prompt (action "system") is not an event
    assert kinds(run) == [K.MESSAGE, K.MESSAGE, K.TOOL, K.GENERATION]
    assert [e.extra.get("role") for e in run.events[:2]] == ["user", "environment"]
    assert run.events[2].extra["exit_code"] == 0
    # cumulative 5863/1042 then 11859/1086: differenced, not summed
    assert [(e.tokens_in, e.tokens_out) for e in run.events[2:]] == [(5863, 1042), (5996, 44)]
    assert run.cost_usd == pytest.approx(0.01934775)
    assert run.events[3].extra["cost_usd"] == pytest.approx(0.01934775 - 0.01774875)


def test_openhands_awkward_events() -> None:
    run = one(MORE / "openhands_events.json")
    assert kinds(run) == [
        K.MESSAGE,
        K.CHECK,
        K.REPAIR,
        K.MEMORY,
        K.TOOL,
        K.ERROR,
        K.MESSAGE,
        K.REFLECT,
        K.ERROR,
        K.GENERATION,
    ]
    assert statuses(run)[:6] == [S.NONE, S.RUNTIME_ERROR, S.NONE, S.NONE, S.TIMEOUT, S.API_ERROR]
    assert run.events[0].observation_text == "Fix it, see screenshot\n[image: image/png, 100 bytes]"
    edit, todo = run.events[2], run.events[3]
    # two actions from one model response: its usage once (differenced llm_metrics)
    assert (edit.tokens_in, edit.tokens_out, todo.tokens_in, todo.tokens_out) == (1100, 70, 0, 0)
    assert "tokens" not in todo.flags and todo.memory_write and "fix division" in todo.memory_write
    assert run.events[6].extra["compaction"] is True
    assert run.events[8].observation_text == "AgentStuckInLoopError"
    assert run.extra["final_agent_state"] == "error" and run.cost_usd == 0.05
    assert tokens(run) == (5500, 180)


def test_openhands_output_jsonl_wrapper() -> None:
    first, second = runs(MORE / "openhands_output.jsonl")
    assert (first.run_id, first.task_id, first.success) == ("repo__issue-1", "repo__issue-1", True)
    assert kinds(first) == [K.MESSAGE, K.TOOL]
    assert second.success is None and kinds(second) == [K.MESSAGE, K.ERROR]


# --------------------------------------------------------------------------- OpenAI chat


def test_openai_real_files(real_fixtures: Path) -> None:
    d = real_fixtures / "openai-chat"
    req = one(d / "test_chat_tool_calls.request.json")
    [call] = req.events
    assert (call.kind, call.tool, call.status) == (K.TOOL, "get_current_weather", S.NONE)
    assert call.action_text == '{"location":"San Francisco"}'
    assert call.observation_text == "The weather in San Francisco is 70 degrees and sunny."
    assert "tokens" in call.flags and req.model == "gpt-3.5-turbo"

    resp = one(d / "test_chat_tool_calls.response.json")
    assert (resp.run_id, resp.model) == (
        "chatcmpl-9gKNZbUWSC4s2Uh2QfVV7PYiqWIuH",
        "gpt-3.5-turbo-0125",
    )
    assert kinds(resp) == [K.REFLECT] and tokens(resp) == (40, 12)

    par = one(d / "test_open_ai_function_calls_tools_parallel.response.json")
    assert kinds(par) == [K.TOOL, K.TOOL]
    assert [e.action_text for e in par.events] == [
        '{"location":"San Francisco"}',
        '{"location":"Boston"}',
    ]
    assert [(e.tokens_in, e.tokens_out) for e in par.events] == [(35, 23), (35, 23)]
    assert all(e.extra["no_result"] for e in par.events)

    assert kinds(one(d / "test_open_ai_function_calls_tools_parallel.request.json")) == [K.MESSAGE]

    sse = one(d / "test_open_ai_function_calls_tools_streaming.response.sse.txt")
    [ev] = sse.events
    assert (ev.tool, ev.action_text) == ("get_current_weather", '{"location":"San Francisco, CA"}')
    assert ev.extra["tool_call_id"] == "call_90R0NgAY0rQUYihSqVx7OuIs"
    assert (
        sse.extra["finish_reason"] == "tool_calls" and "tokens" in ev.flags
    )  # no usage in this stream


def test_openai_jsonl_parallel_memory_and_missing_result() -> None:
    run = one(MORE / "openai_messages.jsonl")
    assert kinds(run) == [K.MESSAGE, K.TOOL, K.TOOL, K.MEMORY, K.CHECK, K.REFLECT]
    # results arrived in reverse order: joined by tool_call_id
    assert [(e.action_text, e.observation_text) for e in run.events[1:3]] == [
        ('{"city":"Paris"}', "Paris: rain"),
        ('{"city":"Oslo"}', "Oslo: snow"),
    ]
    assert run.events[0].observation_text == "Check both cities.\n[image: image/png, 100 bytes]"
    # the response's 120 in (64 cached) shared by its two calls
    assert [(e.tokens_in, e.extra["cache_read_tokens"]) for e in run.events[1:3]] == [(60, 32)] * 2
    assert run.events[3].memory_write == '{"todos":["report weather"]}'
    assert run.events[4].extra["no_result"] is True and run.events[4].status is S.NONE


def test_openai_legacy_function_call() -> None:
    run = one(MORE / "openai_request_legacy.json")
    assert kinds(run) == [K.MESSAGE, K.TOOL, K.TOOL]  # the developer prompt is not an event
    assert (run.events[1].tool, run.events[1].observation_text) == (
        "ls",
        "a.py\nb.py",
    )  # paired by position
    assert run.events[2].action_text == "cat a.py"


# --------------------------------------------------------------------------- Anthropic messages


def test_anthropic_real_files(real_fixtures: Path) -> None:
    d = real_fixtures / "anthropic-messages"
    think = one(d / "test_anthropic_thinking_legacy.response.json")
    [ev] = think.events
    assert (
        ev.kind is K.REFLECT
        and ev.action_text == "The letter 'r' appears 3 times in the word \"strawberry\"."
    )
    assert ev.extra["reasoning"].startswith("Let me count")
    assert tokens(think) == (52, 215) and think.model == "claude-3-7-sonnet-20250219"

    hist = one(d / "test_anthropic_tools_history_legacy.request.json")
    assert kinds(hist) == [K.MESSAGE, K.TOOL]
    call = hist.events[1]
    assert (call.tool, call.action_text) == ("get_weather", '{"location":"San Francisco, CA"}')
    assert call.observation_text == "Sunny and 65 degrees Fahrenheit"
    assert (
        call.extra["thought"] == "I'll help you get the weather and current time in San Francisco."
    )

    resp = one(d / "test_anthropic_tools_history_legacy.response.json")
    assert [e.tool for e in resp.events] == ["get_time"] and tokens(resp) == (568, 58)

    sse = one(d / "test_anthropic_tools_streaming_legacy.response.sse.txt")
    assert [e.tool for e in sse.events] == ["get_weather", "get_time"]
    assert sse.events[0].action_text == '{"location":"San Francisco, CA","unit":"celsius"}'
    assert sse.events[1].action_text == '{"timezone":"America/Los_Angeles"}'
    assert (
        sse.events[0]
        .extra["thought"]
        .startswith("Certainly! I can help you with that information.")
    )
    # input from message_start, cumulative output from the last message_delta
    assert tokens(sse) == (506, 153)
    assert sse.run_id == "msg_0138UNF3YbNp49KkqZtUBWqz"


def test_anthropic_images_errors_and_parallel_results() -> None:
    run = one(MORE / "anthropic_image_request.json")
    assert kinds(run) == [
        K.MESSAGE,
        K.TOOL,
        K.TOOL,
        K.MESSAGE,
    ]  # "system" is a prompt, not an event
    assert (
        run.events[0].observation_text
        == "What is in this screenshot?\n[image: image/png, 100 bytes]"
    )
    shot, bash = run.events[1], run.events[2]
    assert shot.observation_text == "zoomed\n[image: image/png, 100 bytes]"
    assert (bash.action_text, bash.status) == (
        "nosuchcmd",
        S.STATIC_REJECT,
    )  # is_error + command not found
    assert shot.extra["reasoning"] == "I should zoom."
    assert all("iVBOR" not in (e.action_text + e.observation_text) for e in run.events)


def test_anthropic_stream_error_event() -> None:
    run = one(MORE / "anthropic_error.sse.txt")
    assert kinds(run) == [K.REFLECT, K.ERROR]
    assert run.events[0].action_text == "Hel"
    assert (run.events[1].status, run.events[1].observation_text) == (S.API_ERROR, "Overloaded")


def test_non_utf8_bytes_are_replaced_not_fatal() -> None:
    run = one(MORE / "anthropic_nonutf8.json")
    assert run.events[0].observation_text.startswith("Qu\ufffd\ufffd is in this screenshot?")
    assert any("invalid UTF-8" in w for w in run.warnings)
    gem = one(MORE / "gemini_nonutf8.jsonl")
    assert gem.events[0].observation_text == "Lancer les t\ufffdsts \ufffd"
    assert any(":2: invalid UTF-8" in w for w in gem.warnings)


# --------------------------------------------------------------------------- OpenTelemetry


def test_otel_real_files(real_fixtures: Path) -> None:
    d = real_fixtures / "otel-genai"
    attrs = one(d / "otel_genai_client_span_tool_calls.attributes.json")
    assert kinds(attrs) == [K.MESSAGE, K.TOOL, K.REFLECT]
    call = attrs.events[1]
    assert (call.tool, call.action_text, call.observation_text) == (
        "get_weather",
        '{"location":"Paris"}',
        "rainy, 57°F",
    )
    assert (attrs.events[2].tokens_in, attrs.events[2].tokens_out) == (97, 52)
    assert attrs.model == "gpt-4-0613"

    gen = runs(d / "vercel-ai-v6_ai-generateText-doGenerate.span.json")
    assert [r.run_id for r in gen] == [
        "b3e700af9eab81e19f72f964d62a35af",
        "edff2fc5854be6170e8cccccec0c82cf",
    ]
    assert kinds(gen[0]) == [K.MESSAGE, K.REFLECT] and tokens(gen[0]) == (14, 20)
    assert kinds(gen[1]) == [
        K.MESSAGE,
        K.REFLECT,
        K.MESSAGE,
        K.REFLECT,
    ]  # system prompt: not an event
    assert read_tokens(gen[1]) == (50, 9)
    assert gen[1].events[3].action_text == "3 + 3 equals 6."

    [stream] = runs(d / "vercel-ai-v6_ai-streamText-doStream.span.json")
    assert tokens(stream) == (15, 112) and stream.model == "gpt-4o-mini-2024-07-18"
    assert stream.events[1].wall_s == pytest.approx(1770132005.984307375 - 1770132000.598)
    assert stream.task_id == "test-stream-text"


def test_otlp_trace_tools_errors_and_dedup() -> None:
    agent, other = runs(MORE / "otlp_trace.json")
    assert (agent.task_id, agent.harness) == ("conv-9", "coder")
    assert kinds(agent) == [K.MESSAGE, K.CHECK, K.ERROR, K.REFLECT]
    check = agent.events[1]
    assert (check.action_text, check.status) == ("pytest -q", S.ASSERTION_ERROR)
    assert check.wall_s == pytest.approx(3.1)  # chat span start .. tool span end
    assert (agent.events[2].status, agent.events[2].observation_text) == (
        S.API_ERROR,
        "429 Too Many Requests",
    )
    # the tool result repeated in the next call's input is not a second event; the
    # agent span (which contains the chat spans) adds no usage of its own
    assert tokens(agent) == (400, 35)
    assert kinds(other) == [K.MESSAGE, K.REFLECT] and tokens(other) == (40, 8)


def test_otlp_jsonl_lines(tmp_path: Path) -> None:
    doc = orjson.loads((MORE / "otlp_trace.json").read_bytes())
    scope = doc["resourceSpans"][0]["scopeSpans"][0]
    spans = scope["spans"]

    def line(part: list[object]) -> bytes:
        scope["spans"] = part
        return orjson.dumps(doc) + b"\n"

    p = tmp_path / "spans.jsonl"
    # a trace split across lines (file exporter batches), and a batch exported twice
    p.write_bytes(line(spans[:3]) + line(spans[3:]) + line(spans[:3]))
    assert detect(p).name == "otel-genai"
    assert [len(r.events) for r in runs(p)] == [4, 2]


# --------------------------------------------------------------------------- Gemini CLI


def test_gemini_real_session(real_fixtures: Path) -> None:
    run = one(real_fixtures / "gemini-cli" / "harbor-rfc_gemini-cli-session.json")
    assert (run.run_id, run.model) == ("cdd63974-c2a3-4f1c-931d-cce1db22ec03", "gemini-2.0-flash")
    assert kinds(run) == [K.MESSAGE, K.REFLECT]
    assert tokens(run) == (5915, 24)
    assert run.events[1].wall_s == pytest.approx(1.857)


def test_gemini_jsonl_tools_rewind_and_rewrites() -> None:
    run = one(MORE / "gemini_session.jsonl")
    assert kinds(run) == [K.MESSAGE, K.CHECK, K.TOOL, K.REPAIR, K.MEMORY, K.MESSAGE, K.ERROR]
    assert statuses(run) == [
        S.NONE,
        S.ASSERTION_ERROR,
        S.RUNTIME_ERROR,  # read_file flagged "error": File not found (a well-formed call failed)
        S.STATIC_REJECT,
        S.NONE,
        S.NONE,
        S.API_ERROR,
    ]
    check = run.events[1]
    # input 1000 + tool 5; output 20 + thoughts 30; the first (empty) version was rewritten;
    # shared evenly by the response's four calls (the first calls take the remainders)
    batch = run.events[1:5]
    assert [(e.tokens_in, e.tokens_out) for e in batch] == [
        (252, 13),
        (251, 13),
        (251, 12),
        (251, 12),
    ]
    assert [e.extra["cache_read_tokens"] for e in batch] == [150] * 4
    assert check.extra["reasoning"] == "Plan: run pytest"
    assert run.events[4].memory_write == '{"fact":"tests use pytest"}'
    assert run.extra["summary"] == "ran tests"  # from a $set record
    assert all(
        e.observation_text != "oops" and e.action_text != "oops" for e in run.events
    )  # $rewindTo


# --------------------------------------------------------------------------- errors (SPEC §9)


@pytest.mark.parametrize("fmt", MINE)
def test_empty_file_is_an_input_error(fmt: str) -> None:
    path = MORE / "empty.json"
    with pytest.raises(InputError) as info:
        runs(path, fmt)
    assert str(path) in str(info.value)
    with pytest.raises(InputError, match="empty file"):
        detect(path)


@pytest.mark.parametrize("fmt", MINE)
def test_wrong_shape_is_an_input_error(fmt: str, tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_text('{"hello": [1, 2, 3]}')
    with pytest.raises(InputError) as info:
        runs(p, fmt)
    assert str(p) in str(info.value)


def test_jsonl_bad_line_lenient_and_truncated_last_line(tmp_path: Path) -> None:
    lines = (MORE / "openai_messages.jsonl").read_bytes().splitlines(keepends=True)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"".join([*lines[:2], b'{"role": "user", "content": \n', *lines[2:]]))
    with pytest.raises(InputError) as info:
        runs(bad)
    assert (info.value.path, info.value.line) == (str(bad), 3)
    [run] = runs(bad, lenient=True)
    assert len(run.events) == 6 and "lenient: 1 malformed line(s) skipped" in run.flags
    assert any(f"{bad}:3: skipped" in w for w in run.warnings)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines) + b'{"role": "assistant", "cont')
    [run] = runs(cut)
    assert len(run.events) == 6 and any("truncated last line" in w for w in run.warnings)


def test_gemini_jsonl_bad_line(tmp_path: Path) -> None:
    lines = (MORE / "gemini_session.jsonl").read_bytes().splitlines(keepends=True)
    p = tmp_path / "g.jsonl"
    p.write_bytes(b"".join([*lines[:2], b"[1, 2\n", *lines[2:]]))
    with pytest.raises(InputError) as info:
        runs(p)
    assert info.value.line == 3
    assert len(one_lenient(p).events) == 7


def one_lenient(p: Path) -> Run:
    [run] = runs(p, lenient=True)
    return run


def test_sse_bad_and_truncated_data_lines(tmp_path: Path) -> None:
    text = (MORE / "anthropic_error.sse.txt").read_text()
    bad = tmp_path / "bad.sse.txt"
    bad.write_text(text.replace('"text":"Hel"}}', '"text":"Hel"', 1))
    with pytest.raises(InputError) as info:
        runs(bad)
    assert info.value.line == 8
    cut = tmp_path / "cut.sse.txt"
    cut.write_text(text.rstrip("\n")[:-10])
    [run] = runs(cut)
    assert any("truncated last line" in w for w in run.warnings)


def test_ten_megabyte_single_line(tmp_path: Path) -> None:
    big = "x" * (10 * 1024 * 1024)
    p = tmp_path / "big.jsonl"
    p.write_bytes(
        orjson.dumps({"role": "user", "content": "hi"})
        + b"\n"
        + orjson.dumps({"role": "tool", "tool_call_id": "a", "content": big})
        + b"\n"
    )
    assert detect(p).name == "openai-chat"
    [run] = runs(p)
    assert len(run.events[1].observation_text) == len(big)  # kept whole
    assert run.events[1].extra["orphan_result"] is True


def test_unknown_fields_and_event_types_are_ignored() -> None:
    # openhands_events.json ends with an event of an unknown source; gemini has "$future"
    assert len(one(MORE / "openhands_events.json").events) == 10
    assert len(one(MORE / "gemini_session.jsonl").events) == 7


# --------------------------------------------------------------------------- shared classifier


def test_classifier_additions() -> None:
    parse_err = (
        "Previous response had parsing errors:\nERROR: Missing required fields: analysis, plan"
    )
    assert classify_observation(parse_err)[0] is S.STATIC_REJECT
    assert classify_observation("no parsing errors were found")[0] is S.NONE
    assert infer_kind("mark_task_complete") is K.GENERATION
    assert infer_kind("write_todos") is K.MEMORY
    assert infer_kind("task_tracker") is K.MEMORY
    # unchanged behaviour
    assert infer_kind("bash", "ls -la") is K.TOOL
    assert classify_observation("all good", exit_code=0)[0] is S.NONE


def test_readers_are_registered_with_content_sniffing() -> None:
    for name in MINE:
        r = get_reader(name)
        assert r.summary and r.detects_on and r.extensions


def test_forced_format_overrides_detection() -> None:
    # an Anthropic request read as OpenAI still yields its events (same dialect-neutral code)
    run = one(MORE / "anthropic_image_request.json", "openai-chat")
    assert run.source_format == "openai-chat" and len(run.events) == 4
    assert get_reader("inspect-ai").read(MORE / "inspect_zstd.eval", ReadOptions())


def test_jsonl_whose_first_line_is_longer_than_the_sniffed_head(tmp_path: Path) -> None:
    big = "y" * 200_000
    p = tmp_path / "long.jsonl"
    p.write_bytes(
        orjson.dumps({"role": "user", "content": big})
        + b"\n"
        + orjson.dumps({"role": "user", "content": "hi"})
        + b"\n"
    )
    assert detect(p).name == "openai-chat"
    [run] = runs(p)
    assert [len(e.observation_text) for e in run.events] == [200_000, 2]
    doc = orjson.loads((MORE / "otlp_trace.json").read_bytes())
    doc["resourceSpans"][0]["resource"]["attributes"].append(
        {"key": "padding", "value": {"stringValue": "z" * 100_000}}
    )
    q = tmp_path / "long_spans.jsonl"
    q.write_bytes(orjson.dumps(doc) + b"\n" + orjson.dumps(doc) + b"\n")
    assert detect(q).name == "otel-genai"
    assert [len(r.events) for r in runs(q)] == [4, 2]


def test_image_note_never_mistakes_jpeg_base64_for_a_path() -> None:
    import base64

    from efc_tui.parsers._content import image_note

    jpeg = base64.b64encode(b"\xff\xd8\xff\xe0" + bytes(600)).decode()
    assert jpeg.startswith("/9j/")
    assert image_note(jpeg) == "[image: image, 604 bytes]"
    assert image_note("/tmp/screenshot.png") == "[image: /tmp/screenshot.png]"
