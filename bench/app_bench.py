"""Benchmark: the replay app on a 100k-event run, measured through the Textual pilot.

Generates a native efc-trace/1 file of N events (``score_bench.generate``: ~1 KB of
realistic tool output per event), opens it with ``EfcApp`` headless at 120x40, and prints:

- time to interactive: from launch (before importing the app) until the first ledger rows
  are on screen and a key press ("j") has moved the selection and been painted;
- time until every event is read, and until the run is scored (ledger values shown); the
  read against the loader alone (``RunLoader`` reading the same file in a fresh process,
  no UI: the baseline, measured in the same run) from when the screen started its load;
- moving the selection by one ("j" through the pilot), median and 95th percentile:
  *paint latency* (key sent to the frame showing the new selection, read from a hook on the
  screen's compositor refresh) and the pilot's own round trip (``press`` + ``pause``, which
  adds its idle-detection sleeps);
- the same moves on a 100-event run in the same process, as the baseline, and the ratios.

No thresholds here (tests hold no timing assertions); the issue's target is interactive
within 2 s and steps that stay flat as the run grows.

    .venv/bin/python bench/app_bench.py [--events 100000] [--moves 200] [--keep]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

T_LAUNCH = time.perf_counter()
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from score_bench import generate  # noqa: E402

#: the loader alone: a fresh interpreter reads the file with the app's RunLoader, no UI (it
#: does not wait for a first paint), and prints the seconds from its start to its end
LOADER_ALONE = """
import sys, time
from pathlib import Path
t0 = time.perf_counter()
from efc_tui.app.loading import RunLoader
loader = RunLoader(Path(sys.argv[1]))
loader.painted.set()
for _ in loader.updates():
    pass
print(time.perf_counter() - t0)
"""


def loader_alone(path: Path) -> float:
    out = subprocess.run(
        [sys.executable, "-c", LOADER_ALONE, str(path)], check=True, capture_output=True, text=True
    ).stdout
    return float(out.split()[-1])


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


class Paints:
    """Timestamps of the replay screen's compositor refreshes (a frame reached the terminal)."""

    def __init__(self) -> None:
        self.stamps: list[float] = []
        self.event = asyncio.Event()

    def install(self, screen: object) -> None:
        original = screen._compositor_refresh  # type: ignore[attr-defined]

        def hooked() -> None:
            original()
            self.stamps.append(time.perf_counter())
            self.event.set()

        screen._compositor_refresh = hooked  # type: ignore[attr-defined]

    async def next_after(self, t: float, timeout: float = 10.0) -> float:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            for s in self.stamps:
                if s >= t:
                    return s
            self.event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.event.wait(), timeout=0.5)
        raise TimeoutError("no frame painted")


async def send_key(app: object, key: str) -> None:
    """Send one key the way the pilot does, without its idle-detection sleeps."""
    from textual import events

    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)  # type: ignore[arg-type]
    app._driver.send_message(event)  # type: ignore[attr-defined]


async def moves(app: object, pilot: object, n: int) -> tuple[list[float], list[float]]:
    """Press "j" n times; (paint latencies, pilot round trips) in seconds."""
    from efc_tui.app.screens.replay import ReplayScreen
    from efc_tui.app.widgets.ledger import LedgerView

    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, ReplayScreen)
    ledger = screen.query_one(LedgerView)
    paints = Paints()
    paints.install(screen)
    paint, trip = [], []
    ledger.cursor_row = 0
    await pilot.pause()  # type: ignore[attr-defined]
    for _ in range(n):
        if ledger.cursor_row >= screen.data.n_rows - 1:  # a short run: start again at the top
            ledger.cursor_row = 0
            await pilot.pause()  # type: ignore[attr-defined]
        before = ledger.cursor_row
        t0 = time.perf_counter()
        await pilot.press("j")  # type: ignore[attr-defined]
        await pilot.pause()  # type: ignore[attr-defined]
        t1 = time.perf_counter()
        assert ledger.cursor_row == before + 1
        painted = [s for s in paints.stamps if s >= t0]
        paint.append((painted[0] if painted else t1) - t0)
        trip.append(t1 - t0)
        paints.stamps.clear()
    return paint, trip


