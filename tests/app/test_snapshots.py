"""SVG snapshots of the app's main screens at a fixed size (pytest-textual-snapshot).

Regenerate after an intended change with ``pytest tests/app/test_snapshots.py
--snapshot-update`` and review the SVGs under ``tests/app/__snapshots__/``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from efc_tui.app.app import EfcApp
from efc_tui.app.fitview import load_fit_view
from efc_tui.app.screens.picker import PickerScreen
from efc_tui.scoring import load_estimator
from tests.app.test_ux import Notes
from tests.conftest import FIXTURES, REPO
from tests.pilot import steady

#: pytest-textual-snapshot's fixture: snap_compare(app, terminal_size=..., run_before=...)
SnapCompare = Callable[..., bool]
APP = Path("tests") / "fixtures" / "app"
SIZE = (120, 40)
#: pinned, so recalibrating the shipped estimator does not change these pictures
EST = load_estimator(FIXTURES / "app" / "estimator.json")


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    # paths in the picker are shown as given: keep them relative so snapshots match anywhere
    monkeypatch.chdir(REPO)


def test_replay_screen(snap_compare: SnapCompare) -> None:
    """A repair loop that passes, the adapter's stop at 18, event 9 selected, fit panel on."""
    app = EfcApp(
        [APP / "small.jsonl"], fit=load_fit_view(APP / "fit.json"), estimator=EST, select=9
    )
    assert snap_compare(app, terminal_size=SIZE, run_before=steady)


def test_replay_screen_after_the_stop(snap_compare: SnapCompare) -> None:
    """Rows after the adapter's stop are set apart; the fit panel on its next predictor.
    `p`'s notice is asserted here and cleared: its toast times out, so whether a snapshot
    caught it would depend on the machine's load."""
    app = EfcApp(
        [APP / "small.jsonl"], fit=load_fit_view(APP / "fit.json"), estimator=EST, select=19
    )

    async def run_before(pilot: Pilot[object]) -> None:
        await steady(pilot)
        notes = Notes(app)
        await pilot.press("p")
        await steady(pilot)
        assert notes.messages == ["fit predictor: NRS-EFC"]

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_hostile_text(snap_compare: SnapCompare) -> None:
    """Markup, escapes and control characters in an observation show as inert text."""
    app = EfcApp([APP / "hostile.jsonl"], fit=load_fit_view(APP / "fit.json"), estimator=EST)

    async def run_before(pilot: Pilot[object]) -> None:
        await steady(pilot)
        pilot.app.screen.query_one("#detail").scroll_end(animate=False, immediate=True)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_picker(snap_compare: SnapCompare) -> None:
    """Three runs of a folder, sorted by NRS-EFC, highest first."""
    app = EfcApp([APP / "corpus"], fit=load_fit_view(APP / "fit.json"), estimator=EST)

    async def run_before(pilot: Pilot[object]) -> None:
        await steady(pilot)
        picker = pilot.app.screen
        assert isinstance(picker, PickerScreen)
        picker.sort_by("nrs_efc", reverse=True)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 24), run_before=run_before)


def test_replay_screen_at_80x24(snap_compare: SnapCompare) -> None:
    """The smallest common terminal: the run line, the figures line, ledger rows, the event
    and the footer with / ? q all fit."""
    app = EfcApp(
        [APP / "small.jsonl"], fit=load_fit_view(APP / "fit.json"), estimator=EST, select=4
    )
    assert snap_compare(app, terminal_size=(80, 24), run_before=steady)


def test_compare_view(snap_compare: SnapCompare) -> None:
    """open A --compare B: both runs, the summary, the aligned steps with their gaps."""
    app = EfcApp(
        [Path("sample_traces") / "repair_loop.jsonl"],
        compare=Path("sample_traces") / "clean_pass.jsonl",
        fit=load_fit_view(APP / "fit.json"),
        estimator=EST,
    )
    assert snap_compare(app, terminal_size=(120, 30), run_before=steady)


# -- issue 30: every screen at 80x24 and 200x50 on real fixtures ---------------------------

FIX = Path("tests") / "fixtures"
REAL = {
    "claude_code": FIX / "agents" / "claude_interrupted.jsonl",
    "swe_agent": FIX / "agents" / "swe_agent_1x.traj",
    "harbor": FIX / "more" / "harbor_trial" / "hello-world__Ab3xY" / "agent" / "trajectory.json",
}
SIZES = {"80x24": (80, 24), "200x50": (200, 50)}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("log", list(REAL))
def test_replay_on_real_logs(snap_compare: SnapCompare, log: str, size: str) -> None:
    """Replay: action and outcome on every row, cost line, the event's detail, fit panel."""
    app = EfcApp([REAL[log]], fit=load_fit_view(APP / "fit.json"), estimator=EST, select=2)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=steady)


@pytest.mark.parametrize("size", list(SIZES))
def test_detail_verdict_and_internals(snap_compare: SnapCompare, size: str) -> None:
    """The detail pane scrolled to its end: the verdict in words, then the internals."""
    app = EfcApp([REAL["swe_agent"]], fit=load_fit_view(APP / "fit.json"), estimator=EST, select=3)

    async def run_before(pilot: Pilot[object]) -> None:
        await steady(pilot)
        pilot.app.screen.query_one("#detail").scroll_end(animate=False, immediate=True)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("size", list(SIZES))
def test_picker_on_real_logs(snap_compare: SnapCompare, size: str) -> None:
    app = EfcApp(list(REAL.values()), fit=load_fit_view(APP / "fit.json"), estimator=EST)

    async def run_before(pilot: Pilot[object]) -> None:
        await steady(pilot)
        picker = pilot.app.screen
        assert isinstance(picker, PickerScreen)
        picker.sort_by("title")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("size", list(SIZES))
def test_help_on_a_real_log(snap_compare: SnapCompare, size: str) -> None:
    app = EfcApp([REAL["harbor"]], fit=load_fit_view(APP / "fit.json"), estimator=EST)

    async def run_before(pilot: Pilot[object]) -> None:
        await steady(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


@pytest.mark.parametrize("size", list(SIZES))
def test_compare_on_real_logs(snap_compare: SnapCompare, size: str) -> None:
    app = EfcApp(
        [REAL["harbor"]],
        compare=FIX / "agents" / "codex_session.jsonl",
        fit=load_fit_view(APP / "fit.json"),
        estimator=EST,
    )
    assert snap_compare(app, terminal_size=SIZES[size], run_before=steady)
