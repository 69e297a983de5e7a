"""The app as a person uses it (issue 18): keys that work where the footer says, a layout
that fits 80x24, help in words with a glossary, search over actions, tools and
observations with a count, honest copy, export that asks and says where, following live
Claude Code and Codex sessions and marking what a rescore changed."""

from __future__ import annotations

import io
import re
from pathlib import Path

import msgspec
import numpy as np
from rich.console import Console
from textual.widgets import Footer, Input

from efc_tui import api
from efc_tui.app.app import EfcApp
from efc_tui.app.fitview import load_fit_view
from efc_tui.app.screens.help import HelpScreen
from efc_tui.app.screens.picker import PickerScreen
from efc_tui.app.screens.replay import ReplayScreen
from efc_tui.app.widgets.detail import DetailPane
from efc_tui.app.widgets.ledger import LedgerView, fmt_num
from efc_tui.app.widgets.summary import HEADLINE, RunSummary
from efc_tui.scoring import load_estimator
from efc_tui.scoring.figures import title
from tests.conftest import FIXTURES
from tests.pilot import pilot_test, settle

FIX = FIXTURES
APP = FIX / "app"
SMALL = APP / "small.jsonl"
EST = load_estimator(APP / "estimator.json")


def make_app(*paths: Path, **kw: object) -> EfcApp:
    kw.setdefault("fit", load_fit_view(APP / "fit.json"))
    kw.setdefault("estimator", EST)
    return EfcApp(list(paths), **kw)  # type: ignore[arg-type]


def replay(app: EfcApp) -> ReplayScreen:
    assert isinstance(app.screen, ReplayScreen)
    return app.screen


def screen_lines(app: EfcApp) -> list[str]:
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
    return console.export_text(styles=False).splitlines()


class Notes:
    """Records the app's notifications."""

    def __init__(self, app: EfcApp) -> None:
        self.messages: list[str] = []
        original = app.notify

        def notify(message: str, *args: object, **kw: object) -> None:
            self.messages.append(message)
            original(message, *args, **kw)  # type: ignore[arg-type]

        app.notify = notify  # type: ignore[method-assign]


# -- keys and layout ------------------------------------------------------------------------


@pilot_test
async def test_question_mark_in_the_picker_opens_help_instead_of_typing() -> None:
    app = make_app(APP / "corpus")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.title_text == "Run picker"
        await pilot.press("escape")
        assert app.screen is picker
        assert picker.query_one("#picker-filter", Input).value == ""


@pilot_test
async def test_tab_reaches_the_detail_pane_and_the_arrows_scroll_it() -> None:
    app = make_app(SMALL, select=2)  # event 2: a long pytest output
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        s = replay(app)
        detail = s.query_one(DetailPane)
        await pilot.press("tab")
        assert app.focused is detail
        assert detail.max_scroll_y > 0
        await pilot.press("down", "down", "down")
        assert detail.scroll_y > 0 and s.selected_event == 2  # scrolled, same event
        await pilot.press("j")  # j still moves the selection
        assert s.selected_event == 3
        await pilot.press("tab")
        assert app.focused is s.query_one(LedgerView)


@pilot_test
async def test_80x24_shows_the_figures_line_and_the_quit_and_help_keys() -> None:
    app = make_app(SMALL)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = screen_lines(app)
        assert lines[0].startswith(" median-fix  success ✓")
        assert "tokens" in lines[1] and "C_raw" in lines[1] and "units" in lines[1]  # cost
        assert "NRS-EFC" in lines[2]  # the figures line, unwrapped
        footer = lines[-1]
        assert "q Quit" in footer and "? Keys" in footer and "/ Search" in footer


