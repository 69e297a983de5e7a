"""Property tests (hypothesis): truncating or corrupting a valid file of each format read
by the Inspect / ATIF / OpenHands / OpenAI / Anthropic / OpenTelemetry / Gemini / tau-bench /
Cursor CLI / Terminal-Bench 1 / OpenAI Agents SDK readers (and Claude Code's stream-json
capture)
never raises anything but efc_tui.errors.InputError, whether the reader is forced or
detected."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from efc_tui.errors import InputError
from efc_tui.parsers import detect, get_reader
from efc_tui.parsers.base import ReadOptions
from tests.conftest import FIXTURES, REAL
from tests.helpers import assert_well_formed

MORE = FIXTURES / "more"
FORMATS = FIXTURES / "formats"
SOURCES = {
    "inspect-ai": [
        MORE / "inspect_two_samples.json",
        MORE / "inspect_zstd.eval",
        REAL / "inspect-ai" / "log_message_deduplication.eval",
    ],  # deflate members
    "openai-chat": [MORE / "openai_messages.jsonl", MORE / "openai_request_legacy.json"],
    "anthropic-messages": [MORE / "anthropic_image_request.json", MORE / "anthropic_error.sse.txt"],
    "otel-genai": [MORE / "otlp_trace.json"],
    "gemini-cli": [MORE / "gemini_session.jsonl"],
    "tau-bench": [
        FORMATS / "tau_bench" / "tool-calling-gpt-4o-0.0_range_0-3_user-gpt-4o-llm_0612073827.json",
        FORMATS
        / "tau_bench"
        / "react-claude-3-5-sonnet-0.0_range_0-1_user-gpt-4o-llm_0101000000.json",
    ],
    "cursor-cli": [FORMATS / "cursor" / "session.jsonl", FORMATS / "cursor" / "trajectory.json"],
    "claude-code": [FORMATS / "claude_stream" / "claude-code.txt"],
    "atif": [
        MORE / "harbor_trial" / "hello-world__Ab3xY" / "agent" / "trajectory.json",
        FORMATS / "atif_openclaw" / "agent" / "trajectory.json",
        FORMATS / "atif_claude_split" / "trajectory.json",
        FORMATS / "atif_subtraj" / "trajectory.json",
    ],
    "openhands": [
        MORE / "openhands_events.json",
        MORE / "openhands_output.jsonl",
        FORMATS / "openhands_eval" / "output.jsonl",
    ],
    "terminal-bench": [
        FORMATS / "tb1_typed" / "agent.cast",
        FORMATS
        / "tb1_run"
        / "2025-06-01__10-00-00"
        / "hello-world"
        / "hello-world.1-of-1.2025-06-01__10-00-00"
        / "sessions"
        / "agent.cast",
    ],
    "openai-agents": [
        FORMATS / "openai_agents" / "traces.jsonl",
        FORMATS / "openai_agents" / "input_list.json",
        FORMATS / "openai_agents" / "run_state.json",
    ],
}
CASES = [(fmt, p) for fmt, paths in SOURCES.items() for p in paths]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for every example (pytest's, removed with its other temporary folders);
    module-scoped, as hypothesis runs many examples per call of the test."""
    return tmp_path_factory.mktemp("props")


def _read_all(scratch: Path, fmt: str, data: bytes, suffix: str, lenient: bool) -> None:
    p = scratch / f"case{suffix}"
    p.write_bytes(data)
    for reader in (get_reader(fmt), None):
        try:
            r = reader or detect(p)
            for run in r.read(p, ReadOptions(lenient=lenient)):
                assert_well_formed(run, r.name)
        except InputError:
            pass


@st.composite
def mutated(draw: st.DrawFn, data: bytes) -> bytes:
    """A truncation, byte flips, an insertion or a deletion of ``data``."""
    op = draw(st.sampled_from(["truncate", "flip", "insert", "delete"]))
    n = len(data)
    if op == "truncate":
        return data[: draw(st.integers(0, n))]
    buf = bytearray(data)
    if op == "flip":
        for i, b in draw(
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, 255)), min_size=1, max_size=8)
        ):
            buf[i] = b
    elif op == "insert":
        i = draw(st.integers(0, n))
        buf[i:i] = draw(st.binary(min_size=1, max_size=16))
    else:
        i = draw(st.integers(0, n - 1))
        del buf[i : i + draw(st.integers(1, 64))]
    return bytes(buf)


@pytest.mark.parametrize(("fmt", "source"), CASES, ids=[f"{f}-{p.name}" for f, p in CASES])
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutations_only_raise_input_error(
    scratch: Path, fmt: str, source: Path, data: st.DataObject
) -> None:
    if not source.exists():
        pytest.skip(f"{source} is not present")
    blob = data.draw(mutated(source.read_bytes()))
    _read_all(scratch, fmt, blob, "".join(source.suffixes), data.draw(st.booleans()))
