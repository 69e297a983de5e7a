"""The native reader's two ways of reading a step line: the schema (msgspec Structs,
efc_tui/parsers/native_schema.py) straight from its bytes, and orjson's dict through
``native.step_to_event``, which takes every line the schema declines. Whatever the schema
takes or declines, reading a file gives what the dict path alone gives: the same events,
field by field and type by type, or the same error naming file and line.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any
from unittest import mock

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from efc_tui.errors import InputError
from efc_tui.model import Event, EventKind, Status
from efc_tui.parsers import native
from efc_tui.parsers.base import ReadOptions
from tests.helpers import dict_path

HEADER = b'{"type": "run", "schema": "efc-trace/1", "run_id": "r"}\n'


def _typed(value: Any) -> Any:
    """A value with its type, floats by repr (so 1 != 1.0 and -0.0 != 0.0)."""
    if isinstance(value, float):
        return ("float", repr(value))
    if isinstance(value, dict):
        return ("dict", [(k, _typed(v)) for k, v in value.items()])
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_typed(v) for v in value])
    fields = getattr(value, "__struct_fields__", None)
    if fields is not None:
        return (type(value).__name__, [(k, _typed(getattr(value, k))) for k in fields])
    return (type(value).__name__, value)


def _read(path: Path, lenient: bool = False) -> Any:
    try:
        runs = list(native.read(path, ReadOptions(lenient=lenient)))
    except InputError as exc:
        return ("error", str(exc))
    return [(r.warnings, r.flags, [_typed(e) for e in r.events]) for r in runs]


def _same_both_ways(tmp_path: Path, lines: list[bytes]) -> None:
    """The schema path reads ``lines`` as the dict path does: with the file in one block
    (its first line, the header, sends it line by line), and in blocks of ~256 bytes (the
    blocks of step lines after the header decoded in one call each)."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(HEADER + b"".join(lines))
    for lenient in (False, True):
        with dict_path():
            reference = _read(path, lenient)
        assert _read(path, lenient) == reference
        with mock.patch.object(native, "BLOCK", 256):
            assert _read(path, lenient) == reference


# ---------------------------------------------------------------- generated steps

unicode_text = st.lists(
    st.one_of(
        st.sampled_from(
            [
                *'\n\r\t"\\/ab é€😀\x00\x01\x1f\x7f\u2028',
                "passed",
                "Traceback (most recent call last):",
            ]
        ),
        st.characters(),
    ),
    max_size=40,
).map("".join)
numbers = st.one_of(
    st.integers(-5, 5),
    st.integers(0, 10**20),
    st.integers(-(10**20), 0),
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(0, 1e6),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, unicode_text)
anything = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=5,
)


kinds = st.one_of(
    st.sampled_from([k.value for k in EventKind]), st.none(), st.just("dance"), numbers
)
statuses = st.one_of(
    st.sampled_from([s.value for s in Status]), st.none(), st.just("great"), numbers
)
counts = st.one_of(st.none(), st.integers(-2, 50), st.floats(0, 5), st.just("3"))


@st.composite
def steps(draw: Any) -> dict[str, Any]:
    def obj(fields: dict[str, st.SearchStrategy[Any]], extra_key: bool = True) -> Any:
        if draw(st.integers(0, 9)) == 0:
            return draw(st.one_of(st.none(), scalars, st.lists(scalars, max_size=2)))
        out = {k: draw(v) for k, v in fields.items() if draw(st.integers(0, 3))}
        if extra_key and draw(st.integers(0, 14)) == 0:
            out["mystery"] = draw(scalars)
        return out

    step: dict[str, Any] = {"type": draw(st.sampled_from(["step"] * 12 + ["run", "Step", None]))}
    fields: dict[str, Any] = {
        "t": lambda: draw(
            st.one_of(st.integers(-3, 10**20), st.none(), st.floats(0, 9), st.just("1"))
        ),
        "action": lambda: obj(
            {
                "kind": kinds,
                "tool": st.one_of(st.none(), unicode_text, numbers),
                "input": st.one_of(st.none(), unicode_text, anything),
            }
        ),
        "observation": lambda: obj(
            {
                "text": st.one_of(unicode_text, st.none(), anything),
                "status": statuses,
                "checks": st.one_of(
                    st.none(),
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "passed": counts,
                            "failed": counts,
                            "total": counts,
                            "other": counts,
                        },
                    ),
                ),
                "truncated": st.one_of(st.booleans(), st.none(), numbers),
                "exit_code": st.one_of(st.none(), st.integers(-3, 300), st.floats(0, 3)),
            }
        ),
        "usage": lambda: obj(
            {
                k: st.one_of(numbers, st.none(), st.just("7"))
                for k in ("tokens_in", "tokens_out", "wall_s", "tool_calls", "ops")
            }
        ),
        "update": lambda: obj(
            {
                "memory_write": st.one_of(unicode_text, st.none(), anything),
                "plan": st.one_of(unicode_text, st.none(), anything),
            }
        ),
        "refs": lambda: draw(
            st.one_of(st.none(), st.just([]), st.lists(st.integers(-1, 3), max_size=2))
        ),
        "oracle": lambda: draw(st.one_of(st.none(), st.just({}), st.just({"nr": 1}))),
        "timestamp": lambda: draw(st.one_of(st.none(), numbers)),
    }
    for k, make in fields.items():
        if draw(st.integers(0, 3)):  # most steps have most keys
            step[k] = make()
    if step["type"] is None:
        del step["type"]
    if draw(st.integers(0, 14)) == 0:
        step["extra_field"] = draw(scalars)
    return step


