"""Harbor / Terminal-Bench ATIF trajectories (``trajectory.json``, ``ATIF-v1.x``;
FORMATS.md §6).

One run per file. Each ``agent`` step is one model call: its ``metrics`` are that call's
usage (``prompt_tokens`` includes cached tokens; ``cost_usd`` goes to the event's extra and
the run's total), each of its ``tool_calls`` becomes one event, and the step's
``observation.results`` are their results, joined by ``source_call_id`` or, when that is
null (terminus-2), by position. An agent step with results but no tool call (the harness
answering a malformed response) is one event whose action is the agent's message. Agent
text with neither is ``reflect``. ``user`` steps are messages; ``system`` steps are
messages too, and a system step that hands off to summarisation sub-trajectories
(``subagent_trajectory_ref``) is marked ``extra["compaction"]``. Step timestamps give the
wall time (absent in many files: flagged).

ATIF has no task id or reward: they come from the Harbor trial around the file
(``sidecars.apply_sidecars``, applied by ``parsers.load`` to every reader's runs).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from msgspec import Struct

from efc_tui.errors import InputError
from efc_tui.model import EventKind, Run
from efc_tui.parsers._builder import RunBuilder
from efc_tui.parsers._content import result_text, text_of
from efc_tui.parsers._drafts import Draft
from efc_tui.parsers._msg import ToolCall, Usage
from efc_tui.parsers._signals import (
    claude_exit_code,
    claude_refusal,
    harbor_failure,
    json_error,
    openhands_hints,
    refused,
    reported_exit_code,
)
from efc_tui.parsers._source import guarded, load_document, stem, trim_note
from efc_tui.parsers._time import parse_time
from efc_tui.parsers._totals import set_source_totals, totals_from_counts
from efc_tui.parsers._values import (
    as_dict,
    as_float,
    as_int,
    as_list,
    as_str,
    id_str,
    opt_count,
    opt_str,
)
from efc_tui.parsers.base import ReadOptions

NAME = "atif"


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    yield from guarded("ATIF", path, _read(path, options))


class _Conventions(Struct):
    """How a producer counts input tokens (decided once per file, from its numbers)."""

    #: ``cached_tokens`` is reported beside ``prompt_tokens``, not inside it (OpenClaw)
    cache_outside: bool = False
    #: ``extra.cache_creation_input_tokens`` is not inside ``prompt_tokens`` (Harbor's
    #: older Claude Code conversion: prompt = input + cache reads)
    creation_outside: bool = False
    #: ``final_metrics`` equal the sum of the steps' metrics: an agent step without metrics
    #: made no model call (OpenHands' error answers to malformed calls are agent steps)
    usage_complete: bool = False


def _conventions(steps: list[Any], final: dict[str, Any]) -> _Conventions:
    """ATIF says ``prompt_tokens`` includes cached tokens; some producers do otherwise. A
    step whose cached tokens exceed its prompt tokens, or whose ``extra.total_tokens`` is
    prompt + completion + cached, shows the cache is outside; a step whose prompt tokens are
    fewer than its cache reads + cache writes shows the writes are outside. The usage is
    complete when the steps' own metrics add up to ``final_metrics`` (prompt and
    completion). One pass over the steps' metrics for all three."""
    conv = _Conventions()
    got_in = got_out = 0
    for step in steps:
        m = step.get("metrics") if isinstance(step, dict) else None
        if not m or not isinstance(m, dict):
            continue
        prompt, out = opt_count(m.get("prompt_tokens")), opt_count(m.get("completion_tokens")) or 0
        got_out += out
        if prompt is None:
            continue
        got_in += prompt
        cached = opt_count(m.get("cached_tokens")) or 0
        ex = m.get("extra")
        if not ex or not isinstance(ex, dict):
            if cached > prompt:
                conv.cache_outside = True
            continue
        total = opt_count(ex.get("total_tokens"))
        if cached > prompt or (cached and total is not None and total == prompt + out + cached):
            conv.cache_outside = True
        creation = opt_count(ex.get("cache_creation_input_tokens")) or 0
        reads = opt_count(ex.get("cache_read_input_tokens"))
        if creation and prompt < (cached if reads is None else reads) + creation:
            conv.creation_outside = True
    want_in, want_out = (
        opt_count(final.get("total_prompt_tokens")),
        opt_count(final.get("total_completion_tokens")),
    )
    conv.usage_complete = (
        want_in is not None
        and want_out is not None
        and (got_in, got_out) == (want_in, want_out)
        and got_in + got_out > 0
    )
    return conv