@pilot_test
async def test_help_speaks_in_words_and_explains_the_ledger() -> None:
    app = make_app(SMALL)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        assert help_screen.title_text == "Replay"
        descriptions = [d for _, d in help_screen.rows]
        assert len(descriptions) == len(set(descriptions))  # one entry per action
        keys = {d: k for k, d in help_screen.rows}
        assert set(keys["Select the next event"].split()) == {"j", "↓"}  # screen and ledger
        assert not any("screen." in d or "app." in d for d in descriptions)
        symbols = dict(help_screen.glossary)
        assert len(symbols) >= 25
        for symbol in ("ÊFC_nr", "X̂_nr", "ΔC", "■", "┆", "×", "~", "…", "assert", "discard"):
            assert symbol in symbols, symbol


# -- search and copy ------------------------------------------------------------------------


@pilot_test
async def test_search_finds_actions_and_tools_with_a_count() -> None:
    app = make_app(SMALL)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        s = replay(app)
        notes = Notes(app)
        s.search("no such words anywhere")
        await settle(pilot)
        assert "no action, tool or observation contains" in notes.messages[-1]
        s.search("cat stats")  # event 1's action; its observation does not say it
        await settle(pilot)
        assert s.selected_event == 1
        box = s.query_one("#search", Input)
        assert box.border_title == "match 1 of 1"
        assert not app._notifications or all(  # the "no match" warning is gone
            "no action" not in n.message for n in app._notifications
        )
        s.search("apply_patch")  # a tool name
        await settle(pilot)
        assert s.selected_event == 3 and box.border_title == "match 1 of 2"
        s.search("apply_patch")  # again: the next match, from the kept list
        assert s.selected_event == 7 and box.border_title == "match 2 of 2"


@pilot_test
async def test_the_search_box_comes_after_the_first_frame_or_at_the_first_slash() -> None:
    """The search box is not in the first frame (it is hidden until ``/``): it is mounted
    with the Footer once that frame is drawn, and a ``/`` pressed before then mounts it."""
    app = make_app(SMALL)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        s = replay(app)
        box = s.query_one("#search", Input)
        assert not box.display and s.query(Footer)  # mounted after the first frame, hidden
        await box.remove()
        await pilot.press("slash")  # as if pressed before the first frame was drawn
        await settle(pilot)
        box = s.query_one("#search", Input)
        assert box.display and app.focused is box
        await pilot.press(*"cat stats", "enter")
        await settle(pilot)
        assert s.selected_event == 1 and box.border_title == "match 1 of 1"
        await pilot.press("escape")
        assert not box.display and len(s.query("#search")) == 1


