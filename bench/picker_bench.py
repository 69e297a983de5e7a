"""Benchmark: the run picker on a folder of many runs, against scoring them headless.

Generates N small native runs (``score_bench.generate``, E events each, unique run ids and
outcomes), then measures in this process:

- headless: reading and scoring every run the way ``efc-tui score`` does (``api.score``);
- picker: launching the app on the folder until every run is read, scored and listed
  (``app.ready``), through the pilot;
- sorting: ctrl+s (next column) until the table is repainted, for each of the first
  columns, and typing one filter character.

Prints each against the headless time. The machine may be shared: the ratios matter more
than the seconds.

    .venv/bin/python bench/picker_bench.py [--runs 600] [--events 30] [--jobs N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from score_bench import generate


def make_corpus(folder: Path, runs: int, events: int) -> None:
    for i in range(runs):
        path = folder / f"run{i:05d}.jsonl"
        generate(path, events, seed=i)
        lines = path.read_bytes().split(b"\n", 1)
        head = lines[0].replace(b'"run_id":"bench"', b'"run_id":"run-%05d"' % i)
        head = head.replace(
            b'"success":false', b'"success":true' if i % 3 == 0 else b'"success":false'
        )
        path.write_bytes(head + b"\n" + lines[1])


def headless(folder: Path) -> float:
    from efc_tui import api

    t0 = time.perf_counter()
    for run in api.load_all(folder):
        api.score(run)
    return time.perf_counter() - t0


async def picker(
    folder: Path, sorts: int, jobs: int | None
) -> tuple[float, list[float], float, int]:
    from efc_tui.app.app import EfcApp
    from efc_tui.app.screens.picker import PickerScreen

    t0 = time.perf_counter()
    app = EfcApp([folder], jobs=jobs)
    async with app.run_test(size=(160, 40)) as pilot:
        await app.ready.wait()
        await pilot.pause()
        loaded = time.perf_counter() - t0
        screen = app.screen
        assert isinstance(screen, PickerScreen)
        sort_times = []
        for _ in range(sorts):
            t = time.perf_counter()
            await pilot.press("ctrl+s")
            await pilot.pause()
            sort_times.append(time.perf_counter() - t)
        t = time.perf_counter()
        await pilot.press("7")
        await pilot.pause()
        filtered = time.perf_counter() - t
    return loaded, sort_times, filtered, screen.jobs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=600)
    ap.add_argument("--events", type=int, default=30)
    ap.add_argument("--sorts", type=int, default=6)
    ap.add_argument(
        "--jobs", type=int, default=None, help="the picker's processes (default: as open decides)"
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "runs"
        folder.mkdir()
        make_corpus(folder, args.runs, args.events)
        base = headless(folder)
        loaded, sorts, filtered, jobs = asyncio.run(picker(folder, args.sorts, args.jobs))
    print(f"{args.runs:,} runs of {args.events} events; the picker on {jobs} process(es)")
    print(f"headless read + score:        {base:7.2f} s")
    print(f"picker: every run listed:     {loaded:7.2f} s  = {loaded / base:.2f}x headless")
    print(
        f"picker: sort by next column:  median {statistics.median(sorts) * 1e3:6.0f} ms, "
        f"max {max(sorts) * 1e3:6.0f} ms ({len(sorts)} sorts)"
    )
    print(f"picker: one filter character: {filtered * 1e3:6.0f} ms")


if __name__ == "__main__":
    main()
