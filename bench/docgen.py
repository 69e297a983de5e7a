"""Generators of whole-document agent logs of ``n`` steps, one per reader that loads a whole
JSON document (issue 13's goal 2): mini-swe-agent, SWE-agent, OpenHands, Inspect AI
``.json`` and Harbor ATIF (``FORMATS``); and of the JSON-lines sessions of Claude Code and
Codex (``SESSIONS``, written by ``docgen_sessions`` from the same steps; issue 31).

Each writes the shape the real tool writes (../shared/fixtures/real/FORMATS.md and the real
fixtures beside it): the same top-level keys in the same order (mini-swe-agent writes
``info`` first, so a 64 KB head never sees ``trajectory_format``; SWE-agent writes
``trajectory`` before ``history``; Inspect a sample's ``messages`` before its ``events``;
ATIF ``final_metrics`` after the steps), pretty-printed with two-space indents as the tools
write them. Every step is one shell command and its output, its text drawn the same way for
every format (``score_bench.observation`` and a 24-word thought from ``WORDS``, ~1.2 KB of
text a step, as ``open_bench`` drew mini-swe-agent steps), so files of one ``n`` hold the
same steps; what each format adds around them (SWE-agent's history repeats every step,
OpenHands repeats the model response on the action and its observation, Inspect keeps the
messages, the events and a message pool) is what the real files add.

Left out because they grow with the square of the steps (no real file of 100k steps could
hold them): SWE-agent 1.x's per-step ``query`` (the whole prompt again) and Inspect model
events' whole ``input`` (current Inspect writes ``input_refs`` into the ``message_pool``,
as here).

    from docgen import FORMATS
    suffix, generate = FORMATS["swe-agent"]
    nbytes = generate(Path("run" + suffix), 10_000, 0)

stdlib + orjson only.
"""

from __future__ import annotations

import datetime as dt
import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from score_bench import WORDS, observation

SYSTEM = "You are a helpful assistant that can interact with a computer."
TASK = "Please solve this issue: the parser drops the last token of a quoted string."
MODEL = "anthropic/claude-sonnet-4-5"
#: every tool writes its JSON indented (json.dumps(indent=2) or the like)
_DUMP = orjson.OPT_INDENT_2
#: 2025-01-01T00:00:00Z; each step adds a few seconds
_T0 = 1_735_689_600.0


@dataclass(slots=True)
class Step:
    t: int
    cmd: str
    text: str
    rc: int
    thought: str
    tokens_in: int
    tokens_out: int
    wall_s: float


def steps(n: int, seed: int) -> Iterator[Step]:
    """The ``n`` steps every format is written from: ``open_bench``'s draw (an observation,
    then a 24-word thought), then the step's usage and time from a second generator, so the
    text of step t is the same in every format and in the earlier ``generate_traj``."""
    rng = random.Random(seed)
    extra_rng = random.Random(seed + 1)
    for t in range(n):
        _kind, cmd, text, extra = observation(rng, t)
        thought = " ".join(rng.choices(WORDS, k=24))
        rc = 1 if extra and extra.get("status") not in (None, "passed") else 0
        yield Step(
            t,
            cmd,
            text,
            rc,
            thought,
            800 + extra_rng.randint(0, 400),
            extra_rng.randint(20, 200),
            round(extra_rng.random() * 3, 3),
        )


def _write(path: Path, doc: Any) -> int:
    data = orjson.dumps(doc, option=_DUMP)
    path.write_bytes(data)
    return len(data)


def _iso(t: float, tz: str = "+00:00") -> str:
    """ISO-8601 of a unix time (``tz=""``: naive, as OpenHands writes it)."""
    stamp = (
        dt.datetime.fromtimestamp(t, dt.UTC).replace(tzinfo=None).isoformat(timespec="microseconds")
    )
    return stamp + tz


def _id(prefix: str, t: int) -> str:
    return f"{prefix}_{t:08x}"


# ---------------------------------------------------------------------------- mini-swe-agent


