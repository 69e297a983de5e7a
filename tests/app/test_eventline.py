"""Item 1 of issue 30: every ledger row says what the agent did and what came back, in one
line, and the ledger is sized around that line (tests/fixtures: a Claude Code session, a
SWE-agent run, a Harbor trial, a Codex rollout)."""

from __future__ import annotations

from pathlib import Path

import pytest

from efc_tui.api import load
from efc_tui.app.eventline import action_line, edit_diff, outcome_line, readable_action
from efc_tui.app.screens.text_view import wrap_lines
from efc_tui.app.widgets.ledger import ACTION_COLUMN, OUTCOME_COLUMN, layout
from efc_tui.model import Event, EventKind, Status
from tests.conftest import FIXTURES

FIX = FIXTURES
SWE = FIX / "agents" / "swe_agent_1x.traj"
HARBOR = FIX / "more" / "harbor_trial" / "hello-world__Ab3xY" / "agent" / "trajectory.json"
CODEX = FIX / "agents" / "codex_session.jsonl"
CLAUDE = FIX / "agents" / "claude_interrupted.jsonl"


def _lines(path: Path) -> list[tuple[str, str]]:
    run = load(path)
    return [(action_line(e), outcome_line(e)) for e in run.events]


def test_swe_agent_run_reads_as_commands_and_test_results() -> None:
    lines = _lines(SWE)
    assert lines[1][0] == "editor view /repo/calc.py"
    assert lines[2] == ("$ python -m pytest -q", "1 failed, 1 passed")
    assert lines[4][0] == "error: exit_cost"


def test_codex_rollout_shows_exit_status_and_the_patched_file() -> None:
    lines = dict(enumerate(_lines(CODEX)))
    assert lines[2] == ("$ pytest -q", "1 failed, 1 passed · exit 1")
    assert lines[5][0] == "apply_patch calc.py"
    assert lines[6][1] == "2 passed · exit 0"
    assert lines[7][1] == "API error"


def test_harbor_trial_parallel_checks() -> None:
    lines = _lines(HARBOR)
    assert lines[0] == ("user: Fix the build.", "")
    assert lines[1] == ("$ pytest -q", "1 failed, 2 passed")
    # ruff is a linter: its clean exit is a passed check (issue 28), said before its line
    assert lines[2] == ("$ ruff check .", "passed · All checks passed!")
    assert lines[4] == ("$ pytest -q", "no result")


def test_claude_code_tool_calls_name_the_tool_and_its_main_argument() -> None:
    run = load(CLAUDE)
    tools = [(action_line(e), e) for e in run.events if e.tool]
    assert tools, "the fixture has tool calls"
    for line, ev in tools:
        assert line.startswith(("$ ", ev.tool or "")), line
        assert "{" not in line[:2]  # never the raw JSON
        assert "\n" not in line


def _event(tool: str, action: str, **kw: object) -> Event:
    return Event(index=0, step=0, kind=EventKind.TOOL, tool=tool, action_text=action, **kw)  # type: ignore[arg-type]


def test_first_error_line_is_the_outcome() -> None:
    ev = _event(
        "Bash",
        "python x.py",
        status=Status.RUNTIME_ERROR,
        observation_text="Traceback (most recent call last):\n  File \"x.py\"\nKeyError: 'a'\n",
    )
    assert outcome_line(ev) == "error · KeyError: 'a'"


def test_edits_become_diffs() -> None:
    edit = _event(
        "Edit", '{"file_path": "/a/b.py", "old_string": "x = 1\\n", "new_string": "x = 2\\n"}'
    )
    diff = edit_diff(edit)
    assert diff is not None
    assert "-x = 1" in diff and "+x = 2" in diff and "--- a/a/b.py" in diff
    multi = _event(
        "MultiEdit",
        '{"file_path": "f", "edits": [{"old_string": "a", "new_string": "b"},'
        ' {"old_string": "c", "new_string": "d"}]}',
    )
    assert action_line(multi) == "MultiEdit f (2 edits)"
    assert (edit_diff(multi) or "").count("@@") == 4
    write = _event("Write", '{"file_path": "n.txt", "content": "one\\ntwo"}')
    assert "+one\n+two" in (edit_diff(write) or "")
    swe = _event(
        "str_replace_editor",
        "str_replace_editor str_replace /r/c.py --old_str 'a - b' --new_str 'a + b'",
    )
    assert "-a - b\n+a + b" in (edit_diff(swe) or "")
    assert edit_diff(_event("Bash", "ls")) is None


def test_json_arguments_read_with_real_line_breaks() -> None:
    ev = _event("Task", '{"description": "d", "prompt": "line one\\nline two"}')
    assert readable_action(ev) == "description: d\nprompt:\nline one\nline two"
    assert readable_action(_event("Bash", "ls")) is None


@pytest.mark.parametrize("width", [60, 76, 116, 196, 300])
def test_the_row_is_sized_around_action_and_outcome(width: int) -> None:
    slots = layout(width)
    keys = [s.col.key for s in slots]
    assert keys[:3] == ["index", "action", "outcome"]
    assert sum(s.width for s in slots) + len(slots) - 1 == max(
        width, sum(s.width for s in layout(0)) + len(layout(0)) - 1
    )
    by = {s.col.key: s.width for s in slots}
    assert by["action"] >= ACTION_COLUMN.width and by["outcome"] >= OUTCOME_COLUMN.width
    if width >= 76:  # 80 columns: cost and credit stay
        assert {"dC", "nrs_efc", "tokens"} <= set(keys)
    if width >= 196:  # 200 columns: everything, and no blank half
        assert {"kind", "adapter", "I", "X_nr_cum"} <= set(keys)
        assert by["action"] >= 60


def test_wrapping_keeps_every_character() -> None:
    lines = ["x" * 25, "", "漢字" * 7, "short"]
    rows = wrap_lines(lines, 10)
    assert "".join(rows) == "".join(lines)
    assert rows[:3] == ["x" * 10, "x" * 10, "x" * 5]
    assert all(len(r) <= 10 for r in rows)


def test_real_logs_read_as_actions_and_outcomes() -> None:
    """On the real logs of ../shared (skipped without it): no action line is raw JSON, and
    a SWE-agent edit names the file it edits."""
    from tests.conftest import REAL

    swe = REAL / "swe-agent" / "pydicom__pydicom-1458.traj"
    if not swe.is_file():
        pytest.skip("../shared/fixtures/real is not here")
    run = load(swe)
    lines = [action_line(e) for e in run.events]
    assert lines[6] == "edit numpy_handler.py 287:295"
    assert outcome_line(run.events[3]).startswith("error · AttributeError")
    for path in sorted((REAL / "claude-code").glob("*.jsonl")):
        for e in load(path).events:
            line = action_line(e)
            assert not line.startswith("{") and "\n" not in line, (path.name, line)