def _usage(metrics: Any, conv: _Conventions) -> Usage | None:
    if not metrics or not isinstance(metrics, dict):
        return None  # no counts: no usage
    m = metrics
    tin, tout = opt_count(m.get("prompt_tokens")), opt_count(m.get("completion_tokens"))
    if tin is None and tout is None:
        return None
    ex = as_dict(m.get("extra"))
    cached = opt_count(m.get("cached_tokens"))
    creation = opt_count(ex.get("cache_creation_input_tokens"))
    if tin is not None:
        tin += (cached or 0) if conv.cache_outside else 0
        tin += (creation or 0) if conv.creation_outside else 0
    return Usage(
        tin,
        tout,
        cached,
        creation,
        opt_count(ex.get("reasoning_tokens")),
        as_float(m.get("cost_usd")),
    )


def _call_key(step: dict[str, Any]) -> tuple[Any, ...] | None:
    """The input side of a step's Anthropic metrics (prompt, cache reads, cache writes):
    equal on consecutive agent steps means one API call split into several steps (Harbor's
    Claude Code conversion writes one step per content block, each repeating the message's
    usage). Two real calls never share it: each reads the other's output."""
    m = step.get("metrics")
    if not m or not isinstance(m, dict):
        return None
    ex = m.get("extra")
    if not ex or not isinstance(ex, dict):
        return None  # only Anthropic usage (cache reads and writes) identifies one call this surely
    if not ("cache_creation_input_tokens" in ex or "cache_read_input_tokens" in ex):
        return None
    prompt = opt_count(m.get("prompt_tokens"))
    if not prompt:
        return None
    return (
        step.get("model_name"),
        prompt,
        m.get("cached_tokens"),
        ex.get("cache_creation_input_tokens"),
        ex.get("cache_read_input_tokens"),
    )


def _result_text(r: dict[str, Any]) -> str:
    text = result_text(r.get("content"))
    refs = r.get("subagent_trajectory_ref")  # a summarisation hand-off: rare
    if refs and isinstance(refs, list):
        refs = [as_dict(x) for x in refs]
        notes = "\n".join(
            f"[sub-trajectory {opt_str(x.get('session_id')) or '?'}: {opt_str(x.get('trajectory_path')) or '?'}]"
            for x in refs
        )
        text = (text + "\n" + notes).strip()
    return text