def mini_swe_agent(path: Path, n: int, seed: int = 0) -> int:
    """mini-swe-agent v1 (``trajectory_format`` mini-swe-agent-1): the assistant's thought
    and a fenced bash block, then the user message with the return code and output."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": TASK},
    ]
    for s in steps(n, seed):
        messages.append(
            {"role": "assistant", "content": f"THOUGHT: {s.thought}\n\n```bash\n{s.cmd}\n```"}
        )
        messages.append(
            {
                "role": "user",
                "content": f"<returncode>{s.rc}</returncode>\n<output>\n{s.text}\n</output>",
            }
        )
    doc = {
        "info": {
            "exit_status": "Submitted",
            "submission": "",
            "model_stats": {"instance_cost": 0.0, "api_calls": n},
            "mini_version": "1.13.4",
        },
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1",
    }
    return _write(path, doc)


# ---------------------------------------------------------------------------- SWE-agent


def swe_agent(path: Path, n: int, seed: int = 0) -> int:
    """SWE-agent 1.x (``*.traj``): ``environment``, ``trajectory`` (one entry per step:
    action, observation, response, thought, execution_time, state), ``history`` (the chat:
    system, task, then each step's assistant tool call and tool observation), ``info``
    (exit status, submission, run totals) and ``replay_config``."""
    trajectory: list[dict[str, Any]] = []
    history: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM, "agent": "main", "message_type": "system_prompt"},
        {"role": "user", "content": TASK, "agent": "main", "message_type": "observation"},
    ]
    sent = received = 0
    for s in steps(n, seed):
        call_id = _id("call", s.t)
        suffix = "\n(Open file: n/a)\n(Current directory: /repo)\nbash-$"
        trajectory.append(
            {
                "action": s.cmd,
                "observation": s.text,
                "response": f"{s.thought}\n\n```\n{s.cmd}\n```",
                "thought": s.thought,
                "execution_time": s.wall_s,
                "state": {"open_file": "n/a", "working_dir": "/repo"},
            }
        )
        history.append(
            {
                "role": "assistant",
                "content": s.thought,
                "thought": s.thought,
                "action": s.cmd,
                "agent": "main",
                "tool_calls": [
                    {
                        "function": {
                            "arguments": orjson.dumps({"command": s.cmd}).decode(),
                            "name": "bash",
                        },
                        "id": call_id,
                        "type": "function",
                    }
                ],
                "message_type": "action",
            }
        )
        history.append(
            {
                "role": "tool",
                "content": s.text + suffix,
                "agent": "main",
                "tool_call_ids": [call_id],
                "message_type": "observation",
            }
        )
        sent += s.tokens_in
        received += s.tokens_out
    doc = {
        "environment": "main",
        "trajectory": trajectory,
        "history": history,
        "info": {
            "submission": "",
            "exit_status": "submitted",
            "model_stats": {
                "instance_cost": round(sent * 3e-6 + received * 15e-6, 6),
                "tokens_sent": sent,
                "tokens_received": received,
                "api_calls": n,
            },
        },
        "replay_config": {
            "agent": {"name": "main", "model": {"name": MODEL}},
            "problem_statement": {"text": TASK, "id": "bench__bench-1"},
        },
    }
    return _write(path, doc)


# ---------------------------------------------------------------------------- OpenHands


def _tool_call_metadata(
    function: str,
    call_id: str,
    t: int,
    now: float,
    content: str,
    arguments: str,
    tokens_in: int,
    tokens_out: int,
) -> dict[str, Any]:
    """An OpenHands action's ``tool_call_metadata``: the one call and the model response
    (litellm's chat completion) that made it."""
    return {
        "function_name": function,
        "tool_call_id": call_id,
        "model_response": {
            "id": _id("chatcmpl", t),
            "created": int(now),
            "model": MODEL,
            "object": "chat.completion",
            "choices": [
                {
                    "finish_reason": "tool_calls",
                    "index": 0,
                    "message": {
                        "content": content,
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "index": 1,
                                "function": {"arguments": arguments, "name": function},
                                "id": call_id,
                                "type": "function",
                            }
                        ],
                    },
                }
            ],
            "usage": {
                "completion_tokens": tokens_out,
                "prompt_tokens": tokens_in,
                "total_tokens": tokens_in + tokens_out,
            },
        },
        "total_calls_in_response": 1,
    }


