"""Speed-up of ``--dask`` on a simulated corpus of 10,000+ runs, against the local path
measured in the same run (issue 16).

    .venv/bin/python bench/dask_bench.py [--tasks 120] [--workers 1,2] [--keep DIR] [--no-fit]

Simulates ``--tasks`` tasks per family (3 families × 7 harnesses × 4 budgets, one model: 84
runs per task, 10,080 runs by default), counts the runs the local path scores, then times,
end to end as a user runs them (start-up, cluster start and shut-down included):

- ``efc-tui score CORPUS --jsonl`` locally (the baseline) and with ``--dask-workers N``;
- ``efc-tui fit CORPUS -o FIT.json --bootstrap 1000`` the same way (``--no-fit`` skips it);

and checks that every output (the JSONL, the fit file) is byte-identical to the local one. Prints wall times,
speed-ups against the local path and how the wall time changes from 1 to 2 workers, and
the time a local cluster takes to start and stop (measured alone). No assertion: the
machine may be shared, so read the ratios, not the seconds. Needs ``efc-tui[dask]``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EFC = [sys.executable, "-m", "efc_tui"]


def timed(args: list[str]) -> tuple[float, str, int]:
    """Wall seconds of one command, the sha256 of its stdout and its stdout's lines."""
    t0 = time.perf_counter()
    r = subprocess.run([*EFC, *args], capture_output=True, check=False)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): efc-tui {' '.join(args)}\n{r.stderr.decode()[-2000:]}")
    return dt, hashlib.sha256(r.stdout).hexdigest(), r.stdout.count(b"\n")


def one_model() -> list[str]:
    """``--models sim-base`` when the simulator has a model axis (84 runs per task, not 84
    per model), else nothing."""
    r = subprocess.run([*EFC, "simulate", "--help"], capture_output=True, check=False)
    return ["--models", "sim-base"] if b"--models" in r.stdout else []


def cluster_overhead(workers: int) -> float:
    code = (
        "from efc_tui.cluster.client import connect\n"
        f"with connect(workers={workers}) as c:\n"
        "    c.submit(sum, [1, 2]).result()\n"
    )
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=120, help="tasks per family (84 runs each)")
    ap.add_argument("--workers", default="1,2", help="local cluster sizes to time")
    ap.add_argument("--keep", type=Path, default=None, help="simulate into (or reuse) this folder")
    ap.add_argument("--no-fit", dest="fit", action="store_false", help="time score only")
    ap.add_argument("--resamples", type=int, default=1000, help="fit's bootstrap resamples")
    args = ap.parse_args()
    sizes = [int(w) for w in args.workers.split(",") if w.strip()]

    tmp = Path(tempfile.mkdtemp(prefix="efc-dask-bench-"))
    corpus = args.keep or tmp / "corpus"
    try:
        if not (corpus / "corpus.manifest").is_file():
            t0 = time.perf_counter()
            subprocess.run(
                [
                    *EFC,
                    "simulate",
                    "-o",
                    str(corpus),
                    "-n",
                    str(args.tasks),
                    "-j",
                    "2",
                    "-q",
                    *one_model(),
                ],
                check=True,
            )
            print(f"simulated {corpus} in {time.perf_counter() - t0:.1f} s")
        files = sorted(corpus.glob("*.jsonl"))
        size = sum(f.stat().st_size for f in files)
        base, ref, runs = timed(["score", str(corpus), "--jsonl", "-q"])
        print(
            f"corpus: {runs:,} runs in {len(files)} files, {size / 1e6:.0f} MB; "
            f"cpus {os.cpu_count()} (a shared machine: compare ratios)"
        )
        print(f"score, local path          {base:7.1f} s  (baseline)")
        walls: dict[int, float] = {}
        for n in sizes:
            dt, digest, _ = timed(["score", str(corpus), "--jsonl", "-q", "--dask-workers", str(n)])
            walls[n] = dt
            same = "identical output" if digest == ref else "OUTPUT DIFFERS"
            print(f"score, --dask-workers {n}    {dt:7.1f} s  speed-up {base / dt:4.2f}x  ({same})")
        if 1 in walls and 2 in walls:
            print(
                f"1 -> 2 workers: wall time x{walls[2] / walls[1]:.2f} "
                f"(ideal 0.50 on 2 free cores), speed-up {walls[1] / walls[2]:.2f}x"
            )
        if args.fit:
            fit_args = [
                "fit",
                str(corpus),
                "--bootstrap",
                str(args.resamples),
                "--no-terminal-plot",
                "-q",
            ]
            out = tmp / "local.fit.json"
            base, _, _ = timed([*fit_args, "-o", str(out)])
            ref_fit = out.read_bytes()
            print(f"fit --bootstrap {args.resamples}, local path {base:7.1f} s  (baseline)")
            fwalls: dict[int, float] = {}
            for n in sizes:
                out = tmp / f"dask{n}.fit.json"
                dt, _, _ = timed([*fit_args, "-o", str(out), "--dask-workers", str(n)])
                fwalls[n] = dt
                same = "identical fit file" if out.read_bytes() == ref_fit else "FIT DIFFERS"
                print(
                    f"fit, --dask-workers {n}      {dt:7.1f} s  speed-up {base / dt:4.2f}x  ({same})"
                )
            if 1 in fwalls and 2 in fwalls:
                print(
                    f"1 -> 2 workers: wall time x{fwalls[2] / fwalls[1]:.2f}, speed-up {fwalls[1] / fwalls[2]:.2f}x"
                )
        for n in sizes:
            print(f"local cluster of {n} start + stop, alone: {cluster_overhead(n):.1f} s")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