def _read(path: Path, options: ReadOptions) -> Iterator[Run]:
    doc, warnings = load_document(path, options)
    if not isinstance(doc, dict) or not isinstance(doc.get("steps"), list):
        raise InputError("not an ATIF trajectory (no steps list)", path)
    agent = as_dict(doc.get("agent"))
    extra: dict[str, Any] = {}
    for key in ("schema_version", "final_metrics", "notes", "continued_trajectory_ref"):
        if doc.get(key) is not None:
            extra[key] = doc[key]
    if agent.get("version") is not None:
        extra["agent_version"] = agent.get("version")
    run = Run(
        run_id=id_str(doc.get("session_id")) or stem(path),
        harness=opt_str(agent.get("name")),
        model=opt_str(agent.get("model_name")),
        source_format=NAME,
        source_path=str(path),
        extra=extra,
    )
    b = RunBuilder(run)
    conv = _conventions(doc["steps"], as_dict(doc.get("final_metrics")))
    reader = _Steps(b, conv)
    reader.document(doc, path, warnings, depth=0)
    if run.model is None and reader.models:
        run.model = reader.models[0]
    run = b.finish()
    if conv.cache_outside:
        run.flags.append(
            "atif: cached_tokens are reported beside prompt_tokens (not inside): added to the input"
        )
    if conv.creation_outside:
        run.flags.append(
            "atif: cache writes (extra.cache_creation_input_tokens) are outside prompt_tokens: added"
        )
    if reader.merged:
        run.flags.append(
            f"atif: {reader.merged} step(s) repeat the usage of the step before (one API call split "
            "into several steps): counted once"
        )
    note = trim_note(doc, len(doc["steps"]))
    if note:
        run.flags.append(note)
    if reader.followed:
        run.extra["subtrajectories_read"] = reader.followed
    if reader.missing:
        run.flags.append(
            f"atif: {len(reader.missing)} referenced sub-trajectory file(s) not found beside the "
            "trajectory: their steps are not in this run"
        )
    final = as_dict(doc.get("final_metrics"))
    fin_extra = as_dict(final.get("extra"))
    total_cost = as_float(final.get("total_cost_usd"))
    if total_cost:  # the source's own total (the calls' sum is checked against it); 0 = no prices
        run.cost_usd = total_cost
    if final:
        creation = (
            opt_count(fin_extra.get("total_cache_creation_input_tokens"))
            if conv.creation_outside
            else None
        )
        totals = totals_from_counts(
            input_tokens=final.get("total_prompt_tokens"),
            output_tokens=final.get("total_completion_tokens"),
            cache_tokens=final.get("total_cached_tokens"),
            cost_usd=total_cost,
            source=f"{path.name} final_metrics",
            cache_separate=conv.cache_outside,
        )
        if creation and totals["tokens_in"] is not None:
            totals["tokens_in"] += creation
        set_source_totals(run, totals)
        _explain_totals(run, doc, final, reader)
    run.warnings.extend(warnings)
    yield run


def _explain_totals(run: Run, doc: dict[str, Any], final: dict[str, Any], reader: _Steps) -> None:
    """Name the known causes of a mismatch with ``final_metrics``."""
    if not any(f.startswith("source totals") for f in run.flags):
        return
    steps = [s for s in as_list(doc.get("steps")) if isinstance(s, dict)]
    declared = opt_count(final.get("total_steps"))
    if declared is not None and declared > len(steps):
        run.flags.append(
            f"atif: final_metrics counts {declared} steps, the file holds {len(steps)} "
            "(a trimmed or partial file)"
        )
    if reader.merged:
        raw = 0
        for step in steps:
            u = _usage(step.get("metrics"), reader.conv) if step.get("source") == "agent" else None
            raw += (u.input or 0) if u is not None else 0
        if raw == as_dict(run.extra.get("source_totals")).get("tokens_in"):
            run.flags.append(
                "atif: final_metrics adds the repeated usage of split steps again "
                f"(its input total equals the undeduplicated step sum, {raw})"
            )


#: sub-trajectories are followed this deep (a summariser's own summariser, ...)
_MAX_DEPTH = 3


