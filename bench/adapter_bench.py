"""Benchmark: what the adapter's decisions add to scoring one long run.

Generates the same native trace as ``score_bench.py`` (N events), scores it in-process
with ``score_run``, then times ``efc_tui.adapter.apply`` (decisions and summary) and a
100-point ε sweep over the summary, and prints each against the scoring time.

    .venv/bin/python bench/adapter_bench.py [--events 100000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from score_bench import generate

import efc_tui
from efc_tui.adapter import AdapterConfig, apply, sweep
from efc_tui.scoring import load_estimator, score_run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        generate(path, args.events)
        run = efc_tui.load(path)
    est = load_estimator()
    t0 = time.perf_counter()
    ledger = score_run(run, est)
    t1 = time.perf_counter()
    scored = apply(ledger, AdapterConfig.from_estimator(est))
    t2 = time.perf_counter()
    points = sweep([scored.summary], [i / 1000 for i in range(100)])
    t3 = time.perf_counter()
    score_s, adapt_s, sweep_s = t1 - t0, t2 - t1, t3 - t2
    n = len(run.events)
    print(f"events                {n:,}")
    print(f"score_run             {score_s:8.3f} s  ({1e6 * score_s / n:6.2f} us/event)")
    print(
        f"adapter decisions     {adapt_s:8.3f} s  ({1e6 * adapt_s / n:6.2f} us/event)  "
        f"= {adapt_s / score_s:.2f}x scoring"
    )
    print(
        f"sweep (100 ε values)  {sweep_s:8.3f} s  = {sweep_s / score_s:.2f}x scoring "
        f"({len(points)} points)"
    )


if __name__ == "__main__":
    main()
