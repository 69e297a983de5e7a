"""bench/docgen.py's JSON-lines session generators (Claude Code, Codex): what
bench/folder_bench.py's rows for them claim to be. Each generated file is detected as its
format and read as one run whose events are the steps written: a tool call per step (plus
the Claude subagent's own calls), the failed commands as failures, the refused one as
``static_reject``, the to-do list as memory, and the usage the lines carry counted once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from efc_tui.model import EventKind, Run, Status
from efc_tui.parsers import detect, load
from tests.readers.test_bench_docgen import docgen

#: steps per file: a Task subagent (step 25), a refusal (33), a turn's end (39), long logs
N = 60
SEED = 4


def _generate(fmt: str, tmp_path: Path, seed: int = SEED) -> Path:
    suffix, generate = docgen.SESSIONS[fmt]
    path = tmp_path / f"{fmt}{suffix}"
    assert generate(path, N, seed) == path.stat().st_size
    return path


def _run(path: Path) -> Run:
    runs = list(load(path))
    assert len(runs) == 1
    return runs[0]


def test_the_two_session_formats_have_a_generator() -> None:
    assert set(docgen.SESSIONS) == {"claude-code", "codex"}
    assert docgen.GENERATORS == docgen.FORMATS | docgen.SESSIONS


@pytest.mark.parametrize(
    ("fmt", "seed"), [("claude-code", SEED), ("claude-code", SEED + 1), ("codex", SEED)]
)
def test_detected_and_read_as_one_run_of_its_steps(fmt: str, seed: int, tmp_path: Path) -> None:
    """(An odd seed writes a Claude Code 2.x session: its subagent is in another file.)"""
    path = _generate(fmt, tmp_path, seed)
    assert detect(path).name == fmt
    run = _run(path)
    steps = list(docgen.steps(N, seed))
    calls = [e for e in run.events if e.tool_calls]
    side = [e for e in calls if e.extra.get("sidechain")]
    # one call per step; Claude's subagent (step 25) adds its own four
    assert len(calls) - len(side) == N
    assert len(side) == (4 if fmt == "claude-code" and seed % 2 == 0 else 0)
    status = Counter(e.status for e in run.events)
    assert status[Status.STATIC_REJECT] == 1
    failed = [s for s in steps if s.rc and s.t % 60 != 33 and s.t % 10 and s.t % 12]
    failed = [s for s in failed if fmt == "codex" or (s.t % 25 and s.t % 50 != 25)]
    assert failed and status[Status.RUNTIME_ERROR] + status[Status.ASSERTION_ERROR] >= len(failed)
    # every shell command of a plain step is an event's action, its output the observation
    plain = [s for s in steps if not s.cmd.startswith("sed -n") and s.t % 60 != 33]
    plain = [s for s in plain if s.t % 15 != 7 and s.t % 30 != 20] if fmt == "codex" else plain
    plain = [s for s in plain if s.t % 10 and s.t % 12 and s.t % 25] if fmt != "codex" else plain
    assert plain
    main = {s.t: e for s, e in zip(steps, [e for e in calls if e not in side], strict=True)}
    for s in plain:
        assert main[s.t].action_text == s.cmd
        assert s.text in main[s.t].observation_text
    kinds = Counter(e.kind for e in run.events)
    assert kinds[EventKind.CHECK] > 0 and kinds[EventKind.MESSAGE] >= 2
    assert (kinds[EventKind.MEMORY] if fmt == "claude-code" else kinds[EventKind.PLAN]) > 0


@pytest.mark.parametrize("seed", [SEED, SEED + 1])  # 1.0.x, 2.x
def test_claude_usage_once_per_message_and_the_subagent_totals_not_added(
    seed: int, tmp_path: Path
) -> None:
    run = _run(_generate("claude-code", tmp_path, seed))
    steps = {s.t: s for s in docgen.steps(N, seed)}
    inline = seed % 2 == 0
    # every step's message, the turn's closing text and (1.0.x) the subagent's four calls
    # (60 out each) and its answer: each message's lines repeat its usage, counted once
    messages = N + 1 + (5 if inline else 0)
    assert run.extra["usage"]["api_messages"] == messages
    out = sum(s.tokens_out for s in steps.values()) + steps[39].tokens_out
    out += 4 * 60 + steps[25].tokens_out if inline else 0
    assert sum(e.tokens_out for e in run.events) == out
    assert run.extra["cli_version"] == ("1.0.108" if inline else "2.0.76")
    assert run.extra["subagent_reported_tokens"] == 4 * (900 * 20 + 60)
    assert run.extra["titles"]


@pytest.mark.parametrize("seed", [4, 5])  # the older JSON outputs, the newer headers
def test_codex_usage_from_the_cumulative_counts_and_exit_codes(seed: int, tmp_path: Path) -> None:
    """Usage: the differences of the cumulative counts; a command's exit code, read from
    the output's JSON metadata (even seeds) or its ``Exit code:`` header (odd), says
    whether it failed."""
    run = _run(_generate("codex", tmp_path, seed))
    steps = list(docgen.steps(N, seed))
    assert sum(e.tokens_out for e in run.events) == sum(s.tokens_out for s in steps)
    assert sum(e.tokens_in for e in run.events) == sum(s.tokens_in * 19 for s in steps)
    calls = [e for e in run.events if e.tool_calls]
    for s, e in zip(steps, calls, strict=True):
        if e.tool == "shell" and s.t % 60 != 33:
            assert e.action_text == s.cmd
            assert (e.status in (Status.RUNTIME_ERROR, Status.ASSERTION_ERROR)) == bool(s.rc)