class _Steps:
    """Adds the steps of a trajectory (and of the sub-trajectories it references) to a run."""

    def __init__(self, b: RunBuilder, conv: _Conventions) -> None:
        self.b = b
        self.conv = conv
        self.models: list[str] = []
        self.merged = 0
        self.followed: list[str] = []
        self.missing: list[str] = []
        self.seen: set[Path] = set()
        self._last_key: tuple[Any, ...] | None = None
        self._last_carrier: Draft | None = None

    def document(
        self,
        doc: dict[str, Any],
        path: Path,
        warnings: list[str],
        depth: int,
        sub: str | None = None,
    ) -> None:
        self.seen.add(path.resolve())
        for i, step in enumerate(as_list(doc.get("steps"))):
            if isinstance(step, dict):
                self.step(step, i == 0, path, warnings, depth, sub)

    def step(
        self,
        step: dict[str, Any],
        first: bool,
        path: Path,
        warnings: list[str],
        depth: int,
        sub: str | None,
    ) -> None:
        b = self.b
        source = opt_str(step.get("source")) or "agent"
        ts = parse_time(step.get("timestamp"))
        text = text_of(step.get("message"))
        results = [as_dict(r) for r in as_list(as_dict(step.get("observation")).get("results"))]
        step_extra: dict[str, Any] = (
            {"step_id": step.get("step_id")} if step.get("step_id") is not None else {}
        )
        if sub:
            step_extra["subtrajectory"] = sub
        if source != "agent":
            self._last_key = None
            compaction = any(r.get("subagent_trajectory_ref") for r in results)
            if source == "system" and first and not compaction:
                return  # the leading system prompt is not an event
            body = "\n".join(t for t in [text, *(_result_text(r) for r in results)] if t)
            refs = [ref for r in results for ref in as_list(r.get("subagent_trajectory_ref"))]
            if compaction:
                step_extra["subagent_trajectory_ref"] = refs
            b.message(body, role=source, ts=ts, compaction=compaction, extra=step_extra)
            self.follow(refs, path, warnings, depth)
            return
        model = opt_str(step.get("model_name"))
        if model and model not in self.models:
            self.models.append(model)
        calls = [
            ToolCall(
                id_str(tc.get("tool_call_id")),
                opt_str(tc.get("function_name")),
                tc.get("arguments"),
            )
            if isinstance(tc, dict)
            else ToolCall(None, None, None)
            for tc in as_list(step.get("tool_calls"))
        ]
        metrics = step.get("metrics")
        if (
            not calls
            and results
            and not metrics
            and not model
            and self._results_only(step, results, ts)
        ):
            return
        if not calls and not results and not metrics and self.conv.usage_complete:
            # final_metrics say no model call produced it (e.g. OpenHands' error answer to a
            # malformed call, or text of a response already counted): the agent's words, no usage
            self._last_key = None
            b.message(
                text,
                role="agent",
                ts=ts,
                kind=EventKind.REFLECT,
                extra={**step_extra, "no_model_call": True},
            )
            return
        key = _call_key(step)
        repeat = key is not None and key == self._last_key and self._last_carrier is not None
        usage = None if repeat else _usage(metrics, self.conv)
        reasoning = text_of(step.get("reasoning_content"))
        if calls:
            drafts = b.assistant(
                text,
                calls,
                usage=usage,
                reasoning=reasoning,
                t_start=ts,
                t_end=ts,
                model=model,
                extra=step_extra,
            )
        elif results:
            # the harness answered the agent's message itself (e.g. a response it could not parse)
            drafts = b.assistant(
                "",
                [ToolCall(None, None, text)],
                usage=usage,
                reasoning=reasoning,
                t_start=ts,
                t_end=ts,
                model=model,
                extra=step_extra,
            )
        else:
            drafts = b.assistant(
                text,
                (),
                usage=usage,
                reasoning=reasoning,
                t_start=ts,
                t_end=ts,
                model=model,
                extra=step_extra,
            )
        if drafts:
            if usage is None and not metrics and self.conv.usage_complete:
                # final_metrics are all in other steps: a call of a response counted there
                drafts[0].model_call, drafts[0].usage_elsewhere = False, True
            if repeat and self._last_carrier is not None:
                self._merge(drafts[0], step)
            elif key is not None:
                self._last_key, self._last_carrier = key, drafts[0]
        if calls or results:
            _pair(b, drafts, results, ts, step)
            refs = [ref for r in results for ref in as_list(r.get("subagent_trajectory_ref"))]
            if refs:
                self.follow(refs, path, warnings, depth)

    def _merge(self, d: Draft, step: dict[str, Any]) -> None:
        """A step repeating the API call of the step before: no usage of its own (the
        carrier keeps the largest completion count; streamed lines grow)."""
        carrier = self._last_carrier
        assert carrier is not None
        self.merged += 1
        d.model_call = False
        d.usage_elsewhere = True
        out = opt_count(as_dict(step.get("metrics")).get("completion_tokens"))
        if out is not None and carrier.tokens_out is not None and out > carrier.tokens_out:
            carrier.tokens_out = out
        carrier.gen_text = "\n".join(x for x in (carrier.gen_text, d.gen_text) if x)
        d.extra["same_call_as_step"] = carrier.extra.get("step_id")

    def _results_only(
        self, step: dict[str, Any], results: list[dict[str, Any]], ts: float | None
    ) -> bool:
        """An agent step that only carries tool results (OpenClaw writes each result as a
        step of its own, its call's id in ``extra.tool_call_id``): the results of earlier
        calls. False when no earlier call is waiting for them."""
        b = self.b
        fallback = id_str(as_dict(step.get("extra")).get("tool_call_id"))
        targets = []
        for r in results:
            cid = id_str(r.get("source_call_id")) or fallback
            if cid is not None and not b.has_call(cid):
                return False
            targets.append((cid, r))
        if not any(cid is not None for cid, _ in targets) and not b.open_calls():
            return False
        for cid, r in targets:
            text = _result_text(r)
            d = b.result(
                cid,
                text,
                ts=ts,
                extra={"result_step_id": step.get("step_id")}
                if step.get("step_id") is not None
                else None,
            )
            if d is not None:
                _outcome(d, step, r, text, alone=len(targets) == 1)
        return True

    def follow(self, refs: list[Any], path: Path, warnings: list[str], depth: int) -> None:
        """Read the sub-trajectory files a step references (beside this trajectory, or
        below its folder), their steps marked ``extra["subtrajectory"]``."""
        for ref in (as_dict(x) for x in refs):
            rel = opt_str(ref.get("trajectory_path"))
            if not rel or depth >= _MAX_DEPTH:
                continue
            folder = path.parent.resolve()
            target = (folder / rel).resolve()
            if target in self.seen:
                continue
            if not target.is_relative_to(folder) or not target.name.endswith(".json"):
                warnings.append(
                    f"{path}: sub-trajectory {rel!r} not followed (outside the trajectory's folder, "
                    "or not a .json file)"
                )
                continue
            try:
                found = target.is_file()
            except OSError as exc:  # a name too long for the file system, ...
                warnings.append(
                    f"{path}: sub-trajectory {rel!r} not followed ({exc.strerror or exc})"
                )
                continue
            if not found:
                self.missing.append(rel)
                continue
            try:
                doc, notes = load_document(target)
            except InputError as exc:
                warnings.append(f"{target}: sub-trajectory not read: {exc.reason}")
                continue
            if not isinstance(doc, dict) or not isinstance(doc.get("steps"), list):
                warnings.append(f"{target}: sub-trajectory not read: no steps list")
                continue
            warnings.extend(notes)
            self.followed.append(rel)
            self._last_key = None
            self.document(doc, target, warnings, depth + 1, opt_str(ref.get("session_id")) or rel)


