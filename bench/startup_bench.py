"""Benchmark: start-up of the command line (issue 13 goal 3: `--version` and `--help` < 0.2 s).

Runs each command as a fresh subprocess N times and prints the best and the median wall
time, against baselines measured in the same run: a bare interpreter (`python -c pass`)
and `import typer` (the least `--help` can cost). On a shared machine the medians wander;
the best of N and the ratios to the baselines are the figures to compare.

Byte code is cached as in an installed package: the children run without
PYTHONDONTWRITEBYTECODE (a shell with it set would make every run compile the package from
source, ~0.2 s an install never pays), after one untimed warm-up run of each command.

    .venv/bin/python bench/startup_bench.py [--repeat 15]

Before this work (issue 13, one machine): `--version` 0.56 s, scoring a 20-event file 0.97 s.
One session on the shared 2-core machine, best of 9, the code before and after the lazy
commands, readers and option parsing (issue 13 goal 3): `--help` 0.161 → 0.102 s,
`score --help` 0.258 → 0.113 s, `open --help` 0.261 → 0.130 s, `score` on a 20-event file
0.536 → 0.344 s (bare interpreter 0.015 s, `import typer` 0.082 s); what is left of that
`score` is mostly numpy (~0.1 s, the scoring core's) and Typer.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from score_bench import generate

PY = sys.executable
EXE = Path(PY).with_name("efc-tui")
CLI = [str(EXE)] if EXE.exists() else [PY, "-m", "efc_tui"]


#: the children's environment: byte code written once and then read, as after an install
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str], repeat: int) -> tuple[float, float]:
    """(best, median) wall seconds of ``cmd`` over ``repeat`` runs, after one untimed run."""
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "small.jsonl"
        generate(small, 20)
        cases = [
            ("python -c pass (baseline)", [PY, "-c", "pass"]),
            ("import typer (baseline)", [PY, "-c", "import typer"]),
            ("efc-tui --version", [*CLI, "--version"]),
            ("efc-tui --help", [*CLI, "--help"]),
            ("efc-tui score --help", [*CLI, "score", "--help"]),
            ("efc-tui open --help", [*CLI, "open", "--help"]),
            ("import efc_tui.errors", [PY, "-c", "import efc_tui.errors"]),
            ("efc-tui score (20 events)", [*CLI, "score", str(small), "--jsonl", "--quiet"]),
        ]
        results = {name: timed(cmd, args.repeat) for name, cmd in cases}
    bare = results["python -c pass (baseline)"][0]
    typer_ = results["import typer (baseline)"][0]
    print(
        f"{'command':28s} {'best':>8s} {'median':>8s}  {'best / bare':>11s}  {'best / typer':>12s}"
    )
    for name, (best, med) in results.items():
        print(f"{name:28s} {best:7.3f}s {med:7.3f}s  {best / bare:10.1f}x  {best / typer_:11.2f}x")
    print(f"({args.repeat} runs each; target: --version and --help < 0.2 s)")


if __name__ == "__main__":
    main()
