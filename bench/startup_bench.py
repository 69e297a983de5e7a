"""Benchmark: start-up of the command line (issue 34 goals: `--version` and `--help` < 0.2 s,
`score` of a small file < 0.35 s).

Runs each command as a fresh subprocess N times and prints the best and the median wall
time and the least CPU time (every thread), against baselines measured in the same run: a
bare interpreter (`python -c pass`), `import typer` (the least `--help` can cost) and
`import numpy` (the scoring core's arrays need it). Typer reads every command line (`efc_tui/cli/_app.py`), building the one command asked for.
`score` of a 20-event file is timed writing JSON lines and with its table (rich). On a
shared machine the medians wander; the best of N, the CPU times and the ratios to the
baselines are the figures to compare.

Byte code is cached as in an installed package: the children run without
PYTHONDONTWRITEBYTECODE (a shell with it set would make every run compile the package from
source, ~0.2 s an install never pays), after one untimed warm-up run of each command.

    .venv/bin/python bench/startup_bench.py [--repeat 15]

Issue 34, Typer for every command (one session on the shared 2-core machine at a load of
about 3.7; the same commands run as `python -m efc_tui`, interleaved, best wall / least
CPU of 15, e30a5fc with the hand-written parsers -> after): `--version` 0.017 / 0.016 s
-> 0.063 / 0.062 s; `--help` 0.078 / 0.077 -> 0.069 / 0.067; `score --help` 0.119 / 0.085
-> 0.173 / 0.170; `score` of 20 events (JSON lines) 0.168 / 0.156 -> 0.343 / 0.271, with
the table 0.230 / 0.185 -> 0.385 / 0.298; `hook claude-code` on an empty payload 0.048 /
0.047 -> 0.183 / 0.166 (baselines: a bare interpreter 0.011 s CPU, `import typer` 0.066,
`import pydantic` 0.055, `import numpy` 0.127). What Typer 0.29 added beyond its import was
pydantic: it converts every option value it reads through a pydantic `TypeAdapter`, and
builds one even for a flag that was not given. pyproject.toml pins `typer<0.29` for that;
with Typer 0.28 (one session, load about 0.8, best wall of 15): `--version` 0.059 s,
`--help` 0.059, `score` of 20 events 0.202 (was 0.288), with the table 0.238, and no
pydantic imported.
"""

from __future__ import annotations

import argparse
import os
import resource
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


def timed(cmd: list[str], repeat: int) -> tuple[float, float, float]:
    """(best, median) wall seconds and the least CPU seconds (user + system, every thread)
    of ``cmd`` over ``repeat`` runs, after one untimed run."""
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    times, cpus = [], []
    for _ in range(repeat):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(
            cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV
        )
        times.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
    return min(times), statistics.median(times), min(cpus)


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
            ("import numpy (baseline)", [PY, "-c", "import numpy"]),
            ("efc-tui score (20 events)", [*CLI, "score", str(small), "--jsonl", "--quiet"]),
            ("score, table (20 events)", [*CLI, "score", str(small)]),
        ]
        results = {name: timed(cmd, args.repeat) for name, cmd in cases}
    bare = results["python -c pass (baseline)"][0]
    typer_ = results["import typer (baseline)"][0]
    numpy_ = results["import numpy (baseline)"][0]
    print(
        f"{'command':28s} {'best':>8s} {'median':>8s} {'CPU':>8s}  {'best / bare':>11s}  "
        f"{'best / typer':>12s}"
    )
    for name, (best, med, cpu) in results.items():
        print(
            f"{name:28s} {best:7.3f}s {med:7.3f}s {cpu:7.3f}s  {best / bare:10.1f}x  "
            f"{best / typer_:11.2f}x"
        )
    print(f"({args.repeat} runs each; goals: --version and --help < 0.2 s, score < 0.35 s)")
    score, table = (
        results[k][0] for k in ("efc-tui score (20 events)", "score, table (20 events)")
    )
    print(
        f"score of a 20-event file: {score:.3f} s = {score / bare:.1f}x a bare interpreter, "
        f"{score / numpy_:.2f}x `import numpy` alone (the scoring core's floor), "
        f"{score - numpy_:+.3f} s beyond it; with the table (rich) {table:.3f} s"
    )


if __name__ == "__main__":
    main()
