"""mini-swe-agent trajectories (``*.traj.json``): v1 text mode and v2 tool-call mode.

One file is one run. ``messages`` is an OpenAI-style chat:

- each assistant message is one model call. Its actions are, in order of preference, the
  OpenAI ``tool_calls`` (v2 tool-call mode, ``arguments`` a JSON string with ``command``),
  ``extra.actions``, or the fenced ```` ```bash ```` (v1) / ```` ```mswea_bash_command ````
  (v2 text mode) blocks of its content. Each action is one ``tool`` event (tool ``bash``;
  kind inferred from the command: tests are ``check``, file writes ``generation`` or, after
  a failure, ``repair``; the final ``COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` command is a
  ``generation``: the submission). The assistant text is the event's ``extra["thought"]``.
- the observation is the ``role: tool`` message with the same ``tool_call_id``, or else the
  next ``user`` message (v1); ``role: exit`` (v2) carries the submission and closes the last
  open action. The exit code is ``extra.returncode`` (v2) or ``<returncode>N</returncode>``
  in the text; ``extra.exception_info`` naming a timeout marks a timeout.
- an assistant message with no (or several) actions in text mode was rejected by the
  harness (format error): one ``error`` event with status ``static_reject`` whose
  observation is the harness's reply. Without a reply it is a ``reflect`` event.
- the task (first user message) and any other user message with no open action are
  ``message`` events; the system prompt is not an event.
- a run the harness stopped at a limit (``exit_status`` ``LimitsExceeded``,
  ``TimeExceeded``) gets an ``error`` event with status ``timeout`` of its own: the limit is
  no verdict on the action that reached it.

Tokens: ``extra.response.usage`` of each assistant message (``prompt_tokens`` includes
cached tokens; cache reads/writes kept in ``extra``); estimated and flagged where absent.
Cost: ``extra.cost`` per call (v2) in the event's ``extra``; ``info.model_stats`` in the
run's ``extra``. Timestamps: ``extra.timestamp`` (v2); v1 has only the API's
``response.created`` (whole seconds). Model: ``info.config.model.model_name``. Task id:
``instance_id`` or the file name. Success: ``resolved`` from a SWE-bench report beside the
file (``sidecars.apply_sidecars``, applied by ``parsers.load``); otherwise unknown (``info.exit_status`` such as
``Submitted`` says nothing about resolution and is kept in ``extra``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from efc_tui.errors import InputError
from efc_tui.model import EventKind, Run, Status
from efc_tui.parsers._content import content_text
from efc_tui.parsers._drafts import Draft, finalize
from efc_tui.parsers._signals import reported_exit_code
from efc_tui.parsers._source import load_document
from efc_tui.parsers._swebench import swebench_family
from efc_tui.parsers._time import parse_time
from efc_tui.parsers._totals import set_source_totals, totals_from_counts
from efc_tui.parsers._values import (
    as_count,
    as_dict,
    as_float,
    as_int,
    as_list,
    as_str,
    opt_str,
    parse_json_text,
)
from efc_tui.parsers.base import ReadOptions
from efc_tui.parsers.sniffs import MINI_SUBMIT_MARKERS

NAME = "mini-swe-agent"
_ACTION_RE = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", re.DOTALL)
_TIMEOUT_RE = re.compile(r"timeout|timed out", re.IGNORECASE)
#: the marks of an output the harness cut (one scan for both)
_ELIDED = re.compile(r"<(?:output_head|elided_chars)>")
#: what every submission marker ends with (looked for before the markers themselves)
_SUBMIT_END = "_FINAL_OUTPUT"
assert all(m.endswith(_SUBMIT_END) for m in MINI_SUBMIT_MARKERS)


#: ``info.exit_status`` values that mean the harness stopped the run at a limit (steps,
#: cost, wall time): a timeout-like ``error`` event of its own, no verdict on the last action
LIMIT_EXITS = frozenset({"LimitsExceeded", "TimeExceeded", "CostLimitExceeded"})


def _limit_stop(stop: str, text: str, step: int, ts: float | None) -> Draft:
    return Draft(
        kind=EventKind.ERROR,
        status=Status.TIMEOUT,
        observation="\n".join(x for x in (stop, text) if x),
        step=step,
        t_start=ts,
        extra={"harness_stop": stop},
    )


def _oldest_open(queue: list[Draft]) -> Draft | None:
    """The oldest action still waiting for its result."""
    for d in queue:
        if not d.has_result:
            return d
    return None


def _actions(msg: dict[str, Any], extra: dict[str, Any], text: str) -> list[tuple[str | None, str]]:
    """(tool_call_id, command) of each action an assistant message took (``extra``: the
    message's extra; ``text``: its content's text)."""
    out: list[tuple[str | None, str]] = []
    for tc in as_list(msg.get("tool_calls")):
        tc = as_dict(tc)
        fn = as_dict(tc.get("function"))
        args = parse_json_text(fn.get("arguments"))
        if isinstance(args, dict):
            cmd = args.get("command")
            cmd = cmd if isinstance(cmd, str) else (as_str(fn.get("arguments")))
        else:
            cmd = as_str(args)
        out.append((opt_str(tc.get("id")), cmd))
    if out:
        return out
    for a in as_list(extra.get("actions")):
        a = as_dict(a)
        cmd = a.get("command")
        if isinstance(cmd, str):
            out.append((opt_str(a.get("tool_call_id")), cmd))
    if out:
        return out
    blocks = _ACTION_RE.findall(text) if "```" in text else []
    if len(blocks) == 1:
        return [(None, blocks[0].strip())]
    return []


def _usage(response: dict[str, Any]) -> tuple[int, int, int, int] | None:
    u = response.get("usage")
    if not isinstance(u, dict):
        return None
    tin = as_count(u.get("prompt_tokens") if "prompt_tokens" in u else u.get("input_tokens"))
    tout = as_count(
        u.get("completion_tokens") if "completion_tokens" in u else u.get("output_tokens")
    )
    details = as_dict(u.get("prompt_tokens_details"))
    cache_read = as_count(details.get("cached_tokens")) or as_count(
        u.get("cache_read_input_tokens")
    )
    cache_write = as_count(u.get("cache_creation_input_tokens"))
    return tin, tout, cache_read, cache_write


def convert(doc: dict[str, Any], path: Path) -> Run:
    """One trajectory document as a Run."""
    info = as_dict(doc.get("info"))
    config = as_dict(info.get("config"))
    stats = as_dict(info.get("model_stats"))
    messages = as_list(doc.get("messages"))
    stem = path.name
    for suffix in (".gz", ".json", ".traj"):
        stem = stem.removesuffix(suffix)
    task_id = opt_str(doc.get("instance_id")) or stem
    model = opt_str(as_dict(config.get("model")).get("model_name"))

    drafts: list[Draft] = []
    by_id: dict[str, Draft] = {}
    queue: list[Draft] = []  # open actions, oldest first
    step = 0
    response_model: str | None = None
    first_ts: float | None = None
    for raw in messages:
        msg = as_dict(raw)
        role = msg.get("role")
        extra = as_dict(msg.get("extra"))
        if role == "assistant":
            step += 1
            response = as_dict(extra.get("response"))
            response_model = response_model or opt_str(response.get("model"))
            ts = parse_time(extra.get("timestamp"))
            if ts is None:
                ts = parse_time(response.get("created"))
            first_ts = first_ts if first_ts is not None else ts
            thought, images = content_text(msg.get("content"))
            usage = _usage(response)
            cost = as_float(extra.get("cost"))
            actions = _actions(msg, extra, thought)
            queue = []  # actions left open by the previous call get no result
            new: list[Draft] = []
            if actions:
                for call_id, cmd in actions:
                    d = Draft(tool="bash", action=cmd, is_call=True, step=step, t_start=ts)
                    if _SUBMIT_END in cmd and any(m in cmd for m in MINI_SUBMIT_MARKERS):
                        d.kind = EventKind.GENERATION
                        d.extra["submission"] = True
                    if call_id:
                        d.extra["tool_call_id"] = call_id
                        by_id[call_id] = d
                    new.append(d)
                first = new[0]
                for d in new[1:]:
                    d.sibling = True
                first.add_thought(thought)
                parts = [thought] if thought else []
                parts += [d.action for d in new if d.action]
                first.gen_text = "\n".join(parts)
            else:
                # rejected by the harness (no single action): typed once the reply is known
                first = Draft(action=thought, gen_text=thought, step=step, t_start=ts)
                first.extra["no_action"] = True
                new.append(first)
            first.model_call = True
            first.images = images
            if usage is not None:
                first.set_usage(*usage)
            if cost is not None:
                first.cost_usd = cost
            drafts.extend(new)
            queue.extend(new)
        elif role in ("user", "tool"):
            text, images = content_text(msg.get("content"))
            ts = parse_time(extra.get("timestamp"))
            first_ts = first_ts if first_ts is not None else ts
            call_id = opt_str(msg.get("tool_call_id"))
            target = by_id.get(call_id) if call_id else None
            if target is None or target.has_result:
                # v1 observations, and tool messages whose id matches nothing: oldest open action
                target = _oldest_open(queue)
            if target is None:
                drafts.append(
                    Draft(
                        observation=text,
                        step=step,
                        t_start=ts,
                        images=images,
                        extra={"role": as_str(role) or "user"},
                    )
                )
                continue
            target.observation = text
            target.has_result = True
            target.images += images
            target.t_end = ts
            rc = as_int(extra.get("returncode"))
            if rc is None:
                rc = reported_exit_code(text)
            target.exit_code = rc
            exc_info = as_str(extra.get("exception_info"))
            if exc_info:
                target.extra["exception_info"] = exc_info
                if _TIMEOUT_RE.search(exc_info):
                    target.timed_out = True
                else:
                    target.is_error = True
            if _ELIDED.search(text):
                target.truncated = True
        elif role == "exit":
            text, _ = content_text(msg.get("content"))
            target = _oldest_open(queue)
            stop = as_str(extra.get("exit_status"))
            if stop in LIMIT_EXITS:
                drafts.append(_limit_stop(stop, text, step, parse_time(extra.get("timestamp"))))
            elif target is not None:
                target.observation = text
                target.has_result = True
                target.t_end = parse_time(extra.get("timestamp"))
            elif text:
                drafts.append(Draft(observation=text, step=step, extra={"role": "exit"}))
        # system prompts and unknown roles are not events

    stop = as_str(info.get("exit_status"))
    if stop in LIMIT_EXITS and not any(d.extra.get("harness_stop") for d in drafts):
        drafts.append(_limit_stop(stop, "", step, None))  # v1 writes no exit message
    for d in drafts:
        if d.extra.get("no_action"):
            d.extra.pop("no_action")
            if d.has_result:
                d.kind, d.status = EventKind.ERROR, Status.STATIC_REJECT
                d.extra["format_error"] = True
            else:
                d.kind = EventKind.REFLECT

    fin = finalize(drafts, run_start=first_ts)
    run = Run(
        run_id=stem,
        events=fin.events,
        task_id=task_id,
        task_family=swebench_family(task_id),
        harness=NAME,
        model=model or response_model,
        source_format=NAME,
        source_path=str(path),
        flags=list(fin.flags),
    )
    if model is None and response_model is not None:
        run.flags.append(
            "model: read from the API response (info.config.model.model_name is absent)"
        )
    for key in ("exit_status", "mini_version"):
        if info.get(key) is not None:
            run.extra[key] = info[key]
    if isinstance(info.get("submission"), str):
        run.extra["submission_chars"] = len(info["submission"])
    if doc.get("trajectory_format") is not None:
        run.extra["trajectory_format"] = doc["trajectory_format"]
    run.cost_usd = as_float(stats.get("instance_cost"))
    if run.cost_usd is None and fin.cost_usd is not None:
        run.cost_usd = round(fin.cost_usd, 10)
    elif run.cost_usd is not None:
        set_source_totals(
            run, totals_from_counts(cost_usd=run.cost_usd, source=f"{path.name} info.model_stats")
        )
    if as_int(stats.get("api_calls")) is not None:
        run.extra["api_calls"] = stats["api_calls"]
    run.extra["usage"] = {
        "tokens_in": fin.tokens_in,
        "tokens_out": fin.tokens_out,
        "cache_read_tokens": fin.cache_read,
        "cache_write_tokens": fin.cache_write,
    }
    if not any(d.t_end is not None for d in drafts) and any(d.t_start is not None for d in drafts):
        run.flags.append(
            "wall time: from the API's response.created (whole seconds); no result timestamps"
        )
    return run


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    doc, warnings = load_document(path, options)
    if not isinstance(doc, dict) or not isinstance(doc.get("messages"), list):
        raise InputError("not a mini-swe-agent trajectory (no top-level 'messages' list)", path)
    run = convert(doc, path)
    run.warnings.extend(warnings)
    yield run