@pilot_test
async def test_copy_says_what_was_sent_not_that_it_was_copied() -> None:
    app = make_app(SMALL, select=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        sent: list[str] = []
        app.copy_to_clipboard = sent.append  # type: ignore[method-assign,assignment]
        notes = Notes(app)
        await pilot.press("y")
        ev = replay(app).data.events[1]
        assert sent == [ev.observation_text]
        assert "OSC 52" in notes.messages[-1] and "copied" not in notes.messages[-1]
        await pilot.press("Y")
        assert sent[-1] == ev.action_text == "cat stats.py"
        await pilot.press("g")  # event 0 has no observation: nothing is sent
        await pilot.press("y")
        assert len(sent) == 2 and "no observation text" in notes.messages[-1]


# -- export ---------------------------------------------------------------------------------


@pilot_test
async def test_export_proposes_beside_the_trace_and_says_where(tmp_path: Path) -> None:
    trace = tmp_path / "runs" / "small.jsonl"
    trace.parent.mkdir()
    trace.write_bytes(SMALL.read_bytes())
    app = make_app(trace)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        notes = Notes(app)
        await pilot.press("e")
        box = app.screen.query_one("#export-path", Input)
        assert box.value == str(trace.parent / "median-fix.ledger.json")
        box.value = str(tmp_path / "out") + "/"  # a folder: the run's file name inside
        (tmp_path / "out").mkdir()
        await pilot.press("enter")
        await settle(pilot)
        written = tmp_path / "out" / "median-fix.ledger.json"
        assert written.is_file()
        assert str(written.resolve()) in notes.messages[-1]
        await pilot.press("e", "escape")  # cancelled: nothing written beside the trace
        await settle(pilot)
    assert sorted(p.name for p in trace.parent.iterdir()) == ["small.jsonl"]


# -- following live agents ------------------------------------------------------------------


async def _follow(tmp_path: Path, source: Path, first: int, name: str, changed: set[int]) -> None:
    lines = source.read_bytes().splitlines(keepends=True)
    log = tmp_path / name
    log.write_bytes(b"".join(lines[:first]))
    app = make_app(log, follow=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        s = replay(app)
        before = next(iter(api.load_all(log))).events
        assert s.data.events == before and s.data.n_scored == len(before)
        notes = Notes(app)
        with log.open("ab") as f:  # the agent writes on
            f.write(b"".join(lines[first:]))
        s.poll_follow()
        await settle(pilot)
        after = next(iter(api.load_all(log))).events
        assert len(after) > len(before)
        assert s.data.events == after and s.data.n_scored == len(after)
        assert not [m for m in notes.messages if "truncated" in m]  # a line being written
        # the marks say which earlier events this rescore changed, exactly
        full = api.load(log)
        old = api.score(msgspec.structs.replace(full, events=before), EST)
        new = api.score(full, EST)
        k = len(before)
        moved = ~np.isclose(old.ledger.nr[:k], new.ledger.nr[:k], rtol=1e-9, atol=1e-12)
        assert s.data.changed == {int(i) for i in np.flatnonzero(moved)} == changed
        # ... in the gutter of exactly those rows, and in the summary with the old headline
        shown = screen_lines(app)
        marked = {int(m.group(1)) for line in shown if (m := re.match(r"^│ ~\s+(\d+)\s", line))}
        assert marked == changed
        summary = s.query_one(RunSummary).render_summary().plain
        if changed:
            name, _ = HEADLINE[0]
            label = title(name)
            was = old.ledger.figures.as_dict()[name]
            assert was != new.ledger.figures.as_dict()[name]
            assert (
                f"rescored: {len(changed)} earlier event(s) changed (~), "
                f"{label} was {fmt_num(was, 8)}"
            ) in summary
        else:
            assert "rescored" not in summary


@pilot_test
async def test_follow_a_claude_code_session_as_lines_are_appended(tmp_path: Path) -> None:
    # the tool result that lands later rescores event 4 (its ÊFC_nr moves): marked ~
    await _follow(tmp_path, FIX / "agents" / "claude_interrupted.jsonl", 9, "session.jsonl", {4})


@pilot_test
async def test_follow_a_codex_rollout_as_lines_are_appended(tmp_path: Path) -> None:
    await _follow(tmp_path, FIX / "agents" / "codex_session.jsonl", 20, "rollout-x.jsonl", set())


@pilot_test
async def test_the_read_progress_bar_fills_with_the_fraction_read() -> None:
    """One line: a bar as wide as the widget less the percentage, filled in proportion."""
    from textual.app import App, ComposeResult

    from efc_tui.app.widgets.summary import ReadProgress

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield ReadProgress()

    app = One()
    async with app.run_test(size=(46, 3)) as pilot:
        bar = app.query_one(ReadProgress)
        seen = []
        for fraction in (0.0, 0.25, 1.0, 1.7, -1.0):
            bar.update(fraction)
            await pilot.pause()
            text = bar.render()
            style = bar.get_component_rich_style("read-progress--done")
            done = sum(span.end - span.start for span in text.spans if span.style == style)
            seen.append((text.plain[-5:], done, len(text.plain)))
        assert seen == [
            ("   0%", 0, 46),
            ("  25%", 10, 46),
            (" 100%", 40, 46),
            (" 100%", 40, 46),
            ("   0%", 0, 46),
        ]
