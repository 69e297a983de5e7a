"""SPEC §9: the efc-trace/1 reader: errors by file:line, truncated last line, --lenient,
gzip, several runs per file, pass-through of unknown fields, and the published schema."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from efc_tui.errors import InputError
from efc_tui.model import EventKind, Status
from efc_tui.parsers import detect, expand_paths, load
from tests.conftest import REPO, SAMPLES
from tests.helpers import write_trace

SCHEMA = json.loads((REPO / "efc_tui" / "schemas" / "efc-trace-1.schema.json").read_text())
HEADER = {"run_id": "r", "task_id": "t"}
STEP = {
    "t": 0,
    "action": {"kind": "tool", "tool": "bash", "input": "ls"},
    "observation": {"text": "a.py\nb.py"},
    "usage": {"tokens_in": 10, "tokens_out": 2, "wall_s": 0.5},
}


def test_the_step_structs_are_the_published_schema() -> None:
    """The msgspec Structs a step line is decoded into (parsers/native_schema.py) name the
    fields, kinds and statuses the published JSON Schema names, part by part."""
    from efc_tui.parsers import native_schema as ns

    step = SCHEMA["$defs"]["step"]["properties"]
    assert set(ns.StepLine.__struct_fields__) == set(step)
    for name, struct in (
        ("action", ns.Action),
        ("observation", ns.Observation),
        ("update", ns.Update),
        ("usage", ns.Usage),
    ):
        assert set(struct.__struct_fields__) == set(step[name]["properties"]), name
    checks = step["observation"]["properties"]["checks"]["properties"]
    assert set(ns.StepChecks.__struct_fields__) == set(checks)
    assert step["action"]["properties"]["kind"]["enum"] == [k.value for k in EventKind]
    assert step["observation"]["properties"]["status"]["enum"] == [s.value for s in Status]


def test_sample_traces_match_the_published_schema() -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for path in sorted(SAMPLES.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            validator.validate(json.loads(line))


@pytest.mark.parametrize("extra_field", [False, True])  # the schema's path, the dict's
def test_counts_take_the_models_types(tmp_path: Path, extra_field: bool) -> None:
    """Whole counts written as floats are truncated to int, a whole-number duration becomes
    a float, and a duration of -0.0 reads 0.0, on both paths (an unknown field sends the
    line through the dict path)."""
    usage = {"tokens_in": 3.7, "tokens_out": 0.0, "tool_calls": 2.0, "ops": 1.5, "wall_s": -0.0}
    steps = [
        {"action": {"kind": "tool", "tool": "sh", "input": "ls"}, "usage": usage},
        {"action": {"kind": "tool", "tool": "sh", "input": "ls"}, "usage": {"wall_s": 3}},
    ]
    if extra_field:
        steps = [{**st, "mystery": 1} for st in steps]
    [run] = list(load(write_trace(tmp_path / "c.jsonl", HEADER, steps)))
    e0, e1 = run.events
    got = [(e.tokens_in, e.tokens_out, e.tool_calls, e.ops, e.wall_s) for e in (e0, e1)]
    assert got == [(3, 0, 2, 1, 0.0), (0, 0, 1, 2, 3.0)]
    assert [type(v) for v in got[0]] == [int, int, int, int, float]
    assert type(e1.wall_s) is float and str(e0.wall_s) == "0.0"


def test_reads_fields(tmp_path: Path) -> None:
    p = write_trace(
        tmp_path / "a.jsonl",
        {**HEADER, "success": True, "custom": {"x": 1}},
        [
            {
                **STEP,
                "mystery": 7,
                "observation": {"text": "ok", "status": "passed", "color": "red"},
            },
            {
                "t": 1,
                "action": {"tool": "pytest", "input": "pytest -q"},
                "observation": {"text": "1 failed, 2 passed in 0.1s", "exit_code": 1},
                "refs": [0],
            },
        ],
    )
    assert detect(p).name == "native"
    [run] = list(load(p))
    assert run.run_id == "r" and run.success is True and run.source_format == "native"
    assert run.extra == {"custom": {"x": 1}}
    e0, e1 = run.events
    assert (e0.kind, e0.status, e0.tokens_in, e0.wall_s) == (EventKind.TOOL, Status.PASSED, 10, 0.5)
    assert e0.extra == {"mystery": 7, "observation": {"color": "red"}}
    # kind inferred from the command, status classified from the text; both flagged
    assert e1.kind is EventKind.CHECK and "kind" in e1.flags
    assert e1.status is Status.ASSERTION_ERROR and "status" in e1.flags
    assert e1.checks is not None and (e1.checks.passed, e1.checks.failed) == (2, 1)
    assert e1.refs == (0,)
    # no usage: tokens estimated from text at 4 chars/token, wall time unknown
    assert e1.tokens_out == len("pytest -q") // 4 and "tokens" in e1.flags and "wall_s" in e1.flags


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"type": "step", "t": 1, "action": {"kind": "dance"}}', "action.kind 'dance'"),
        ('{"type": "step", "observation": {"status": "great"}}', "observation.status 'great'"),
        ('{"type": "step", "usage": {"tokens_in": -5}}', "usage.tokens_in must be a non-negative"),
        ('{"type": "step", "refs": [9]}', "refs must be a list of indices of earlier events"),
        ('{"type": "spam"}', "unknown line type 'spam'"),
        ("[1, 2]", "expected a JSON object"),
        ('{"type": "step", "action": {"kind": "tool"', "not valid JSON"),
    ],
)
def test_malformed_line_names_file_and_line(tmp_path: Path, line: str, reason: str) -> None:
    p = tmp_path / "bad.jsonl"
    p.write_text(
        json.dumps({"type": "run", **HEADER})
        + "\n"
        + json.dumps({"type": "step", **STEP})
        + "\n"
        + line
        + "\n"
    )
    with pytest.raises(InputError) as info:
        list(load(p))
    assert str(info.value).startswith(f"{p}:3: ")
    assert reason in str(info.value)


def test_missing_header_and_empty_file(tmp_path: Path) -> None:
    p = tmp_path / "nohead.jsonl"
    p.write_text(json.dumps({"type": "step", **STEP}) + "\n")
    with pytest.raises(InputError, match=r"nohead.jsonl:1: the first line must be the run header"):
        list(load(p, "native"))
    e = tmp_path / "empty.jsonl"
    e.write_text("")
    with pytest.raises(InputError, match="empty file"):
        list(load(e))


def test_truncated_last_line_is_a_warning(tmp_path: Path) -> None:
    p = write_trace(tmp_path / "live.jsonl", HEADER, [STEP, STEP])
    p.write_bytes(p.read_bytes() + b'{"type": "step", "t": 2, "observ')
    [run] = list(load(p))
    assert len(run.events) == 2
    assert run.warnings == [f"{p}:4: truncated last line ignored (a log still being written?)"]


def test_lenient_skips_and_counts(tmp_path: Path) -> None:
    p = tmp_path / "some-bad.jsonl"
    lines = [
        json.dumps({"type": "run", **HEADER}),
        json.dumps({"type": "step", **STEP}),
        "{oops",
        json.dumps({"type": "step", **STEP}),
        '{"type": "step", "refs": "x"}',
    ]
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=":3:"):
        list(load(p))
    [run] = list(load(p, lenient=True))
    assert len(run.events) == 2
    assert "lenient: 2 malformed line(s) skipped" in run.flags
    assert len(run.warnings) == 2 and ":3: skipped" in run.warnings[0]


def test_gzip_and_several_runs_per_file(tmp_path: Path) -> None:
    body = (
        "\n".join(
            [
                json.dumps({"type": "run", "schema": "efc-trace/1", "run_id": "a"}),
                json.dumps({"type": "step", **STEP}),
                json.dumps({"type": "run", "schema": "efc-trace/1", "run_id": "b"}),
                json.dumps({"type": "step", **STEP}),
                json.dumps({"type": "step", **STEP}),
            ]
        )
        + "\n"
    )
    p = tmp_path / "corpus.jsonl.gz"
    p.write_bytes(gzip.compress(body.encode()))
    runs = list(load(p))
    assert [(r.run_id, len(r.events)) for r in runs] == [("a", 1), ("b", 2)]
    assert runs[1].events[0].index == 0  # indices restart per run


def test_expand_paths(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    a = write_trace(tmp_path / "a.jsonl", HEADER, [STEP])
    b = write_trace(tmp_path / "sub" / "b.jsonl", HEADER, [STEP])
    (tmp_path / "notes.md").write_text("x")
    assert expand_paths([tmp_path]) == [a, b]
    assert expand_paths([str(tmp_path / "*.jsonl")]) == [a]
    with pytest.raises(InputError, match="no such file or folder"):
        expand_paths([tmp_path / "missing.jsonl"])
    with pytest.raises(InputError, match="no file matches"):
        expand_paths([str(tmp_path / "*.nothing")])


def test_unrecognized_content(tmp_path: Path) -> None:
    p = tmp_path / "x.jsonl"
    p.write_text("hello world\n")
    with pytest.raises(InputError, match="unrecognized format"):
        list(load(p))


def _read_all(p: Path, lenient: bool) -> Any:
    """The runs of a file as plain values, or the error it raises."""
    from msgspec.structs import astuple

    try:
        return [
            (r.run_id, r.warnings, r.flags, [astuple(e) for e in r.events])
            for r in load(p, lenient=lenient)
        ]
    except InputError as exc:
        return f"InputError: {exc}"


def test_block_reads_give_the_same_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader takes the file in blocks of lines, and the schema path hands every line it
    does not take (a header, a malformed or unusual step) to the dict path: whatever the
    block size (a line straddling reads, one longer than a block, the last line without its
    newline), with the schema path or without, the same events, warnings, flags and errors."""
    from efc_tui.parsers import native
    from tests.helpers import dict_path

    head = json.dumps({"type": "run", "schema": "efc-trace/1", **HEADER})
    step = {"type": "step", **STEP}
    failing = {
        **step,
        "observation": {"text": "E   KeyError: 'x'\n1 failed", "status": "assertion_error"},
    }
    unusual = {**step, "mystery": 1}  # an unknown field: the Python step builds it
    inferred = {
        "type": "step",
        "t": 3,
        "action": {"tool": "bash", "input": "pytest -q"},
        "observation": {"text": "1 failed"},
    }
    lines = [
        head,
        json.dumps(step),
        "",
        "  \t",
        json.dumps(failing),
        json.dumps(unusual),
        json.dumps(inferred),
        json.dumps({**step, "observation": {"text": "x" * 300}}),
        json.dumps({"type": "run", "schema": "efc-trace/1", "run_id": "second"}),
        json.dumps(step),
    ]
    cases = {
        "clean": "\n".join(lines) + "\n",
        "crlf": "\r\n".join(lines) + "\r\n",
        "truncated": "\n".join(lines) + "\n" + '{"type": "step", "t": 9, "obs',
        "no final newline": "\n".join(lines),
        "malformed": "\n".join([*lines[:3], '{"type": "step", "refs": "x"}', "{oops", *lines[3:]])
        + "\n",
    }
    for name, text in cases.items():
        p = tmp_path / f"{name}.jsonl"
        p.write_text(text)
        for lenient in (False, True):
            seen = []
            for size in (1, 2, 7, 64, 200, 1 << 20):
                monkeypatch.setattr(native, "BLOCK", size)
                seen.append(_read_all(p, lenient))
                with dict_path():
                    seen.append(_read_all(p, lenient))
            assert all(s == seen[0] for s in seen), (name, lenient)
            if name == "malformed" and not lenient:
                assert isinstance(seen[0], str) and seen[0].startswith(
                    f"InputError: {p}:4: refs must be a list"
                )
            elif name != "truncated":
                assert isinstance(seen[0], list) and [len(r[3]) for r in seen[0]] == [5, 1], name
    [first, second] = _read_all(tmp_path / "truncated.jsonl", False)
    assert len(first[3]) == 5 and len(second[3]) == 1
    assert second[1] == [
        f"{tmp_path / 'truncated.jsonl'}:11: truncated last line ignored (a log still being written?)"
    ]


