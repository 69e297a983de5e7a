"""Small builders for hand-made runs in tests."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from efc_tui.model import Checks, Event, EventKind, Run, Status


def ev(
    index: int,
    kind: str = "tool",
    status: str = "none",
    *,
    tool: str | None = "bash",
    action: str = "",
    obs: str = "",
    checks: tuple[int, int, int | None] | None = None,
    memory: str | None = None,
    plan: str | None = None,
    **usage: Any,
) -> Event:
    return Event(
        index=index,
        step=index,
        kind=EventKind(kind),
        tool=tool,
        status=Status(status),
        action_text=action,
        observation_text=obs,
        checks=Checks(*checks) if checks else None,
        memory_write=memory,
        plan=plan,
        **usage,
    )


def make_run(events: list[Event], **meta: Any) -> Run:
    return Run(run_id=meta.pop("run_id", "test-run"), events=events, source_format="test", **meta)


def write_trace(path: Path, header: dict[str, Any], steps: list[dict[str, Any]]) -> Path:
    lines = [json.dumps({"type": "run", "schema": "efc-trace/1", **header})]
    lines += [json.dumps({"type": "step", **s}) for s in steps]
    path.write_text("\n".join(lines) + "\n")
    return path


def assert_well_formed(run: Run, fmt: str | None = None) -> None:
    """What every reader must return, whatever the input: events indexed 0..n-1 in order,
    model enums, finite non-negative costs, refs to earlier events only; and the run scores
    (SPEC §2, §4). Used by the property tests on mutated inputs."""

    from efc_tui.model import EventKind, Status
    from efc_tui.scoring import score_run

    if fmt is not None:
        assert run.source_format == fmt
    assert isinstance(run.run_id, str) and run.run_id
    for i, e in enumerate(run.events):
        assert e.index == i, (i, e.index)
        assert isinstance(e.kind, EventKind) and isinstance(e.status, Status)
        assert isinstance(e.action_text, str) and isinstance(e.observation_text, str)
        for v in (e.tokens_in, e.tokens_out, e.tool_calls, e.ops, e.wall_s):
            assert math.isfinite(v) and v >= 0, (i, v)
        assert all(0 <= r < i for r in e.refs), (i, e.refs)
    ledger = score_run(run)
    assert len(ledger) == len(run.events)
    assert math.isfinite(ledger.figures.c_raw) and ledger.figures.c_raw >= 0


@contextmanager
def dict_path() -> Iterator[None]:
    """Read native traces without the schema decoder (efc_tui/parsers/native_schema.py):
    every line through orjson and ``native.step_to_event``, the reference the schema path
    (a line at a time, or a block's lines in one call) must match event for event."""
    from efc_tui.parsers import native

    with (
        mock.patch.object(native, "_schema_event", lambda raw, index, prev_failed: None),
        mock.patch.object(native, "_schema_block", lambda block, pos, end, index: None),
    ):
        yield
