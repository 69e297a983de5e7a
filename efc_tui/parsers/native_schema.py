"""The ``step`` line of ``efc-trace/1`` (SPEC §9, docs/formats.md) as msgspec Structs: the
schema of a well-formed step, and its fast decoder.

A step line that fits these types exactly is decoded straight into them by msgspec (no
dict per line); ``native.event_of`` then builds its Event. A line that does not fit (an
unknown field, a value to coerce such as a numeric ``tool`` or an object as ``input``, a
value to reject with its precise reason, a number outside the ranges below) raises
``msgspec.ValidationError`` here and goes through ``native.step_to_event``, which reads the
dict orjson gives, coerces or rejects each field with its own message, and fills the same
Structs. Every rule of what a step means (inferred kind and status, estimated tokens,
default tool calls and operations) lives in ``native.event_of``, once.

The ranges are where msgspec and orjson read a number alike: counts (tokens, calls,
operations, checks, wall time) in ``[0, MAX_COUNT]``; the step index and exit code within
64-bit integers (orjson reads a longer integer as a float, which the dict path rejects).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, Meta, Raw, Struct, UnsetType

from efc_tui.model import EventKind, Status
from efc_tui.parsers._values import MAX_COUNT

#: a count or duration: non-negative, at most MAX_COUNT (2**53), written as an integer or not
Count = Annotated[int, Meta(ge=0, le=MAX_COUNT)] | Annotated[float, Meta(ge=0, le=MAX_COUNT)]
#: an integer as orjson reads one exactly (a longer one goes through the dict path)
Int64 = Annotated[int, Meta(ge=-(2**63), le=2**63 - 1)]
#: a point in time, seconds: non-negative
Seconds = Annotated[int, Meta(ge=0, le=2**63 - 1)] | Annotated[float, Meta(ge=0)]


class Action(Struct, forbid_unknown_fields=True, gc=False):
    """What the agent did: ``kind`` (inferred from tool and input when absent), the tool
    called, and its input as text."""

    kind: EventKind | None = None
    tool: str | None = None
    input: str | None = None


class StepChecks(Struct, forbid_unknown_fields=True, gc=False):
    """Test counts the observation reports."""

    passed: Count | None = None
    failed: Count | None = None
    total: Count | None = None


class Observation(Struct, forbid_unknown_fields=True, gc=False):
    """What came back: its text, its verdict (classified from the text and exit code when
    absent), check counts, whether the text was cut."""

    text: str | None = None
    status: Status | None = None
    checks: StepChecks | None = None
    truncated: bool | None = None
    exit_code: Int64 | None = None


class Update(Struct, forbid_unknown_fields=True, gc=False):
    """What the agent wrote to its memory or plan at this step."""

    memory_write: str | None = None
    plan: str | None = None


class Usage(Struct, forbid_unknown_fields=True, gc=False):
    """What the step consumed (SPEC §4); tokens estimated from text length when both are
    absent."""

    tokens_in: Count | None = None
    tokens_out: Count | None = None
    wall_s: Count | None = None
    tool_calls: Count | None = None
    ops: Count | None = None


class StepLine(Struct, forbid_unknown_fields=True, gc=False):
    """One ``{"type": "step", ...}`` line. ``t`` defaults to the event's index; ``refs``
    are indices of earlier events; ``oracle`` is any object, kept as its JSON text here
    (orjson reads it, as it reads every free-form value: a long integer as a float)."""

    type: Literal["step"]
    t: Int64 | UnsetType = UNSET
    action: Action | None = None
    observation: Observation | None = None
    update: Update | None = None
    usage: Usage | None = None
    refs: list[Int64] | None = None
    oracle: Raw | None = None
    timestamp: Seconds | None = None


NO_ACTION = Action()
NO_OBSERVATION = Observation()
NO_UPDATE = Update()
NO_USAGE = Usage()

_DECODER = msgspec.json.Decoder(StepLine)
#: the step decoder: raises ValueError (msgspec's errors, UnicodeDecodeError) or
#: RecursionError on a line it does not take
decode_step = _DECODER.decode
#: the same for a run of newline-separated lines, in one call (blank lines are skipped):
#: raises as ``decode_step`` when any line does not fit
decode_steps = _DECODER.decode_lines
