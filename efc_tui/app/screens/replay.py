"""The replay screen: ledger, detail pane, fit panel and cumulative chart of one run.

Reading and scoring happen in thread workers; the screen only applies their results. A
``RunLoader`` (``efc_tui.app.loading``, no Textual) reads the run as a stream of updates
(header, batches of events, done) that the load worker posts here one by one, and reads
what a followed log appends; ``ScorePasses`` keeps one scoring pass in flight over a
snapshot of the events. The screen never calls the app: it posts ``OpenPicker``,
``LoadFailed`` and ``ScreenReady`` (``efc_tui.app.messages``) and the app decides.

Rescoring is the whole run each time (post-hoc features look ahead, so earlier rows can
change); see docs/app.md for its cost.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from threading import Event, Thread
from typing import TYPE_CHECKING, ClassVar

from textual import on, widgets, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input
from textual.worker import Worker, WorkerState, get_current_worker

from efc_tui._lazy import lazy_module
from efc_tui.app.eventline import full_action
from efc_tui.app.loading import (
    FIRST_PAINT_WAIT,
    FIRST_ROWS_WAIT,
    Events,
    FirstUpdates,
    Header,
    Loaded,
    RunLoader,
    ScorePasses,
    SeveralRuns,
    Update,
    snapshot,
)
from efc_tui.app.messages import (
    Exported,
    FitWanted,
    LoadFailed,
    LoadUpdate,
    OpenPicker,
    ScoreReady,
    ScreenReady,
    SearchDone,
)
from efc_tui.app.replay_data import ReplayData, RowFilter, next_match
from efc_tui.app.screens.replay_keys import BINDINGS as REPLAY_BINDINGS
from efc_tui.app.widgets.charts import CumulativeChart, FitPanel
from efc_tui.app.widgets.detail import DetailPane
from efc_tui.app.widgets.ledger import LedgerView
from efc_tui.app.widgets.summary import ReadProgress, RunSummary
from efc_tui.errors import EfcError
from efc_tui.model import Run
from efc_tui.report.text import sanitize_label

if TYPE_CHECKING:
    from efc_tui.adapter import ScoredRun
    from efc_tui.app.fitview import FitView

# what a key opens or writes: each imported when first used (efc_tui._lazy)
filter_screen = lazy_module("efc_tui.app.screens.filter")
export_screen = lazy_module("efc_tui.app.screens.export")
text_view = lazy_module("efc_tui.app.screens.text_view")
export = lazy_module("efc_tui.report.export")
io = lazy_module("efc_tui.io")
output = lazy_module("efc_tui.report.output")

#: replay speeds, events per second
SPEEDS: tuple[float, ...] = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
DEFAULT_SPEED = 2
#: OSC 52 payloads many terminals accept (xterm and tmux cut longer ones)
OSC52_LIMIT = 100_000
#: how often a followed file is polled (seconds)
FOLLOW_SECONDS = 0.5
#: while a run is read, the rows read since the last scoring pass are scored again no
#: sooner than this (seconds), nor than this many times that pass took (the first rows are
#: scored at once; the whole run when it is read)
LOAD_RESCORE_SECONDS = 5.0
LOAD_RESCORE_RATIO = 4.0


class ReplayScreen(Screen[None]):
    """Step through one run's ledger."""

    TITLE = "Replay"
    BINDINGS: ClassVar[list[BindingType]] = REPLAY_BINDINGS

    DEFAULT_CSS = """
    ReplayScreen { layout: vertical; }
    """

    def __init__(
        self,
        loader: RunLoader,
        *,
        score: Callable[[Run], ScoredRun],
        fit: FitView | None = None,
        export_dir: Path | None = None,
        select: int | None = None,
    ) -> None:
        super().__init__()
        self.loader = loader
        self.source_path = loader.path
        self.follow = loader.follow
        self.from_picker = loader.from_picker
        self.initial_select = select
        self._score_run = score
        self.fit = fit
        #: where ``e`` proposes to write (None: beside the trace)
        self.export_dir = export_dir
        self.data = ReplayData(Run(run_id="…"))
        #: the load's first updates, taken before the first frame (``_take_first_rows``)
        self._early = FirstUpdates()
        #: set when the screen goes: the load stops reading
        self._unloading = Event()
        self.loaded = False
        self.passes = ScorePasses()
        self.score_seconds: float | None = None
        self.playing = False
        self.speed_index = DEFAULT_SPEED
        self._play_timer: Timer | None = None
        self._follow_timer: Timer | None = None
        #: a rescore of the rows read so far, while the rest is read (``_rescore_later``)
        self._rescore_timer: Timer | None = None
        self._polling = False
        self.search_query = ""
        #: (query, data version, matching events) of the last search
        self._search_matches: tuple[str, int, list[int]] | None = None
        self.last_export: Path | None = None
        #: set when the run is read and scored (the screenshot and the bench wait on it)
        self.ready = asyncio.Event()
        #: every event read is scored
        self.scored_all = False
        #: time.perf_counter() when the load started and ended (read to its end; the bench)
        self.load_started_at: float | None = None
        self.loaded_at: float | None = None
        #: time.perf_counter() when the first rows were added, and drawn on the terminal
        self.first_rows_at: float | None = None
        self.first_painted_at: float | None = None
        #: the fit and scoring were started (after the first frame, or FIRST_PAINT_WAIT)
        self._first_frame_done = False
        self.error: str | None = None

    @property
    def scoring(self) -> bool:
        """A scoring pass is running."""
        return self.passes.running

    @property
    def speed(self) -> float:
        return SPEEDS[self.speed_index]

    # -- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield RunSummary(self.data, id="summary")
        yield ReadProgress(id="progress")
        yield LedgerView(self.data, id="ledger")
        with Horizontal(id="lower"):
            yield DetailPane(self.data, id="detail")
            with Vertical(id="charts"):
                yield FitPanel(self.data, self.fit, id="fit")
                yield CumulativeChart(self.data, id="cumulative")
        # the Footer (a widget per key) and the search box (hidden until /) are mounted after
        # the first frame: _after_first_frame

    async def on_mount(self) -> None:
        self.query_one("#ledger").border_title = "ledger"
        self.query_one("#detail").border_title = "event"
        self._update_summary()
        ledger = self.query_one(LedgerView)
        ledger.focus()
        ledger.on_first_rows = self._first_rows_painted
        if self.follow:
            self._follow_timer = self.set_interval(FOLLOW_SECONDS, self.poll_follow)
        self._start_load()
        await self._take_first_rows()

    # -- loading ----------------------------------------------------------------------------

    def _start_load(self) -> None:
        """Read the run in a thread of its own, started now (a Textual worker would start
        once this handler returns: too late for ``_take_first_rows``)."""
        self.load_started_at = time.perf_counter()
        Thread(target=self._load, name="efc-tui load", daemon=True).start()

    def _load(self) -> None:
        try:
            for update in self.loader.updates(self._unloading.is_set):
                if not self._early.put(update):
                    self.post_message(LoadUpdate(update))
        except Exception as exc:  # bad input; or a bug: say so instead of "reading…" for ever
            text = (
                str(exc)
                if isinstance(exc, EfcError)
                else f"load failed: {type(exc).__name__}: {exc}"
            )
            self.post_message(LoadFailed(text, self.from_picker))
        finally:
            self._early.close()  # the load ended or failed: the first frame waits no longer

    async def _take_first_rows(self) -> None:
        """Wait (at most ``FIRST_ROWS_WAIT``) for the load's first rows and apply them now,
        before the first frame: that frame shows them, instead of an empty ledger redrawn
        when they arrive. A slower read just goes on: its rows arrive as messages.

        The wait is the app's one wait in a handler, and it does not hold the event loop:
        it blocks a thread, which this awaits. The screen is drawn once its mount handler
        returns, so its first frame still waits for the rows; the app, its timers and its
        other screens do not."""
        if not self._early.wait(0):
            await asyncio.to_thread(self._early.wait, FIRST_ROWS_WAIT)
        for update in self._early.take(0):
            self._apply(update)

    def on_load_update(self, message: LoadUpdate) -> None:
        self._apply(message.update)

    def _apply(self, update: Update) -> None:
        if isinstance(update, Header):
            if self.data.events:  # again, after a preview: the run's metadata, not its events
                update.run.events = self.data.events
            self.data.run = update.run
            self.data.events = update.run.events
            self._update_summary()
        elif isinstance(update, Events):
            self._events_arrived(update)
        elif isinstance(update, SeveralRuns):
            if self._follow_timer is not None:
                self._follow_timer.stop()
            self.post_message(OpenPicker())
        elif isinstance(update, Loaded):
            self._loaded(update)

    def _first_rows_painted(self) -> None:
        """The first frame showing rows is drawn: the load may use the interpreter again."""
        self.first_painted_at = time.perf_counter()
        self._after_first_frame()

    def _after_first_frame(self) -> None:
        """Start what the first frame must not wait for: the fit and the first scoring pass
        (numpy, the scorer and the fit are imported there and hold the interpreter)."""
        if self._first_frame_done:
            return
        self._first_frame_done = True
        self.loader.painted.set()
        self.call_next(self._mount_later)
        self.query_one(DetailPane).highlight()
        self._want_fit()
        if self.data.events or self.loaded:
            self._request_score(early=not self.loaded)  # early: a preview's, while the rest is read

    async def _mount_later(self) -> None:
        """The Footer and the search box, after the first frame: the Footer's keys are a
        widget each, and the box is hidden until ``/``; neither is worth delaying the first
        rows for. (Textual's ``widgets`` loads a widget's module when it is first asked for.)"""
        self._search_box()
        if not self.query(widgets.Footer):
            await self.mount(widgets.Footer(compact=True))
            self.refresh_bindings()  # a Footer shows keys once told the bindings changed

    def _search_box(self) -> Input:
        """The search box, mounted hidden when first wanted (after the first frame, or at a
        ``/`` pressed before it)."""
        found = self.query("#search")
        if found:
            return found.first(Input)
        box = Input(
            placeholder="search actions, tools, observations (enter: next, esc: close)", id="search"
        )
        box.display = False
        self.mount(box)
        return box

    def _want_fit(self) -> None:
        if self.fit is None:
            self.post_message(FitWanted())

    def _events_arrived(self, update: Events) -> None:
        data = self.data
        ledger = self.query_one(LedgerView)
        at_end = data.n_rows > 0 and ledger.cursor_row >= data.n_rows - 1
        first = data.n_rows == 0
        if update.start is None:
            data.append(update.events)
        else:
            data.replace_from(update.start, update.events)
        data.run.warnings.extend(update.warnings)
        for w in update.warnings[:3]:
            self.notify(sanitize_label(w, 300), severity="warning", markup=False)
        if update.fraction is not None and not self.loaded:
            self.query_one(ReadProgress).update(update.fraction)
        self._rows_changed(restyle=update.start is not None)
        if first and data.n_rows:
            self.first_rows_at = time.perf_counter()
            # the ledger calls _first_rows_painted once a frame showing rows is written; should
            # Textual draw them from its cache without asking the ledger, go on all the same
            self.set_timer(FIRST_PAINT_WAIT, self._after_first_frame)
            if self.initial_select is None:
                self._select_initial()
            else:
                self._show(ledger.selected_event)
        elif update.followed and at_end and not self.playing and data.n_rows:
            ledger.cursor_row = data.n_rows - 1
        if update.followed:
            data.track_changes = True  # what the log appended may rescore earlier rows
        if update.followed or (update.preview and self._first_frame_done):
            self._request_score(early=True)
        elif data.n_rows > data.n_scored:
            self._rescore_later()

    def _loaded(self, update: Loaded) -> None:
        self.loaded = True
        self.loaded_at = time.perf_counter()
        if self._rescore_timer is not None:  # the whole run is scored now instead
            self._rescore_timer.stop()
            self._rescore_timer = None
        self.data.run.flags.extend(f for f in update.flags if f not in self.data.run.flags)
        self.query_one(ReadProgress).display = False
        if self.initial_select is not None or not self.data.n_rows:
            self._select_initial()
        self._update_summary()
        if self._first_frame_done:
            self._want_fit()
            self._request_score()
        elif not self.data.n_rows:
            self._after_first_frame()  # no rows: no frame showing them will come
        else:  # a small run, read before its first frame: that frame comes first
            self.set_timer(FIRST_PAINT_WAIT, self._after_first_frame)

    def on_load_failed(self, message: LoadFailed) -> None:
        """Record the failure; the message goes on to the app, which decides what next."""
        self.error = message.error
        self.loaded = True
        self.ready.set()

    def on_worker_state_changed(self, message: Worker.StateChanged) -> None:
        """A worker died of a bug (not bad input, which workers report themselves): say so
        instead of hanging on "scoring…" (the load, a thread of its own, says so itself)."""
        if message.state is not WorkerState.ERROR:
            return
        group = message.worker.group
        error = message.worker.error
        text = f"{group} failed: {type(error).__name__}: {error}"
        if group == "score":
            self.passes.finished(False)
            self.post_message(LoadFailed(text, self.from_picker))
            return
        if group == "follow":
            self._polling = False
        self.notify(sanitize_label(text, 300), severity="error", markup=False)

    def _select_initial(self) -> None:
        """Show the first row, or ``--select N`` once event N has been read (the last
        event when the run turns out shorter)."""
        ledger = self.query_one(LedgerView)
        target = self.initial_select
        if target is not None and (target < self.data.n_rows or self.loaded):
            self.initial_select = None
            row = self.data.nearest_row(target)
            if row != ledger.cursor_row:
                ledger.cursor_row = row
                return
        self._show(ledger.selected_event)

    def _rows_changed(self, *, restyle: bool = False) -> None:
        ledger = self.query_one(LedgerView)
        ledger.rows_changed(restyle=restyle)
        if self.initial_select is not None and self.initial_select < self.data.n_rows:
            self._select_initial()
        self._update_summary()

    # -- scoring ----------------------------------------------------------------------------

    def _request_score(self, *, early: bool = False) -> None:
        """Score the events we have (``early``: before the whole run is read, a preview)."""
        if (self.loaded or early) and self.passes.request():
            self._score(snapshot(self.data.run, self.data.events))
        self._update_summary()

    # description: without one Textual describes a worker by the repr of its arguments,
    # here a run of every event (seconds of the UI thread on a large run)
    @work(thread=True, exclusive=True, group="score", exit_on_error=False, description="score")
    def _score(self, run: Run) -> None:
        t0 = time.perf_counter()
        try:
            scored = self._score_run(run)
        except EfcError as exc:
            self.post_message(LoadFailed(str(exc), self.from_picker))
            return
        self.post_message(ScoreReady(scored, time.perf_counter() - t0))

    def on_score_ready(self, message: ScoreReady) -> None:
        self.score_seconds = message.seconds
        self.data.set_scored(message.scored)
        ledger = self.query_one(LedgerView)
        ledger.rows_changed(restyle=True)
        self._show(ledger.selected_event)
        more = len(self.data.events) > self.data.n_scored
        if self.passes.finished(more and self.loaded):
            self._score(snapshot(self.data.run, self.data.events))
        elif more and not self.loaded:
            # still reading: a pass over the rows read so far now would hold the interpreter
            # the read needs (a 100k-event trace was read 1.5x as slowly, and scored four
            # times); they are scored once all is read, or after a pause (_rescore_later)
            self._rescore_later()
        elif self.loaded:
            self.scored_all = True
            self._maybe_ready()
        self._update_summary()

    def _rescore_later(self) -> None:
        """While a long read goes on, score the rows read so far once more after a pause:
        ``LOAD_RESCORE_SECONDS`` or ``LOAD_RESCORE_RATIO`` times the last pass, whichever
        is longer, so scoring takes a small share of the read (a 100k-event trace is read
        before the pause ends: its rows are scored once, when it is all read)."""
        if (
            self.loaded
            or self.passes.running
            or self._rescore_timer is not None
            or self.score_seconds is None
        ):
            return
        delay = max(LOAD_RESCORE_SECONDS, LOAD_RESCORE_RATIO * self.score_seconds)
        self._rescore_timer = self.set_timer(delay, self._rescore_while_reading)

    def _rescore_while_reading(self) -> None:
        self._rescore_timer = None
        if not self.loaded:
            self._request_score(early=True)

    def _maybe_ready(self) -> None:
        """Read, scored and with its fit: the screen shows what it will show."""
        if self.scored_all and self.fit is not None and not self.ready.is_set():
            self.ready.set()
            self.post_message(ScreenReady())

    def set_fit(self, fit: FitView) -> None:
        """The fit curves, read after the first screen was drawn (``FitWanted``)."""
        self.fit = fit
        self.query_one(FitPanel).set_fit(fit)
        self._maybe_ready()

    # -- follow -----------------------------------------------------------------------------

    def poll_follow(self) -> None:
        """Read lines appended to a followed log (the timer calls this; tests may too)."""
        if not self.follow or not self.loaded or self._polling or self.loader.stopped:
            return
        self._polling = True
        self._follow_read()

    @work(thread=True, exclusive=True, group="follow", exit_on_error=False)
    def _follow_read(self) -> None:
        try:
            update = self.loader.poll()
            if update is not None:
                self.post_message(LoadUpdate(update))
        finally:
            self._polling = False

    # -- selection --------------------------------------------------------------------------

    @on(LedgerView.Selected)
    def _on_selected(self, message: LedgerView.Selected) -> None:
        self._show(message.event)

    def _show(self, event: int | None) -> None:
        self.query_one(DetailPane).show(event)
        self.query_one(FitPanel).show(event)
        self.query_one(CumulativeChart).show(event)
        self._update_position(event)

    @property
    def selected_event(self) -> int | None:
        return self.query_one(LedgerView).selected_event

    def select_event(self, event: int) -> None:
        self.query_one(LedgerView).select_event(event)

    # -- summary line -----------------------------------------------------------------------

    def _update_summary(self) -> None:
        summary = self.query_one(RunSummary)
        st = summary.state
        st.loaded, st.scoring, st.follow = self.loaded, self.scoring, self.follow
        st.playing, st.speed = self.playing, self.speed
        summary.show()

    def _update_position(self, event: int | None) -> None:
        """Titles that change with the selection go on the detail pane, which repaints
        anyway; the ledger's title changes only with the filter or play state (a title
        change repaints the whole widget)."""
        detail = self.query_one(DetailPane)
        detail.border_title = "event" if event is None else f"event {event} of {len(self.data):,}"
        title = "ledger"
        if self.data.filter is not None:
            title += f"  filter: {self.data.filter.describe()}"
        if self.playing:
            title += f"  ▶ {self.speed:g}/s"
        ledger = self.query_one(LedgerView)
        if ledger.border_title != title:
            ledger.border_title = title

    # -- actions: replay --------------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        self.query_one(LedgerView).action_step(delta)

    def action_first(self) -> None:
        self.query_one(LedgerView).action_first()

    def action_last(self) -> None:
        self.query_one(LedgerView).action_last()

    def action_toggle_play(self) -> None:
        if self.playing:
            self._stop_play()
        else:
            ledger = self.query_one(LedgerView)
            if ledger.cursor_row >= self.data.n_rows - 1 and not self.follow:
                ledger.cursor_row = 0
            self.playing = True
            self._play_timer = self.set_interval(1.0 / self.speed, self._play_tick)
        self._update_summary()
        self._update_position(self.selected_event)

    def _stop_play(self) -> None:
        self.playing = False
        if self._play_timer is not None:
            self._play_timer.stop()
            self._play_timer = None

    def _play_tick(self) -> None:
        ledger = self.query_one(LedgerView)
        if ledger.cursor_row >= self.data.n_rows - 1:
            if not self.follow:
                self._stop_play()
                self._update_summary()
                self._update_position(self.selected_event)
            return
        ledger.cursor_row += 1

    def action_speed(self, delta: int) -> None:
        self.speed_index = max(0, min(len(SPEEDS) - 1, self.speed_index + delta))
        if self.playing and self._play_timer is not None:
            self._play_timer.stop()
            self._play_timer = self.set_interval(1.0 / self.speed, self._play_tick)
        self._update_summary()
        self._update_position(self.selected_event)
        self.notify(f"replay speed {self.speed:g} events/s", timeout=1.5, markup=False)

    def action_decision(self, direction: int) -> None:
        d = self.data
        if not d.has_decisions:
            self.notify(
                "no adapter decisions for this run" if d.ledger else "still scoring…",
                severity="warning",
                markup=False,
            )
            return
        cur = self.selected_event
        cur = -1 if cur is None else cur
        target = d.next_decision(cur, forward=direction > 0)
        while target is not None and d.row_of(target) is None:  # hidden by the filter
            target = d.next_decision(target, forward=direction > 0)
        if target is None:
            self.notify(
                "no further adapter decision" if direction > 0 else "no earlier adapter decision",
                markup=False,
            )
            return
        self.select_event(target)

    # -- actions: search and filter ---------------------------------------------------------

    def action_search(self) -> None:
        box = self._search_box()
        box.display = True
        box.value = self.search_query
        box.focus()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, message: Input.Submitted) -> None:
        query = message.value
        if not query:
            self._close_search()
            return
        self.search(query)

    def _close_search(self) -> None:
        box = self._search_box()
        box.display = False
        self.query_one(LedgerView).focus()

    def search(self, query: str) -> None:
        """Go to the next event whose action, tool or observation contains ``query``
        (enter again: the one after). The matches of a query are found once, in a worker,
        and kept until the query, the rows or the filter change."""
        self.search_query = query
        cached = self._search_matches
        if cached is not None and cached[0] == query and cached[1] == self.data.version:
            self._go_to_match(query, cached[2])
            return
        self._search(query)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _search(self, query: str) -> None:
        worker = get_current_worker()
        found = self.data.find_all(query, cancelled=lambda: worker.is_cancelled)
        if found is not None and not worker.is_cancelled:
            self.post_message(SearchDone(query, found))

    def on_search_done(self, message: SearchDone) -> None:
        self._search_matches = (message.query, self.data.version, message.matches)
        self._go_to_match(message.query, message.matches)

    def _go_to_match(self, query: str, matches: list[int]) -> None:
        self.app.clear_notifications()  # an older "no match" must not stay up
        box = self._search_box()
        cur = self.selected_event
        target = next_match(matches, -1 if cur is None else cur)
        if target is None:
            box.border_title = "no match"
            self.notify(
                f"no action, tool or observation contains {query!r}",
                severity="warning",
                markup=False,
            )
            return
        k = matches.index(target) + 1
        box.border_title = f"match {k} of {len(matches)}"
        wrapped = cur is not None and target <= cur
        self.notify(
            f"{query!r}: match {k} of {len(matches)} (event {target})"
            + ("; wrapped to the start" if wrapped else ""),
            timeout=2,
            markup=False,
        )
        self.select_event(target)

    def action_filter(self) -> None:
        def done(result: RowFilter | bool | None) -> None:
            if result is False:
                return
            self.set_filter(result if isinstance(result, RowFilter) else None)

        self.app.push_screen(filter_screen.FilterScreen(self.data, self.data.filter), done)

    def set_filter(self, flt: RowFilter | None) -> None:
        """Show only events matching ``flt`` (None: all). The selection stays on the same
        event when it is still shown, else moves to the next shown one."""
        cur = self.selected_event
        self.data.set_filter(flt)
        ledger = self.query_one(LedgerView)
        ledger.rows_changed(restyle=True)
        if self.data.n_rows:
            row = self.data.nearest_row(cur if cur is not None else 0)
            if row == ledger.cursor_row:
                self._show(ledger.selected_event)
            ledger.cursor_row = row
        else:
            self._show(None)
            self.notify("no event matches this filter", severity="warning", markup=False)
        self._update_summary()
        self._update_position(self.selected_event)

    # -- actions: export, predictor, text, copy ---------------------------------------------

    def action_export(self) -> None:
        scored = self.data.scored
        if scored is None:
            self.notify(
                "still scoring: export when the ledger is ready", severity="warning", markup=False
            )
            return
        proposed = export_screen.default_target(
            scored.run.run_id, self.source_path, self.export_dir
        )

        def chosen(target: Path | None) -> None:
            if target is not None:
                self._export(scored, target)

        self.app.push_screen(export_screen.ExportScreen(scored.run.run_id, proposed), chosen)

    @work(thread=True, exclusive=True, group="export", exit_on_error=False, description="export")
    def _export(self, ledger: ScoredRun, target: Path) -> None:
        try:
            export.check_export_suffix(target, parquet=False)
            output.refuse_input(target, [self.source_path] if self.source_path else [])
            target.parent.mkdir(parents=True, exist_ok=True)  # as `efc-tui export` does
            doc = export.ledger_document(ledger, with_text=True)  # what `efc-tui export` writes
            io.write_atomic(target, export.dumps(doc, pretty=True) + b"\n")
        except (EfcError, OSError) as exc:
            self.post_message(Exported(None, str(exc)))
            return
        self.post_message(Exported(str(target)))

    def on_exported(self, message: Exported) -> None:
        if message.error:
            self.notify(f"export failed: {message.error}", severity="error", markup=False)
        else:
            self.last_export = Path(message.path or "")
            self.notify(f"ledger written to {self.last_export.resolve()}", timeout=6, markup=False)

    def action_predictor(self) -> None:
        panel = self.query_one(FitPanel)
        name = panel.next_predictor()
        if name is None:
            fit = panel.view()
            if fit is None:
                why = "the fit is still being read"
            elif fit.file is not None or fit.problem:
                # a fit was loaded (--fit, or the package's): say what it lacks
                why = fit.problem or "this fit has no predictive curve"
            else:
                why = "no fit available (load one with --fit FIT.json)"
            self.notify(sanitize_label(why, 300), severity="warning", markup=False)
            return
        fit = panel.view()
        if fit is not None and len(fit.curves) == 1:
            self.notify(
                f"{fit.curves[0].label} is this fit's only predictive curve (the others do not "
                "predict held-out runs better than the base rate)",
                timeout=4,
                markup=False,
            )
            return
        view = panel.view()
        curve = view.curve(name) if view else None
        self.notify(f"fit predictor: {curve.label if curve else name}", timeout=1.5, markup=False)

    def action_view_text(self, which: str) -> None:
        ev = self.selected_event
        if ev is None:
            return
        e = self.data.events[ev]
        if which == "action":  # an edit as a diff, the call as logged below it
            text, what = full_action(e)
        else:
            text, what = e.observation_text, f"{which} ({len(e.observation_text):,} chars)"
        self.app.push_screen(text_view.TextViewScreen(text, f"event {ev} {what}"))

    def action_copy(self, which: str = "observation") -> None:
        """Send the selected event's observation or action text to the clipboard. The
        terminal receives it as OSC 52 and gives no answer, so the message says what was
        sent and that the terminal has to allow it, not that it was copied."""
        ev = self.selected_event
        if ev is None:
            return
        e = self.data.events[ev]
        text = e.observation_text if which == "observation" else e.action_text
        if not text:
            self.notify(f"event {ev} has no {which} text to copy", severity="warning", markup=False)
            return
        self.app.copy_to_clipboard(text)
        message = (
            f"sent the {which} of event {ev} ({len(text):,} characters) to the "
            "clipboard by OSC 52; if pasting gives something else, the terminal "
            "does not allow OSC 52"
        )
        if len(text) > OSC52_LIMIT:
            message += f" (many terminals take at most {OSC52_LIMIT:,} characters)"
        self.notify(message, timeout=4, markup=False)

    def action_back(self) -> None:
        if self._search_box().display:
            self._close_search()
        elif self.from_picker:
            self.app.pop_screen()

    def on_unmount(self) -> None:
        self._unloading.set()
        self.loader.painted.set()  # a load still waiting for the first paint goes on (to its end)
        self._stop_play()
        if self._follow_timer is not None:
            self._follow_timer.stop()
