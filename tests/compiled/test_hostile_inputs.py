"""Regression tests of the defects found by fault and fuzz testing (issue 32): each hostile
input gets exit 2 and one line naming file and line, or finite, flagged figures, and the
compiled and pure-Python paths agree on it to the last bit.

The reproducers are copies of ../shared/repro (tests/fixtures/repro); the shared ones are
run too when ../shared is here. Item 6 (follow rotation) is tests/app/test_follow_rotation.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from efc_tui import _fast
from efc_tui import io as efc_io
from efc_tui.cli import app
from efc_tui.parsers import load, native
from efc_tui.parsers._values import MAX_COUNT, as_count, depth, opt_count
from tests.conftest import FIXTURES, REPO, SHARED

REPRO = REPO / "tests" / "repro"
FIXTURE_ATIF = FIXTURES / "formats" / "atif_subtraj" / "trajectory.json"
fast: Any = _fast.speedups()
PATHS = ["compiled", "pure"] if fast is not None else ["pure"]


def _score(path: Path, mode: str, *args: str) -> Any:
    """``efc-tui score --json`` on one path through one path of the code."""
    runner = CliRunner()
    if mode == "pure":
        with _fast.pure_python():
            return runner.invoke(app, ["score", str(path), "--json", "-q", *args])
    return runner.invoke(app, ["score", str(path), "--json", "-q", *args])


def _repro(name: str) -> list[Path]:
    """The fixture copy, and the shared original when ../shared is here."""
    paths = [REPRO / name]
    if (SHARED / "repro" / name).is_file():
        paths.append(SHARED / "repro" / name)
    return paths


def _one_error_line(r: Any, path: Path, line: int, reason: str) -> None:
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"efc-tui: error: {path}:{line}: ") and reason in lines[0]
    assert "Traceback" not in r.output


# -- items 3 and 4: nesting deeper than the reader takes -----------------------------------


@pytest.mark.parametrize("mode", PATHS)
@pytest.mark.parametrize(("name", "line"), [("deep_t.jsonl", 2), ("deep_budget.jsonl", 1)])
def test_deep_nesting_is_one_error_line(name: str, line: int, mode: str) -> None:
    for path in _repro(name):
        r = _score(path, mode)
        _one_error_line(r, path, line, f"nested deeper than {native.MAX_DEPTH} levels")


def _nested_line(levels: int, where: str) -> dict[str, Any]:
    """A step whose ``where`` value makes the line nest ``levels`` levels (the line is 1)."""
    value: Any = "deep"
    for _ in range(levels - 1):
        value = [value]
    step: dict[str, Any] = {"type": "step", "t": 0, "action": {"kind": "tool", "tool": "bash"}}
    step["observation"] = {"text": "ok"}
    if where == "input":  # action.input: the line, action, then the value's levels
        value = value[0]
        step["action"]["input"] = value
    else:
        step[where] = value
    return step


@pytest.mark.parametrize("mode", PATHS)
@pytest.mark.parametrize("where", ["t", "input", "extra_field"])
def test_the_depth_limit_is_exact_and_a_line_at_it_exports(
    tmp_path: Path, where: str, mode: str
) -> None:
    header = {"type": "run", "schema": "efc-trace/1", "run_id": "r"}
    ok = tmp_path / "ok.jsonl"
    deep = _nested_line(native.MAX_DEPTH, where)
    assert depth(deep) == native.MAX_DEPTH
    lines = [header, deep] if where != "t" else [header]
    ok.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    r = _score(ok, mode)
    assert r.exit_code == 0, r.output
    out = tmp_path / "ok.ledger.json"
    r = CliRunner().invoke(app, ["export", str(ok), "-o", str(out)])
    assert r.exit_code == 0 and out.is_file(), r.output
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(
        orjson.dumps(header)
        + b"\n"
        + orjson.dumps(_nested_line(native.MAX_DEPTH + 1, where))
        + b"\n"
    )
    _one_error_line(_score(bad, mode), bad, 2, "nested deeper")


@pytest.mark.parametrize("mode", PATHS)
def test_every_reader_rejects_a_document_nested_too_deep(tmp_path: Path, mode: str) -> None:
    """Found by the fuzz target: a SWE-agent trajectory with a value nested 1,000 levels
    deep was read, then `score --json` and `export` crashed writing it (TypeError)."""
    doc = orjson.loads((REPRO / "swe_tokens_1e308.traj").read_bytes())
    doc["info"]["model_stats"]["tokens_sent"] = 1
    head = orjson.dumps(doc)[:-1]
    deep = tmp_path / "deep.traj"
    deep.write_bytes(head + b',\n"x":\n' + b"[" * 300 + b"]" * 300 + b"}")
    r = _score(deep, mode)
    _one_error_line(r, deep, 3, "not valid JSON: nested deeper than 240 levels")
    ok = tmp_path / "ok.traj"
    ok.write_bytes(head + b',\n"x":\n' + b"[" * 239 + b"]" * 239 + b"}")
    assert _score(ok, mode).exit_code == 0


def test_a_tool_argument_string_nested_too_deep_stays_text() -> None:
    from efc_tui.parsers._values import parse_json_text

    deep = "[" * 300 + "]" * 300
    assert parse_json_text(deep) == deep
    assert parse_json_text("[[1]]") == [[1]]


def test_depth_is_measured_without_recursion() -> None:
    value: Any = 0
    for _ in range(100_000):
        value = {"k": [value]}
    assert depth(value) == 200_000
    assert depth(1) == 0 and depth([]) == 1 and depth({"a": {}}) == 2


# -- items 1 and 5: counts past the largest count -------------------------------------------


@pytest.mark.parametrize("mode", PATHS)
def test_a_tool_call_count_past_2_53_is_one_error_line(mode: str) -> None:
    for path in _repro("ops_overflow.jsonl"):
        _one_error_line(_score(path, mode), path, 2, "usage.tool_calls 9223372036854775807")


@pytest.mark.parametrize("mode", PATHS)
@pytest.mark.parametrize(
    "field", ["tokens_in", "tokens_out", "tool_calls", "ops", "passed", "failed", "total"]
)
def test_every_count_takes_2_53_and_rejects_more(tmp_path: Path, field: str, mode: str) -> None:
    header = b'{"type": "run", "schema": "efc-trace/1", "run_id": "r"}\n'

    def step(value: str) -> bytes:
        if field in ("passed", "failed", "total"):
            body = f'"observation": {{"text": "x", "checks": {{"{field}": {value}}}}}'
        else:
            body = f'"observation": {{"text": "x"}}, "usage": {{"{field}": {value}}}'
        return (
            f'{{"type": "step", "t": 0, "action": {{"kind": "check", "tool": "pytest"}}, {body}}}\n'
        ).encode()

    runs = {}
    for value in (str(MAX_COUNT), f"{float(MAX_COUNT)}", str(MAX_COUNT + 1), "1e300"):
        p = tmp_path / f"{field}-{value}.jsonl"
        p.write_bytes(header + step(value))
        runs[value] = _score(p, mode)
    assert runs[str(MAX_COUNT)].exit_code == 0 and runs[f"{float(MAX_COUNT)}"].exit_code == 0
    for value in (str(MAX_COUNT + 1), "1e300"):
        p = tmp_path / f"{field}-{value}.jsonl"
        _one_error_line(runs[value], p, 2, "past the largest count, 2**53")


def test_a_count_past_2_53_is_malformed_for_the_other_readers() -> None:
    assert opt_count(MAX_COUNT) == MAX_COUNT and opt_count(1e308) is None
    assert opt_count(MAX_COUNT + 1) is None and as_count("99999999999999999999") == 0


@pytest.mark.parametrize("mode", PATHS)
def test_a_huge_swe_agent_token_total_gives_finite_figures(mode: str) -> None:
    for path in _repro("swe_tokens_1e308.traj"):
        r = _score(path, mode)
        assert r.exit_code == 0, r.output
        [run] = json.loads(r.stdout)["runs"]
        figures = run["figures"]
        assert all(v is None or isinstance(v, bool) or abs(v) < 1e300 for v in figures.values())
        assert figures["tokens"] > 0  # estimated, not 1e308, not 0
        assert any(f.startswith("tokens") for f in run["flags"])


# -- item 2: the compiled and pure paths agree past 2**53 -----------------------------------


@pytest.mark.skipif(fast is None, reason="compiled fast path not built")
@pytest.mark.parametrize("name", ["checks_2p53.jsonl", "swe_tokens_1e308.traj"])
def test_compiled_and_pure_agree_to_the_last_bit(name: str) -> None:
    for path in _repro(name):
        compiled, pure = _score(path, "compiled"), _score(path, "pure")
        assert compiled.exit_code == pure.exit_code == 0
        assert compiled.stdout == pure.stdout  # byte for byte: every figure, every column


@pytest.mark.skipif(fast is None, reason="compiled fast path not built")
def test_check_counts_summing_past_2_53_fall_back_to_python() -> None:
    from efc_tui.adapter import score_and_decide

    [run] = load(REPRO / "checks_2p53.jsonl")
    led = score_and_decide(run)
    with _fast.pure_python():
        [run_p] = load(REPRO / "checks_2p53.jsonl")
        led_p = score_and_decide(run_p)
    assert led.ledger.features.h.tolist() == led_p.ledger.features.h.tolist()
    assert led.ledger.features.delta.tolist() == led_p.ledger.features.delta.tolist()
    assert led.ledger.features.delta[0] == 1 / (2**53 + 1)  # the exact quotient, rounded once


# -- item 8: a non-finite figure is flagged ---------------------------------------------------


@pytest.mark.parametrize("mode", PATHS)
def test_an_infinite_task_demand_is_flagged(tmp_path: Path, mode: str) -> None:
    p = tmp_path / "inf.jsonl"
    p.write_text(
        '{"type": "run", "schema": "efc-trace/1", "run_id": "r", "task_demand": {"L": 1.7e308}}\n'
        '{"type": "step", "t": 0, "action": {"kind": "tool", "tool": "bash", "input": "ls"}, '
        '"observation": {"text": "ok"}}\n'
    )
    r = _score(p, mode)
    assert r.exit_code == 0, r.output
    [run] = json.loads(r.stdout)["runs"]
    assert run["figures"]["d_task"] is None  # JSON has no inf ...
    assert any(
        f.startswith("non-finite figures: d_task = inf") for f in run["flags"]
    )  # ... flagged


def test_finite_figures_carry_no_overflow_flag() -> None:
    r = _score(REPRO / "checks_2p53.jsonl", "pure")
    [run] = json.loads(r.stdout)["runs"]
    assert not any(f.startswith("non-finite") for f in run["flags"])


# -- item 9: search reads the whole text -------------------------------------------------------


def test_search_finds_text_past_the_first_million_characters() -> None:
    from efc_tui.app.replay_data import SEARCH_SCAN, ReplayData
    from tests.helpers import ev, make_run

    needle = "needle-in-the-haystack"
    far = "x" * (3 * SEARCH_SCAN - 5) + needle  # across a window border, far past the first
    events = [ev(0, obs="nothing here"), ev(1, obs=far), ev(2, action="y" * SEARCH_SCAN + needle)]
    data = ReplayData(make_run(events))
    assert data.find_all(needle.upper()) == [1, 2]
    assert data.search(needle, 0) == 1
    calls = []

    def cancelled() -> bool:
        calls.append(1)
        return len(calls) > 2  # cancelled inside the long text

    assert data.find_all(needle, cancelled=cancelled) is None


# -- item 10: a killed writer's temporary is removed at the next write -------------------------


_KILLED_WRITER = """
import os, sys
from efc_tui.io import AtomicFile
f = AtomicFile(sys.argv[1])
f.write(b"half a ledger")
f._file.flush()
os._exit(9)  # killed before the rename
"""


def _age(path: Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_a_killed_export_leaves_debris_the_next_write_removes(tmp_path: Path) -> None:
    out = tmp_path / "X.json"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(out)], env=env, check=False)
    [debris] = tmp_path.glob(".X.json.*.tmp")
    assert not out.exists()
    _age(debris, efc_io.GONE_SECONDS + 5)  # its writer is gone and it is a minute old
    old_style = tmp_path / ".X.json.ab12cd34.tmp"  # the naming before issue 32
    old_style.write_bytes(b"x")
    _age(old_style, efc_io.STALE_SECONDS + 5)
    keep = {
        # a writer alive on this host (this process's parent), long quiet
        tmp_path / f".Y.json.{efc_io._HOST}-{os.getppid()}.abcdefgh.tmp": efc_io.GONE_SECONDS * 5,
        # a writer on another host sharing the folder: its pid means nothing here
        tmp_path / ".Z.json.000000-999999999.abcdefgh.tmp": efc_io.GONE_SECONDS * 5,
        # a recent temporary of the old naming (a concurrent older writer)
        tmp_path / ".W.json.zz99yy88.tmp": 0,
        # not ours
        tmp_path / ".notes.tmp": efc_io.STALE_SECONDS * 5,
        tmp_path / "X.json.abcdefgh.tmp": efc_io.STALE_SECONDS * 5,
    }
    for p, age in keep.items():
        p.write_bytes(b"x")
        _age(p, age)
    r = CliRunner().invoke(app, ["export", str(REPRO / "checks_2p53.jsonl"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert out.is_file() and not debris.exists() and not old_style.exists()
    assert all(p.exists() for p in keep)


def test_a_recent_temporary_of_a_gone_writer_waits(tmp_path: Path) -> None:
    """Gone but written to a moment ago (pid reuse aside, a clock or a slow disk): kept."""
    p = tmp_path / f".A.json.{efc_io._HOST}-999999999.abcdefgh.tmp"
    p.write_bytes(b"x")
    assert efc_io.sweep(tmp_path) == []
    assert efc_io.sweep(tmp_path, now=time.time() + efc_io.GONE_SECONDS + 5) == [p]


# -- the build honours the caller's flags ---------------------------------------------------


def test_the_build_takes_cflags_and_ldflags(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("efc_hatch_build", REPO / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    src, out = REPO / "efc_tui" / "_speedups.c", Path("out.so")
    monkeypatch.delenv("CFLAGS", raising=False)
    monkeypatch.delenv("LDFLAGS", raising=False)
    plain = hook.compile_command(src, out)
    if plain is None:
        pytest.skip("no C compiler or Python headers here")
    assert "-O2" in plain
    monkeypatch.setenv("CFLAGS", "-O1 -g -fsanitize=address")
    monkeypatch.setenv("LDFLAGS", "-fsanitize=address -lm")
    cmd = hook.compile_command(src, out)
    assert "-O2" not in cmd and [f for f in cmd if f.startswith("-O")] == ["-O1"]
    assert cmd.index("-fsanitize=address") < cmd.index(str(src))
    assert cmd[-2:] == ["-fsanitize=address", "-lm"]
    monkeypatch.setenv("CFLAGS", "-g")
    assert "-O2" in hook.compile_command(src, out)


def test_the_trace_schema_gives_the_largest_count() -> None:
    schema = json.loads((REPO / "efc_tui" / "schemas" / "efc-trace-1.schema.json").read_text())
    step = schema["$defs"]["step"]["properties"]
    checks = step["observation"]["properties"]["checks"]["properties"]
    usage = step["usage"]["properties"]
    for k in ("passed", "failed", "total"):
        assert checks[k]["maximum"] == MAX_COUNT
    for k in ("tokens_in", "tokens_out", "tool_calls", "ops"):
        assert usage[k]["maximum"] == MAX_COUNT


def test_an_atif_sub_trajectory_name_too_long_is_a_warning(tmp_path: Path) -> None:
    """Found by the fuzz target: a sub-trajectory path longer than the file system takes
    (ENAMETOOLONG) crashed the ATIF reader (OSError, exit 1)."""
    src = FIXTURE_ATIF.read_bytes()
    doc = orjson.loads(src)
    refs = [
        r
        for step in doc["steps"]
        for r in (step.get("observation") or {}).get("results", [])
        if r.get("subagent_trajectory_ref")
    ]
    assert refs, "the fixture has a sub-trajectory reference"
    for r in refs:
        for ref in r["subagent_trajectory_ref"]:
            ref["trajectory_path"] = "t" + "x" * 5000 + ".json"
    p = tmp_path / "trajectory.json"
    p.write_bytes(orjson.dumps(doc))
    [run] = load(p)
    assert any("not followed (File name too long)" in w for w in run.warnings)