def openhands(path: Path, n: int, seed: int = 0) -> int:
    """An OpenHands trajectory export: a JSON array of events. The task (a user message),
    then per step a ``run`` action (its ``tool_call_metadata`` with the litellm model
    response, cumulative ``llm_metrics``) and the ``run`` observation answering it
    (``cause``; the same ``tool_call_metadata``; the exit code in
    ``extras.metadata``); a ``finish`` action and the agent state changing to finished."""
    events: list[dict[str, Any]] = [
        {
            "id": 0,
            "timestamp": _iso(_T0, ""),
            "source": "user",
            "message": TASK,
            "action": "message",
            "args": {"content": TASK, "image_urls": None, "wait_for_response": False},
        }
    ]
    acc_in = acc_out = 0
    now = _T0
    for s in steps(n, seed):
        now += 2.0 + s.wall_s
        call_id = _id("toolu", s.t)
        acc_in += s.tokens_in
        acc_out += s.tokens_out
        tcm = _tool_call_metadata(
            "execute_bash",
            call_id,
            s.t,
            now,
            s.thought,
            orjson.dumps({"command": s.cmd}).decode(),
            s.tokens_in,
            s.tokens_out,
        )
        aid = len(events)
        events.append(
            {
                "id": aid,
                "timestamp": _iso(now, ""),
                "source": "agent",
                "message": f"Running command: {s.cmd}",
                "action": "run",
                "tool_call_metadata": tcm,
                "llm_metrics": {
                    "accumulated_cost": round(acc_in * 3e-6 + acc_out * 15e-6, 6),
                    "accumulated_token_usage": {
                        "model": "default",
                        "prompt_tokens": acc_in,
                        "completion_tokens": acc_out,
                        "cache_read_tokens": 0,
                        "cache_write_tokens": 0,
                        "response_id": "",
                    },
                },
                "args": {
                    "command": s.cmd,
                    "is_input": False,
                    "thought": s.thought,
                    "blocking": False,
                    "hidden": False,
                    "confirmation_state": "confirmed",
                },
                "timeout": 120,
            }
        )
        events.append(
            {
                "id": aid + 1,
                "timestamp": _iso(now + s.wall_s, ""),
                "source": "agent",
                "message": f"Command `{s.cmd}` executed with exit code {s.rc}.",
                "cause": aid,
                "observation": "run",
                "tool_call_metadata": tcm,
                "content": s.text,
                "extras": {
                    "command": s.cmd,
                    "metadata": {
                        "exit_code": s.rc,
                        "pid": -1,
                        "username": "root",
                        "hostname": "sandbox",
                        "working_dir": "/workspace",
                        "py_interpreter_path": "/usr/bin/python",
                        "prefix": "",
                        "suffix": f"\n[The command completed with exit code {s.rc}.]",
                    },
                    "hidden": False,
                },
                "success": s.rc == 0,
            }
        )
    finish_id = _id("toolu", n)
    events.append(
        {
            "id": len(events),
            "timestamp": _iso(now + 5, ""),
            "source": "agent",
            "message": "All done.",
            "action": "finish",
            "tool_call_metadata": _tool_call_metadata(
                "finish", finish_id, n, now + 5, "All done.", "{}", 900, 20
            ),
            "llm_metrics": {
                "accumulated_cost": round((acc_in + 900) * 3e-6 + (acc_out + 20) * 15e-6, 6),
                "accumulated_token_usage": {
                    "model": "default",
                    "prompt_tokens": acc_in + 900,
                    "completion_tokens": acc_out + 20,
                    "cache_read_tokens": 0,
                    "cache_write_tokens": 0,
                    "response_id": "",
                },
            },
            "args": {
                "final_thought": "All done.",
                "task_completed": "true",
                "outputs": {},
                "thought": "",
            },
        }
    )
    events.append(
        {
            "id": len(events),
            "timestamp": _iso(now + 6, ""),
            "source": "environment",
            "message": "",
            "observation": "agent_state_changed",
            "content": "",
            "extras": {"agent_state": "finished", "reason": ""},
        }
    )
    return _write(path, events)


# ---------------------------------------------------------------------------- Inspect AI