async def run_big(path: Path, n_moves: int) -> dict[str, float | list[float]]:
    t_import = time.perf_counter()
    from efc_tui.app.app import EfcApp
    from efc_tui.app.screens.replay import ReplayScreen
    from efc_tui.app.widgets.ledger import LedgerView

    imported = time.perf_counter() - t_import
    app = EfcApp([path])
    out: dict[str, float | list[float]] = {"import_s": imported}
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        while not (isinstance(screen, ReplayScreen) and screen.data.n_rows > 0):
            await asyncio.sleep(0.002)
            screen = app.screen
        out["first_rows_s"] = time.perf_counter() - T_LAUNCH
        out["rows_at_first_paint"] = float(screen.data.n_rows)
        paints = Paints()
        paints.install(screen)
        ledger = screen.query_one(LedgerView)
        t_key = time.perf_counter()
        await send_key(app, "j")
        while ledger.cursor_row != 1:
            await asyncio.sleep(0.001)
        painted = await paints.next_after(t_key)
        out["interactive_s"] = painted - T_LAUNCH
        out["key_during_load_s"] = painted - t_key
        while not screen.loaded:
            await asyncio.sleep(0.01)
        # when the screen applied the end of the read (polling here can lag behind it)
        assert screen.loaded_at is not None and screen.load_started_at is not None
        out["read_s"] = screen.loaded_at - T_LAUNCH
        out["load_s"] = screen.loaded_at - screen.load_started_at
        await asyncio.wait_for(app.ready.wait(), 600)
        await pilot.pause()  # type: ignore[attr-defined]
        out["scored_s"] = time.perf_counter() - T_LAUNCH
        out["score_worker_s"] = screen.score_seconds or float("nan")
        out["events"] = float(len(screen.data))
        paint, trip = await moves(app, pilot, n_moves)
        out["paint"], out["trip"] = paint, trip
    return out


async def run_small(path: Path, n_moves: int) -> tuple[list[float], list[float]]:
    from efc_tui.app.app import EfcApp

    app = EfcApp([path])
    async with app.run_test(size=(120, 40)) as pilot:
        await app.ready.wait()
        await pilot.pause()
        return await moves(app, pilot, n_moves)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--baseline-events", type=int, default=100)
    ap.add_argument("--moves", type=int, default=200)
    ap.add_argument("--keep", action="store_true", help="keep the generated traces")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="efc-app-bench-"))
    big, small = tmp / "big.jsonl", tmp / "small.jsonl"
    t = time.perf_counter()
    size = generate(big, args.events)
    generate(small, args.baseline_events, seed=1)
    gen_s = time.perf_counter() - t
    alone = loader_alone(big)
    global T_LAUNCH
    T_LAUNCH = time.perf_counter()  # launch = now (the generator's time is not the app's)
    res = asyncio.run(run_big(big, args.moves))
    base_paint, base_trip = asyncio.run(run_small(small, args.moves))

    paint, trip = res["paint"], res["trip"]
    assert isinstance(paint, list) and isinstance(trip, list)
    print(f"trace: {args.events:,} events, {size / 1e6:.1f} MB (generated in {gen_s:.1f} s)")
    print(f"import of the app: {res['import_s']:.2f} s")
    print(
        f"first rows on screen: {res['first_rows_s']:.2f} s after launch "
        f"({int(res['rows_at_first_paint']):,} rows in the first batch)"
    )  # type: ignore[arg-type]
    print(
        f"time to interactive: {res['interactive_s']:.2f} s after launch "
        f"(first rows + a key press painted; that key took {res['key_during_load_s'] * 1e3:.0f} ms "
        f"while the file was still being read)"
    )
    print(
        f"all events read: {res['read_s']:.2f} s; scored and shown: {res['scored_s']:.2f} s "
        f"(scoring worker {res['score_worker_s']:.2f} s)"
    )
    print(
        f"the read in the app: {res['load_s']:.2f} s from its start; the loader alone "
        f"(no UI, a fresh process): {alone:.2f} s; ratio {res['load_s'] / alone:.2f}x"
    )
    print(f"move selection by one, {args.moves} moves through the pilot:")
    print(
        f"  {args.events:>7,} events: paint latency median {statistics.median(paint) * 1e3:6.1f} ms, "
        f"p95 {pct(paint, 0.95) * 1e3:6.1f} ms | pilot round trip median "
        f"{statistics.median(trip) * 1e3:6.1f} ms, p95 {pct(trip, 0.95) * 1e3:6.1f} ms"
    )
    print(
        f"  {args.baseline_events:>7,} events: paint latency median "
        f"{statistics.median(base_paint) * 1e3:6.1f} ms, p95 {pct(base_paint, 0.95) * 1e3:6.1f} ms | "
        f"pilot round trip median {statistics.median(base_trip) * 1e3:6.1f} ms, "
        f"p95 {pct(base_trip, 0.95) * 1e3:6.1f} ms  (baseline)"
    )
    print(
        f"  ratio {args.events:,} / {args.baseline_events:,} events: paint median "
        f"{statistics.median(paint) / statistics.median(base_paint):.2f}x, p95 "
        f"{pct(paint, 0.95) / pct(base_paint, 0.95):.2f}x"
    )
    if args.keep:
        print(f"traces kept in {tmp}")
    else:
        for p in (big, small):
            p.unlink(missing_ok=True)
        tmp.rmdir()


if __name__ == "__main__":
    main()
