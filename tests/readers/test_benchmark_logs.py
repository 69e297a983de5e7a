"""Readers for the formats that failed on real runs (issue 10 item 1) and the check of a
run against the totals its source declares (issue 17).

Every number here was read off the hand-written fixtures in tests/fixtures/formats by hand
(their README says where each shape comes from).
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from efc_tui.errors import InputError
from efc_tui.model import EventKind, Run, Status
from efc_tui.parsers import detect, load
from efc_tui.parsers._totals import check_source_totals, set_source_totals, totals_from_counts
from tests.conftest import FIXTURES

F = FIXTURES / "formats"
K = EventKind
S = Status
TAU = F / "tau_bench" / "tool-calling-gpt-4o-0.0_range_0-3_user-gpt-4o-llm_0612073827.json"
TAU_REACT = (
    F / "tau_bench" / "react-claude-3-5-sonnet-0.0_range_0-1_user-gpt-4o-llm_0101000000.json"
)


def runs(path: Path) -> list[Run]:
    return list(load(path))


def one(path: Path) -> Run:
    [run] = runs(path)
    return run


def totals(run: Run) -> tuple[int, int]:
    return sum(e.tokens_in for e in run.events), sum(e.tokens_out for e in run.events)


def source_flags(run: Run) -> list[str]:
    return [f for f in run.flags if f.startswith("source totals")]


# --------------------------------------------------------------------------- tau-bench


def test_tau_bench_one_run_per_entry_with_reward() -> None:
    assert detect(TAU).name == "tau-bench"
    done, half, crashed = runs(TAU)
    stem = TAU.name.removesuffix(".json")
    assert [r.run_id for r in (done, half, crashed)] == [
        f"{stem}/0#0",
        f"{stem}/1#0",
        f"{stem}/2#1",
    ]
    assert [(r.task_id, r.reward, r.success) for r in (done, half, crashed)] == [
        ("0", 1.0, True),
        ("1", 0.5, False),
        ("2", 0.0, False),
    ]
    assert {r.success_from for r in (done, half, crashed)} == {"tau-bench reward"}
    # tau-bench writes no model inside: run.py's file name says strategy, model, user model
    assert (done.model, done.harness, done.extra["user_model"]) == (
        "gpt-4o",
        "tau-bench tool-calling",
        "gpt-4o",
    )
    assert any("file's name" in f for f in done.flags)
    # the simulated user's spend is not the agent's
    assert done.cost_usd is None and done.extra["user_cost_usd"] == 0.0021
    assert done.extra["reward_parts"] == {"r_actions": 1.0}


def test_tau_bench_events() -> None:
    done = runs(TAU)[0]
    # system prompt: no event; user, 2 tool calls with their results, the reply, the user's goodbye
    assert [e.kind for e in done.events] == [K.MESSAGE, K.TOOL, K.TOOL, K.REFLECT, K.MESSAGE]
    look, cancel = done.events[1], done.events[2]
    assert (look.tool, look.action_text) == ("get_reservation_details", '{"reservation_id":"R1"}')
    assert look.observation_text == '{"reservation_id": "R1", "status": "booked"}'
    # tau-bench's env answers a failing tool "Error: ..."
    assert cancel.status is not S.NONE and cancel.status.severity < S.PASSED.severity
    # no usage, no timestamps in tau-bench: estimated and flagged
    assert all("tokens" in e.flags for e in done.events)
    assert any("no token usage" in f for f in done.flags) and any(
        "no timestamps" in f for f in done.flags
    )


def test_tau_bench_crashed_entry_is_an_error_event() -> None:
    crashed = runs(TAU)[2]
    [err] = crashed.events
    assert err.kind is K.ERROR and err.observation_text.startswith("litellm.RateLimitError")
    assert "Traceback" in err.observation_text
    assert any("crashed" in f for f in crashed.flags)


def test_tau_bench_react_transcript() -> None:
    run = one(TAU_REACT)
    assert (run.model, run.harness, run.success, run.task_id) == (
        "claude-3-5-sonnet",
        "tau-bench react",
        True,
        "7",
    )
    assert [e.kind for e in run.events] == [K.MESSAGE, K.TOOL, K.REFLECT, K.MESSAGE]
    call = run.events[1]
    # "Action: {...}" is the tool call, "API output: ..." its result, the Thought its thought
    assert (call.tool, call.action_text) == ("get_order_details", '{"order_id":"W1"}')
    assert call.observation_text == '{"order_id": "W1", "status": "delivered"}'
    assert call.extra["thought"] == "I should look the order up."
    assert run.events[2].action_text == "Your order W1 was delivered."


def test_tau_bench_bad_entry_names_it(tmp_path: Path) -> None:
    p = tmp_path / "results.json"
    p.write_text('[{"task_id": 0, "reward": 1.0, "info": {}, "traj": [], "trial": 0}, 5]')
    with pytest.raises(InputError, match="entry 1 is not a tau-bench task result"):
        runs(p)


# --------------------------------------------------------------------------- Cursor CLI


def test_cursor_stream_json() -> None:
    path = F / "cursor" / "session.jsonl"
    assert detect(path).name == "cursor-cli"
    run = one(path)
    assert (run.run_id, run.model, run.exit_status, run.harness) == (
        "cur-1",
        "Sonnet 4.5",
        "success",
        "cursor-cli",
    )
    assert [e.kind for e in run.events] == [
        K.MESSAGE,
        K.CHECK,
        K.TOOL,
        K.REPAIR,
        K.MEMORY,
        K.REFLECT,
    ]
    test, read, edit, todo, final = run.events[1:]
    assert (test.tool, test.action_text, test.status) == ("shell", "pytest -q", S.ASSERTION_ERROR)
    assert (
        test.extra["thought"] == "Running the tests first."
        and test.extra["reasoning"] == "Let me run the tests."
    )
    assert (read.tool, read.observation_text) == ("read", "def add(a, b):\n    return a - b\n")
    assert edit.observation_text == "-    return a - b\n+    return a + b"
    assert todo.memory_write == "- [completed] fix add"
    # Cursor keeps only the session's totals: shared exactly over the 4 model calls
    # (read is the second call of model call mc-1: it shares that call's share evenly)
    assert totals(run) == (100 + 5000 + 900, 400)
    assert abs(read.tokens_in - test.tokens_in) <= 1 and abs(read.tokens_out - test.tokens_out) <= 1
    assert all("tokens" in e.flags for e in (test, read, edit, todo, final))
    assert run.extra["source_totals"]["tokens_in"] == 6000 and not source_flags(run)
    # wall: timestamp_ms; the pytest call ran 1..4 s (its model call started with the text at 1 s)
    assert [e.wall_s for e in run.events] == [0.0, 3.0, 0.0, 3.0, 1.5, 1.5]


def test_cursor_wrapped_and_trimmed() -> None:
    run = one(F / "cursor" / "trajectory.json")
    assert run.run_id == "cur-1" and [e.kind for e in run.events] == [K.MESSAGE, K.CHECK]
    assert run.events[1].extra["no_result"] is True
    assert any("8 of 16 steps kept" in f for f in run.flags)
    assert any("no result line" in f for f in run.flags)


# --------------------------------------------------------------------------- Claude Code stream-json


def test_claude_code_stream_json_console_capture() -> None:
    path = F / "claude_stream" / "claude-code.txt"
    assert detect(path).name == "claude-code"
    run = one(path)
    assert (run.run_id, run.model, run.exit_status) == ("s-1", "claude-sonnet-4-5", "success")
    assert [(e.kind, e.tool) for e in run.events] == [(K.CHECK, "Bash"), (K.REFLECT, None)]
    bash = run.events[0]
    assert bash.status is S.PASSED and bash.extra["thought"] == "I'll run the tests."
    # msg_1's two lines repeat its usage: counted once, the larger output (40)
    assert (bash.tokens_in, bash.tokens_out) == (10 + 2000, 40)
    assert totals(run) == (2010 + 2064, 48)
    assert run.cost_usd == 0.0123 and run.extra["num_turns"] == 2
    assert run.extra["source_totals"] == {
        "tokens_in": 4074,
        "tokens_out": 48,
        "cache_tokens": 2000,
        "cost_usd": 0.0123,
        "from": "claude-code.txt result line",
    }
    assert not source_flags(run)
    assert "1 line(s) of console text (not JSON) skipped" in run.flags


# --------------------------------------------------------------------------- ATIF


def test_atif_openclaw_cache_beside_prompt_and_result_steps() -> None:
    run = one(F / "atif_openclaw" / "agent" / "trajectory.json")
    # the trial's result.json: task and reward (read by atif._trial_info)
    assert (run.task_id, run.success) == ("fix-build", False)
    # `make` builds: a check (status.py's check commands)
    assert [e.kind for e in run.events] == [K.MESSAGE, K.TOOL, K.CHECK, K.REFLECT]
    ls, make = run.events[1], run.events[2]
    # OpenClaw writes each tool result as an agent step of its own: joined to its call
    assert (ls.observation_text, ls.extra["exit_code"]) == ("Makefile\nsrc", 0)
    assert (make.observation_text, make.extra["exit_code"]) == ("make: *** [all] Error 2", 2)
    assert make.status is S.RUNTIME_ERROR
    # cached tokens are outside prompt_tokens: 1000 + 200 and 60 + 1240
    assert totals(run) == (1200 + 1300, 70)
    # equal to Harbor's result.json: n_input_tokens + n_cache_tokens = 1060 + 1440
    assert totals(run)[0] == 1060 + 1440 and not source_flags(run)
    assert any("beside prompt_tokens" in f for f in run.flags)
    # every call says 0 USD for real tokens: no price known, so no cost
    assert run.cost_usd is None


def test_atif_claude_code_split_steps_count_once_and_mismatch_is_flagged() -> None:
    run = one(F / "atif_claude_split" / "trajectory.json")
    assert [e.kind for e in run.events] == [K.MESSAGE, K.REFLECT, K.TOOL, K.GENERATION]
    text, ls, write = run.events[1:]
    # steps 2 and 3 are one API call: its usage once (cache writes added: 1002 + 500), the
    # larger output count (30); step 4 is the next call (1503 + 40)
    assert (text.tokens_in, text.tokens_out, ls.tokens_in, ls.tokens_out) == (1502, 30, 0, 0)
    assert (write.tokens_in, write.tokens_out) == (1543, 60)
    assert ls.extra["same_call_as_step"] == 2
    # Harbor's final_metrics adds the repeated usage again: flagged, with the cause
    assert run.extra["source_totals"]["tokens_in"] == 3507 + 1040
    assert source_flags(run) == [
        "source totals: tokens_in 3045 from the events, 4547 in trajectory.json final_metrics (-33.0%)",
        "source totals: tokens_out 90 from the events, 91 in trajectory.json final_metrics (-1.1%)",
        "source totals: cache_tokens 2500 from the events, 3500 in trajectory.json final_metrics (-28.6%)",
    ]
    assert any("equals the undeduplicated step sum, 4547" in f for f in run.flags)


def test_atif_follows_subtrajectories_beside_it() -> None:
    run = one(F / "atif_subtraj" / "trajectory.json")
    assert run.extra["subtrajectories_read"] == ["trajectory.summarization-1-summary.json"]
    subs = [e for e in run.events if e.extra.get("subtrajectory") == "main-1-summary"]
    assert [e.kind for e in subs] == [K.MESSAGE, K.REFLECT] and subs[1].tokens_in == 500
    # the summariser's calls are now counted: the events equal final_metrics
    assert totals(run) == (1500, 150) and run.cost_usd == 0.005 and not source_flags(run)
    assert any("1 referenced sub-trajectory file(s) not found" in f for f in run.flags)
    # a reference outside the trajectory's folder is not followed
    assert any("not followed" in w for w in run.warnings)


# --------------------------------------------------------------------------- OpenHands


def test_openhands_evaluation_record() -> None:
    run = one(F / "openhands_eval" / "output.jsonl")
    assert (run.run_id, run.model, run.success, run.success_from) == (
        "acme__widget-12",
        "openai/example-model",
        False,
        "openhands resolved",
    )
    assert run.extra["agent_class"] == "CodeActAgent"
    assert "sk-secret-not-kept" not in repr(run.extra)  # llm_config holds credentials
    assert totals(run) == (1900, 50) and not source_flags(run)
    assert run.cost_usd is None and any("no prices known" in f for f in run.flags)


def test_openhands_record_longer_than_the_head(tmp_path: Path) -> None:
    src = (F / "openhands_eval" / "output.jsonl").read_text()
    long = src.replace('"instruction": "Fix the widget."', '"instruction": "' + "x" * 100_000 + '"')
    p = tmp_path / "output.jsonl"
    p.write_text(long + src)
    assert detect(p).name == "openhands"
    assert [r.run_id for r in runs(p)] == ["acme__widget-12", "acme__widget-12"]


# --------------------------------------------------------------------------- source totals


def test_totals_from_counts_decides_where_the_cache_is() -> None:
    # cached tokens larger than the input cannot be part of it (OpenClaw on Harbor)
    assert (
        totals_from_counts(input_tokens=153481, cache_tokens=2803421, source="r")["tokens_in"]
        == 2956902
    )
    assert totals_from_counts(input_tokens=5000, cache_tokens=4000, source="r")["tokens_in"] == 5000
    assert (
        totals_from_counts(input_tokens=5000, cache_tokens=4000, source="r", cache_separate=True)[
            "tokens_in"
        ]
        == 9000
    )


def test_source_totals_check_flags_each_mismatch_once() -> None:
    run = one(F / "claude_stream" / "claude-code.txt")
    set_source_totals(
        run,
        totals_from_counts(
            input_tokens=3700, output_tokens=48, cost_usd=0.02, source="result.json"
        ),
    )
    # 4074 / 3700 - 1 = +10.1%; the cost is not compared: no call records one
    assert source_flags(run) == [
        "source totals: tokens_in 4074 from the events, 3700 in result.json (+10.1%)"
    ]
    # run again (another sidecar filled it): the flags are replaced, not repeated
    assert check_source_totals(run) == source_flags(run) and len(source_flags(run)) == 1
    run.extra["source_totals"] = {"tokens_in": 4074, "from": "result.json"}
    assert check_source_totals(run) == [] and source_flags(run) == []


def test_mini_swe_agent_cost_checked_against_instance_cost(tmp_path: Path) -> None:
    src = FIXTURES / "agents" / "mini_v2_parallel.traj.json"
    run = one(src)
    calls = sum(e.extra.get("cost_usd", 0.0) for e in run.events)
    assert run.extra["source_totals"]["cost_usd"] == run.cost_usd == pytest.approx(calls)
    assert not source_flags(run) and run.cost_usd is not None
    doc = orjson.loads(src.read_bytes())
    doc["info"]["model_stats"]["instance_cost"] = run.cost_usd + 0.5
    p = tmp_path / src.name
    p.write_bytes(orjson.dumps(doc))
    bad = one(p)
    assert bad.cost_usd == pytest.approx(run.cost_usd + 0.5)  # the source's total is the run's cost
    [flag] = source_flags(bad)
    assert flag.startswith(f"source totals: cost_usd {calls:.6g} from the calls, ")


# --------------------------------------------------------------------------- Terminal-Bench 1

TB1_TRIAL = (
    F
    / "tb1_run"
    / "2025-06-01__10-00-00"
    / "hello-world"
    / "hello-world.1-of-1.2025-06-01__10-00-00"
)


def test_terminal_bench_1_trial_recording() -> None:
    cast = TB1_TRIAL / "sessions" / "agent.cast"
    assert detect(cast).name == "terminal-bench"
    run = one(cast)
    # the trial's identity, outcome and agent come from its results.json / run_metadata.json
    assert (run.run_id, run.task_id, run.success) == (
        "hello-world.1-of-1.2025-06-01__10-00-00",
        "hello-world",
        True,
    )
    assert (run.harness, run.model) == ("terminus", "anthropic/claude-3-7-sonnet-latest")
    # `python3 check.py` runs a check script: a check (status.py's check commands)
    assert [e.kind for e in run.events] == [K.MESSAGE, K.GENERATION, K.TOOL, K.CHECK, K.REFLECT]
    first_screen, echo, cat, check, done = run.events
    assert (
        first_screen.observation_text == "root@c0ffee:/app# "
        and first_screen.extra["role"] == "environment"
    )
    # episode 1: two commands, the screen read once after both: the output is the last one's
    assert (echo.action_text, echo.observation_text) == ("echo 'Hello, world!' > hello.txt\n", "")
    assert echo.extra["thought"] == "Empty prompt in /app.\nCreate the file, then check it."
    assert cat.observation_text.endswith("Hello, world!\r\nroot@c0ffee:/app# ")
    assert check.status is S.RUNTIME_ERROR and "FileNotFoundError" in check.observation_text
    assert done.action_text == "The task only asks for hello.txt.\nDone."
    # marker times: episode 2 ran 2 s -> 6 s, episode 3 6 s -> 9 s (its output until the end, 7.5 s)
    assert [e.wall_s for e in run.events[2:4]] == [4.0, 3.0]
    # results.json's token totals shared exactly over the 3 model calls
    assert totals(run) == (3000, 300) and run.extra["source_totals"]["tokens_in"] == 3000
    assert not source_flags(run)


def test_terminal_bench_1_trial_folder_is_one_run() -> None:
    [run] = runs_in(F / "tb1_run")
    assert run.source_format == "terminal-bench"


def runs_in(folder: Path) -> list[Run]:
    from efc_tui.parsers import expand_paths

    return [r for p in expand_paths([folder]) for r in load(p)]


def test_terminal_bench_typed_input_recording() -> None:
    run = one(F / "tb1_typed" / "agent.cast")
    assert [(e.kind, e.action_text) for e in run.events] == [
        (K.MESSAGE, ""),
        (K.TOOL, "ls"),
        (K.TOOL, "grep -r TODO src"),
    ]
    assert run.events[1].observation_text == "ls\r\nREADME.md  src\r\n$ "
    # nobody's model calls are visible: no usage anywhere, estimated
    assert all(not e.extra.get("model") for e in run.events)


def test_terminal_bench_bad_event_line(tmp_path: Path) -> None:
    p = tmp_path / "agent.cast"
    p.write_text(
        '{"version": 2, "width": 80, "height": 24}\n[0.1, "o", "$ "]\n{"not": "an event"}\n'
    )
    with pytest.raises(InputError, match=r"agent\.cast:3: expected an asciinema event"):
        runs(p)
    assert len(list(load(p, lenient=True))) == 1


# --------------------------------------------------------------------------- OpenAI Agents SDK

AGENTS_SDK = F / "openai_agents"


def test_openai_agents_trace_spans() -> None:
    path = AGENTS_SDK / "traces.jsonl"
    assert detect(path).name == "openai-agents"
    weather, chat = runs(path)
    assert (weather.run_id, weather.task_id) == ("trace_0a1b2c", "Weather workflow")
    assert weather.extra["agents"] == ["Weather agent"]
    assert [e.kind for e in weather.events] == [K.TOOL, K.TOOL, K.MESSAGE, K.REFLECT, K.ERROR]
    get, forecast, handoff, reply, guard = weather.events
    # the response span's usage is shared evenly by the two calls it made
    assert (get.tool, get.action_text, get.observation_text) == (
        "get_weather",
        '{"city":"Tokyo"}',
        "Sunny, 24C",
    )
    assert (get.tokens_in, get.tokens_out, get.extra["cache_read_tokens"]) == (250, 20, 50)
    assert (forecast.tokens_in, forecast.tokens_out) == (250, 20)
    assert (
        forecast.observation_text == "Error running tool (non-fatal)"
        and forecast.status is not S.NONE
    )
    assert handoff.observation_text == "handoff: Weather agent -> Travel agent"
    assert (reply.tokens_in, reply.tokens_out, reply.extra["text_not_exported"]) == (700, 60, True)
    assert guard.status is S.STATIC_REJECT
    # the task span's usage is the run's declared total, and the events add up to it
    assert weather.extra["source_totals"]["tokens_in"] == 1200 and not source_flags(weather)
    assert get.wall_s == pytest.approx(2.9)  # response start 0.1 s -> result 3.0 s
    # a Chat Completions model: generation spans carry the messages and the calls
    assert chat.model == "gpt-4o-mini"
    assert [(e.kind, e.tool) for e in chat.events] == [
        (K.MESSAGE, None),
        (K.TOOL, "multiply"),
        (K.REFLECT, None),
    ]
    assert chat.events[1].observation_text == "42" and chat.events[2].action_text == "42."


def test_openai_agents_input_list() -> None:
    run = one(AGENTS_SDK / "input_list.json")
    assert detect(AGENTS_SDK / "input_list.json").name == "openai-agents"
    assert [(e.kind, e.tool) for e in run.events] == [
        (K.MESSAGE, None),
        (K.TOOL, "read_file"),
        (K.GENERATION, "write_file"),
        (K.CHECK, "run_tests"),  # a tool named for running tests is a check
        (K.REFLECT, None),
    ]
    read_, write, test, _final = run.events[1:]
    assert read_.extra["reasoning"] == "Read the file first."
    assert write.extra["thought"] == "add subtracts; fixing it."
    # write_file and run_tests are one response: their results joined by call_id
    assert (write.observation_text, test.observation_text, test.status) == (
        "ok",
        "1 passed in 0.01s",
        S.PASSED,
    )
    assert run.extra["shape"] == "to_input_list"


def test_openai_agents_run_state() -> None:
    run = one(AGENTS_SDK / "run_state.json")
    assert run.extra["agent"] == "Refund agent" and run.extra["current_turn"] == 2
    assert [(e.kind, e.tool) for e in run.events] == [
        (K.MESSAGE, None),
        (K.TOOL, "lookup_order"),
        (K.TOOL, "issue_refund"),
    ]
    # each model response's usage on its call; their sum is the context's total
    assert [(e.tokens_in, e.tokens_out) for e in run.events] == [(0, 0), (300, 25), (380, 30)]
    assert run.events[2].extra["cache_read_tokens"] == 256
    assert run.extra["source_totals"] == {
        "tokens_in": 680,
        "tokens_out": 55,
        "cache_tokens": 256,
        "from": "run_state.json context.usage",
    }
    assert not source_flags(run)
    # paused for a human's approval of issue_refund: its call has no result yet
    assert run.events[2].extra["no_result"] is True
    assert any("waiting for 1 approval" in f for f in run.flags)
