"""The differential fuzz target at length (issue 32): mutated real and generated logs through
the compiled and the pure-Python path, counting inputs, crashes and differences.

    python bench/fuzz_bench.py --seconds 600 [--jobs 2] [--out build/fuzz]
    python bench/fuzz_bench.py --inputs 100000

tests/fuzz_diff.py does the work (and says what is compared); tests/compiled/test_fuzz_diff.py runs
it briefly. Each job is a process of its own with its own random seed, so a sanitizer abort
(run it under ``make sanitize``'s build: EFC_TUI_SPEEDUPS, LD_PRELOAD of libasan) ends one
job, is reported with its output and counts as a crash. Every finding's input is written to
``--out`` (default: a temporary folder, named at the end, and removed when nothing was found).
Exit 1 on any finding.
Long: run it alone on the machine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def worker(args: argparse.Namespace) -> int:
    from efc_tui import _fast
    from tests import fuzz_diff

    out = Path(args.out)
    seeds = fuzz_diff.seeds(shared=not args.no_shared)
    if args.native_only:
        seeds = [s for s in seeds if s.reader == "native"]

    def keep(f: fuzz_diff.Finding) -> None:
        n = len(list(out.glob(f"job{args.job}-*")))
        base = out / f"job{args.job}-{n:04d}-{f.kind}"
        base.with_suffix(".input").write_bytes(f.data)
        base.with_suffix(".txt").write_text(f"{f.kind} {f.seed} ({f.reader})\n{f.detail}\n")

    def progress(t: fuzz_diff.Tally) -> None:
        (out / f"job{args.job}.progress").write_text(f"{t.inputs}\n")

    start = time.monotonic()
    tally = fuzz_diff.run(
        seeds,
        inputs=args.inputs,
        seconds=args.seconds,
        full_every=args.full_every,
        rng_seed=args.seed,
        on_finding=keep,
        progress=progress,
    )
    summary = {
        "job": args.job,
        "status": _fast.STATUS,
        "speedups": getattr(_fast.speedups(), "__file__", None),
        "seconds": round(time.monotonic() - start, 1),
        "seeds": len(seeds),
        "inputs": tally.inputs,
        "by_reader": tally.by_reader,
        "rejected_by_both": tally.errors,
        "crashes": len(tally.crashes),
        "differences": len(tally.differences),
        "slowest_input_s": round(tally.slowest, 3),
        "slowest_seed": tally.slowest_seed,
    }
    (out / f"job{args.job}.json").write_text(json.dumps(summary, indent=1))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, help="stop after this long (per job)")
    ap.add_argument("--inputs", type=int, help="stop after this many inputs (per job)")
    ap.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    ap.add_argument("--seed", type=int, default=0, help="random seed of the first job")
    ap.add_argument(
        "--full-every", type=int, default=10, help="every Nth native input is also scored"
    )
    ap.add_argument("--native-only", action="store_true", help="only the native reader's seeds")
    ap.add_argument("--no-shared", action="store_true", help="leave ../shared's seeds out")
    ap.add_argument("--out", help="folder for the findings (default: a temporary one)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--job", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.seconds is None and args.inputs is None:
        ap.error("give --seconds or --inputs")
    if args.worker:
        return worker(args)

    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="efc-fuzz-findings-"))
    out.mkdir(parents=True, exist_ok=True)
    procs = []
    for job in range(args.jobs):
        cmd = [sys.executable, __file__, "--worker", "--job", str(job), "--out", str(out)]
        cmd += ["--seed", str(args.seed + job), "--full-every", str(args.full_every)]
        if args.seconds is not None:
            cmd += ["--seconds", str(args.seconds)]
        if args.inputs is not None:
            cmd += ["--inputs", str(args.inputs)]
        cmd += ["--native-only"] * args.native_only + ["--no-shared"] * args.no_shared
        log = (out / f"job{job}.log").open("wb")
        procs.append((job, subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT), log))
    total = {"inputs": 0, "crashes": 0, "differences": 0, "rejected_by_both": 0}
    readers: dict[str, int] = {}
    aborted = []
    for job, proc, log in procs:
        rc = proc.wait()
        log.close()
        summary_file = out / f"job{job}.json"
        if rc != 0 or not summary_file.is_file():
            # killed by a sanitizer (or anything else) mid-run: its progress so far counts
            done = out / f"job{job}.progress"
            total["inputs"] += int(done.read_text()) if done.is_file() else 0
            total["crashes"] += 1
            aborted.append(f"job {job} exited {rc}: see {out / f'job{job}.log'}")
            continue
        s = json.loads(summary_file.read_text())
        for k in total:
            total[k] += s[k]
        for k, v in s["by_reader"].items():
            readers[k] = readers.get(k, 0) + v
        print(
            f"job {job}: {s['inputs']} inputs in {s['seconds']} s, {s['crashes']} crashes, "
            f"{s['differences']} differences, slowest input {s['slowest_input_s']} s "
            f"({s['slowest_seed']}); {s['status']} {s['speedups'] or ''}"
        )
    print(
        f"total: {total['inputs']} inputs ({total['rejected_by_both']} rejected by both paths "
        f"with the same error), {total['crashes']} crashes, {total['differences']} differences"
    )
    native = sum(v for k, v in readers.items() if k.startswith("native/"))
    print(f"native reader: {native} inputs ({readers.get('native/full', 0)} of them also scored)")
    others = {k.split("/")[0]: v for k, v in readers.items() if not k.startswith("native/")}
    print(
        "other readers (read and scored): "
        + ", ".join(f"{k} {v}" for k, v in sorted(others.items()))
    )
    for line in aborted:
        print(line)
    found = bool(total["crashes"] or total["differences"])
    if found or args.out:
        print(f"findings and logs: {out}")
    else:  # a temporary folder with nothing found in it: not left behind
        shutil.rmtree(out, ignore_errors=True)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
