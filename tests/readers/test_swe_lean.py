"""The SWE-agent reader's lean decoding (``parsers._swe_lean``, issue 31) against the whole
parse it stands in for: on every hostile variant of a trajectory the runs (or the error) are
the same with it as without it, and the variants it cannot vouch for are the ones it hands
back (None), so each case also checks which of the two paths read the file.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import pytest

from efc_tui.errors import InputError
from efc_tui.parsers import swe_agent
from efc_tui.parsers._swe_lean import lean_document
from efc_tui.parsers._values import MAX_DEPTH
from efc_tui.parsers.base import ReadOptions
from tests.conftest import FIXTURES, REAL, SHARED

BASE = FIXTURES / "agents" / "swe_agent_1x.traj"
MARK = b'"@@MARK@@"'


def _outcome(path: Path) -> list[str] | str:
    try:
        return [repr(run) for run in swe_agent.read(path, ReadOptions())]
    except InputError as exc:
        return f"InputError: {exc}"


def _both(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """(the reader's result, the whole parse's result) for one file."""
    lean = _outcome(path)
    with monkeypatch.context() as m:
        m.setattr(swe_agent, "lean_document", lambda data: None)
        whole = _outcome(path)
    return lean, whole


def _doc() -> dict[str, Any]:
    return orjson.loads(BASE.read_bytes())


def _inject(where: Callable[[dict[str, Any]], None], raw: bytes) -> bytes:
    """The base document with ``raw`` JSON text where ``where`` puts the marker."""
    doc = copy.deepcopy(_doc())
    where(doc)
    data = orjson.dumps(doc)
    assert data.count(MARK) == 1
    return data.replace(MARK, raw)


def _at(*keys: str | int) -> Callable[[dict[str, Any]], None]:
    def put(doc: dict[str, Any]) -> None:
        node: Any = doc
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = MARK.decode().strip('"')

    return put


def _edited(edit: Callable[[dict[str, Any]], None]) -> bytes:
    doc = _doc()
    edit(doc)
    return orjson.dumps(doc)


def _demo_then_task(doc: dict[str, Any]) -> None:
    """0.x: a demonstration user message, then the task (a later user message)."""
    doc["history"][1]["is_demo"] = True
    doc["history"][3]["role"] = "user"


def _step_messages(doc: dict[str, Any]) -> None:
    """1.x: a step's ``messages`` (the prompt it saw), one of them with the marker."""
    doc["trajectory"][0]["messages"] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": MARK.decode().strip('"')},
    ]


def _nest(n: int) -> bytes:
    return b"[" * n + b"]" * n


