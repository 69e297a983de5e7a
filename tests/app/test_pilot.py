"""Pilot tests of ``efc-tui open``: press the keys, assert on the app's state."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rich.style import Style
from textual.strip import Strip
from textual.widgets import Input
from typer.testing import CliRunner

from efc_tui import api
from efc_tui.app.app import EfcApp
from efc_tui.app.fitview import load_fit_view
from efc_tui.app.replay_data import RowFilter
from efc_tui.app.screens.filter import FilterScreen
from efc_tui.app.screens.help import HelpScreen
from efc_tui.app.screens.picker import PickerScreen
from efc_tui.app.screens.replay import ReplayScreen
from efc_tui.app.screens.text_view import TextView, TextViewScreen
from efc_tui.app.widgets.charts import FitPanel
from efc_tui.app.widgets.ledger import LedgerView
from efc_tui.cli import app as cli
from efc_tui.report.export import ledger_document
from efc_tui.scoring import load_estimator
from tests.conftest import FIXTURES
from tests.pilot import pilot_test, settle

APP = FIXTURES / "app"
SMALL = APP / "small.jsonl"
SIZE = (120, 40)


#: the estimator the tests' numbers were written against (the shipped one is recalibrated)
EST = load_estimator(APP / "estimator.json")


def make_app(*paths: Path, **kw: object) -> EfcApp:
    kw.setdefault("fit", load_fit_view(APP / "fit.json"))
    kw.setdefault("estimator", EST)
    return EfcApp(list(paths), **kw)  # type: ignore[arg-type]


def replay(app: EfcApp) -> ReplayScreen:
    assert isinstance(app.screen, ReplayScreen)
    return app.screen


@pilot_test
async def test_one_run_opens_straight_into_replay() -> None:
    app = make_app(SMALL)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = replay(app)
        assert s.data.n_rows == 21 and s.data.n_scored == 21
        assert s.selected_event == 0
        assert s.data.scored is not None and len(s.data.scored.decisions) == 21
        assert s.data.stop == 18


@pilot_test
async def test_step_keys() -> None:
    app = make_app(SMALL)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = replay(app)
        await pilot.press("j", "j", "down")
        assert s.selected_event == 3
        await pilot.press("k", "up")
        assert s.selected_event == 1
        await pilot.press("G")
        assert s.selected_event == 20
        await pilot.press("j")  # clamped at the end
        assert s.selected_event == 20
        await pilot.press("g")
        assert s.selected_event == 0
        await pilot.press("k")
        assert s.selected_event == 0
        await pilot.press("end", "home")
        assert s.selected_event == 0


@pilot_test
async def test_moving_the_selection_repaints_two_rows_only() -> None:
    app = make_app(SMALL)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ledger = app.screen.query_one(LedgerView)
        await pilot.press("j")
        await pilot.pause()
        lines: list[int] = []
        original = ledger.render_line

        def counting(y: int) -> Strip:
            lines.append(y)
            return original(y)

        ledger.render_line = counting  # type: ignore[method-assign]
        await pilot.press("j")
        await pilot.pause()
        # the row left and the row entered (lines 2 and 3 under the header), nothing else
        assert sorted(lines) == [2, 3]


@pilot_test
async def test_select_option() -> None:
    app = make_app(SMALL, select=9)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert replay(app).selected_event == 9
    app = make_app(SMALL, select=999)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert replay(app).selected_event == 20


@pilot_test
async def test_play_pause_and_speed() -> None:
    app = make_app(SMALL)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = replay(app)
        assert not s.playing
        await pilot.press("space")
        assert s.playing and s._play_timer is not None
        speed = s.speed
        await pilot.press("plus")
        assert s.speed == 2 * speed
        await pilot.press("minus", "minus")
        assert s.speed == speed / 2
        start = s.selected_event
        s._play_tick()  # what the timer does, without waiting for it
        s._play_tick()
        await pilot.pause()
        assert s.selected_event == start + 2
        await pilot.press("space")
        assert not s.playing and s._play_timer is None
        # playing to the end stops by itself
        await pilot.press("G", "k", "space")
        s._play_tick()
        s._play_tick()
        await pilot.pause()
        assert s.selected_event == 20 and not s.playing


@pilot_test
async def test_next_and_previous_decision() -> None:
    app = make_app(SMALL)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = replay(app)
        d = s.data
        notable: list[int] = []
        nxt = d.next_decision(-1)
        while nxt is not None:
            notable.append(nxt)
            nxt = d.next_decision(nxt)
        assert notable and notable[0] == 2  # the first failing check is promoted
        await pilot.press("n")
        assert s.selected_event == notable[0]
        await pilot.press("n")
        assert s.selected_event == notable[1]
        await pilot.press("N")
        assert s.selected_event == notable[0]
        await pilot.press("G", "N")
        assert s.selected_event == notable[-2] if notable[-1] == 20 else notable[-1]


@pilot_test
async def test_search_observation_text() -> None:
    app = make_app(SMALL)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = replay(app)
        await pilot.press("slash")
        box = s.query_one("#search")
        assert box.display and box.has_focus
        await pilot.press(*"3 PASSED", "enter")
        await settle(pilot)
        assert s.selected_event == 8
        await pilot.press("enter")  # again: the next match
        await settle(pilot)
        assert s.selected_event == 9
        await pilot.press("escape")
        assert not box.display and s.query_one(LedgerView).has_focus
        s.search("service unavailable")
        await settle(pilot)
        assert s.selected_event == 11


@pilot_test
async def test_filter_by_kind_and_status() -> None:
    app = make_app(SMALL)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = replay(app)
        await pilot.press("j", "j", "j")  # event 3, a repair
        await pilot.press("f")
        assert isinstance(app.screen, FilterScreen)
        choices = app.screen.choices
        target = choices.index(RowFilter("kind", "check"))
        await pilot.press(*["down"] * target, "enter")
        assert app.screen is s
        assert s.data.filter == RowFilter("kind", "check")
        assert s.data.n_rows == 5
        assert s.selected_event == 4  # the next shown event after 3
        await pilot.press("j")
        assert s.selected_event == 8
        # status filter, then back to all; the selection stays on its event
        await pilot.press("f", "home")
        chooser = app.screen
        assert isinstance(chooser, FilterScreen)
        target = chooser.choices.index(RowFilter("status", "passed"))
        await pilot.press(*["down"] * target, "enter")
        assert s.data.filter == RowFilter("status", "passed")
        assert s.selected_event == 8
        await pilot.press("f", "home", "enter")
        assert s.data.filter is None and s.data.n_rows == 21 and s.selected_event == 8
        await pilot.press("f", "escape")  # cancel keeps the filter as it was
        assert s.data.filter is None


@pilot_test
async def test_export_writes_the_libraries_ledger(tmp_path: Path) -> None:
    app = make_app(SMALL, export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        box = app.screen.query_one("#export-path", Input)
        assert box.value == str(tmp_path / "median-fix.ledger.json")  # proposed, not written
        assert not (tmp_path / "median-fix.ledger.json").exists()
        await pilot.press("enter")
        await settle(pilot)
        s = replay(app)
        assert s.last_export == tmp_path / "median-fix.ledger.json"
    doc = json.loads((tmp_path / "median-fix.ledger.json").read_text())
    assert doc["schema"] == "efc-ledger/1"
    assert len(doc["events"]) == 21
    expected = json.loads(  # what `efc-tui export` writes: the event text included
        json.dumps(ledger_document(api.score(api.load(SMALL), EST), with_text=True), default=float)
    )
    assert doc["events"] == expected["events"]
    assert doc["adapter"]["stop_event"] == 18
    assert doc["figures"] == expected["figures"]


@pilot_test
async def test_export_from_the_command_palette(tmp_path: Path) -> None:
    app = make_app(SMALL, export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        commands = list(app.get_system_commands(app.screen))
        titles = [c.title for c in commands]
        for wanted in (
            "Next",
            "Prev",
            "First event",
            "Last event",
            "Play",
            "Faster",
            "Slower",
            "Next decision",
            "Previous decision",
            "Search",
            "Filter",
            "Export",
            "Predictor",
            "Full observation",
            "Full action",
            "Copy observation",
            "Copy action",
            "Next pane",
            "Keys",
            "Quit",
        ):
            assert wanted in titles, wanted
        # once each, in words: no internal action names, no duplicates
        assert len(titles) == len(set(titles)), titles
        assert not [c.help for c in commands if "screen." in c.help or "app." in c.help]
        await pilot.press("ctrl+p")
        await pilot.press(*"Export", "enter")
        await settle(pilot)
        await pilot.pause()
        await pilot.press("enter")  # the proposed path
        await settle(pilot)
    assert (tmp_path / "median-fix.ledger.json").is_file()


@pilot_test
async def test_predictor_switch_and_prefix_point() -> None:
    app = make_app(SMALL)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = app.screen.query_one(FitPanel)
        assert panel.predictor == "x_nrs"
        final, pre = panel.position()
        assert final is not None and pre is not None and pre.z <= final.z
        z0 = pre.z
        await pilot.press("G")
        _, pre_end = panel.position()
        assert pre_end is not None and pre_end.z == pytest.approx(final.z) and pre_end.z > z0
        figures = replay(app).data.ledger.figures  # type: ignore[union-attr]
        assert final.z == pytest.approx(figures.x_nrs)
        await pilot.press("p")
        assert panel.predictor == "nrs_efc"
        final2, _ = panel.position()
        assert final2 is not None and final2.z == pytest.approx(figures.nrs_efc)
        await pilot.press("p", "p")
        assert panel.predictor == "x_nrs"


@pilot_test
async def test_no_fit_is_shown_cleanly() -> None:
    from efc_tui.app.fitview import FitView

    app = make_app(SMALL, fit=FitView([], None, problem="no fit available"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("p")  # a notice, not a crash
        panel = app.screen.query_one(FitPanel)
        assert panel.predictor is None and panel.position() == (None, None)


@pilot_test
async def test_fit_panel_names_the_package_fit_for_a_real_log() -> None:
    """No --fit: a real log is placed on the real runs' fit; the panel names it, and says it
    predicts nothing (with the reason) instead of drawing a curve when it has no predictive one."""
    from efc_tui.app.fitview import load_fit_view

    codex = FIXTURES / "agents" / "codex_session.jsonl"
    app = make_app(codex, fit=load_fit_view(None))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = app.screen.query_one(FitPanel)
        view = panel.view()
        assert view is not None and view.description.startswith("fit: real runs")
        shown = str(panel.render())
        assert "fit: real runs" in shown
        if not view.curves:
            assert "no predictive curve" in shown and panel.position() == (None, None)


@pilot_test
async def test_help_lists_every_key() -> None:
    app = make_app(SMALL)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        keys = " ".join(k for k, _ in app.screen.rows)
        for key in ("j", "k", "g", "G", "space", "+", "-", "n", "N", "/", "f", "e", "p", "v", "q"):
            assert key in keys.split(), key
        await pilot.press("escape")
        assert isinstance(app.screen, ReplayScreen)


@pilot_test
async def test_quit() -> None:
    app = make_app(SMALL)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


@pilot_test
async def test_follow_shows_appended_events(tmp_path: Path) -> None:
    lines = SMALL.read_bytes().splitlines(keepends=True)
    log = tmp_path / "live.jsonl"
    log.write_bytes(b"".join(lines[:6]) + lines[6][:30])  # 5 events and half a line
    app = make_app(log, follow=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = replay(app)
        assert s.data.n_rows == 5 and s.data.n_scored == 5
        await pilot.press("G")
        with log.open("ab") as f:
            f.write(lines[6][30:] + b"".join(lines[7:12]))
        s.poll_follow()
        await settle(pilot)
        assert s.data.n_rows == 11 and s.data.n_scored == 11
        assert [e.index for e in s.data.events] == list(range(11))
        assert s.selected_event == 10  # at the end: the selection follows new events
        # the followed run scores as the whole file does
        expected = api.score(api.load(SMALL), EST)
        got = s.data.ledger
        assert got is not None
        assert s.data.events == expected.run.events[:11]
        with log.open("ab") as f:
            f.write(b"".join(lines[12:]))
        s.poll_follow()
        await settle(pilot)
        assert s.data.n_scored == 21
        assert s.data.ledger.figures.nrs_efc == pytest.approx(expected.figures.nrs_efc)  # type: ignore[union-attr]


@pilot_test
async def test_picker_sort_filter_and_open() -> None:
    app = make_app(APP / "corpus")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert sorted(r["run_id"] for r in picker._shown) == [
            "run-alpha",
            "run-bravo",
            "run-charlie",
        ]
        assert picker.query_one("#picker-filter").has_focus
        picker.sort_by("events", reverse=True)
        assert [r["events"] for r in picker._shown] == [13, 10, 3]
        await pilot.press("ctrl+r")
        assert [r["events"] for r in picker._shown] == [3, 10, 13]
        bravo = next(r for r in picker._shown if r["run_id"] == "run-bravo")
        assert bravo["saved"] > 0 and bravo["stop"] is not None  # the adapter would stop it
        await pilot.press("ctrl+s")  # the column after events
        assert picker.sort_column == "cost_usd"
        await pilot.press(*"brav")
        assert [r["run_id"] for r in picker._shown] == ["run-bravo"]
        await pilot.press("enter")
        await settle(pilot)
        s = replay(app)
        assert s.data.run.run_id == "run-bravo" and s.data.n_scored == 13
        await pilot.press("escape")
        assert app.screen is picker
        assert isinstance(picker, PickerScreen)
        await pilot.press("backspace", "backspace", "backspace", "backspace")
        assert len(picker._shown) == 3 and picker.selected_row is not None
        assert picker.selected_row["run_id"] == "run-bravo"  # the selection is kept
        above = picker._shown[picker._shown.index(picker.selected_row) - 1]
        await pilot.press("up", "enter")
        await settle(pilot)
        assert replay(app).data.run.run_id == above["run_id"]


@pilot_test
async def test_a_file_with_several_runs_opens_the_picker() -> None:
    app = make_app(APP / "two_runs.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert [r["run_id"] for r in picker._shown] == ["pair-0", "pair-1"]
        await pilot.press("down", "enter")
        await settle(pilot)
        s = replay(app)
        assert s.data.run.run_id == "pair-1" and s.data.n_rows == 3


@pilot_test
async def test_bad_input_exits_2(tmp_path: Path) -> None:
    lines = SMALL.read_bytes().splitlines(keepends=True)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"".join(lines[:4]) + b"{oops\n" + b"".join(lines[4:]))
    app = make_app(bad)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.pause()
    assert app.return_code == 2
    assert app.failure is not None and "bad.jsonl:5" in app.failure


# -- untrusted text ----------------------------------------------------------------------


def _render(widget: object) -> str:
    """The plain text a Static shows."""
    import io

    from rich.console import Console

    console = Console(width=100, file=io.StringIO(), record=True, color_system=None)
    console.print(widget.content)  # type: ignore[attr-defined]
    return console.export_text()


def _screen_text(app: EfcApp) -> str:
    import io

    from rich.console import Console

    w, h = app.size
    console = Console(
        width=w,
        height=h,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
    )
    console.print(app.screen._compositor.render_update(full=True, screen_stack=[], simplify=True))
    return console.export_text(styles=False)


@pilot_test
async def test_hostile_text_is_shown_literally() -> None:
    app = make_app(APP / "hostile.jsonl")
    title_before = app.title
    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        s = replay(app)
        detail = s.query_one("#detail")
        detail.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        text = _screen_text(app)
        for literal in (
            "[bold red]PWNED[/]",
            "[link=https://evil.example]click me[/link]",
            "[@click=app.quit]quit[/]",
            "[red]hostile[/red]",
            "[b]bash[/b]",
            "[@click=app.quit]h",
            "safe␍EVIL",
            "<U+202E>evil<U+202C>",
            "nul:␀",
            "bell:␇",
            "zero<U+200B>width",
            ":smile:",
        ):
            assert literal in text, literal
        assert "\x1b" not in text and "\x00" not in text and "\r" not in text
        assert "ZXZpbA==" not in text  # the OSC 52 payload is dropped, never sent
        # the [@click=...] text carries no action: clicking it does nothing
        await pilot.click("#detail-observation")
        await pilot.pause()
        assert app.is_running and app.title == title_before
        # the coloured FAILED keeps its colour, and its [red] markup stays text
        await pilot.press("G")
        await pilot.pause()
        detail.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        text = _screen_text(app)
        assert "FAILED test_x - [red]AssertionError[/red]" in text, text


@pilot_test
async def test_long_observation_is_truncated_with_a_marker_and_viewable() -> None:
    app = make_app(APP / "hostile.jsonl", select=1)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = replay(app)
        text = s.data.events[1].observation_text
        assert len(text) > 20_000
        obs = s.query_one("#detail-observation")
        assert f"… {len(text) - 20_000:,} more characters (press v to view all)" in _render(obs)
        await pilot.press("v")
        assert isinstance(app.screen, TextViewScreen)
        view = app.screen.query_one(TextView)
        assert len(view.lines) == text.count("\n") + 1
        await pilot.press("G")
        await pilot.pause()
        assert view.scroll_y > 0
        await pilot.press("q")
        assert app.screen is s


# -- the command line --------------------------------------------------------------------


def test_cli_screenshot(tmp_path: Path) -> None:
    out = tmp_path / "shot.svg"
    r = CliRunner().invoke(
        cli,
        [
            "open",
            str(SMALL),
            "--screenshot",
            str(out),
            "--select",
            "9",
            "--fit",
            str(APP / "fit.json"),
            "--size",
            "120x40",
            "--estimator",
            str(APP / "estimator.json"),
        ],
    )
    assert r.exit_code == 0, r.output
    svg = out.read_text()
    assert svg.startswith("<svg")
    assert "median-fix" in svg.replace("&#160;", " ")
    assert "event 9 of 21" in svg.replace("&#160;", " ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope.jsonl"], "no such file"),
        ([str(APP / "corpus"), "--follow"], "--follow tails one file"),
        ([str(SMALL), "--fit", "missing-fit.json"], "cannot read fit file"),
        ([str(SMALL), "--size", "12"], "--size must look like"),
    ],
)
def test_cli_bad_input_exits_2(args: list[str], message: str) -> None:
    r = CliRunner().invoke(cli, ["open", *args])
    assert r.exit_code == 2, r.output
    assert message in r.output


def test_cli_screenshot_of_a_bad_file_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    shutil.copy(SMALL, bad)
    with bad.open("ab") as f:
        f.write(b'{"type": "step", "action": {"kind": "nonsense"}}\n')
    r = CliRunner().invoke(
        cli,
        [
            "open",
            str(bad),
            "--screenshot",
            str(tmp_path / "x.svg"),
            "--estimator",
            str(APP / "estimator.json"),
        ],
    )
    assert r.exit_code == 2, (r.output, r.exception)
    assert "bad.jsonl:23" in r.output, r.output
    assert not (tmp_path / "x.svg").exists()


def test_core_never_imports_textual() -> None:
    """Opening the app is the only way textual gets imported (STYLE.md, one way through)."""
    import subprocess
    import sys

    code = (
        "import sys, efc_tui, efc_tui.api, efc_tui.cli, efc_tui.report.export, efc_tui.report.output,"
        " efc_tui.app.tail, efc_tui.app.loading, efc_tui.app.replay_data;"
        "print('textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pilot_test
async def test_rows_after_the_stop_and_discarded_rows_are_set_apart() -> None:
    app = make_app(SMALL, select=5)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ledger = app.screen.query_one(LedgerView)

        def row_style(event: int) -> tuple[str, Style]:
            strip = ledger._build_row(event, cursor=False)
            segs = list(strip)
            assert segs[2].style is not None
            return segs[0].text, segs[2].style  # gutter, and the `t` cell

        mark, normal = row_style(2)  # promoted, before the stop
        assert mark.strip() == ""
        mark, discarded = row_style(4)
        assert mark.strip() == "×" and discarded.strike
        mark, _ = row_style(18)
        assert mark.strip() == "■"
        mark, after = row_style(19)
        assert mark.strip() == "┆" and after.italic and after.color != normal.color
        cursor = list(ledger._build_row(5, cursor=True))
        assert cursor[0].text.startswith("›") and cursor[2].style is not None
        assert cursor[2].style.bgcolor != normal.bgcolor


@pilot_test
async def test_gzipped_trace_is_read_whole(tmp_path: Path) -> None:
    import gzip

    gz = tmp_path / "small.jsonl.gz"
    gz.write_bytes(gzip.compress(SMALL.read_bytes()))
    app = make_app(gz, select=3)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = replay(app)
        assert s.loader.tail is None and not s.loader.progressive  # read whole: parsers.load
        assert s.data.n_scored == 21 and s.selected_event == 3
        await pilot.press("a")  # the whole action text
        assert isinstance(app.screen, TextViewScreen)
        assert app.screen.text == s.data.events[3].action_text
        await pilot.press("escape", "y")
        assert app.clipboard == s.data.events[3].observation_text


@pilot_test
async def test_the_shared_hostile_event_goes_through_the_app(tmp_path: Path) -> None:
    """STYLE.md's hostile fixture (markup, escapes, OSC 52, NUL, \\r, U+202E, a 2 MB line,
    deep nesting), as the reader tests write it, opens, steps and exports."""
    from tests.cli.test_untrusted_text import HOSTILE, write_hostile

    path = write_hostile(tmp_path)
    app = make_app(path, export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = replay(app)
        assert s.data.events[0].observation_text == HOSTILE
        await pilot.press("j")
        obs = s.query_one("#detail-observation")
        assert "… 1,980,000 more characters" in _render(obs)
        await pilot.press("e", "enter")  # the proposed path
        await settle(pilot)
        assert app.is_running and s.last_export is not None and s.last_export.is_file()


@pilot_test
async def test_scoring_and_exporting_never_repr_the_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A worker method without a ``description`` is described by Textual with the repr of
    its arguments: for the scoring pass, a run with every event (2.5 s of the UI thread at
    100k events, on each pass). No event is ever repr'd while a run is scored and exported."""
    from efc_tui.model import Event

    reprs: list[int] = []

    def counted(self: Event) -> str:
        reprs.append(self.index)
        return "Event(…)"

    monkeypatch.setattr(Event, "__repr__", counted)
    app = make_app(SMALL, export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = replay(app)
        assert s.data.n_scored == 21
        assert s.data.scored is not None
        s._export(s.data.scored, tmp_path / "small.ledger.json")  # what `e` then enter runs
        await settle(pilot)
        assert (tmp_path / "small.ledger.json").is_file()
    assert reprs == []


def test_worker_messages_stay_on_their_screen_and_screen_messages_reach_the_app() -> None:
    """A worker's result is for its screen alone (nothing above handles it); what a screen
    says to the app must bubble up to it. (Textual's ``bubble`` is a class keyword: a
    ``bubble = False`` in the class body is overwritten by ``Message.__init_subclass__``,
    which is how every message here bubbled before.)"""
    from efc_tui.app import messages as m

    to_screen: list[type[m.Message]] = [
        m.LoadUpdate,
        m.ScoreReady,
        m.SearchDone,
        m.Exported,
        m.PickerRow,
        m.PickerDone,
        m.CompareReady,
    ]
    to_app: list[type[m.Message]] = [
        m.OpenEvent,
        m.OpenRun,
        m.FitWanted,
        m.OpenPicker,
        m.LoadFailed,
        m.ScreenReady,
    ]
    assert [c for c in to_screen if c.bubble] == []
    assert [c for c in to_app if not c.bubble] == []
    assert {c.__name__ for c in to_screen + to_app} == {
        name
        for name, c in vars(m).items()
        if isinstance(c, type) and issubclass(c, m.Message) and c is not m.Message
    }