def _serialize(step: dict[str, Any], how: int) -> bytes | None:
    """The step as one JSON line, written by orjson or by json in several spellings."""
    try:
        if how == 0:
            return orjson.dumps(step) + b"\n"
        if how == 1:
            return json.dumps(step, ensure_ascii=True).encode() + b"\n"
        if how == 2:
            return (
                json.dumps(step, ensure_ascii=False, separators=(" , ", " :\t")).encode(
                    "utf-8", "surrogatepass"
                )
                + b"\r\n"
            )
        return b"  " + json.dumps(step, separators=(",", ":")).encode() + b" \n"
    except (TypeError, ValueError, orjson.JSONEncodeError):
        return None


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.tuples(steps(), st.integers(0, 3)), min_size=1, max_size=6))
def test_generated_steps_read_the_same(
    tmp_path: Path, batch: list[tuple[dict[str, Any], int]]
) -> None:
    lines = [line for step, how in batch if (line := _serialize(step, how)) is not None]
    _same_both_ways(tmp_path, lines)


# ---------------------------------------------------------------- numbers and strings as written

number_text = st.from_regex(
    r"-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,24})?([eE][+-]?[0-9]{1,3})?", fullmatch=True
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(number_text, min_size=5, max_size=5), st.sampled_from(["t", "timestamp", "exit_code"])
)
def test_numbers_as_written(tmp_path: Path, nums: list[str], where: str) -> None:
    """Every spelling of a JSON number gives orjson's value (ints of any length, fractions,
    exponents, -0, subnormals, overflow)."""
    usage = ", ".join(
        f'"{k}": {n}'
        for k, n in zip(
            ("tokens_in", "tokens_out", "wall_s", "tool_calls", "ops"), nums, strict=True
        )
    )
    extra = (
        f', "{where}": {nums[0]}'
        if where != "exit_code"
        else f', "observation": {{"exit_code": {nums[1]}}}'
    )
    line = f'{{"type": "step", "usage": {{{usage}}}{extra}}}\n'.encode()
    _same_both_ways(tmp_path, [line])
    for n in nums:  # and the value itself is orjson's
        try:
            v = orjson.loads(n)
        except orjson.JSONDecodeError:  # out of range: the line is an error both ways (above)
            continue
        if isinstance(v, float) and math.isfinite(v) and v >= 0:
            path = tmp_path / "w.jsonl"
            path.write_bytes(HEADER + f'{{"type": "step", "usage": {{"wall_s": {n}}}}}\n'.encode())
            [run] = native.read(path, ReadOptions())
            # as step_to_event reads it: float(wall or 0.0), so -0.0 is 0.0
            assert repr(run.events[0].wall_s) == repr(v or 0.0)


TRICKY_NUMBERS = [
    "0.1",
    "0.3",
    "4.35",
    "1e22",
    "1e23",
    "9007199254740992.0",
    "9007199254740993.0",
    "9007199254740993",
    "123456789012345678",
    "1234567890123456789",
    "0.000001",
    "1e-22",
    "1e-23",
    "2.2250738585072011e-308",
    "4.9e-324",
    "1.7976931348623157e308",
    "-0.0",
    "-0",
    "0e0",
    "5e-1",
    "123.456e-2",
    "0.1234567890123456789",
    "1.00000000000000011102230246251565",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
]


