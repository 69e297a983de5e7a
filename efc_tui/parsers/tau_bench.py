"""tau-bench results files (sierra-research/tau-bench ``run.py``): a JSON list of task
results, one per task and trial.

Each entry is an ``EnvRunResult``: ``{task_id, reward, info, traj, trial}``. ``traj`` is the
agent's message list in OpenAI Chat Completions form (the tool-calling and few-shot agents:
``tool_calls`` and ``role: "tool"`` results; the ReAct / Act agents: assistant text ending in
``Action: {"name", "arguments"}`` answered by a user message ``API output: ...``). ``info``
holds the task (``user_id``, ground-truth ``actions``, ``instruction``), the simulated user's
cost (``user_cost``), the reward breakdown (``reward_info``), or, when the run crashed,
``error`` and ``traceback`` (then ``traj`` is empty): an ``error`` event, ``api_error`` when
the crash is in a model call (litellm / provider client frames or exceptions), else the
failure its message names (a validation error of the agent's action: ``static_reject``),
else ``runtime_error`` (the agent's own code, e.g. a KeyError while reading a reply).

A tool answer is a failure (``is_error``, typed by the text classifier) when it is the
environment's ``Error: <exception>`` (tau-bench catches a tool's exception and answers so;
argument validation errors included) or a JSON ``{"error": ...}`` answer; ``Unknown action
X`` (a tool the environment does not have) is ``static_reject``.

One run per entry: ``run_id`` = ``<file stem>/<task_id>#<trial>``, ``task_id`` the task
index, ``reward`` the entry's reward, ``success`` = reward >= 1 (tau-bench's own threshold,
1 - 1e-6), ``success_from`` = ``"tau-bench reward"``. tau-bench writes no model, domain,
usage or timestamps into the file: model and agent strategy are read from the file name
where it follows ``run.py``'s pattern
(``<strategy>-<model>-<temperature>_range_<a>-<b>_user-<user model>-<user strategy>[_...]``)
or ``<model>-<domain>`` (the published historical trajectories), and flagged. The domain
(airline, retail, telecom: the ``task_family``) is read from the agent's system prompt
(its first line names the domain's policy), else from the file name or a folder; the run's
``extra["benchmark"]`` is ``tau-bench <domain>`` (a task id is unique within its domain
only), so runs group by benchmark × agent design × model. Tokens are
estimated from text and wall time is unknown (both flagged). The simulated user's messages
are ``message`` events; its cost is kept in ``extra["user_cost_usd"]``, not in the agent's
``cost_usd``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from efc_tui.errors import InputError
from efc_tui.model import Run, Status
from efc_tui.parsers._builder import RunBuilder
from efc_tui.parsers._drafts import Draft
from efc_tui.parsers._msg import ToolCall, chat_message
from efc_tui.parsers._signals import crash_status, json_error
from efc_tui.parsers._source import guarded, load_document, stem
from efc_tui.parsers._values import as_dict, as_float, as_list, as_str, dumps, id_str, opt_str
from efc_tui.parsers.base import ReadOptions
from efc_tui.parsers.sniffs import tau_entry

NAME = "tau-bench"
#: tau-bench's REWARD_SUCCESS_MIN: a reward within 1e-6 of 1 is a success
SUCCESS_MIN = 1.0 - 1e-6
RESPOND = "respond"
_RUN_NAME = re.compile(
    r"^(?P<model>.+)-(?P<temp>\d+(?:\.\d+)?)_range_-?\d+--?\d+_user-(?P<user>.+?)"
    r"-(?P<user_strategy>llm|react|verify|reflection|human)(?:_.*)?$"
)
_DOMAINS = ("airline", "retail", "telecom")
#: the first line of a domain's policy, the agent's system prompt ("# Airline Agent Policy")
_PROMPT_DOMAIN = re.compile(r"\b(airline|retail|telecom)\b", re.IGNORECASE)
BENCHMARK = "tau-bench"
_HIST_NAME = re.compile(r"^(?P<model>.+?)-(?P<domain>airline|retail|telecom)(?:[._-].*)?$")
#: run.py's --agent-strategy choices, longest first (the file name starts with one)
_STRATEGIES = ("orchestrated-tool-calling", "tool-calling", "few-shot", "react", "act")
_ACTION = re.compile(r"Action:\s*(\{.*\})\s*$", re.DOTALL)
_API_OUTPUT = "API output: "
_ERROR = "Error: "
#: the environment's answer to a tool it does not have (``Env.step``)
_UNKNOWN = "Unknown action "


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    yield from guarded("tau-bench", path, _read(path, options))


def _read(path: Path, options: ReadOptions) -> Iterator[Run]:
    doc, warnings = load_document(path, options)
    if not isinstance(doc, list) or not any(tau_entry(e) for e in doc):
        raise InputError(
            "not a tau-bench results file (a list of {task_id, reward, info, traj})", path
        )
    meta = file_meta(path)
    name = stem(path)
    # a crashed entry has no transcript: the domain of the file's other entries
    domain = next(
        (d for e in doc if tau_entry(e) for d in [prompt_domain(as_list(e.get("traj")))] if d), None
    )
    if domain:
        meta["domain"] = domain
    for i, entry in enumerate(doc):
        if not tau_entry(entry):
            raise InputError(
                f"entry {i} is not a tau-bench task result (no task_id / reward / traj)", path
            )
        run = _entry_run(entry, path, name, meta)
        run.warnings.extend(warnings)
        yield run


def file_meta(path: Path) -> dict[str, str]:
    """Model, agent strategy and domain from a results file's name (and its folders)."""
    name = stem(path)
    meta: dict[str, str] = {}
    strategy = next((x for x in _STRATEGIES if name.startswith(x + "-")), None)
    m = _RUN_NAME.match(name[len(strategy) + 1 :]) if strategy else None
    if m and strategy:
        meta.update(
            model=m.group("model"),
            strategy=strategy,
            user_model=m.group("user"),
            user_strategy=m.group("user_strategy"),
            temperature=m.group("temp"),
        )
    else:
        h = _HIST_NAME.match(name)
        if h:
            meta.update(model=h.group("model"), domain=h.group("domain"))
    if "domain" not in meta:
        for part in reversed(path.parts[:-1]):
            if part.lower() in _DOMAINS:
                meta["domain"] = part.lower()
                break
    return meta


