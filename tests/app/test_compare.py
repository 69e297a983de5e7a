"""The compare view: `efc-tui open A --compare B` (issue 15 item 1)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from efc_tui import api
from efc_tui.app.app import EfcApp
from efc_tui.app.fitview import load_fit_view
from efc_tui.app.screens.compare import CompareScreen
from efc_tui.app.screens.replay import ReplayScreen
from efc_tui.cli import app as cli
from efc_tui.report.compare import compare
from efc_tui.scoring import load_estimator
from tests.conftest import FIXTURES, SAMPLES
from tests.pilot import pilot_test, settle

APP = FIXTURES / "app"
EST = load_estimator(APP / "estimator.json")
A, B = SAMPLES / "repair_loop.jsonl", SAMPLES / "clean_pass.jsonl"


def make_app(a: Path, b: Path) -> EfcApp:
    return EfcApp([a], compare=b, estimator=EST, fit=load_fit_view(APP / "fit.json"))


def screen(app: EfcApp) -> CompareScreen:
    assert isinstance(app.screen, CompareScreen)
    return app.screen


@pilot_test
async def test_a_run_against_itself_shows_no_difference() -> None:
    app = make_app(A, A)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        s = screen(app)
        assert s.diff is not None and s.diff.first_divergence is None
        assert s.diff.counts["same"] == len(api.load(A).events)
        await pilot.press("n")
        assert s.step is not None and s.step.step == 0  # nowhere to go
        summary = str(s.query_one("#compare-summary").render())
        assert "no divergence" in summary


@pilot_test
async def test_differences_and_opening_either_run_at_the_step() -> None:
    app = make_app(A, B)
    want = compare(api.score(api.load(A), EST), api.score(api.load(B), EST))
    differences = [st.step for st in want.steps if st.match != "same" or st.feedback_differs]
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        s = screen(app)
        assert s.diff is not None and s.diff.to_dict() == want.to_dict()  # the library's diff
        await pilot.press("n")
        assert s.step is not None and s.step.step == differences[0]
        await pilot.press("n")
        assert s.step.step == differences[1]
        await pilot.press("N")
        assert s.step.step == differences[0]
        target = s.step.b
        assert target is not None
        await pilot.press("b")  # replay B at this step's event
        await settle(pilot)
        assert isinstance(app.screen, ReplayScreen)
        assert app.screen.source_path == B and app.screen.selected_event == target.event
        await pilot.press("escape")  # back to the comparison
        await settle(pilot)
        assert app.screen is s
        st = next(x for x in s.diff.steps if x.b is None)  # a step run B does not have
        s.query_one("#compare-steps").move_cursor(row=st.step)  # type: ignore[attr-defined]
        await pilot.press("b")
        assert app.screen is s  # nothing to open: a warning


@pilot_test
async def test_a_file_of_several_runs_is_refused() -> None:
    app = make_app(APP / "two_runs.jsonl", A)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
    assert app.failure is not None and "holds 2 runs" in app.failure


def test_the_cli_option(tmp_path: Path) -> None:
    shot = tmp_path / "compare.svg"
    r = CliRunner().invoke(
        cli, ["open", str(A), "--compare", str(B), "--screenshot", str(shot), "--size", "120x30"]
    )
    assert r.exit_code == 0, r.output
    text = shot.read_text().replace("&#160;", " ")
    assert "Next difference" in text and "repair-loop" in text and "clean-pass" in text
    r = CliRunner().invoke(cli, ["open", str(A), str(B), "--compare", str(B)])
    assert r.exit_code == 2 and "--compare" in r.output
