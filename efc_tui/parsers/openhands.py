"""OpenHands event streams / trajectory exports (FORMATS.md §5).

Reads a JSON array of events, a ``{..., "history": [events]}`` wrapper (SWE-bench
``output.jsonl`` records; one run per line in the JSONL form) or one event object; and
OpenHands completion logs (``llm_completions/``: the messages of an LLM call), read by
``_openhands_llm``.

Each tool action (``run``, ``run_ipython``, ``read``, ``edit``, ``browse*``, ``think``,
``finish``, ``mcp``, ...) is one event, joined to its observation by ``cause`` (the
action's id). An observation whose text starts ``ERROR:`` (the file editor refusing or
failing a call), ``success: false`` or ``extras.error: true`` (the browser) is a failure,
typed from its text. The tool name is ``tool_call_metadata.function_name`` (else the action), the
action text the command / code / URL or the model's tool-call arguments. ``run``
observations carry ``extras.metadata.exit_code``; ``-1`` with "no new output" / timeout
text is a timeout, otherwise unknown. ``error`` observations are failures of their action,
or standalone ``error`` / ``api_error`` events; an ``agent_state_changed`` to ``error`` is
an ``error`` event. User messages are ``message``; agent messages ``reflect``; ``recall``
observations ``message`` (environment); ``condensation`` actions are marked
``extra["compaction"]``. ``change_agent_state`` and ``null`` observations are skipped.

Tokens: ``llm_metrics`` on actions is cumulative, so each action's usage is the
difference from the previous one (cost likewise); without it, the litellm
``model_response.usage`` is used once per response id (several actions from one response
share it). Timestamps are naive local time, read as UTC (differences stay right).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from efc_tui.errors import InputError
from efc_tui.model import EventKind, Run, Status
from efc_tui.parsers._builder import RunBuilder
from efc_tui.parsers._content import action_text_of, image_note, result_text
from efc_tui.parsers._drafts import Draft
from efc_tui.parsers._msg import ToolCall, Usage, usage_openai
from efc_tui.parsers._openhands_llm import completion_run, is_completion_log
from efc_tui.parsers._signals import openhands_hints
from efc_tui.parsers._source import (
    JsonlSource,
    guarded,
    jsonl_layout,
    load_document,
    stem,
)
from efc_tui.parsers._time import parse_time
from efc_tui.parsers._totals import set_source_totals, totals_from_counts
from efc_tui.parsers._values import (
    as_count,
    as_dict,
    as_float,
    as_int,
    as_list,
    dumps,
    id_str,
    opt_str,
    parse_json_text,
)
from efc_tui.parsers.base import ReadOptions, read_head
from efc_tui.parsers.sniffs import openhands_event, openhands_wrapper

NAME = "openhands"
_SKIP_ACTIONS = {"change_agent_state", "recall", "null", "pause", "resume"}
_NOISE = {
    "thought",
    "impl_source",
    "translated_ipython_code",
    "confirmation_state",
    "security_risk",
    "hidden",
    "blocking",
    "is_static",
    "cwd",
    "is_input",
    "wait_for_response",
}


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    yield from guarded("OpenHands", path, _read(path, options))


def _read(path: Path, options: ReadOptions) -> Iterator[Run]:
    head = read_head(path)
    if jsonl_layout(path, head, options):
        lines = JsonlSource(path, options)
        n = 0
        for lineno, obj in lines:
            if not openhands_wrapper(obj):
                lines.bad("not an OpenHands record with a history of events", lineno)
                continue
            n += 1
            yield lines.settle(_run(obj["history"], obj, path, f"{stem(path)}:{lineno}"))
        if n == 0:
            raise InputError("no OpenHands records with a history of events", path)
        return
    doc, warnings = load_document(path, options)
    if is_completion_log(doc):
        run = completion_run(doc, path)
        run.warnings.extend(warnings)
        yield run
        return
    if isinstance(doc, list):
        events, wrapper = doc, {}
    elif openhands_wrapper(doc):
        events, wrapper = doc["history"], doc
    elif openhands_event(doc):
        events, wrapper = [doc], {}
    else:
        raise InputError("not an OpenHands event stream (expected a list of events)", path)
    if not any(openhands_event(e) for e in events):
        raise InputError(
            "not an OpenHands event stream (no events with source and action/observation)", path
        )
    run = _run(events, wrapper, path, stem(path))
    run.warnings.extend(warnings)
    yield run


class _Tokens:
    """Per-action usage from cumulative ``llm_metrics`` or deduplicated model responses."""

    def __init__(self) -> None:
        self.last: tuple[int, int, int, int, float] | None = None
        self.responses: set[str] = set()
        self.cost: float | None = None

    def take(self, e: dict[str, Any], tcm: dict[str, Any]) -> tuple[Usage | None, bool]:
        """(usage for this action, whether its usage was already counted elsewhere)."""
        resp = as_dict(tcm.get("model_response"))
        rid = id_str(resp.get("id"))
        lm = as_dict(e.get("llm_metrics"))
        acc = as_dict(lm.get("accumulated_token_usage"))
        if acc:
            cur = (
                as_count(acc.get("prompt_tokens")),
                as_count(acc.get("completion_tokens")),
                as_count(acc.get("cache_read_tokens")),
                as_count(acc.get("cache_write_tokens")),
                as_float(lm.get("accumulated_cost")) or 0.0,
            )
            prev = self.last or (0, 0, 0, 0, 0.0)
            self.last = cur
            self.cost = cur[4]
            d = tuple(max(0, c - p) for c, p in zip(cur, prev, strict=True))
            if rid:
                self.responses.add(rid)
            if not any(d[:2]):
                return None, True
            return Usage(
                int(d[0]),
                int(d[1]),
                int(d[2]) or None,
                int(d[3]) or None,
                None,
                round(float(d[4]), 10) if d[4] else None,
            ), False
        if rid and rid in self.responses:
            return None, True
        u = usage_openai(resp.get("usage"))
        if u is not None and u.known:
            if rid:
                self.responses.add(rid)
            return u, False
        return None, False


def _action_text(act: str, args: dict[str, Any], tcm: dict[str, Any], message: str) -> str:
    if act == "run" and isinstance(args.get("command"), str):
        return args["command"]
    if act == "run_ipython" and isinstance(args.get("code"), str):
        return args["code"]
    if act == "browse" and isinstance(args.get("url"), str):
        return args["url"]
    if act == "browse_interactive" and isinstance(args.get("browser_actions"), str):
        return args["browser_actions"]
    if act == "finish":
        return (
            opt_str(args.get("final_thought"))
            or opt_str(args.get("message"))
            or opt_str(args.get("thought"))
            or message
            or dumps(args.get("outputs") or {})
        )
    if act == "think":
        return opt_str(args.get("thought")) or message
    # the model's own call, when the metadata keeps it
    cid = tcm.get("tool_call_id")
    for choice in as_list(as_dict(tcm.get("model_response")).get("choices")):
        for tc in as_list(as_dict(as_dict(choice).get("message")).get("tool_calls")):
            tc = as_dict(tc)
            if tc.get("id") == cid:
                return action_text_of(parse_json_text(as_dict(tc.get("function")).get("arguments")))
    rest = {k: v for k, v in args.items() if k not in _NOISE}
    return action_text_of(rest) if rest else message


def _run(events: list[Any], wrapper: dict[str, Any], path: Path, default_id: str) -> Run:
    instance = id_str(wrapper.get("instance_id"))
    extra: dict[str, Any] = {}
    success = None
    test_result = as_dict(wrapper.get("test_result"))
    for holder in (
        wrapper,
        test_result,
        as_dict(test_result.get("report")),
        as_dict(wrapper.get("report")),
    ):
        if isinstance(holder.get("resolved"), bool):
            success = holder["resolved"]
            break
    if wrapper.get("error"):
        extra["error"] = wrapper.get("error")
    meta = as_dict(wrapper.get("metadata"))
    if opt_str(meta.get("agent_class")):
        extra["agent_class"] = meta["agent_class"]
    run = Run(
        run_id=instance or default_id,
        task_id=instance,
        harness="openhands",
        # the evaluation's configured model (its llm_config also holds credentials: not kept)
        model=opt_str(as_dict(meta.get("llm_config")).get("model")),
        success=success,
        success_from="openhands resolved" if success is not None else None,
        source_format=NAME,
        source_path=str(path),
        extra=extra,
    )
    b = RunBuilder(run)
    tokens = _Tokens()
    pending: dict[Any, Draft] = {}
    final_state = None
    for e in events:
        if not isinstance(e, dict):
            continue
        eid = e.get("id") if isinstance(e.get("id"), int | str) else None
        ts = parse_time(e.get("timestamp"))
        if "action" in e:
            d = _action(b, e, tokens, ts, run)
            if d is not None and eid is not None:
                pending[eid] = d
        elif "observation" in e:
            obs = opt_str(e.get("observation")) or ""
            extras = as_dict(e.get("extras"))
            if obs == "agent_state_changed":
                final_state = opt_str(extras.get("agent_state")) or final_state
                if final_state == "error":
                    reason = (
                        opt_str(extras.get("reason")) or opt_str(e.get("message")) or "agent error"
                    )
                    b.error(reason, ts=ts)
                continue
            if obs == "null":
                continue
            text = result_text(e.get("content"))
            if obs == "recall":
                body = text or opt_str(e.get("message")) or ""
                if body:
                    b.message(body, role="environment", ts=ts)
                continue
            cause = e.get("cause") if isinstance(e.get("cause"), int | str) else None
            target = pending.pop(cause, None) if cause is not None else None
            exit_code = as_int(as_dict(extras.get("metadata")).get("exit_code"))
            raw_code = as_dict(extras.get("metadata")).get("exit_code")
            timed_out = None
            if raw_code == -1 or str(raw_code) == "-1":
                suffix = opt_str(as_dict(extras.get("metadata")).get("suffix")) or ""
                if re.search(
                    r"no new output after|timed out|timeout", text + suffix, re.IGNORECASE
                ):
                    timed_out = True
                exit_code = None
            is_error = (
                True
                if obs == "error" or e.get("success") is False or extras.get("error") is True
                else None
            )
            hints = openhands_hints(text)
            if hints.is_error:
                is_error = True  # the file editor's "ERROR:" answer to a call it could not do
            if exit_code is None and timed_out is None:
                exit_code, timed_out = hints.exit_code, hints.timed_out
            status = Status.STATIC_REJECT if obs == "user_rejected" else None
            if target is None:
                if obs == "error":
                    b.error(text or opt_str(e.get("message")) or "error", ts=ts)
                    continue
                if not text and obs in ("think", "message"):
                    continue
                target = b.call(obs or None, None, ts=ts, extra={"orphan_result": True})
            b.fill(
                target,
                text,
                exit_code=exit_code,
                is_error=is_error,
                timed_out=timed_out,
                ts=ts,
                status=status,
                extra={"observation": obs},
            )
    if wrapper.get("error"):
        err = wrapper["error"]
        b.error(err if isinstance(err, str) else dumps(err), extra={"harness_error": True})
    if final_state:
        run.extra["final_agent_state"] = final_state
    if tokens.cost is not None:
        run.cost_usd = tokens.cost
    run = b.finish()
    metrics = as_dict(wrapper.get("metrics"))
    acc = as_dict(metrics.get("accumulated_token_usage"))
    if acc:
        cost = as_float(metrics.get("accumulated_cost"))
        set_source_totals(
            run,
            totals_from_counts(
                input_tokens=acc.get("prompt_tokens"),
                output_tokens=acc.get("completion_tokens"),
                cache_tokens=acc.get("cache_read_tokens"),
                cost_usd=cost if cost else None,
                source=f"{path.name} metrics",
                cache_separate=False,
            ),
        )
    return run


def _action(
    b: RunBuilder, e: dict[str, Any], tokens: _Tokens, ts: float | None, run: Run
) -> Draft | None:
    act = opt_str(e.get("action")) or ""
    src = opt_str(e.get("source")) or ""
    args = as_dict(e.get("args"))
    tcm = as_dict(e.get("tool_call_metadata"))
    message = opt_str(e.get("message")) or ""
    if act in _SKIP_ACTIONS:
        return None
    resp = as_dict(tcm.get("model_response"))
    model = opt_str(resp.get("model"))
    if run.model is None:
        run.model = model or _metrics_model(e)
    if act == "system":
        return None  # the system prompt is not an event
    if act == "condensation":
        summary = opt_str(args.get("summary")) or message or "context condensed"
        b.message(
            summary,
            role="system",
            ts=ts,
            compaction=True,
            extra={"forgotten_event_ids": args.get("forgotten_event_ids")}
            if args.get("forgotten_event_ids")
            else None,
        )
        return None
    if act == "message":
        text = opt_str(args.get("content")) or message
        notes = [image_note(u) for u in as_list(args.get("image_urls")) if isinstance(u, str)]
        text = "\n".join([text, *notes]).strip()
        if src == "agent":
            usage, elsewhere = tokens.take(e, tcm)
            drafts = b.assistant(
                text, (), usage=usage, t_start=ts, t_end=ts, model=model, always=True
            )
            _mark_elsewhere(drafts, elsewhere)
        else:
            b.message(text, role=src or "user", ts=ts)
        return None
    usage, elsewhere = tokens.take(e, tcm)
    tool = opt_str(tcm.get("function_name")) or act
    cid = id_str(tcm.get("tool_call_id"))
    action = _action_text(act, args, tcm, message)
    thought = opt_str(args.get("thought")) or ""
    if act == "think":
        thought = ""
    drafts = b.assistant(
        thought, [ToolCall(cid, tool, action)], usage=usage, t_start=ts, t_end=ts, model=model
    )
    _mark_elsewhere(drafts, elsewhere)
    d = drafts[0]
    d.extra["action"] = act
    if act == "finish":
        d.kind = EventKind.GENERATION
    if act == "think":
        d.kind = EventKind.REFLECT
    return d


def _mark_elsewhere(drafts: list[Draft], elsewhere: bool) -> None:
    if elsewhere and drafts and not drafts[0].has_usage:
        drafts[0].usage_elsewhere = True
        drafts[0].model_call = False


def _metrics_model(e: dict[str, Any]) -> str | None:
    m = opt_str(as_dict(as_dict(e.get("llm_metrics")).get("accumulated_token_usage")).get("model"))
    return None if m in (None, "", "default") else m
