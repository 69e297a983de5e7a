"""Property tests: a cut-short or corrupted log of each of our formats never raises anything
but the project's InputError, whether the reader is forced or detected, strict or lenient."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from efc_tui.errors import InputError
from efc_tui.parsers import get_reader, load
from efc_tui.parsers.base import ReadOptions
from tests.conftest import FIXTURES
from tests.helpers import assert_well_formed

AGENTS = FIXTURES / "agents"
SOURCES = {
    "mini-swe-agent": AGENTS / "mini_with_report" / "demo__calc-1.traj.json",
    "swe-agent": AGENTS / "swe_agent_1x.traj",
    "claude-code": AGENTS / "claude_interrupted.jsonl",
    "codex": AGENTS / "codex_session.jsonl",
}
SETTINGS = settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _exercise(fmt: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / SOURCES[fmt].name
        path.write_bytes(data)
        for lenient in (False, True):
            try:
                for run in get_reader(fmt).read(path, ReadOptions(lenient=lenient)):
                    assert_well_formed(run, fmt)
            except InputError as exc:
                assert exc.path == str(path)
            try:
                for _run in load(path, lenient=lenient):
                    pass
            except InputError:
                pass


@pytest.mark.parametrize("fmt", sorted(SOURCES))
@SETTINGS
@given(cut=st.floats(min_value=0.0, max_value=1.0))
def test_truncation_only_raises_input_error(fmt: str, cut: float) -> None:
    data = SOURCES[fmt].read_bytes()
    _exercise(fmt, data[: int(len(data) * cut)])


@pytest.mark.parametrize("fmt", sorted(SOURCES))
@SETTINGS
@given(
    edits=st.lists(
        st.tuples(st.floats(min_value=0.0, max_value=1.0), st.binary(min_size=0, max_size=4)),
        min_size=1,
        max_size=6,
    )
)
def test_corruption_only_raises_input_error(fmt: str, edits: list[tuple[float, bytes]]) -> None:
    data = bytearray(SOURCES[fmt].read_bytes())
    for where, new in edits:
        i = min(len(data) - 1, int(len(data) * where))
        data[i : i + 1] = new
    _exercise(fmt, bytes(data))


# JSON that parses but has the wrong shapes: every field a reader touches replaced by junk.
_JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**12),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.lists(st.integers(-5, 10**12), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(-5, 10**12), max_size=2),
)


@pytest.mark.parametrize("fmt", ["claude-code", "codex"])
@SETTINGS
@given(junk=st.lists(_JUNK, min_size=12, max_size=12), line=st.integers(0, 30))
def test_wrong_field_types_in_a_line(fmt: str, junk: list[object], line: int) -> None:
    import orjson

    lines = SOURCES[fmt].read_bytes().splitlines()
    i = line % len(lines)
    try:
        obj = orjson.loads(lines[i])
    except orjson.JSONDecodeError:
        return  # the truncated last line
    keys = [
        "message",
        "content",
        "usage",
        "payload",
        "type",
        "timestamp",
        "toolUseResult",
        "info",
        "arguments",
        "output",
        "call_id",
        "id",
    ]

    def scramble(o: object, depth: int = 0) -> object:
        if isinstance(o, dict):
            return {
                k: (junk[keys.index(k)] if k in keys and depth % 2 == 0 else scramble(v, depth + 1))
                for k, v in o.items()
            }
        if isinstance(o, list):
            return [scramble(v, depth + 1) for v in o]
        return o

    lines[i] = orjson.dumps(scramble(obj))
    _exercise(fmt, b"\n".join(lines) + b"\n")


# SWE-agent's byte-level removal of "query" values equals parsing and then dropping them.
_LEAF = st.one_of(
    st.none(),
    st.integers(-3, 3),
    st.sampled_from(['a"b\\', "x]", "{[", '\\"query\\": [', "é", "\\", "query", "]}"]),
    st.text(max_size=5),
)
_JSON = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["query", "k", "q", "x"]), inner, max_size=3),
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(doc=_JSON, ascii_only=st.booleans(), indent=st.booleans())
def test_swe_agent_query_stripping_matches_parsing(
    doc: object, ascii_only: bool, indent: bool
) -> None:
    import json

    from efc_tui.parsers.swe_agent import strip_queries

    raw = json.dumps(
        {"trajectory": [{"query": [doc], "x": doc}], "y": doc},
        ensure_ascii=ascii_only,
        indent=1 if indent else None,
    ).encode()

    def drop(o: object) -> object:
        if isinstance(o, dict):
            return {
                k: (None if k == "query" and isinstance(v, list) else drop(v)) for k, v in o.items()
            }
        if isinstance(o, list):
            return [drop(v) for v in o]
        return o

    lean = strip_queries(raw)
    assert lean is not None
    assert json.loads(lean) == drop(json.loads(raw))
