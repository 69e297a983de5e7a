"""Issue 30 through the pilot, at 80x24 and 200x50, on real fixtures (tests/fixtures: a
Claude Code session, a SWE-agent run, a Harbor trial): what a person sees first."""

from __future__ import annotations

from pathlib import Path

from rich.color import Color

from efc_tui.app.screens.picker import PickerScreen
from efc_tui.app.widgets.detail import DetailPane
from efc_tui.app.widgets.runs_table import RunsTable
from tests.app.test_ux import make_app, replay, screen_lines
from tests.conftest import FIXTURES, REPO
from tests.pilot import pilot_test, settle

FIX = FIXTURES
SWE = FIX / "agents" / "swe_agent_1x.traj"
CLAUDE = FIX / "agents" / "claude_interrupted.jsonl"
HARBOR = FIX / "more" / "harbor_trial"


@pilot_test
async def test_the_action_and_outcome_are_on_every_row_at_80x24() -> None:
    """Item 1: no Tab, no scrolling: the ledger's rows say what was run and what came back."""
    app = make_app(SWE)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = "\n".join(screen_lines(app))
        assert "$ python -m pytest -q" in text
        assert "1 failed, 1 passed" in text
        assert "editor view /repo/calc.py" in text
        assert "error: exit_cost" in text


@pilot_test
async def test_the_detail_pane_leads_with_action_outcome_and_cost() -> None:
    app = make_app(SWE, select=3)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        pane = replay(app).query_one(DetailPane)
        order = [w.id for w in pane.children]
        assert order == ["detail-summary", "detail-action", "detail-observation", "detail-verdict"]
        lines = [ln for ln in screen_lines(app) if "│" in ln]
        body = "\n".join(lines)
        head = body.index("editor str_replace /repo/calc.py")
        assert head < body.index("→ The file /repo/calc.py has been edited")
        assert head < body.index("cost ") < body.index("Action: an edit, as a diff")
        assert "-return a - b" in body and "+return a + b" in body
        # the verdict in words, then the internals, come after the texts
        pane.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        verdict = "\n".join(screen_lines(app))
        assert (
            verdict.index("Verdict") < verdict.index("credit ÊFC_nr") < verdict.index("Internals")
        )
        assert "would " in verdict  # the adapter's decision in words


@pilot_test
async def test_picker_rows_are_readable_and_keep_how_runs_ended_at_80_columns() -> None:
    """Item 5: the zebra rows are a shade of the table's background, never white under
    light text; item 6: success, how it ended, C_raw and the length fit 80 columns; item 8:
    typing how a run ended finds it."""
    app = make_app(SWE, CLAUDE, HARBOR)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        table = picker.query_one(RunsTable)
        table.cursor_row = 0
        await pilot.pause()
        odd = table.render_line(2)  # the header, then rows 0 and 1: row 1 is a zebra row
        backgrounds = {s.style.bgcolor for s in odd if s.style and s.style.bgcolor}
        colors = {s.style.color for s in odd if s.style and s.style.color}
        assert backgrounds and Color.parse("#ffffff") not in backgrounds
        base = table.rich_style.bgcolor
        assert base is not None
        for bg in backgrounds:  # a shade of the table's background, not a glare
            a, b = bg.get_truecolor(), base.get_truecolor()
            assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 40
        assert colors
        lines = screen_lines(app)
        header = next(ln for ln in lines if ln.lstrip().startswith("run "))
        for title in ("success", "ended", "C_raw", "events"):
            assert title in header, title
        assert any("submitted (exit_cost)" in ln for ln in lines)
        assert any(ln.startswith(" 3 runs · 1 succeeded") for ln in lines)  # item 8
        await pilot.press(*"exit_cost")
        await settle(pilot)
        assert [r["run_id"] for r in picker._shown] == ["swe_agent_1x"]


@pilot_test
async def test_the_fit_panel_never_shows_a_prediction_it_calls_unpredictive() -> None:
    """Item 4, on the package's own fit: the panel names the curve it draws with its
    held-out figures, never "no predictive curve" beside a prediction; a log without wall
    time has no value on the wall-time curve (not 0 s); `p` says why nothing changes."""
    from efc_tui.app.fitview import load_fit_view
    from efc_tui.app.widgets.charts import FitPanel
    from tests.app.test_ux import Notes

    for path in (SWE, CLAUDE):
        app = make_app(path, fit=load_fit_view(None), select=2)
        async with app.run_test(size=(200, 50)) as pilot:
            await settle(pilot)
            panel = replay(app).query_one(FitPanel)
            text = panel.render().plain  # type: ignore[union-attr]
            if "predicted success" in text:
                assert "no predictive curve" not in text
            fit = panel.view()
            assert fit is not None
            if fit.curves:
                shown = fit.curve(panel.predictor or "") or fit.curves[0]
                assert text.startswith(shown.label) and "held-out" in text
                if shown.name == "wall_s" and not any(e.wall_s for e in app.screen.data.events):  # type: ignore[attr-defined]
                    assert "predicted success" not in text and "this log records none" in text
            notes = Notes(app)
            await pilot.press("p")
            await settle(pilot)
            assert notes.messages, "p always answers"
            assert "no fit available" not in notes.messages[-1]


