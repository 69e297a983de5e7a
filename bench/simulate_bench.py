"""Benchmark: `efc-tui simulate` (and `calibrate`) on the default corpus and a larger one.

Prints the wall time of `efc-tui simulate` as a subprocess (start-up included) for the
default corpus (3 families × 7 harnesses × 4 budgets × 32 tasks = 2,688 runs) with 1 and 2
worker processes and for a corpus twice that size, against a baseline measured in the same
run: reading the written corpus back with the native reader. Then `efc-tui calibrate` on
the default corpus. Target (issue 4): a few thousand runs in under a minute on 2 cores.

    .venv/bin/python bench/simulate_bench.py [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent / "efc-tui"


def timed(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([str(BIN), *args], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def read_back(folder: Path) -> tuple[float, int, int]:
    from efc_tui.parsers import expand_paths, load

    start = time.perf_counter()
    runs = events = 0
    for path in expand_paths([folder]):
        for run in load(path):
            runs += 1
            events += len(run.events)
    return time.perf_counter() - start, runs, events


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--keep", action="store_true", help="keep the corpora (their folder is printed)"
    )
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="efc-simulate-bench-"))
    try:
        print(f"cpus: {os.cpu_count()}")
        default = tmp / "default"
        t1 = timed(["simulate", "-o", str(default), "--quiet"])
        parse, runs, events = read_back(default)
        size = sum(p.stat().st_size for p in default.iterdir()) / 1e6
        print(f"default corpus: {runs} runs, {events} events, {size:.1f} MB")
        print(f"  read back (native reader, in process): {parse:6.2f} s  (baseline)")
        print(
            f"  simulate, 1 process:                   {t1:6.2f} s  ({t1 / parse:.1f}x the read-back, "
            f"{runs / t1:,.0f} runs/s)"
        )
        t2 = timed(["simulate", "-o", str(tmp / "default-j2"), "--quiet", "--jobs", "2"])
        print(f"  simulate, 2 processes:                 {t2:6.2f} s  ({t2 / parse:.1f}x)")
        same = all(
            (default / p.name).read_bytes() == p.read_bytes()
            for p in (tmp / "default-j2").iterdir()
        )
        print(f"  byte-identical with 1 and 2 processes: {same}")
        t3 = timed(
            ["simulate", "-o", str(tmp / "double"), "--quiet", "--jobs", "2", "--runs", "64"]
        )
        print(f"double corpus ({2 * runs} runs), 2 processes: {t3:6.2f} s")
        tc = timed(["calibrate", str(default), "-o", str(tmp / "estimator.json"), "--quiet"])
        print(f"calibrate on the default corpus (θ, demand, adapter W/ε): {tc:6.2f} s")
        if args.keep:
            print(f"corpora kept in {tmp}")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
