"""The project's own format, ``efc-trace/1`` (SPEC §9): JSONL, a run header then steps.

Streaming: the file is read in blocks of whole lines (about 1 MB); a new ``run`` header
line ends the previous run, so a file may hold a whole corpus while only one run is in
memory. A step line that fits the schema (``native_schema``: msgspec Structs) is decoded
straight into it; any other line (a header, a value to coerce or reject, an unknown
field) is parsed by orjson and read field by field (``step_to_event``), which gives the
same Event or the error naming file and line. Both end in ``event_of``, the rules.

Each step becomes one event. Its kind is ``action.kind`` (inferred from the tool and input
when absent); its status is ``observation.status`` (classified from the text when absent,
and flagged). ``update.memory_write`` and ``update.plan`` attach to the step's event as
its memory-write and plan-change signals. Unknown fields are kept in ``extra``.
"""

from __future__ import annotations

import sys
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import orjson
from msgspec import UNSET

from efc_tui.errors import InputError
from efc_tui.model import Checks, Event, EventKind, Run, Status, TaskDemand
from efc_tui.parsers import sniffs
from efc_tui.parsers._values import MAX_COUNT, MAX_DEPTH, depth, too_deep
from efc_tui.parsers.base import ReadOptions, open_binary
from efc_tui.parsers.held import release
from efc_tui.parsers.native_schema import (
    NO_ACTION,
    NO_OBSERVATION,
    NO_UPDATE,
    NO_USAGE,
    Action,
    Observation,
    StepChecks,
    StepLine,
    Update,
    Usage,
    decode_step,
    decode_steps,
)
from efc_tui.parsers.status import classify_observation, infer_kind, is_failure

SCHEMA_ID = "efc-trace/1"
CHARS_PER_TOKEN = 4

_RUN_KEYS = {
    "type",
    "schema",
    "run_id",
    "task_id",
    "task_family",
    "harness",
    "model",
    "budget",
    "success",
    "reward",
    "success_from",
    "exit_status",
    "cost_usd",
    "task_demand",
}
#: a step line's known keys: the schema's (native_schema.StepLine)
_STEP_KEYSET = frozenset(StepLine.__struct_fields__)
_COUNT_KEYS = frozenset({"tokens_in", "tokens_out", "tool_calls", "ops"})
_KINDS = {k.value: k for k in EventKind}
_STATUSES = {s.value: s for s in Status}
#: the native sniff (``sniffs.native``), by the name the live follower (app/tail.py) asks for
sniff = sniffs.native


class MalformedLine(Exception):
    """A malformed line; carries the reason, the caller adds file and line.

    Public for readers that parse native lines themselves (the app's live follower)."""