def _pair(
    b: RunBuilder,
    drafts: list[Draft],
    results: list[dict[str, Any]],
    ts: float | None,
    step: dict[str, Any],
) -> None:
    """Results by ``source_call_id``, else by position among the step's unanswered calls."""
    waiting = list(drafts)
    leftovers: list[str] = []
    alone = len(results) == 1
    for r in results:
        cid = id_str(r.get("source_call_id"))
        text = _result_text(r)
        target = None
        if cid is not None:
            target = next((d for d in waiting if d.call_id == cid), None)
            if target is None:
                earlier = b.result(cid, text, ts=ts)
                if earlier is None:
                    leftovers.append(text)
                else:
                    _outcome(earlier, step, r, text, alone=alone)
                continue
        elif waiting:
            target = waiting[0]
        if target is None:
            leftovers.append(text)
            continue
        waiting.remove(target)
        b.fill(target, text, ts=ts)
        _outcome(target, step, r, text, alone=alone)
    if leftovers and drafts:
        last = drafts[-1]
        if last.has_result:
            last.observation = "\n".join([last.observation, *leftovers]).strip("\n")
        else:
            b.fill(last, "\n".join(leftovers), ts=ts)
            _outcome(last, step, None, last.observation, alone=False)


#: keys of a step's or result's ``extra`` that carry a tool's outcome, whoever wrote them
_ERROR_KEYS = ("is_error", "tool_result_is_error", "isError")
_CODE_KEYS = ("exit_code", "exec_exit_code", "exitCode", "returncode", "return_code")
_STATUS_KEYS = ("status", "exec_status")
_FAILED_STATUS = frozenset({"error", "failed", "failure"})
_TIMEOUT_STATUS = frozenset({"timeout", "timed_out", "timedout"})