def inspect_ai(path: Path, n: int, seed: int = 0) -> int:
    """An Inspect AI ``.json`` log of one sample: ``version``, ``status``, ``eval``, ``plan``,
    ``results``, ``stats``, ``samples``. The sample has its ``messages`` (the task, then per
    step the assistant's bash call and the tool's answer), its ``events`` (per step a
    ``model`` event whose input is ``input_refs`` into the ``message_pool`` and whose
    output is the assistant message, and a ``tool`` event with the result) and the pool."""
    created = _iso(_T0, "-04:00")
    messages: list[dict[str, Any]] = [
        {"id": "msg_task", "content": TASK, "source": "input", "role": "user"}
    ]
    events: list[dict[str, Any]] = [
        {
            "timestamp": _iso(_T0),
            "working_start": 0.0,
            "event": "sample_init",
            "sample": {"input": TASK, "target": "", "id": 1},
            "state": {"messages": [], "store": {}},
        }
    ]
    now = 0.0
    tin = tout = 0
    for s in steps(n, seed):
        call_id = _id("call", s.t)
        assistant = {
            "id": _id("msg_a", s.t),
            "content": s.thought,
            "source": "generate",
            "role": "assistant",
            "tool_calls": [
                {"id": call_id, "function": "bash", "arguments": {"cmd": s.cmd}, "type": "function"}
            ],
            "model": MODEL,
        }
        tool = {
            "id": _id("msg_t", s.t),
            "content": s.text,
            "role": "tool",
            "tool_call_id": call_id,
            "function": "bash",
        }
        events.append(
            {
                "timestamp": _iso(_T0 + now),
                "working_start": now,
                "event": "model",
                "model": MODEL,
                "input": [],
                "input_refs": [[0, len(messages)]],
                "tools": [],
                "tool_choice": "auto",
                "config": {},
                "output": {
                    "model": MODEL,
                    "choices": [{"message": assistant, "stop_reason": "tool_calls"}],
                    "usage": {
                        "input_tokens": s.tokens_in,
                        "output_tokens": s.tokens_out,
                        "total_tokens": s.tokens_in + s.tokens_out,
                    },
                    "time": 2.0,
                },
                "completed": _iso(_T0 + now + 2.0),
            }
        )
        now += 2.0
        events.append(
            {
                "timestamp": _iso(_T0 + now),
                "working_start": now,
                "event": "tool",
                "type": "function",
                "id": call_id,
                "function": "bash",
                "arguments": {"cmd": s.cmd},
                "result": s.text,
                "events": [],
                "completed": _iso(_T0 + now + s.wall_s),
                "working_time": s.wall_s,
                "message_id": tool["id"],
            }
        )
        now += s.wall_s
        messages.append(assistant)
        messages.append(tool)
        tin += s.tokens_in
        tout += s.tokens_out
    usage = {MODEL: {"input_tokens": tin, "output_tokens": tout, "total_tokens": tin + tout}}
    done = _iso(_T0 + now, "-04:00")
    sample = {
        "id": 1,
        "epoch": 1,
        "input": TASK,
        "target": "",
        "messages": messages,
        "output": {
            "model": MODEL,
            "choices": [
                {"message": messages[-2] if n else messages[0], "stop_reason": "tool_calls"}
            ],
            "usage": usage[MODEL],
            "time": 2.0,
        },
        "scores": {"includes": {"value": "C", "answer": "", "explanation": ""}},
        "metadata": {},
        "store": {},
        "events": events,
        "model_usage": usage,
        "total_time": round(now, 3),
        "working_time": round(now, 3),
        "uuid": "bench-sample-1",
        "error_retries": [],
        "attachments": {},
        "message_pool": messages,
    }
    doc = {
        "version": 2,
        "status": "success",
        "eval": {
            "eval_id": "bench-eval",
            "run_id": "bench-run",
            "created": created,
            "task": "bench",
            "task_id": "bench-task",
            "task_version": 0,
            "task_file": "bench.py",
            "task_attribs": {},
            "task_args": {},
            "dataset": {"samples": 1, "sample_ids": [1], "shuffled": False},
            "model": MODEL,
            "model_generate_config": {},
            "model_args": {},
            "config": {
                "epochs": 1,
                "epochs_reducer": ["mean"],
                "fail_on_error": True,
                "log_samples": True,
                "log_images": True,
            },
            "packages": {"inspect_ai": "0.3.130"},
            "scorers": [{"name": "includes", "options": {}, "metrics": [], "metadata": {}}],
        },
        "plan": {"name": "plan", "steps": [{"solver": "basic_agent", "params": {}}], "config": {}},
        "results": {
            "total_samples": 1,
            "completed_samples": 1,
            "scores": [
                {
                    "name": "includes",
                    "scorer": "includes",
                    "params": {},
                    "metrics": {"accuracy": {"name": "accuracy", "value": 1.0, "params": {}}},
                }
            ],
        },
        "stats": {"started_at": created, "completed_at": done, "model_usage": usage},
        "samples": [sample],
    }
    return _write(path, doc)