# the base: history[0] the system prompt, [1] the task, [2] an assistant call, [3] its
# output (text the reader never reads), trajectory[0] the first step
SKIPPED = ("history", 3, "content")
#: whole documents: (name, how it is made, whether the lean decoding takes it)
WHOLE: list[tuple[str, Callable[[], bytes], bool]] = [
    ("as written", lambda: BASE.read_bytes(), True),
    (
        "duplicate top-level key",
        lambda: b'{"trajectory":[],' + BASE.read_bytes().lstrip()[1:],
        True,
    ),
    ("a demonstration before the task", lambda: _edited(_demo_then_task), True),
    ("no trajectory", lambda: b'{"history": [], "info": {}}', False),
    ("a list at the top", lambda: b'[{"trajectory": []}]', False),
    ("cut short", lambda: BASE.read_bytes()[: BASE.stat().st_size // 2], False),
    ("a byte-order mark", lambda: b"\xef\xbb\xbf" + BASE.read_bytes(), False),
    ("empty", lambda: b"", False),
]
#: the base document with a raw JSON value at a key path, or where an edit of it puts the
#: marker: (name, where, the value, whether the lean decoding takes it)
INJECTED: list[
    tuple[str, tuple[str | int, ...] | Callable[[dict[str, Any]], None], bytes, bool]
] = [
    ("invalid UTF-8 in unread text", SKIPPED, b'"ab\xffcd"', False),
    ("invalid UTF-8 in a step", ("trajectory", 0, "observation"), b'"x\xfe"', False),
    ("lone surrogate in unread text", SKIPPED, b'"a\\ud800b"', False),
    ("lone low surrogate in a step", ("trajectory", 0, "thought"), b'"a\\udc00"', False),
    ("surrogate pair in unread text", SKIPPED, b'"a\\ud83d\\ude00b"', True),
    ("duplicate role of the task", ("history", 1, "content"), b'"x","role":"assistant"', True),
    ("duplicate step action", ("trajectory", 0, "response"), b'"r","action":"submit"', True),
    ("unread text nested to the limit", SKIPPED, _nest(MAX_DEPTH - 3), True),
    ("unread text nested past the limit", SKIPPED, _nest(MAX_DEPTH - 2), False),
    ("info nested past the limit", ("info", "x"), _nest(MAX_DEPTH), False),
    (
        "tool arguments nested past the limit",
        ("history", 2, "tool_calls", 0, "function", "arguments"),
        _nest(MAX_DEPTH),
        False,
    ),
    (
        "query nested past the limit (stripped unread)",
        ("trajectory", 0, "query"),
        _nest(MAX_DEPTH + 5),
        True,
    ),
    ("query a string", ("trajectory", 0, "query"), b'"q"', True),
    ("a query list inside info", ("info", "query"), b"[1, 2]", False),
    ("a number past a double in unread text", SKIPPED, b"[1e400]", False),
    (
        "a number past a double in tool arguments",
        ("history", 2, "tool_calls", 0, "function", "arguments"),
        b'{"a": -1e400}',
        False,
    ),
    (
        "a number past a double in wall time",
        ("trajectory", 0, "execution_time"),
        b"1" + b"0" * 400,
        False,
    ),
    ("token count as a string", ("info", "model_stats", "tokens_sent"), b'"1234"', True),
    ("wall time as a string", ("trajectory", 0, "execution_time"), b'"1.5"', True),
    ("wall time past 64 bits", ("trajectory", 0, "execution_time"), b"18446744073709551616", True),
    ("wall time underflowing", ("trajectory", 0, "execution_time"), b"1e-400", True),
    ("wall time a boolean", ("trajectory", 0, "execution_time"), b"true", False),
    ("state holding a number", ("trajectory", 0, "state", "n"), b"3", False),
    (
        "state as a JSON string (0.x)",
        ("trajectory", 0, "state"),
        b'"{\\"open_file\\": \\"a.py\\"}"',
        True,
    ),
    (
        "task as content blocks",
        ("history", 1, "content"),
        b'[{"type": "text", "text": "fix it"}]',
        True,
    ),
    ("unread text as content blocks", SKIPPED, b'[{"type": "text", "text": "out"}]', True),
    ("step messages", _step_messages, b'"task"', True),
    ("step messages nested to the limit", _step_messages, _nest(MAX_DEPTH - 5), True),
    ("step messages nested past the limit", _step_messages, _nest(MAX_DEPTH - 4), False),
    ("a number past a double in step messages", _step_messages, b"[2e308]", False),
    ("a query list in step messages", _step_messages, b'[{"query": [1]}]', True),
    ("an unknown key in step messages", _step_messages, b'"x", "extra": 1', False),
    ("lone surrogate in step messages", _step_messages, b'"\\udfff"', False),
    ("a demonstration", ("history", 1, "is_demo"), b"true", True),
    ("is_demo a number", ("history", 1, "is_demo"), b"1", False),
    ("a tool call without its function", ("history", 2, "tool_calls", 0), b"{}", True),
    ("an unknown top-level key", ("extra",), b"1", False),
    ("an unknown message key", ("history", 3, "extra"), b'"x"', False),
    ("an unknown step key", ("trajectory", 0, "extra"), b'"x"', False),
    ("a step that is not an object", ("trajectory", 0), b"1", False),
    ("history not a list", ("history",), b'{"a": 1}', False),
]
CASES: list[tuple[str, Callable[[], bytes], bool]] = WHOLE + [
    (name, partial(_inject, where if callable(where) else _at(*where), value), lean)
    for name, where, value, lean in INJECTED
]


@pytest.mark.parametrize(("name", "make", "lean"), CASES, ids=[c[0] for c in CASES])
def test_lean_decoding_reads_what_the_whole_parse_reads(
    name: str,
    make: Callable[[], bytes],
    lean: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = make()
    assert (lean_document(data) is not None) is lean, name
    path = tmp_path / "case.traj"
    path.write_bytes(data)
    fast, whole = _both(path, monkeypatch)
    assert fast == whole


def test_the_hostile_cases_reach_the_reader(tmp_path: Path) -> None:
    """The cases are not vacuous: the nesting past the limit and the cut file are errors,
    the duplicate role takes the task away."""
    cases = {name: make() for name, make, _ in CASES}

    def read(name: str) -> list[Any]:
        path = tmp_path / "case.traj"
        path.write_bytes(cases[name])
        return list(swe_agent.read(path, ReadOptions()))

    with pytest.raises(InputError, match="nested deeper"):
        read("unread text nested past the limit")
    with pytest.raises(InputError, match="cut short"):
        read("cut short")
    plain, dup = read("as written")[0], read("duplicate role of the task")[0]
    assert plain.events[0].kind != dup.events[0].kind or len(plain.events) != len(dup.events)


def _real_trajectories() -> list[Path]:
    roots = [SHARED / "real-runs", SHARED / "real-runs-grouped", REAL / "swe-agent", FIXTURES]
    return sorted(p for r in roots if r.exists() for p in r.rglob("*.traj") if p.is_file())


def test_real_trajectories_read_the_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _real_trajectories()
    if len(paths) <= 4:
        pytest.skip("../shared is not here")
    taken = 0
    for path in paths:
        taken += lean_document(path.read_bytes()) is not None
        fast, whole = _both(path, monkeypatch)
        assert fast == whole, path
    assert taken == len(paths)  # every real trajectory takes the lean path
