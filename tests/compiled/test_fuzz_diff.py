"""The differential fuzz target, briefly (bench/fuzz_bench.py runs it at length): mutated
real and generated logs, and generated efc-trace/1 steps, through the compiled and the
pure-Python path; no crash and no difference (tests/fuzz_diff.py says what is compared)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from efc_tui import _fast
from tests import fuzz_diff

pytestmark = pytest.mark.skipif(
    _fast.speedups() is None, reason=f"compiled fast path: {_fast.STATUS}"
)


def _report(tally: fuzz_diff.Tally) -> str:
    return "\n".join(
        f"{f.kind} on a mutation of {f.seed} ({f.reader}): {f.detail[:600]}\ninput: {f.data[:400]!r}"
        for f in fuzz_diff.findings_of(tally)
    )


@pytest.fixture(scope="module")
def seeds() -> list[fuzz_diff.Seed]:
    return fuzz_diff.seeds(generated=3)


def test_mutated_logs_of_every_reader(seeds: list[fuzz_diff.Seed]) -> None:
    tally = fuzz_diff.run(seeds, inputs=240, rng_seed=32)
    assert tally.inputs == 240
    assert not tally.crashes and not tally.differences, _report(tally)
    assert len({k.split("/")[0] for k in tally.by_reader}) >= 8  # many readers were reached


def test_mutated_native_logs(seeds: list[fuzz_diff.Seed]) -> None:
    native = [s for s in seeds if s.reader == "native"]
    tally = fuzz_diff.run(native, inputs=600, rng_seed=7, full_every=20)
    assert not tally.crashes and not tally.differences, _report(tally)
    assert tally.errors < tally.inputs  # not all rejected: most mutations are read on


_COUNTS = [int(x) for x in fuzz_diff.INTERESTING_NUMBERS if x.lstrip("-").isdigit()]
_COUNT = (
    st.sampled_from(_COUNTS).filter(lambda n: -(2**63) <= n < 2**64)
    | st.integers(0, 2**20)
    | st.floats(0, 1e20, allow_nan=False)
    | st.sampled_from([None, True, "3", -1.5])
)
_SCALAR = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats()
    | st.text(max_size=12)
)
_JSON = st.recursive(
    _SCALAR,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3),
    max_leaves=6,
)
_TEXT = st.sampled_from(
    [
        "",
        "ok",
        "1 passed in 0.1s",
        "2 failed, 9007199254740992 passed",
        "Traceback\nValueError: x",
        "Ran 3 tests\n\nFAILED (errors=1)",
        "error: \x1b[31m",
        "\u2028\x00",
    ]
) | st.text(max_size=40)
_KIND = st.sampled_from(
    [
        "tool",
        "check",
        "generation",
        "repair",
        "reflect",
        "memory",
        "plan",
        "message",
        "error",
        "bogus",
    ]
)
_STATUS = st.sampled_from(
    ["passed", "assertion_error", "runtime_error", "timeout", "none", "other", "nope"]
)


def _opt(d: dict[str, Any]) -> Any:
    return st.fixed_dictionaries({}, optional=d)


_STEP = st.fixed_dictionaries(
    {"type": st.just("step")},
    optional={
        "t": st.integers(-5, 2**63 - 1) | _JSON,
        "action": _opt(
            {
                "kind": _KIND | _JSON,
                "tool": st.sampled_from(["bash", "pytest", "edit"]) | _JSON,
                "input": _TEXT | _JSON,
            }
        )
        | _JSON,
        "observation": _opt(
            {
                "text": _TEXT | _JSON,
                "status": _STATUS | _JSON,
                "exit_code": st.integers(-2, 300) | _JSON,
                "checks": _opt({"passed": _COUNT, "failed": _COUNT, "total": _COUNT}) | _JSON,
                "truncated": st.booleans() | _JSON,
            }
        ),
        "usage": _opt(
            {k: _COUNT for k in ("tokens_in", "tokens_out", "wall_s", "tool_calls", "ops")}
        ),
        "update": _opt({"memory_write": _TEXT | _JSON, "plan": _TEXT | _JSON}),
        "refs": st.lists(st.integers(-1, 8), max_size=3) | _JSON,
        "timestamp": _COUNT,
        "extra": _JSON,
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(steps=st.lists(_STEP, min_size=1, max_size=8), lenient=st.booleans())
def test_generated_native_steps(steps: list[dict[str, Any]], lenient: bool) -> None:
    header = {"type": "run", "schema": "efc-trace/1", "run_id": "fuzz"}
    data = b"".join(orjson.dumps(x) + b"\n" for x in [header, *steps])
    with tempfile.TemporaryDirectory() as tmp:
        kind, detail = fuzz_diff.check(
            data, "native", ".jsonl", Path(tmp), full=True, lenient=lenient
        )
    assert kind is None, f"{kind}: {detail}\ninput: {data[:1000]!r}"


def test_the_target_sees_a_difference_and_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check is not vacuous: a path that reads differently, or raises, is caught."""
    from efc_tui.parsers import native

    original = native.step_to_event

    def skewed(obj: dict[str, Any], index: int, prev_failed: bool) -> Any:
        ev = original(obj, index, prev_failed)
        ev.tokens_in += 1
        return ev

    data = b'{"type": "run"}\n{"type": "step", "t": 0, "observation": {"text": "x"}}\n'
    assert fuzz_diff.check(data, "native", ".jsonl", tmp_path, full=False)[0] is None
    # the reference path reads one token more: the schema path builds this step itself
    monkeypatch.setattr(native, "step_to_event", skewed)
    assert fuzz_diff.check(data, "native", ".jsonl", tmp_path, full=False)[0] == "difference"
    monkeypatch.setattr(fuzz_diff, "_result", lambda *a: "compiled" if _fast.speedups() else "pure")
    assert fuzz_diff.check(data, "native", ".jsonl", tmp_path, full=False)[0] == "difference"
    monkeypatch.setattr(fuzz_diff, "_result", lambda *a: "CRASH: ValueError")
    assert fuzz_diff.check(data, "native", ".jsonl", tmp_path, full=False)[0] == "crash"
