"""What the replay screen does while a run is still being read: it scores the first rows
at once and the rest when the read ends (a pass over a half-read run would hold the
interpreter the read needs), and its chart ends on the run's last event."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from efc_tui import api
from efc_tui.adapter import ScoredRun
from efc_tui.app import app as app_module
from efc_tui.app.loading import Events, Header, Loaded, RunLoader, Update, _header
from efc_tui.app.screens import replay as replay_module
from efc_tui.app.screens.replay import ReplayScreen
from efc_tui.app.widgets import braille as chart_module
from efc_tui.app.widgets.braille import Chart, Series, downsample, pixel_columns, render
from efc_tui.app.widgets.charts import CumulativeChart
from efc_tui.app.widgets.ledger import fmt_num
from efc_tui.model import Run
from tests.app.test_pilot import EST, SIZE, SMALL, make_app, replay
from tests.pilot import pilot_test, settle
from tests.tracegen import write_trace

GATE_TIMEOUT = 30.0


class GatedLoader(RunLoader):
    """Reads SMALL in three batches (5, 10 and 6 events); each batch after the first, and
    the end of the read, waits for the test to open its gate."""

    gates: ClassVar[list[threading.Event]] = []

    def updates(self, cancelled: Callable[[], bool] = lambda: False) -> Iterator[Update]:
        run = api.load(SMALL)
        yield _header(run)
        cuts = [(0, 5), (5, 15), (15, len(run.events))]
        for k, (a, b) in enumerate(cuts):
            if k:
                self.gates[k - 1].wait(GATE_TIMEOUT)
            yield Events(run.events[a:b], b / len(run.events))
        self.gates[2].wait(GATE_TIMEOUT)
        yield Loaded(list(run.flags))


async def until(pilot: object, cond: Callable[[], bool], timeout: float = GATE_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached")
        await pilot.pause()  # type: ignore[attr-defined]
        await asyncio.sleep(0.005)


def gated_app(
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[object, list[int], threading.Event, list[threading.Event]]:
    """The app on SMALL read by ``GatedLoader``; its scoring records how many events each
    pass covers, and the first pass waits for the returned gate (so batches arrive while it
    runs)."""
    gates = [threading.Event() for _ in range(3)]
    monkeypatch.setattr(GatedLoader, "gates", gates)
    monkeypatch.setattr(app_module, "RunLoader", GatedLoader)
    app = make_app(SMALL)
    passes: list[int] = []
    first_pass = threading.Event()

    def score(run: Run) -> ScoredRun:
        passes.append(len(run.events))
        if len(passes) == 1:
            first_pass.wait(GATE_TIMEOUT)
        return api.score(run, EST)

    app.score = score  # type: ignore[method-assign]
    return app, passes, first_pass, gates


@pilot_test
async def test_rows_read_during_a_scoring_pass_wait_for_the_end_of_the_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the pause before a rescore while reading is longer than this test, however slow
    monkeypatch.setattr(replay_module, "LOAD_RESCORE_SECONDS", 3600.0)
    app, passes, first_pass, gates = gated_app(monkeypatch)
    async with app.run_test(size=SIZE) as pilot:  # type: ignore[attr-defined]
        s = replay(app)  # type: ignore[arg-type]
        await until(pilot, lambda: passes == [5])  # the first rows are scored at once
        gates[0].set()  # ten more rows arrive while that pass runs
        await until(pilot, lambda: s.data.n_rows == 15)
        first_pass.set()
        await until(pilot, lambda: s.data.n_scored >= 5)
        for _ in range(5):
            await pilot.pause()
        # still reading: no pass over the 15 rows read so far; they show as pending
        assert passes == [5] and not s.scoring and not s.loaded
        gates[1].set()
        await until(pilot, lambda: s.data.n_rows == 21)
        assert passes == [5]
        gates[2].set()  # the read ends: one pass over the whole run
        await settle(pilot)
        assert passes == [5, 21]
        assert s.data.n_scored == 21
        expected = api.score(api.load(SMALL), EST)
        assert s.data.ledger is not None
        assert s.data.ledger.figures.nrs_efc == pytest.approx(expected.figures.nrs_efc)


@pilot_test
async def test_a_long_read_rescores_what_it_has_read_after_a_pause(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(replay_module, "LOAD_RESCORE_SECONDS", 0.01)
    monkeypatch.setattr(replay_module, "LOAD_RESCORE_RATIO", 0.0)
    app, passes, first_pass, gates = gated_app(monkeypatch)
    first_pass.set()
    async with app.run_test(size=SIZE) as pilot:  # type: ignore[attr-defined]
        s = replay(app)  # type: ignore[arg-type]
        await until(pilot, lambda: s.data.n_scored == 5)
        gates[0].set()
        # no pause to wait: the 15 rows read so far are scored while the read goes on
        await until(pilot, lambda: s.data.n_scored == 15)
        assert not s.loaded and passes[-1] == 15
        gates[1].set()
        gates[2].set()
        await settle(pilot)
        assert passes[-1] == 21 and s.data.n_scored == 21
        assert isinstance(s, ReplayScreen) and s._rescore_timer is None


def test_gated_loader_reads_the_whole_run() -> None:
    """The test loader sends every event of SMALL once, in order (else the tests above
    prove nothing about a real read)."""
    GatedLoader.gates = [threading.Event() for _ in range(3)]
    for g in GatedLoader.gates:
        g.set()
    ups = list(GatedLoader(SMALL).updates())
    assert isinstance(ups[0], Header) and isinstance(ups[-1], Loaded)
    events = [e for u in ups if isinstance(u, Events) for e in u.events]
    assert events == api.load(SMALL).events


# -- the cumulative chart: drawn from one point per dot column ------------------------------


def test_downsample_keeps_one_point_per_dot_column() -> None:
    xs = np.arange(11.0)
    ys = xs**2
    ys[4] = np.nan  # not finite: left out, as render leaves it out
    got = downsample(Series(xs, ys, "cyan"), (0.0, 10.0), 5)
    # the values at x = 0, 2.5, 5, 7.5, 10, on the line through the finite points
    assert got.xs.tolist() == [0.0, 2.5, 5.0, 7.5, 10.0]
    assert got.ys.tolist() == [0.0, 6.5, 25.0, 56.5, 100.0]
    assert got.style == "cyan"
    # a series no longer than the plot is wide, or a scatter, keeps its (finite) points
    short = downsample(Series(xs[:4], ys[:4]), (0.0, 10.0), 5)
    assert short.xs.tolist() == [0.0, 1.0, 2.0, 3.0]
    dots = downsample(Series(xs, ys, scatter=True), (0.0, 10.0), 5)
    assert len(dots.xs) == 10 and 4.0 not in dots.xs.tolist()


def test_a_chart_draws_the_same_from_its_downsampled_series() -> None:
    rng = np.random.default_rng(3)
    xs = np.cumsum(rng.uniform(0.0, 2.0, 100_000))
    ys = np.cumsum(rng.normal(0.0, 1.0, 100_000))
    x_range, y_range = (0.0, float(xs[-1])), (float(ys.min()), float(ys.max()))
    whole = Chart(x_range, y_range, series=[Series(xs, ys, "cyan")])
    px_w = pixel_columns(whole, 50)
    small = downsample(whole.series[0], x_range, px_w)
    assert len(small.xs) == px_w < 200
    drawn = Chart(x_range, y_range, series=[small])
    assert [t.plain for t in render(drawn, 50, 10)] == [t.plain for t in render(whole, 50, 10)]
    assert [t.spans for t in render(drawn, 50, 10)] == [t.spans for t in render(whole, 50, 10)]


@pilot_test
async def test_the_chart_resamples_a_run_once_per_scoring_and_ends_on_its_last_event(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = write_trace(tmp_path / "long.jsonl", n=600, seed=5)
    long_ones: list[int] = []
    real = chart_module.downsample

    def counting(s: Series, x_range: tuple[float, float], px_w: int) -> Series:
        if len(s.xs) > 300:  # the run's line (the fit panel's curve is 256 points)
            long_ones.append(len(s.xs))
        return real(s, x_range, px_w)

    monkeypatch.setattr(chart_module, "downsample", counting)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        s = replay(app)
        chart = s.query_one(CumulativeChart)
        n = len(s.data.events)
        assert n > 500 and s.data.n_scored == n
        await pilot.press("j")
        await pilot.pause()
        before = list(long_ones)
        assert before and before[-1] == n + 1  # the whole run, from (0, 0)
        for _ in range(5):  # moves redraw the chart from the kept ~100 points
            await pilot.press("j")
            await pilot.pause()
        assert long_ones == before
        await pilot.press("G")
        await pilot.pause()
        assert s.selected_event == n - 1
        x, y = s.data.cols["C_cum"], s.data.cols["nr_cum"]
        expected = api.score(api.load(path), EST)
        assert float(y[-1]) == pytest.approx(expected.figures.nrs_efc)
        info = chart.render().plain.splitlines()[0]  # type: ignore[union-attr]
        assert info.startswith(
            f"t={n - 1}  NRS-EFC {fmt_num(float(y[-1]), 8)}  C_raw {fmt_num(float(x[-1]), 8)}"
        )
        line = chart.line(pixel_columns(Chart((0.0, 1.0), (0.0, 1.0)), 10))
        assert line.xs[-1] == pytest.approx(x[-1]) and line.ys[-1] == pytest.approx(y[-1])
        assert "●" in chart.render().plain  # type: ignore[union-attr]
