"""`efc_tui.adapter.live.Monitor` and the in-process integrations (Inspect AI hooks,
mini-swe-agent agent): each stops a scripted looping run at the event the offline adapter
names.

Inspect AI (35 MB, with boto3, fastapi, s3fs...) and mini-swe-agent (litellm, datasets) are
not light enough for the shared environment, so the integrations run here on stand-ins that
follow the libraries' interfaces: mini-swe-agent 2.x's ``DefaultAgent.run`` / ``step`` /
``query`` / ``execute_actions`` loop and its ``LimitsExceeded(*messages)`` (an
``InterruptAgentFlow``); Inspect's ``Hooks.on_sample_event(SampleEvent)`` with events as its
log writes them, and ``ActiveSample.limit_exceeded(LimitExceededError)``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from msgspec.structs import replace

import efc_tui
from efc_tui.adapter.integrations.inspect_ai import monitored_hooks
from efc_tui.adapter.integrations.mini_swe_agent import EXIT_STATUS, monitored
from efc_tui.adapter.live import Budgets, Monitor
from efc_tui.errors import InputError
from efc_tui.parsers.mini_swe_agent import convert
from tests.conftest import SAMPLES
from tests.hookgen import FAIL

# --- Monitor


def test_a_monitor_fed_one_event_at_a_time_decides_as_the_offline_adapter() -> None:
    run = efc_tui.load(SAMPLES / "repair_loop.jsonl")
    offline = efc_tui.score(run)
    mon = Monitor(run=replace(run, events=[]))  # the header (task demand: D̂_task) as known
    live = [v for ev in list(run.events) for v in mon.feed(ev)]
    assert [v.decision.as_dict() for v in live] == [d.as_dict() for d in offline.decisions]
    assert mon.stopped is not None and mon.stopped.index == offline.summary.stop_event == 5
    assert mon.stopped.rule == "repeat" and mon.stopped.act


def test_the_window_rule_is_recorded_but_acts_only_when_asked() -> None:
    run = efc_tui.load(SAMPLES / "repair_loop.jsonl")
    quiet = Monitor(repeat=0, epsilon=1.0)  # a window rule that fires at once, no repeat rule
    v = next(v for v in quiet.feed(list(run.events)) if v.control == "stop")
    assert v.rule == "window" and not v.act
    assert "not validated on real agent runs" in v.reason and "--window-rule" in v.reason
    loud = Monitor(run=type(run)(run_id="x"), repeat=0, epsilon=1.0, window_rule=True)
    assert next(v for v in loud.feed(list(run.events)) if v.control == "stop").act


def test_budgets_must_be_positive() -> None:
    with pytest.raises(InputError, match="--max-usd must be > 0"):
        Budgets(max_usd=0)


# --- mini-swe-agent (stand-ins of the 2.x interface)


class InterruptAgentFlow(Exception):
    def __init__(self, *messages: dict) -> None:
        self.messages = messages
        super().__init__()


class LimitsExceeded(InterruptAgentFlow):
    pass


class DefaultAgent:
    """mini-swe-agent 2.x ``DefaultAgent``'s control flow (run / step / query /
    execute_actions), without templates, saving or format errors."""

    def __init__(self, model: Any, env: Any, *, step_limit: int = 0) -> None:
        self.model, self.env, self.step_limit = model, env, step_limit
        self.messages: list[dict] = []
        self.n_calls = 0
        self.cost = 0.0

    def add_messages(self, *messages: dict) -> list[dict]:
        self.messages.extend(messages)
        return list(messages)

    def run(self, task: str = "") -> dict:
        self.messages = []
        self.add_messages({"role": "system", "content": "You are a helpful assistant."})
        self.add_messages({"role": "user", "content": task})
        while True:
            try:
                self.step()
            except InterruptAgentFlow as e:
                self.add_messages(*e.messages)
            if self.messages[-1].get("role") == "exit":
                break
        return self.messages[-1].get("extra", {})

    def step(self) -> list[dict]:
        return self.execute_actions(self.query())

    def query(self) -> dict:
        if 0 < self.step_limit <= self.n_calls:
            raise LimitsExceeded(
                {
                    "role": "exit",
                    "content": "LimitsExceeded",
                    "extra": {"exit_status": "LimitsExceeded"},
                }
            )
        self.n_calls += 1
        message = self.model.query(self.messages)
        self.cost += message.get("extra", {}).get("cost", 0.0)
        self.add_messages(message)
        return message

    def execute_actions(self, message: dict) -> list[dict]:
        outputs = [self.env.execute(a) for a in message.get("extra", {}).get("actions", [])]
        return self.add_messages(*self.model.format_observation_messages(message, outputs))


class LoopingModel:
    """Reads two files, then runs the same failing test again and again (tool-call mode,
    usage reported as a LiteLLM response)."""

    def __init__(self) -> None:
        self.n = 0

    def query(self, messages: list[dict]) -> dict:
        self.n += 1
        cmd = f"cat src/file_{self.n}.py" if self.n <= 2 else "python -m pytest -q"
        cid = f"c{self.n}"
        return {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "function": {"arguments": json.dumps({"command": cmd}), "name": "bash"},
                    "id": cid,
                    "type": "function",
                }
            ],
            "extra": {
                "actions": [{"command": cmd, "tool_call_id": cid}],
                "response": {
                    "usage": {"prompt_tokens": 900 + 50 * self.n, "completion_tokens": 30}
                },
                "cost": 0.01,
                "timestamp": 1_700_000_000.0 + 10 * self.n,
            },
        }

    def format_observation_messages(self, message: dict, outputs: list[dict]) -> list[dict]:
        out = []
        for action, o in zip(message["extra"]["actions"], outputs, strict=True):
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": action["tool_call_id"],
                    "content": f"<returncode>{o['returncode']}</returncode>\n<output>\n{o['output']}</output>",
                    "extra": {"raw_output": o["output"], "returncode": o["returncode"]},
                }
            )
        return out


class Env:
    def execute(self, action: dict) -> dict:
        if "pytest" in action["command"]:
            return {"output": FAIL + "\n", "returncode": 1}
        return {"output": f"print('{action['command']}')\n", "returncode": 0}


def test_mini_swe_agent_stops_at_the_event_the_offline_adapter_names(tmp_path: Path) -> None:
    Agent = monitored(DefaultAgent, LimitsExceeded)
    agent = Agent(LoopingModel(), Env(), step_limit=20)
    result = agent.run("Fix the failing test.")
    assert result["exit_status"] == EXIT_STATUS
    last = agent.messages[-1]
    assert last["role"] == "exit" and "failed the same way 3 times in a row" in last["content"]
    # the same trajectory, saved and scored offline: the stop is the event the agent stopped at
    saved = tmp_path / "run.traj.json"
    saved.write_text(
        json.dumps({"messages": agent.messages[:-1], "trajectory_format": "mini-swe-agent-1.1"})
    )
    offline = efc_tui.score(efc_tui.load(saved))
    stop = offline.summary.stop_event
    assert stop is not None and last["extra"]["efc"]["index"] == stop
    assert agent.efc_monitor.stopped.index == stop
    assert agent.model.n == 5  # two reads, three identical failing runs: no fourth
    live = [v.decision.as_dict() for v in agent.efc_verdicts]
    assert live == [d.as_dict() for d in offline.decisions]


def test_mini_swe_agent_budgets(tmp_path: Path) -> None:
    Agent = monitored(DefaultAgent, LimitsExceeded)
    agent = Agent(LoopingModel(), Env(), efc_options={"max_tokens": 2000})
    assert agent.run("Fix it.")["exit_status"] == EXIT_STATUS
    assert "token budget passed" in agent.messages[-1]["content"]
    assert convert({"messages": agent.messages}, Path("x.traj.json")).events


# --- Inspect AI (stand-ins of Hooks, SampleEvent, ActiveSample, LimitExceededError)


class Hooks:
    pass


class LimitExceededError(Exception):
    def __init__(self, type: str, *, value: float, limit: float, message: str | None = None):
        self.type, self.value, self.limit, self.message = type, value, limit, message
        super().__init__(message)


class ActiveSample:
    def __init__(self) -> None:
        self.limits: list[LimitExceededError] = []

    def limit_exceeded(self, error: LimitExceededError) -> None:
        self.limits.append(error)


def _inspect_events(loops: int) -> list[dict[str, Any]]:
    """A sample's events as Inspect logs them: per turn a model event (input, output with a
    tool call, usage) and the tool event with its result; the test fails the same way."""
    events: list[dict[str, Any]] = []
    for n in range(1, 3 + loops):
        cmd = f"cat src/file_{n}.py" if n <= 2 else "python -m pytest -q"
        call = {
            "id": f"call_{n}",
            "function": "bash",
            "arguments": {"cmd": cmd},
            "type": "function",
        }
        ts = f"2026-11-20T10:00:{2 * n:02d}+00:00"
        events.append(
            {
                "event": "model",
                "timestamp": ts,
                "model": "openai/gpt-4o-mini",
                "input": [{"id": "m0", "role": "user", "content": "Fix the failing test."}],
                "output": {
                    "model": "gpt-4o-mini",
                    "choices": [
                        {
                            "message": {
                                "id": f"a{n}",
                                "role": "assistant",
                                "content": "",
                                "tool_calls": [call],
                            },
                            "stop_reason": "tool_calls",
                        }
                    ],
                    "usage": {
                        "input_tokens": 900 + 50 * n,
                        "output_tokens": 30,
                        "total_tokens": 960,
                    },
                },
            }
        )
        result = FAIL if n > 2 else f"print({n})"
        events.append(
            {
                "event": "tool",
                "timestamp": f"2026-11-20T10:00:{2 * n + 1:02d}+00:00",
                "type": "function",
                "id": call["id"],
                "function": "bash",
                "arguments": call["arguments"],
                "result": result,
            }
        )
    return events


def test_inspect_hooks_end_the_sample_at_the_event_the_offline_adapter_names(
    tmp_path: Path,
) -> None:
    active = ActiveSample()
    cls = monitored_hooks(Hooks, LimitExceededError, lambda: active)
    hooks = cls()
    events = _inspect_events(loops=5)

    async def play() -> int:
        for i, e in enumerate(events):
            await hooks.on_sample_event(
                SimpleNamespace(
                    run_id="r1",
                    eval_id="e1",
                    sample_id=1,
                    event=SimpleNamespace(model_dump=lambda mode, exclude_none, e=e: e),
                )
            )
            if active.limits:
                return i
        return -1

    stopped_at = asyncio.run(play())
    assert len(active.limits) == 1
    err = active.limits[0]
    assert err.type == "custom" and "failed the same way 3 times" in (err.message or "")
    # the whole sample written as a log and scored offline: the same stop event
    log = {
        "version": 2,
        "status": "success",
        "eval": {"run_id": "r1", "task": "t", "model": "openai/gpt-4o-mini"},
        "samples": [{"id": 1, "epoch": 1, "events": events, "messages": []}],
    }
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    offline = efc_tui.score(efc_tui.load(path))
    stop = offline.summary.stop_event
    verdicts = hooks.verdicts[("e1", 1)]
    assert stop is not None and verdicts[-1].index == stop and verdicts[-1].act
    assert stopped_at == 2 * 5 - 1  # the tool event of the third identical failing run
    live = [v.decision.as_dict() for v in verdicts]
    assert live == [d.as_dict() for d in offline.decisions[: len(live)]]
