"""Write runs as ``efc-trace/1`` JSONL (SPEC §9), the inverse of ``native.py``.

``run_lines(run)`` gives the header line and one line per event; ``write_runs(path, runs)``
writes a whole file atomically (temp file + rename, ``efc_tui.io.write_atomic``).

Round trip: ``native.read(write(run))`` gives back the same run: metadata, every event
field, oracle blocks and pass-through ``extra`` fields. Values a reader had to infer (kind,
status, token counts) are written as explicit values, so scores do not change; the event
names what was estimated in ``usage.estimated`` (kept as a pass-through field). Unknown wall
time is left out, so reading the file back flags it again instead of presenting 0 s as a
measurement. Runs written by ``efc-tui simulate`` carry no estimated fields and round-trip
exactly, flags included.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from efc_tui.io import write_atomic
from efc_tui.model import Event, Run
from efc_tui.parsers.native import SCHEMA_ID

_OPTS = orjson.OPT_APPEND_NEWLINE


def header_object(run: Run) -> dict[str, Any]:
    obj: dict[str, Any] = {"type": "run", "schema": SCHEMA_ID, "run_id": run.run_id}
    for key in ("task_id", "task_family", "harness", "model"):
        value = getattr(run, key)
        if value is not None:
            obj[key] = value
    if run.budget:
        obj["budget"] = run.budget
    obj["success"] = run.success
    for key in ("reward", "success_from", "exit_status", "cost_usd"):
        value = getattr(run, key)
        if value is not None:
            obj[key] = value
    if run.task_demand is not None:
        obj["task_demand"] = {k: v for k, v in run.task_demand.as_dict().items() if v is not None}
    for key, value in run.extra.items():
        obj.setdefault(key, value)
    return obj


def step_object(ev: Event) -> dict[str, Any]:
    extra = dict(ev.extra)
    action: dict[str, Any] = {"kind": ev.kind.value}
    if ev.tool is not None:
        action["tool"] = ev.tool
    if ev.action_text:
        action["input"] = ev.action_text
    observation: dict[str, Any] = {"text": ev.observation_text, "status": ev.status.value}
    if ev.checks is not None:
        checks: dict[str, Any] = {"passed": ev.checks.passed, "failed": ev.checks.failed}
        if ev.checks.total is not None:
            checks["total"] = ev.checks.total
        observation["checks"] = checks
    if ev.truncated:
        observation["truncated"] = True
    update: dict[str, Any] = {}
    if ev.memory_write is not None:
        update["memory_write"] = ev.memory_write
    if ev.plan is not None:
        update["plan"] = ev.plan
    usage: dict[str, Any] = {"tokens_in": ev.tokens_in, "tokens_out": ev.tokens_out}
    estimated = [f for f in ev.flags if f != "wall_s"]
    if estimated:
        usage["estimated"] = estimated
    if "wall_s" not in ev.flags:
        usage["wall_s"] = ev.wall_s
    usage["tool_calls"] = ev.tool_calls
    usage["ops"] = ev.ops

    # fields the reader kept from the source's sub-objects go back where they came from
    for name, part in (
        ("action", action),
        ("observation", observation),
        ("update", update),
        ("usage", usage),
    ):
        rest = extra.pop(name, None)
        if isinstance(rest, dict):
            for k, v in rest.items():
                part.setdefault(k, v)
    obj: dict[str, Any] = {
        "type": "step",
        "t": ev.step,
        "action": action,
        "observation": observation,
    }
    if update:
        obj["update"] = update
    obj["usage"] = usage
    if ev.refs:
        obj["refs"] = list(ev.refs)
    if ev.oracle is not None:
        obj["oracle"] = ev.oracle
    if ev.timestamp is not None:
        obj["timestamp"] = ev.timestamp
    for key, value in extra.items():
        obj.setdefault(key, value)
    return obj


def run_lines(run: Run) -> list[bytes]:
    """The run as efc-trace/1 lines, each ending in a newline."""
    lines = [orjson.dumps(header_object(run), option=_OPTS)]
    lines.extend(orjson.dumps(step_object(ev), option=_OPTS) for ev in run.events)
    return lines


def dumps_runs(runs: Iterable[Run]) -> bytes:
    """Several runs as one efc-trace/1 JSONL document."""
    return b"".join(line for run in runs for line in run_lines(run))


def write_runs(path: str | Path, runs: Iterable[Run]) -> Path:
    """Write runs to ``path`` atomically (readers see the old file or the whole new one)."""
    return write_atomic(path, dumps_runs(runs))