@pilot_test
async def test_compare_keeps_each_runs_outcome_and_cost_at_80_columns() -> None:
    """Item 6: --compare at 80x24 shows whether each run failed and what it cost; item 7:
    runs by title, and a warning when they are different tasks."""
    sample = REPO / "sample_traces"
    app = make_app(sample / "noisy_high_budget.jsonl", compare=sample / "memory_writes.jsonl")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = screen_lines(app)
        a = next(ln for ln in lines if ln.lstrip("│ ").startswith("A "))
        b = next(ln for ln in lines if ln.lstrip("│ ").startswith("B "))
        assert "✗ failed" in a and "C_raw" in a
        assert "✓ success" in b and "C_raw" in b
        assert any("different tasks" in ln for ln in lines)


@pilot_test
async def test_app_export_creates_the_folder_and_carries_the_text(tmp_path: Path) -> None:
    """Item 11: `e` into a folder that does not exist yet writes there (as the CLI does),
    with each event's action and observation; a .csv name is refused, not filled with JSON."""
    import json

    from textual.widgets import Input

    from tests.app.test_ux import Notes

    app = make_app(SWE)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        notes = Notes(app)
        target = tmp_path / "not" / "yet" / "run.ledger.json"
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one("#export-path", Input).value = str(target)
        await pilot.press("enter")
        await settle(pilot)
        assert target.is_file(), notes.messages
        events = json.loads(target.read_text())["events"]
        assert events[2]["action"] == "python -m pytest -q"
        bad = tmp_path / "events.csv"
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one("#export-path", Input).value = str(bad)
        await pilot.press("enter")
        await settle(pilot)
        assert not bad.exists()
        assert "export failed" in notes.messages[-1] and ".csv" in notes.messages[-1]


@pilot_test
async def test_help_explains_every_figure_in_words_and_the_pickers_keys_first() -> None:
    """Item 9: the glossary covers the summary's figures with their units, the detail
    pane's letters and the fit panel; the picker's help lists its own keys, not a text
    box's 27 editing keys."""
    from efc_tui.app.glossary import glossary
    from efc_tui.app.screens.help import HelpScreen

    words = dict(glossary())
    for symbol in ("C_raw", "ΔC", "NRS-EFC", "η_NRS", "X_NRS", "EFC", "waste", "$ logged"):
        assert symbol in words, symbol
    assert "1 unit = 1,000 tokens" in words["C_raw"]
    for letter in ("I", "V", "R", "M", "Q", "A", "c", "h", "z", "Δ", "ρ", "n", "◆", "held-out AUC"):
        assert letter in words, letter
    assert "SPEC" not in words["I"]  # plain words, not a reference
    app = make_app(SWE, CLAUDE, HARBOR)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        keys = [k for k, _ in app.screen.rows]
        assert len(keys) < 20, keys
        assert keys[0] == "enter" and "type" in keys  # the picker's own keys lead
        assert not any(k in ("ctrl+a", "ctrl+e", "ctrl+w", "ctrl+k") for k in keys)


def test_the_adapters_rule_reads_in_words() -> None:
    from efc_tui.app.replay_data import window_words

    said = window_words("stop: window ratio 0.000998 < ε 0.001 over the last 10 events")
    assert said is not None and "fell under the floor ε 0.001" in said
    assert "dried up" in said
    assert window_words("window not full (1 of 10 events)") is None


@pilot_test
async def test_a_on_an_edit_shows_the_diff_then_the_call_as_logged() -> None:
    """Item 1 (edits as diffs): `a` on a SWE-agent edit opens its diff, the call as the log
    has it below; `a` on a command opens the command as logged, nothing added."""
    from efc_tui.app.screens.text_view import TextView, TextViewScreen

    app = make_app(SWE, select=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        logged = replay(app).data.events[3].action_text
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, TextViewScreen)
        assert "the edit as a diff" in app.screen.title_text
        lines = [ln.replace("\x1b[0m", "") for ln in app.screen.query_one(TextView).lines]
        rule = lines.index("── the call as logged ──")
        diff = "\n".join(lines[:rule])
        assert "\x1b[31m-return a - b" in diff and "\x1b[32m+return a + b" in diff
        assert "\n".join(lines[rule + 1 :]) == logged
    app = make_app(SWE, select=2)  # `python -m pytest -q`: not an edit
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, TextViewScreen)
        assert app.screen.query_one(TextView).lines == ["python -m pytest -q"]
