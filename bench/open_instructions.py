"""Benchmark: CPU instructions up to `efc-tui open`'s first frame with rows (valgrind).

Wall-clock figures on a shared machine move with its load (``open_bench.py`` prints them
with same-run ratios); the number of instructions a process executes up to the same moment
barely moves, so a change of a few milliseconds shows. For each generated log (the formats
and step counts of ``bench/docgen.py``) this runs `efc-tui open PATH` as the console script
does (``_open_child.py``, app headless at 120x40) under ``valgrind --tool=callgrind``,
ending the process at the first frame that shows ledger rows, and the floor (a Textual app
showing one table row, reading nothing) the same way, and prints both and their ratio.

The counts are made steady by: ``PYTHONHASHSEED=0`` (hash randomization moves them by
~1.5%); byte code cached first (a run that compiles sources counts the compiler); the
app's waits raised (``--slow``: valgrind is ~50x slower, and the waits for the first rows
and the first frame would time out); the least of ``--repeat`` runs (the load thread hands
rows over, so the counts still move a little with timing). Figures depend on the Python
build and the versions of Textual and Rich: compare runs made on one machine.

    .venv/bin/python bench/open_instructions.py [--steps 10000] [--formats mini-swe-agent] [--repeat 3]

Needs valgrind (e.g. ``apt install valgrind``); each run takes ~20 s.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from docgen import FORMATS

CHILD = Path(__file__).resolve().parent / "_open_child.py"
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONHASHSEED="0", TEXTUAL_ANIMATIONS="none")
    return env


def instructions(argv: list[str], repeat: int) -> int:
    """The least instruction count of ``repeat`` runs of the child with ``argv``."""
    counts = []
    for _ in range(repeat):
        r = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--callgrind-out-file=/dev/null",
                sys.executable,
                str(CHILD),
                *argv,
                "--until-first",
                "--slow",
            ],
            capture_output=True,
            text=True,
            env=child_env(),
            check=True,
        )
        m = _REFS.search(r.stderr)
        if m is None:
            raise SystemExit(f"no instruction count in valgrind's output:\n{r.stderr[-2000:]}")
        counts.append(int(m.group(1).replace(",", "")))
    return min(counts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", default="10000", help="comma-separated run lengths")
    ap.add_argument(
        "--formats",
        default="mini-swe-agent",
        help=f"comma-separated formats of bench/docgen.py, or all ({', '.join(FORMATS)})",
    )
    ap.add_argument("--repeat", type=int, default=3, help="runs per measure (the least is kept)")
    args = ap.parse_args()
    formats = list(FORMATS) if args.formats == "all" else args.formats.split(",")
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        ap.error(f"unknown format(s) {', '.join(unknown)}; known: {', '.join(FORMATS)}")
    if shutil.which("valgrind") is None:  # `make bench` goes on without it
        print("open_instructions: skipped (valgrind is not installed; it counts the instructions)")
        return

    tmp = Path(tempfile.mkdtemp(prefix="efc-open-instructions-"))
    try:
        suffix, generate = FORMATS["mini-swe-agent"]
        warm = tmp / f"warm{suffix}"
        generate(warm, 20, 0)
        for argv in (["efc", str(warm)], ["viewer", "-"]):  # byte code written, not counted
            subprocess.run(
                [sys.executable, str(CHILD), *argv, "--until-first"],
                capture_output=True,
                env=child_env(),
                check=True,
            )
        floor = instructions(["viewer", "-"], args.repeat)
        print(
            f"instructions up to the first frame with rows, least of {args.repeat} runs (G = 10^9)"
        )
        print(f"{'format':>14} {'steps':>8} | {'efc-tui open':>12} {'x floor':>8} {'- floor':>8}")
        for n in (int(s) for s in args.steps.split(",")):
            for fmt in formats:
                suffix, generate = FORMATS[fmt]
                doc = tmp / f"{fmt}-{n}{suffix}"
                generate(doc, n, 0)
                ours = instructions(["efc", str(doc)], args.repeat)
                doc.unlink()
                print(
                    f"{fmt:>14} {n:>8,} | {ours / 1e9:11.3f}G {ours / floor:7.2f}x"
                    f" {(ours - floor) / 1e9:7.3f}G",
                    flush=True,
                )
        print(f"floor: a Textual app showing one table row, reading nothing: {floor / 1e9:.3f}G")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