def _outcome(
    d: Draft, step: dict[str, Any], r: dict[str, Any] | None, text: str, *, alone: bool
) -> None:
    """A result's outcome hints (docs/formats.md, "Verdict signals per format"): the result's
    own ``extra``, the step's ``extra.tool_call_details[call id]`` (Harbor's Codex
    conversion), and the step's ``extra`` (with its ``metadata`` / ``tool_result_metadata`` /
    ``tool_metadata``) when the step holds this one result: an is-error flag (Harbor's Claude Code conversion:
    ``tool_result_is_error``), an exit code (OpenClaw's ``exec_exit_code``), a status
    (``exec_status: "failed"``); then the producers' conventions in the text (``_signals``):
    Harbor's failure mark, Claude Code's ``Exit code N`` and refusals, OpenHands' ``ERROR:``
    and exit-code lines, mini-swe-agent's ``<returncode>``, an ``exit_code=N`` line, a JSON
    ``{"status": "error"}`` answer."""
    code: int | None = None
    # most results and steps have no extra: no holder to look in
    h = r.get("extra") if r is not None else None
    if h and isinstance(h, dict):
        code = _hints(d, h, code)
    ex = step.get("extra")
    if ex and isinstance(ex, dict):
        # Harbor's Codex conversion: per-call details of a bundled step, keyed by call id
        detail = as_dict(as_dict(ex.get("tool_call_details")).get(d.call_id or ""))
        holders = [detail, as_dict(detail.get("metadata"))]
        if alone:
            holders += [
                ex,
                as_dict(ex.get("metadata")),
                as_dict(ex.get("tool_result_metadata")),
                as_dict(ex.get("tool_metadata")),
            ]
        for h in holders:
            if h:
                code = _hints(d, h, code)
    if code is None:
        code = claude_exit_code(text)
    oh = openhands_hints(text)
    if code is None:
        code = oh.exit_code
    if code is None:
        code = reported_exit_code(text)
    if code is not None:
        d.exit_code = code
    if oh.timed_out or _poll_ran_out(d, text):
        d.timed_out = True
    if oh.is_error or harbor_failure(text) or json_error(text) is not None:
        d.is_error = True
    if d.is_error and claude_refusal(text):
        refused(d)


def _hints(d: Draft, h: dict[str, Any], code: int | None) -> int | None:
    """One holder's outcome keys (``_outcome``): is-error and status on ``d``; the exit
    code found so far, else this holder's."""
    if any(h.get(k) is True for k in _ERROR_KEYS):
        d.is_error = True
    for k in _CODE_KEYS:
        if code is None:
            code = as_int(h.get(k))
    for k in _STATUS_KEYS:
        st = as_str(h.get(k)).lower()
        if st in _FAILED_STATUS:
            d.is_error = True
        elif st in _TIMEOUT_STATUS:
            d.timed_out = True
    return code


def _poll_ran_out(d: Draft, text: str) -> bool:
    """OpenClaw's ``process`` poll that waited out its own time limit on a command still
    running and saw nothing new: "(no new output)\n\nProcess still running." (a timeout,
    GUIDE rule 7; a poll that shows new output is progress, no verdict)."""
    return (
        (d.tool or "") == "process"
        and '"poll"' in d.action
        and text.lstrip().startswith("(no new output)")
        and "Process still running" in text
    )