def _entry_run(entry: dict[str, Any], path: Path, name: str, meta: dict[str, str]) -> Run:
    """One entry's run (``name``: the file's stem, the run id's first part)."""
    tid = id_str(entry.get("task_id")) or "?"
    trial = id_str(entry.get("trial")) or "0"
    info = as_dict(entry.get("info"))
    reward = as_float(entry.get("reward"))
    strategy = meta.get("strategy")
    traj = as_list(entry.get("traj"))
    domain = prompt_domain(traj)
    run = Run(
        run_id=f"{name}/{tid}#{trial}",
        task_id=tid,
        task_family=domain or meta.get("domain"),
        harness=f"tau-bench {strategy}" if strategy else "tau-bench",
        model=meta.get("model"),
        reward=reward,
        success=None if reward is None else reward >= SUCCESS_MIN,
        success_from="tau-bench reward" if reward is not None else None,
        source_format=NAME,
        source_path=str(path),
    )
    run.extra["trial"] = entry.get("trial")
    run.extra["benchmark"] = f"{BENCHMARK} {run.task_family}" if run.task_family else BENCHMARK
    if run.task_family and not domain:
        run.flags.append(
            "task_family: the tau-bench domain, from the file's other entries, name or folder"
        )
    if meta.get("model"):
        run.flags.append(
            "model: read from the results file's name (tau-bench does not record it inside)"
        )
    for key in ("user_model", "user_strategy", "temperature"):
        if key in meta:
            run.extra[key] = meta[key]
    user_cost = as_float(info.get("user_cost"))
    if user_cost is not None:
        run.extra["user_cost_usd"] = user_cost  # the simulated user's spend, not the agent's
    reward_info = as_dict(info.get("reward_info"))
    parts = {
        k: v for k, v in as_dict(reward_info.get("info")).items() if k in ("r_actions", "r_outputs")
    }
    if parts:
        run.extra["reward_parts"] = parts
    user_id = opt_str(as_dict(info.get("task")).get("user_id"))
    if user_id:
        run.extra["user_id"] = user_id
    cost = as_float(info.get("total_cost")) or as_float(entry.get("total_cost"))
    if cost is not None:
        run.cost_usd = cost
    b = RunBuilder(run)
    react = _feed(b, traj)
    if react:
        run.extra["react"] = True
        if strategy is None:
            run.harness = "tau-bench react"
    if info.get("error"):
        err = as_str(info.get("error")) or dumps(info.get("error"))
        tb = as_str(info.get("traceback"))
        b.error(
            err + ("\n" + tb if tb else ""),
            status=crash_status(err, tb),
            extra={"harness_error": True},
        )
        run.flags.append("the task run crashed (info.error): its reward is the harness's 0")
    return b.finish()