# ---------------------------------------------------------------------------- ATIF


def atif(path: Path, n: int, seed: int = 0) -> int:
    """A Harbor ATIF-v1.5 ``trajectory.json`` as terminus-2 writes it: ``schema_version``,
    ``session_id``, ``agent``, ``steps`` (the task from the user, then per step the agent's
    message, its tool call and the call's result in the same step, with metrics) and
    ``final_metrics`` (the sums of the steps' metrics)."""
    steps_out: list[dict[str, Any]] = [
        {"step_id": 1, "timestamp": _iso(_T0), "source": "user", "message": TASK},
    ]
    tin = tout = 0
    cost = 0.0
    now = _T0
    for s in steps(n, seed):
        now += 2.0 + s.wall_s
        call_id = f"call_{s.t + 1}_1"
        step_cost = round(s.tokens_in * 3e-6 + s.tokens_out * 15e-6, 6)
        steps_out.append(
            {
                "step_id": s.t + 2,
                "timestamp": _iso(now),
                "source": "agent",
                "model_name": MODEL,
                "message": f"Analysis: {s.thought}\nPlan: run `{s.cmd}`.",
                "tool_calls": [
                    {
                        "tool_call_id": call_id,
                        "function_name": "bash_command",
                        "arguments": {"keystrokes": s.cmd + "\n", "duration": 1.0},
                    }
                ],
                "observation": {
                    "results": [
                        {
                            "source_call_id": call_id,
                            "content": f"New Terminal Output:\n\n{s.text}\n",
                        }
                    ]
                },
                "metrics": {
                    "prompt_tokens": s.tokens_in,
                    "completion_tokens": s.tokens_out,
                    "cost_usd": step_cost,
                },
            }
        )
        tin += s.tokens_in
        tout += s.tokens_out
        cost += step_cost
    doc = {
        "schema_version": "ATIF-v1.5",
        "session_id": "bench-session",
        "agent": {
            "name": "terminus-2",
            "version": "2.0.0",
            "model_name": MODEL,
            "extra": {"parser": "json", "temperature": 0.7},
        },
        "steps": steps_out,
        "final_metrics": {
            "total_prompt_tokens": tin,
            "total_completion_tokens": tout,
            "total_cached_tokens": 0,
            "total_cost_usd": cost,
            "total_steps": len(steps_out),
        },
    }
    return _write(path, doc)


# ---------------------------------------------------------------------------- sessions


def claude_code(path: Path, n: int, seed: int = 0) -> int:
    """A Claude Code session (``docgen_sessions``, which draws on ``steps`` above)."""
    from docgen_sessions import claude_code as generate

    return generate(path, n, seed)


def codex(path: Path, n: int, seed: int = 0) -> int:
    """A Codex CLI rollout (``docgen_sessions``)."""
    from docgen_sessions import codex as generate

    return generate(path, n, seed)


#: our format name -> (file name suffix, generator(path, n_steps, seed) -> bytes written)
FORMATS: dict[str, tuple[str, Callable[[Path, int, int], int]]] = {
    "mini-swe-agent": (".traj.json", mini_swe_agent),
    "swe-agent": (".traj", swe_agent),
    "openhands": (".json", openhands),
    "inspect-ai": (".json", inspect_ai),
    "atif": ("trajectory.json", atif),
}
#: the JSON-lines sessions of coding agents (``docgen_sessions``), read line by line
SESSIONS: dict[str, tuple[str, Callable[[Path, int, int], int]]] = {
    "claude-code": (".jsonl", claude_code),
    "codex": (".jsonl", codex),
}
#: every generator: the whole documents, then the sessions
GENERATORS = FORMATS | SESSIONS


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--steps", default="10000", help="comma-separated step counts")
    ap.add_argument("--formats", default=",".join(GENERATORS))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    for name in args.formats.split(","):
        suffix, gen = GENERATORS[name]
        for n in (int(x) for x in args.steps.split(",")):
            out = args.folder / f"{name}-{n}{suffix if suffix.startswith('.') else '.' + suffix}"
            size = gen(out, n, args.seed)
            print(f"{out}\t{size / 1e6:.1f} MB\t{size / max(n, 1):.0f} B/step")


if __name__ == "__main__":
    main()