@pytest.mark.parametrize("number", TRICKY_NUMBERS)
def test_tricky_numbers(tmp_path: Path, number: str) -> None:
    """Numbers on both sides of the schema's ranges (2^53, 2^63, 2^64) and of the double
    range, and numbers hard to round (10^22, 19 digits), read as orjson reads them."""
    line = (
        f'{{"type": "step", "usage": {{"wall_s": {number.lstrip("-")}}}, "timestamp": {number}}}\n'
    )
    _same_both_ways(tmp_path, [line.encode()])
    path = tmp_path / "n.jsonl"
    path.write_bytes(HEADER + line.encode())
    [run] = native.read(path, ReadOptions())
    assert repr(run.events[0].wall_s) == repr(float(orjson.loads(number.lstrip("-"))))


escapes = st.lists(
    st.one_of(
        st.sampled_from(
            [
                '\\"',
                "\\\\",
                "\\/",
                "\\b",
                "\\f",
                "\\n",
                "\\r",
                "\\t",
                "\\u0000",
                "\\u00e9",
                "\\u20AC",
                "\\ud83d\\ude00",
                "\\ud800",
                "\\udc00x",
                "\\u12",
                "\\x",
                "\\",
                '"',
                "é",
                "\x01",
                "\x7f",
                "\t",
                "a",
                "pass",
                "ed",
                "\\u0041",
                "a" * 40,
                "é" * 17,
                "a" * 31 + "\\n",
            ]
        ),
        st.text(max_size=10),
    ),
    max_size=12,
)


@settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(escapes, st.sampled_from(["input", "text", "tool", "plan", "kind", "status"]))
def test_strings_as_written(tmp_path: Path, parts: list[str], field: str) -> None:
    """Escapes (valid, invalid, surrogate pairs, lone surrogates), raw control characters and
    quotes inside a string: the schema path reads what orjson reads, or what the dict
    reader says about the line."""
    raw = "".join(parts).encode("utf-8", "surrogatepass")
    where = {
        "input": b'"action": {"input": ',
        "kind": b'"action": {"kind": ',
        "tool": b'"action": {"tool": ',
        "text": b'"observation": {"text": ',
        "status": b'"observation": {"status": ',
        "plan": b'"update": {"plan": ',
    }[field]
    line = b'{"type": "step", ' + where + b'"' + raw + b'"}}\n'
    _same_both_ways(tmp_path, [line])


# ---------------------------------------------------------------- any line, damaged

good = orjson.dumps(
    {
        "type": "step",
        "t": 3,
        "action": {"kind": "tool", "tool": "bash", "input": "ls -la"},
        "observation": {
            "text": 'a\nb\n\u00e9 "q"',
            "checks": {"passed": 1, "failed": 0, "total": 1},
        },
        "usage": {"tokens_in": 10, "tokens_out": 2, "wall_s": 0.25},
        "update": {"plan": "p"},
    }
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(st.integers(0, len(good)), st.integers(0, 2), st.binary(min_size=1, max_size=3)),
        min_size=1,
        max_size=3,
    )
)
def test_damaged_lines_read_the_same(tmp_path: Path, edits: list[tuple[int, int, bytes]]) -> None:
    """A good step line with bytes inserted, replaced or deleted: taken, declined, skipped
    (lenient) or rejected with its line number exactly as the Python reader does."""
    line = bytearray(good)
    for at, op, data in edits:
        at = min(at, len(line))
        if op == 0:
            line[at:at] = data
        elif op == 1:
            line[at : at + len(data)] = data
        else:
            del line[at : at + len(data)]
    body = bytes(line).replace(b"\n", b" ")
    _same_both_ways(tmp_path, [good + b"\n", body + b"\n", good + b"\n"])