def test_blocks_of_steps_read_in_one_call_as_line_by_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A block of step lines after the header is decoded in one call (native._schema_block);
    a block it declines (a blank line, an oracle, an empty action, a reference forward, a
    bad line, the truncated end) is read line by line. Every block size gives the events,
    warnings and errors of the dict path, and the one-call path is taken where it fits."""
    from efc_tui.parsers import native
    from tests.helpers import dict_path

    head = json.dumps({"type": "run", "schema": "efc-trace/1", **HEADER})
    odd = {
        40: "",
        60: json.dumps({"type": "step", **STEP, "oracle": {"useful": True}}),
        80: json.dumps({"type": "step", **STEP, "action": {}}),
        100: json.dumps({"type": "step", **STEP, "refs": [150]}),
        120: json.dumps({"type": "step", **STEP, "refs": [7]}),
        140: '{"type": "step", "t": "x"}',
    }
    failing = {"text": "Traceback (most recent call last):\nKeyError: 'k'"}
    lines = [head] + [
        odd[t]
        if t in odd
        else json.dumps(
            {"type": "step", **STEP, "t": t, **({"observation": failing} if t % 7 == 0 else {})}
        )
        for t in range(160)
    ]
    p = tmp_path / "blocks.jsonl"
    p.write_text("\n".join(lines) + '\n{"type": "step", "t": 1')  # the last line cut short
    taken = []
    decode = native._schema_block

    def spy(block: bytes, pos: int, end: int, index: int) -> Any:
        steps = decode(block, pos, end, index)
        taken.append(steps is not None)
        return steps

    monkeypatch.setattr(native, "_schema_block", spy)
    for lenient in (False, True):
        with dict_path():
            reference = _read_all(p, lenient)
        for size in (1, 300, 2000, 1 << 20):
            monkeypatch.setattr(native, "BLOCK", size)
            assert _read_all(p, lenient) == reference, (size, lenient)
    assert any(taken) and not all(taken)
    runs = _read_all(p, True)
    assert isinstance(runs, list) and len(runs[0][3]) == 157  # less the blank and two bad lines
    assert _read_all(p, False) == (
        f"InputError: {p}:102: refs must be a list of indices of earlier events (< 99), got [150]"
    )


@pytest.mark.parametrize("numpy", [True, False])
def test_two_steps_on_one_line_are_an_error_in_a_block_of_any_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, numpy: bool
) -> None:
    """The one-call decoder reads ``{..} {..}`` on one line as two values: the block's line
    count (numpy's or bytes.count, ``native._newlines``) sends it line by line, where it is
    the error it is in a line of its own."""
    import sys

    from efc_tui.parsers import native

    if numpy:
        import numpy as _  # noqa: F401
    else:
        monkeypatch.setitem(sys.modules, "numpy", None)  # as where numpy is not imported
    head = json.dumps({"type": "run", "schema": "efc-trace/1", **HEADER})
    step = json.dumps({"type": "step", **STEP})
    lines = [head, *[step] * 200, f"{step} {step}", *[step] * 50]
    p = tmp_path / "two.jsonl"
    p.write_text("\n".join(lines) + "\n")
    assert len(p.read_bytes()) > 4 * native._NUMPY_COUNT  # a block counted by numpy
    for size in (300, 1 << 20):
        monkeypatch.setattr(native, "BLOCK", size)
        assert (
            _read_all(p, False)
            == f"InputError: {p}:202: not valid JSON (unexpected content after document)"
        )


def test_newlines_are_counted_as_bytes_count_does() -> None:
    import random

    import numpy as np

    from efc_tui.parsers import native

    assert native.sys.modules.get("numpy") is np
    rng = random.Random(7)
    for n in (0, 1, 100, native._NUMPY_COUNT - 1, native._NUMPY_COUNT, 50_000):
        block = bytes(rng.choice(b"ab\n\r{}") for _ in range(n))
        for pos, end in ((0, n), (min(3, n), n), (0, max(0, n - 5)), (n // 3, n // 2)):
            assert native._newlines(block, pos, end) == block.count(b"\n", pos, end)