def _text(value: Any, what: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        return orjson.dumps(value).decode()
    if isinstance(value, bool | int | float):
        return str(value)
    raise MalformedLine(f"{what} must be text or JSON, not {type(value).__name__}")


def _obj(value: Any, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MalformedLine(f"{what} must be an object, not {type(value).__name__}")
    return value


def _num(value: Any, what: str, default: float | None = None) -> float | None:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MalformedLine(f"{what} must be a number, not {type(value).__name__}")
    if value != value or value < 0:  # NaN or negative
        raise MalformedLine(f"{what} must be a non-negative number, got {value}")
    return value


def _brief(value: Any) -> str:
    """A value as an error message shows it: its repr, cut at 80 characters; an object or
    array nested deeply by its depth (its repr would be long, or too deep to make)."""
    if isinstance(value, dict | list) and (d := depth(value)) > 8:
        return f"a JSON {'object' if isinstance(value, dict) else 'array'} nested {d} levels"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _count(value: Any, what: str, default: float | None = None) -> float | None:
    """A count (tokens, calls, ops, checks): a number in [0, MAX_COUNT] (_values.MAX_COUNT)."""
    n = _num(value, what, default)
    if n is not None and n > MAX_COUNT:
        raise MalformedLine(
            f"{what} {_brief(value)} is past the largest count, 2**53 = {MAX_COUNT}"
        )
    return n


def check_depth(raw: bytes, obj: Any) -> None:
    """Raise MalformedLine when the line ``raw`` (parsed: ``obj``) nests deeper than
    MAX_DEPTH (_values.MAX_DEPTH)."""
    if too_deep(raw, obj):
        raise MalformedLine(f"nested deeper than {MAX_DEPTH} levels")


def parse_header(obj: dict[str, Any], path: Path, index: int) -> Run:
    run_id = obj.get("run_id")
    if run_id is None:
        run_id = f"{path.stem}#{index}" if index else path.stem
    success = obj.get("success")
    if success is not None and not isinstance(success, bool):
        if success in (0, 1):
            success = bool(success)
        else:
            raise MalformedLine(f"success must be true, false or null, not {_brief(success)}")
    demand = None
    td = obj.get("task_demand")
    if td is not None:
        td = _obj(td, "task_demand")
        demand = TaskDemand(
            **{
                k: _num(td.get(k), f"task_demand.{k}")
                for k in ("L", "H_tool", "S_state", "N_obs", "V_ver")
            }
        )
    budget = _obj(obj.get("budget"), "budget")
    reward = obj.get("reward")
    if reward is not None and (
        isinstance(reward, bool)
        or not isinstance(reward, int | float)
        or reward != reward
        or reward in (float("inf"), float("-inf"))
    ):
        raise MalformedLine(f"reward must be a finite number or null, not {_brief(reward)}")
    return Run(
        run_id=str(run_id),
        task_id=_opt_str(obj.get("task_id")),
        task_family=_opt_str(obj.get("task_family")),
        harness=_opt_str(obj.get("harness")),
        model=_opt_str(obj.get("model")),
        budget=budget,
        success=success,
        reward=None if reward is None else float(reward),
        success_from=_opt_str(obj.get("success_from")),
        exit_status=_opt_str(obj.get("exit_status")),
        cost_usd=_num(obj.get("cost_usd"), "cost_usd"),
        task_demand=demand,
        source_format="native",
        source_path=str(path),
        extra={k: v for k, v in obj.items() if k not in _RUN_KEYS},
    )


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


_EMPTY: dict[str, Any] = {}


def _part(obj: dict[str, Any], name: str) -> dict[str, Any]:
    v = obj.get(name)
    if v is None:
        return _EMPTY
    if type(v) is dict:
        return v
    return _obj(v, name)


def _usage_num(usage: dict[str, Any], key: str) -> float | None:
    v = usage.get(key)
    if v is None:
        return None
    t = type(v)
    if (t is int or t is float) and 0 <= v <= MAX_COUNT:
        return v
    if key in _COUNT_KEYS:
        return _count(v, f"usage.{key}")
    return _num(v, f"usage.{key}")


def _unknown(part: dict[str, Any], struct: type[msgspec.Struct]) -> dict[str, Any] | None:
    known = struct.__struct_fields__
    rest = {k: v for k, v in part.items() if k not in known}
    return rest or None


def step_to_event(obj: dict[str, Any], index: int, prev_failed: bool) -> Event:
    """One ``step`` line, as the dict orjson gives, as an Event (raises MalformedLine on a
    malformed field): each field checked and coerced to the schema's type (a number as
    ``tool`` becomes text, an object as ``input`` its JSON text) in the order below, which
    is the order the errors are found in; unknown fields are kept in ``extra``; then
    ``event_of`` builds the Event. Lines that fit the schema exactly skip this
    (native_schema.decode_step)."""
    action = _part(obj, "action")
    obs = _part(obj, "observation")
    update = _part(obj, "update")
    usage = _part(obj, "usage")

    tool = action.get("tool")
    if tool is not None and type(tool) is not str:
        tool = str(tool)
    action_text = action.get("input")
    if type(action_text) is not str:
        action_text = _text(action_text, "action.input")
    obs_text = obs.get("text")
    if type(obs_text) is not str:
        obs_text = _text(obs_text, "observation.text")

    kind_raw = action.get("kind")
    kind = None
    if kind_raw is not None:
        kind = _KINDS.get(kind_raw) if type(kind_raw) is str else None
        if kind is None:
            raise MalformedLine(f"action.kind {_brief(kind_raw)} is not one of {', '.join(_KINDS)}")

    checks = None
    ch = obs.get("checks")
    if ch is not None:
        ch = _obj(ch, "observation.checks")
        total = _count(ch.get("total"), "observation.checks.total")
        checks = StepChecks(
            passed=_count(ch.get("passed"), "observation.checks.passed", 0),
            failed=_count(ch.get("failed"), "observation.checks.failed", 0),
            total=total,
        )
    status_raw = obs.get("status")
    status = exit_code = None
    if status_raw is None:
        exit_code = obs.get("exit_code")
        if exit_code is not None and type(exit_code) is not int:
            raise MalformedLine(
                f"observation.exit_code must be an integer, not {_brief(exit_code)}"
            )
    else:
        status = _STATUSES.get(status_raw) if type(status_raw) is str else None
        if status is None:
            raise MalformedLine(
                f"observation.status {_brief(status_raw)} is not one of {', '.join(_STATUSES)}"
            )
    counts = Usage(*(_usage_num(usage, k) for k in Usage.__struct_fields__))

    refs_raw = obj.get("refs")
    refs: list[int] | None = None
    if refs_raw:
        if not isinstance(refs_raw, list | tuple) or not all(
            type(r) is int and 0 <= r < index for r in refs_raw
        ):
            raise MalformedLine(
                f"refs must be a list of indices of earlier events (< {index}), got {_brief(refs_raw)}"
            )
        refs = list(refs_raw)
    oracle = obj.get("oracle")
    if oracle is not None:
        oracle = _obj(oracle, "oracle")
    ts = obj.get("timestamp")
    if ts is not None:
        ts = _num(ts, "timestamp")

    extra: dict[str, Any] = {}
    if not obj.keys() <= _STEP_KEYSET:
        extra = {k: v for k, v in obj.items() if k not in _STEP_KEYSET}
    for name, part, struct in (
        ("action", action, Action),
        ("observation", obs, Observation),
        ("update", update, Update),
        ("usage", usage, Usage),
    ):
        if part and (rest := _unknown(part, struct)):
            extra[name] = rest

    step = obj.get("t", index)
    if type(step) is not int:
        raise MalformedLine(f"t must be an integer step index, not {_brief(step)}")
    memory_write = update.get("memory_write")
    plan = update.get("plan")
    line = StepLine(
        "step",
        step,
        Action(kind, tool, action_text) if action else None,
        Observation(obs_text, status, checks, obs.get("truncated", False) is True, exit_code),
        Update(
            None if memory_write is None else _text(memory_write, "update.memory_write"),
            None if plan is None else _text(plan, "update.plan"),
        ),
        counts,
        refs,
        None,
        ts,
    )
    return event_of(line, index, prev_failed, oracle, extra, wrote_memory=bool(memory_write))


#: members read once (an enum class's attribute read is slow on Python 3.11: status.py)
_MESSAGE, _TOOL, _CHECK = EventKind.MESSAGE, EventKind.TOOL, EventKind.CHECK
_NONE = Status.NONE
#: the estimates an event's ``flags`` can name, in their order there, and each subset of them
#: as one shared tuple (index: a bit per name), so an event's flags allocate nothing
_ESTIMATES = ("kind", "status", "tokens", "wall_s")
_FLAGS = tuple(
    tuple(name for bit, name in enumerate(_ESTIMATES) if mask >> bit & 1)
    for mask in range(1 << len(_ESTIMATES))
)


def event_of(
    s: StepLine,
    index: int,
    prev_failed: bool,
    oracle: dict[str, Any] | None,
    extra: dict[str, Any] | None = None,
    *,
    wrote_memory: bool | None = None,
) -> Event:
    """The Event of one step line read into the schema (SPEC §9): its kind inferred from the
    tool and input when absent (after a failure, a rewrite is a repair), its status
    classified from the text and exit code when absent, tokens estimated from text length
    (4 characters a token) when neither count is given, one tool call for a tool or check,
    and ``ops`` the model call, the tool call and a memory write; each estimate is named in
    ``flags``. ``oracle``: the line's oracle object, as orjson reads it. ``wrote_memory``:
    whether the line's memory write counts as an operation (the raw value's truth, when the
    dict path turned a non-text value into text)."""
    action = s.action
    has_action = action is not None
    if action is None:
        action = NO_ACTION
    obs = s.observation or NO_OBSERVATION
    usage = s.usage or NO_USAGE
    update = s.update or NO_UPDATE
    estimated = 0  # a bit per name of _ESTIMATES

    tool = action.tool
    action_text = action.input or ""
    obs_text = obs.text or ""
    kind = action.kind
    if kind is None:
        kind = (
            infer_kind(tool, action_text, after_failure=prev_failed)
            if (tool or action_text)
            else _MESSAGE
        )
        estimated = 1
    c = obs.checks
    checks = (
        None
        if c is None
        else Checks(
            int(c.passed or 0), int(c.failed or 0), None if c.total is None else int(c.total)
        )
    )
    status = obs.status
    if status is None:
        exit_code = obs.exit_code
        status, found = classify_observation(obs_text, exit_code=exit_code, is_check=kind is _CHECK)
        if checks is None:
            checks = found
        if obs_text or exit_code is not None:
            estimated |= 2

    tin = usage.tokens_in
    tout = usage.tokens_out
    if tin is None and tout is None:
        # SPEC §4: estimate from text length at 4 chars/token, and say so.
        tout = len(action_text) // CHARS_PER_TOKEN
        tin = len(obs_text) // CHARS_PER_TOKEN
        estimated |= 4
    wall = usage.wall_s
    if wall is None:
        estimated |= 8
    tool_calls = usage.tool_calls
    if tool_calls is None:
        tool_calls = 1 if kind is _TOOL or kind is _CHECK or (tool and kind is not _MESSAGE) else 0
    memory_write = update.memory_write
    ops = usage.ops
    if ops is None:
        # model call that chose the action + the tool/check call + a memory update
        if wrote_memory is None:
            wrote_memory = bool(memory_write)
        ops = (1 if has_action else 0) + int(tool_calls) + (1 if wrote_memory else 0)
    # the counts in the model's types (a float count truncated, a whole-number duration a
    # float), each tested first: nearly all are already, and the five int() and float()
    # calls were 14% of building an event (20 of 145 ms over score_bench's 100k steps)
    return Event(
        index,
        index if s.t is UNSET else s.t,
        kind,
        tool,
        status,
        action_text,
        obs_text,
        tin if type(tin) is int else int(tin or 0),
        tout if type(tout) is int else int(tout or 0),
        tool_calls if type(tool_calls) is int else int(tool_calls),
        wall if type(wall) is float and wall else float(wall or 0.0),  # -0.0 made 0.0
        ops if type(ops) is int else int(ops),
        tuple(s.refs) if s.refs else (),
        checks,
        memory_write,
        update.plan,
        obs.truncated is True,
        s.timestamp,
        oracle,
        _FLAGS[estimated],
        {} if extra is None else extra,
    )


def _schema_event(raw: bytes, index: int, prev_failed: bool) -> Event | None:
    """The Event of a step line that fits the schema exactly (native_schema), else None:
    the line then goes through orjson and ``step_to_event``, which give the same Event or
    the precise error. Besides the types, a fit has ``refs`` to earlier events, an
    ``action`` with a field set, and an ``oracle`` object that cannot nest past MAX_DEPTH."""
    try:
        s = decode_step(raw)
    except (ValueError, RecursionError):  # msgspec's errors, UnicodeDecodeError
        return None
    a = s.action
    if a is not None and a.kind is None and a.tool is None and a.input is None:
        return None  # {} and {"kind": null} differ in ops: the dict path tells them apart
    if s.refs and not _refs_fit(s.refs, index):
        return None
    oracle = None
    if s.oracle is not None:
        if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH:
            return None
        try:
            oracle = orjson.loads(memoryview(s.oracle))
        except orjson.JSONDecodeError:
            return None
        if type(oracle) is not dict:
            return None
    return event_of(s, index, prev_failed, oracle)


def _refs_fit(refs: list[int], index: int) -> bool:
    """Whether ``refs`` are indices of events before ``index``."""
    return all(0 <= r < index for r in refs)


def _schema_block(block: bytes, pos: int, end: int, index: int) -> list[StepLine] | None:
    """The step lines of ``block[pos:end]`` decoded in one call, when every line fits the
    schema as ``_schema_event`` takes it without an oracle (the first event's index is
    ``index``), else None: the block is then read line by line. One call for a block's
    thousand lines instead of one a line saves a third of the native reader's time on a
    100k-event trace (bench/score_bench.py), where almost every block is all steps."""
    try:
        steps = decode_steps(memoryview(block)[pos:end])
    except (ValueError, RecursionError):
        return None
    # one value a line: the decoder also reads `{..} {..}` on one line as two values
    lines = _newlines(block, pos, end) + (block[end - 1] != 0x0A)
    if len(steps) != lines:  # a blank line (skipped by the decoder): counted line by line
        return None
    for k, s in enumerate(steps, index):
        a = s.action
        if (
            (a is not None and a.kind is None and a.tool is None and a.input is None)
            or s.oracle is not None
            or (s.refs and not _refs_fit(s.refs, k))
        ):
            return None
    return steps


def _newlines(block: bytes, pos: int, end: int) -> int:
    """``block.count(b"\\n", pos, end)``, by numpy's vectorized comparison once numpy is
    imported (``score`` imports it to score; the reader does not, so ``open``'s first frame
    goes without it). ``bytes.count`` reads a byte at a time: over the 106 MB of
    ``bench/score_bench.py``'s trace it takes 0.031 s against numpy's 0.011 s, 2% of
    ``score``. The comparison's output is one buffer a thread keeps for its next block (the
    app reads files on several threads): a new 1 MB array a block is new memory each time
    (the heap grows by the events in between), and its page faults made the count slower
    than ``bytes.count`` (0.041 s)."""
    np = sys.modules.get("numpy")
    n = end - pos
    if np is None or n < _NUMPY_COUNT:
        return block.count(b"\n", pos, end)
    out = getattr(_EQUAL, "out", None)
    if out is None or len(out) < n:
        out = _EQUAL.out = np.empty(max(n, BLOCK), np.bool_)
    eq = np.equal(np.frombuffer(block, np.uint8, n, pos), 0x0A, out=out[:n])
    return int(np.count_nonzero(eq))


#: below about this many bytes, bytes.count is the quicker (measured: equal near 8 KB)
_NUMPY_COUNT = 1 << 13
#: _newlines' output buffer, one a thread
_EQUAL = threading.local()


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    """Yield the runs of a native trace file, one at a time."""
    run: Run | None = None
    events: list[Event] = []
    runs_seen = 0
    skipped = 0
    prev_failed = False
    lineno = 0
    with open_binary(path, options) as f:
        for block, pos, end in _blocks(f, path, BLOCK):
            if run is not None and (steps := _schema_block(block, pos, end, len(events))):
                append = events.append
                for k, step in enumerate(steps, len(events)):
                    fit = event_of(step, k, prev_failed, None)
                    if fit.status is not _NONE:  # has a verdict
                        prev_failed = is_failure(fit.status)
                    append(fit)
                lineno += len(steps)
                continue
            lines = block[pos:end].split(b"\n")
            unended = lines[-1]  # the last line of the file when it has no newline
            if not unended:
                lines.pop()
            for raw in lines:
                lineno += 1
                if (
                    run is not None
                    and (event := _schema_event(raw, len(events), prev_failed)) is not None
                ):
                    if event.status is not _NONE:  # has a verdict
                        prev_failed = is_failure(event.status)
                    events.append(event)
                    continue
                if not raw or raw.isspace():  # blank line (isspace: no stripped copy)
                    continue
                ended = not unended or raw is not unended
                try:
                    try:
                        obj = orjson.loads(raw + b"\n" if ended else raw)
                    except orjson.JSONDecodeError as exc:
                        if not ended:
                            # The last line of a log still being written: a warning, not an error.
                            if run is not None:
                                run.warnings.append(
                                    f"{path}:{lineno}: truncated last line ignored (a log still being written?)"
                                )
                            break
                        raise MalformedLine(f"not valid JSON ({exc.msg})") from None
                    if not isinstance(obj, dict):
                        raise MalformedLine(f"expected a JSON object, got {type(obj).__name__}")
                    check_depth(raw, obj)
                    typ = obj.get("type")
                    if typ == "run":
                        if run is not None:
                            yield _finish(run, skipped)
                            skipped = 0
                        run = parse_header(obj, path, runs_seen)
                        events = run.events
                        runs_seen += 1
                        prev_failed = False
                        continue
                    if run is None:
                        raise MalformedLine(
                            'the first line must be the run header {"type": "run", ...}'
                        )
                    if typ != "step":
                        raise MalformedLine(
                            f'unknown line type {_brief(typ)} (expected "run" or "step")'
                        )
                    event = step_to_event(obj, len(events), prev_failed)
                    if event.status is not _NONE:
                        prev_failed = is_failure(event.status)
                    events.append(event)
                except MalformedLine as bad:
                    if not options.lenient:
                        raise InputError(str(bad), path, lineno) from None
                    skipped += 1
                    if run is not None:
                        run.warnings.append(f"{path}:{lineno}: skipped: {bad}")
    if run is None:
        if lineno == 0 or skipped == 0:
            raise InputError("empty trace: no run header line", path)
        raise InputError(f"no valid run header; {skipped} malformed line(s) skipped", path)
    yield _finish(run, skipped)


def _finish(run: Run, skipped: int) -> Run:
    if skipped:
        run.flags.append(f"lenient: {skipped} malformed line(s) skipped")
    return run


BLOCK = 1 << 20


def _blocks(f: Any, path: Path, size: int) -> Iterator[tuple[bytes, int, int]]:
    """The file as (data, start, end): data[start:end] are whole lines, read about ``size``
    bytes at a time (a longer line is one piece of its own); only the last piece may end
    without a newline. Nothing is copied but the lines that straddle two reads. A corrupt
    compressed stream is an InputError."""
    pending: list[bytes] = []  # the start of a line that straddles reads
    try:
        while True:
            release()  # the run the command is done with (parsers.held)
            chunk = f.read(size)
            if not chunk:
                if pending:
                    rest = b"".join(pending)
                    yield rest, 0, len(rest)
                return
            first = chunk.find(b"\n") + 1
            if not first:
                pending.append(chunk)
                continue
            if pending:  # complete the straddling line
                pending.append(chunk[:first])
                line = b"".join(pending)
                yield line, 0, len(line)
                start = first
            else:
                start = 0
            cut = chunk.rfind(b"\n") + 1
            if start < cut:
                yield chunk, start, cut
            pending = [chunk[cut:]] if cut < len(chunk) else []
    except (EOFError, OSError, zlib.error) as exc:
        raise InputError(
            f"cannot read further (corrupt or truncated compressed data: {exc})", path
        ) from None