@pytest.mark.parametrize(
    "line",
    [
        b'{"type": "step"}',
        b'{"type":"step","t":0}',
        b'{"type": "step", "type": "step"}',
        b'{"type": "step", "action": {}, "observation": {}, "usage": {}, "update": {}}',
        b'{"type": "step", "action": null, "observation": null, "usage": null, "update": null, "refs": null, "oracle": null}',
        b'{"type": "step", "refs": []}',
        b'{"type": "step", "refs": [0]}',
        b'{"type": "step", "observation": {"checks": {}}}',
        b'{"type": "step", "observation": {"checks": null, "truncated": true, "exit_code": -1}}',
        b'{"type": "step", "observation": {"text": "x", "text": "y"}}',
        b'{"type": "step", "t": 1e2}',
        b'{"type": "step", "t": -0}',
        b'{"type": "step", "timestamp": -0.0}',
        b'{"type": "step", "usage": {"wall_s": -0.0, "tokens_in": -0.0, "ops": 0.0}}',
        b'{"type": "step", "usage": {"wall_s": 1E400}}',
        b'{"type": "step", "usage": {"tokens_in": 123456789012345678901234}}',
        b'{"type": "st\\u0065p"}',
        b'{"t\\u0079pe": "step"}',
        b'{"type": "step", "action": {"input": "\\ud83d\\ude00 \\u00e9"}}',
        b'{"type": "step", "action": {"input": "\xff"}}',
        b'{"type": "step", "action": {"input": "\xed\xa0\x80"}}',
        b'\xef\xbb\xbf{"type": "step"}',
        b'{"type": "step"} x',
        b'{"type": "step",}',
        b'{"type": "step"}\x0b',
        b'[{"type": "step"}]',
        b'{"type": "run", "run_id": "second"}',
        b'{"type": "step", "oracle": {"n": 123456789012345678901234567890, "f": [0.1, -0]}}',
        b'{"type": "step", "oracle": {"n": 18446744073709551615}, "t": 9223372036854775808}',
        b'{"type": "step", "oracle": [1]}',
        b'{"type": "step", "update": {"memory_write": false, "plan": 0}}',
        b'{"type": "step", "action": {"kind": null}}',
    ],
)
def test_edge_lines_read_the_same(tmp_path: Path, line: bytes) -> None:
    _same_both_ways(tmp_path, [line + b"\n", line + b"\r\n"])
    _same_both_ways(tmp_path, [line])  # the last line, without its newline


# ---------------------------------------------------------------- one step: schema or dict

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 2**64),
    st.floats(allow_nan=True),
    unicode_text,
    st.lists(st.integers(-1, 5), max_size=3),
    st.dictionaries(st.sampled_from(["a", "passed"]), st.integers(0, 3)),
)


valid_steps = st.fixed_dictionaries(
    {"type": st.just("step")},
    optional={
        "t": st.integers(0, 9),
        "action": st.fixed_dictionaries(
            {},
            optional={
                "kind": st.sampled_from([k.value for k in EventKind]),
                "tool": st.one_of(
                    st.none(), st.sampled_from(["bash", "edit", "todowrite", "", "pytest"])
                ),
                "input": st.one_of(
                    unicode_text,
                    st.sampled_from(
                        [
                            "pytest -q",
                            "grep -n x f",
                            "sed -i s/a/b/ f.py",
                            "",
                            "submit",
                            "cat > f.py <<EOF",
                        ]
                    ),
                ),
            },
        ),
        "observation": st.fixed_dictionaries(
            {},
            optional={
                "text": st.one_of(
                    unicode_text,
                    st.sampled_from(
                        [
                            "1 passed in 0.1s",
                            "Traceback (most recent call last):\nKeyError: 1",
                            "ok\n",
                        ]
                    ),
                ),
                "status": st.sampled_from([s.value for s in Status]),
                "checks": st.fixed_dictionaries(
                    {},
                    optional={
                        "passed": st.integers(0, 9),
                        "failed": st.integers(0, 9),
                        "total": st.one_of(st.none(), st.integers(0, 9)),
                    },
                ),
                "exit_code": st.sampled_from([None, 0, 1, 2, 126, 127]),
                "truncated": st.booleans(),
            },
        ),
        "update": st.fixed_dictionaries(
            {},
            optional={
                "memory_write": st.one_of(st.none(), unicode_text),
                "plan": st.one_of(st.none(), unicode_text),
            },
        ),
        "usage": st.fixed_dictionaries(
            {},
            optional={
                k: st.one_of(st.none(), st.integers(0, 10**6), st.floats(0, 1e6))
                for k in ("tokens_in", "tokens_out", "wall_s", "tool_calls", "ops")
            },
        ),
        "refs": st.lists(st.integers(0, 9), max_size=3),
        "oracle": st.one_of(
            st.none(), st.dictionaries(st.sampled_from(["n", "B_mem"]), st.floats(0, 1))
        ),
        "timestamp": st.one_of(st.none(), st.floats(0, 2e9), st.integers(0, 2**40)),
    },
)

PATHS = [
    (),
    ("t",),
    ("action",),
    ("action", "kind"),
    ("action", "tool"),
    ("action", "input"),
    ("action", "extra"),
    ("observation",),
    ("observation", "text"),
    ("observation", "status"),
    ("observation", "checks"),
    ("observation", "checks", "passed"),
    ("observation", "checks", "total"),
    ("observation", "exit_code"),
    ("observation", "truncated"),
    ("update", "memory_write"),
    ("update", "plan"),
    ("usage",),
    ("usage", "tokens_in"),
    ("usage", "wall_s"),
    ("usage", "ops"),
    ("refs",),
    ("oracle",),
    ("timestamp",),
    ("extra_field",),
]