def prompt_domain(traj: list[Any]) -> str | None:
    """The tau-bench domain named by the first line of the agent's system prompt (the
    domain's policy: "# Airline Agent Policy", "# Retail agent policy"), else None."""
    for raw in traj[:2]:
        msg = as_dict(raw)
        if msg.get("role") != "system":
            continue
        text = as_str(msg.get("content")) or ""
        first = text.lstrip().split("\n", 1)[0][:200]
        m = _PROMPT_DOMAIN.search(first)
        return m.group(1).lower() if m else None
    return None


def _react_call(text: str) -> tuple[str, ToolCall | None, str]:
    """(thought, call, reply) of a ReAct / Act assistant message: the ``Action:`` JSON is a
    tool call, or, for ``respond``, the reply to the user."""
    m = _ACTION.search(text)
    if not m:
        return text, None, ""
    try:
        action = orjson.loads(m.group(1))
    except orjson.JSONDecodeError:
        return text, None, ""
    if not isinstance(action, dict) or not isinstance(action.get("name"), str):
        return text, None, ""
    thought = text[: m.start()].strip()
    thought = thought.removeprefix("Thought:").strip()
    args = action.get("arguments")
    if action["name"] == RESPOND:
        reply = as_str(as_dict(args).get("content")) if isinstance(args, dict) else as_str(args)
        return thought, None, reply or dumps(args)
    return thought, ToolCall(None, action["name"], args), ""


def _feed(b: RunBuilder, traj: list[Any]) -> bool:
    """Add the message list; True when it is a ReAct / Act transcript."""
    react = False
    open_react = False
    for raw in traj:
        msg = chat_message(raw)
        if msg is None:
            continue
        role = msg.role.lower()
        if role == "assistant":
            if not msg.calls and "Action:" in msg.text:
                thought, call, reply = _react_call(msg.text)
                if call is not None or reply:
                    react = True
                    if call is not None:
                        b.assistant(thought, [call])
                        open_react = True
                    else:
                        b.assistant(reply, (), extra={"thought": thought} if thought else None)
                    continue
            open_react = False
            b.feed(msg)  # a model turn: its calls have no answer yet
            continue
        if role == "user" and open_react and msg.text.startswith(_API_OUTPUT):
            out = msg.text[len(_API_OUTPUT) :]
            d = b.result(None, out)
            if d is not None:
                _answer(d, failed_answer(out))
            open_react = False
            continue
        open_react = False
        for d in b.feed(msg):
            if d.is_call:
                # feed marked a JSON error answer is_error already (its text parsed once)
                _answer(d, d.is_error is True or d.observation.startswith(_ERROR))
    return react


def _answer(d: Draft, failed: bool) -> None:
    """The outcome of a tool answer: a tool the environment does not have ("Unknown action
    X") was rejected; ``Error: ...`` / a JSON error is a failure (``failed``:
    ``failed_answer`` of its text)."""
    if d.observation.startswith(_UNKNOWN):
        d.status = Status.STATIC_REJECT
    elif failed:
        d.is_error = True


def failed_answer(text: str) -> bool:
    """A tool answer that reports a failed call: the environment catches the tool's exception
    and answers ``Error: <exception>`` (argument validation errors included); some tools and
    forks answer a JSON ``{"error": ...}``."""
    return text.startswith(_ERROR) or json_error(text) is not None
