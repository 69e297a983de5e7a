"""Benchmark: the first screen of `efc-tui open` on whole-document logs of every reader.

Generates logs of 100, 10k and 100k steps (``bench/docgen.py``: mini-swe-agent ``.traj.json``,
SWE-agent ``.traj``, OpenHands, Inspect ``.json`` and ATIF ``trajectory.json``, shaped as
the real tools write them; the same ~1.2 KB of text a step in each), and for each opens it
in a fresh process (the app headless at 120x40, as `efc-tui open` would run it) and prints,
from the moment the process is started:

- app imported: the CLI has parsed its arguments and checked the file, and imported the app;
- first screen: the first frame that shows ledger rows is drawn (the issue's "first usable
  screen"), with `efc-tui open PATH` run as the console script runs it (the CLI's imports
  and checks included), the app headless at 120x40;
- all read: every event is in the ledger; scored: scores are shown (``--scored``);

and the same-run baselines it is compared with:

- a bare `orjson.loads` of the same file in this process (the least any reader of a whole
  document must spend);
- `efc-tui open` on the same number of events as a native efc-trace/1 file (read a batch
  of lines at a time: rows on screen before the whole file is read);
- a minimal Textual viewer that parses the whole mini-swe-agent file with orjson and shows
  its first messages in a DataTable (a stand-in for a peer such as mini-swe-agent's inspector, which
  is a Textual app too), and the same app showing one row without reading anything: the
  floor (Python, Textual and a first frame) under every figure here;
- mini-swe-agent's own inspector is not measured here: the figures of issue 13, measured
  on one machine, are printed for reference.

Each figure comes from a fresh process (``bench/_open_child.py``, which says exactly what
is stamped): "first screen" is when Textual hands the first frame showing ledger rows to
the terminal; the viewer and the floor are stamped the same way.

No thresholds here (tests hold no timing assertions). Targets (issue 13): first screen
< 1 s at 100k steps and < 0.5 s at 10k. The machine's load changes every figure: compare
the ratios printed in one run.

    .venv/bin/python bench/open_bench.py [--steps 100,10000,100000] [--formats all] [--repeat 1]
                                         [--scored] [--keep]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from docgen import FORMATS
from score_bench import generate as generate_native

#: the measured process: `efc-tui open` as the console script runs it, or the viewer
CHILD = Path(__file__).resolve().parent / "_open_child.py"
#: issue 13's figures for mini-swe-agent's inspector (one machine, not this run)
INSPECTOR_ISSUE_S = {100: 0.48, 10_000: 0.73, 100_000: 2.07}

# -------------------------------------------------------------------------- the parent side


def open_once(path: Path | None, scored: bool, viewer: bool = False) -> dict[str, float]:
    """Seconds from starting a process to each stamp, for one fresh `open` (``viewer``:
    the minimal Textual viewer; with no path, its floor)."""
    # byte code cached as in an installed package (not compiled from source in every run)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if viewer:
        argv = ["viewer", str(path) if path is not None else "-"]
    else:
        argv = ["efc", str(path), *(["--scored"] if scored else [])]
    t0 = time.perf_counter()
    r = subprocess.run(
        [sys.executable, str(CHILD), *argv],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    stamps = json.loads(r.stdout.strip().splitlines()[-1])
    return {
        k: (v - t0 if k in ("imported", "first", "read", "scored") else v)
        for k, v in stamps.items()
    }


def best_open(
    path: Path | None, scored: bool, repeat: int, viewer: bool = False
) -> dict[str, float]:
    runs = [open_once(path, scored, viewer) for _ in range(repeat)]
    return min(runs, key=lambda r: r["first"])


def ratio(a: float, b: float) -> str:
    """``a / b`` in 8 characters: two decimals below 10, none above."""
    r = a / b
    return f"{r:7.2f}x" if r < 10 else f"{r:7.0f}x"


def bare_parse(path: Path, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        orjson.loads(path.read_bytes())
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", default="100,10000,100000", help="comma-separated run lengths")
    ap.add_argument(
        "--formats",
        default="all",
        help=f"comma-separated formats of bench/docgen.py, or all ({', '.join(FORMATS)})",
    )
    ap.add_argument("--repeat", type=int, default=1, help="opens per file (best is kept)")
    ap.add_argument("--scored", action="store_true", help="also wait until the scores are shown")
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    args = ap.parse_args()
    formats = list(FORMATS) if args.formats == "all" else args.formats.split(",")
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        ap.error(f"unknown format(s) {', '.join(unknown)}; known: {', '.join(FORMATS)}")

    inspector = importlib.util.find_spec("minisweagent") is not None
    tmp = Path(tempfile.mkdtemp(prefix="efc-open-bench-"))
    print(
        f"best of {args.repeat} fresh process(es) per file; seconds from process start "
        "(CPU: the process's CPU time at the first screen)"
    )
    print(
        f"{'format':>14} {'steps':>8} {'MB':>6} | {'app imported':>12} {'first screen':>12}"
        f" {'(CPU)':>6} {'all read':>9}"
        + (f"{'scored':>8}" if args.scored else "")
        + f" | {'bare parse':>10} {'x parse':>8} | {'native first':>12} {'x native':>8}"
        f" | {'viewer':>7} {'x viewer':>8} | {'inspector*':>10} {'x insp.':>7}"
    )
    suffix, generate = FORMATS["mini-swe-agent"]
    warm = tmp / f"warm{suffix}"
    generate(warm, 20, 0)
    open_once(warm, False)  # untimed: the byte code is written
    open_once(warm, False, viewer=True)
    floor = best_open(None, False, max(args.repeat, 3), viewer=True)["first"]
    for n in (int(s) for s in args.steps.split(",")):
        native = tmp / f"run{n}.jsonl"
        generate_native(native, n)
        base = best_open(native, False, args.repeat)
        for fmt in formats:
            suffix, generate = FORMATS[fmt]
            doc = tmp / f"{fmt}-{n}{suffix}"
            size = generate(doc, n, 0)
            ours = best_open(doc, args.scored, args.repeat)
            parse = bare_parse(doc, max(args.repeat, 3))
            scored = f" {ours['scored']:7.2f}" if args.scored else ""
            mini = fmt == "mini-swe-agent"  # the viewer and the inspector read this one
            view_s = f"{'-':>7} {'-':>8}"
            if mini:
                view = best_open(doc, False, args.repeat, viewer=True)
                view_s = f"{view['first']:7.2f} {ours['first'] / view['first']:7.2f}x"
            insp = INSPECTOR_ISSUE_S.get(n) if mini else None
            insp_s = (
                f"{insp:10.2f} {ours['first'] / insp:6.2f}x"
                if insp is not None
                else f"{'-':>10} {'-':>7}"
            )
            print(
                f"{fmt:>14} {n:>8,} {size / 1e6:6.1f} | {ours['imported']:12.2f}"
                f" {ours['first']:12.2f} {ours['first_cpu']:6.2f} {ours['read']:9.2f}{scored}"
                f" | {parse:10.3f} {ratio(ours['first'], parse)}"
                f" | {base['first']:12.2f} {ours['first'] / base['first']:7.2f}x"
                f" | {view_s} | {insp_s}",
                flush=True,
            )
        doc_files = [f for f in tmp.iterdir() if f.name != warm.name]
        if not args.keep:  # 100k steps of every format is ~1.8 GB
            for f in doc_files:
                f.unlink()
    print(
        f"floor: a Textual app showing one row, reading nothing: {floor:.2f} s "
        "(every first screen here includes it)"
    )
    print(
        "native: `efc-tui open` of the same steps as an efc-trace/1 file (read a batch of "
        "lines at a time); viewer: a minimal Textual viewer that parses the whole "
        "mini-swe-agent file and shows its first messages (the same-run stand-in for a peer's)"
    )
    print(
        "* mini-swe-agent's inspector: "
        + (
            "installed, but not measured by this bench; figures are issue 13's (another run)"
            if inspector
            else "not installed; figures are issue 13's (one machine, another run)"
        )
    )
    print("targets (issue 13): first screen < 1 s at 100k steps, < 0.5 s at 10k, every format")
    if args.keep:
        print(f"files kept in {tmp}")
    else:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