@st.composite
def fields_steps(draw: st.DrawFn) -> dict[str, Any]:
    """A well-formed step; in one of three, one field replaced by anything (or added)."""
    step: dict[str, Any] = draw(valid_steps)
    if draw(st.integers(0, 2)) == 0:
        path = draw(st.sampled_from(PATHS[1:]))
        node: Any = step
        for key in path[:-1]:
            if not isinstance(node.get(key), dict):
                node[key] = {}
            node = node[key]
        node[path[-1]] = draw(junk)
    return step


def _event_fields(ev: Event) -> tuple[Any, ...]:
    return tuple(
        (name, type(getattr(ev, name)), getattr(ev, name)) for name in Event.__struct_fields__
    )


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields_steps(), st.integers(0, 12), st.booleans())
def test_schema_step_matches_step_to_event(
    obj: dict[str, Any], index: int, prev_failed: bool
) -> None:
    """A step line the schema takes gives exactly the Event step_to_event builds from
    orjson's dict; it declines (None) every line step_to_event rejects."""
    try:
        raw = orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return
    got = native._schema_event(raw, index, prev_failed)
    try:
        want = native.step_to_event(orjson.loads(raw), index, prev_failed)
    except native.MalformedLine:
        assert got is None
        return
    if got is not None:
        assert _event_fields(got) == _event_fields(want)


def test_the_schema_declines_what_it_does_not_fit() -> None:
    """Unknown fields, values to coerce or reject, refs to later events, an empty action
    (which step_to_event tells from an absent one): the dict path reads those."""
    base = {
        "type": "step",
        "action": {"tool": "bash", "input": "ls"},
        "observation": {"text": "a\nb"},
    }

    def fits(step: dict[str, Any], index: int = 0) -> bool:
        return native._schema_event(json.dumps(step).encode(), index, False) is not None

    assert fits(base) and fits({**base, "refs": [0]}, 1)
    assert not fits({**base, "note": 1})
    assert not fits({**base, "action": {"tool": "bash", "input": "ls", "x": 1}})
    assert not fits({**base, "refs": [0]})  # not an earlier event
    assert not fits({**base, "usage": {"tokens_in": -1}})
    assert not fits({**base, "usage": {"tokens_in": True}})
    assert not fits({**base, "usage": {"tokens_in": 2**53 + 1}})
    assert not fits({**base, "t": 2**64})  # orjson reads it as a float: an error
    assert not fits({**base, "action": {"tool": 7}})  # coerced to "7"
    assert not fits({**base, "action": {"kind": None}})  # counts as an action in ops
    assert not fits({**base, "observation": {"text": {"a": 1}}})  # its JSON text
    assert not fits({**base, "observation": {"status": "great"}})
    assert not fits({"type": "run"}) and not fits({k: v for k, v in base.items() if k != "type"})


def _step_lines(path: Path) -> list[bytes]:
    out = []
    with path.open("rb") as f:
        for raw in f:
            if raw.strip():
                obj = orjson.loads(raw)
                if isinstance(obj, dict) and obj.get("type") == "step":
                    out.append(raw)
    return out


def test_schema_step_on_every_native_line(tmp_path: Path) -> None:
    """Every step line of the native fixtures and generated traces: the schema path builds
    the same Event as step_to_event, and builds most of them itself."""
    from efc_tui.errors import EfcError
    from efc_tui.parsers import detect
    from tests.reference_ledgers import fixture_files, generated

    def is_native(p: Path) -> bool:
        try:
            return detect(p).name == "native"
        except EfcError:
            return False

    paths = [p for _, p in fixture_files() if is_native(p)] + [p for _, p in generated(tmp_path)]
    built = total = 0
    for path in paths:
        prev_failed = False
        for i, raw in enumerate(_step_lines(path)):
            want = native.step_to_event(orjson.loads(raw), i, prev_failed)
            got = native._schema_event(raw, i, prev_failed)
            total += 1
            if got is not None:
                built += 1
                assert _event_fields(got) == _event_fields(want), (path.name, i)
            if want.status is not Status.NONE:
                prev_failed = want.status is not Status.PASSED
    assert total > 2000 and built / total > 0.9
