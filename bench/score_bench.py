"""Benchmark: `efc-tui score` on a 100k-event trace against bare orjson parsing.

Generates a native efc-trace/1 file of N events (about 1 KB of observation text each:
tool output, test summaries, tracebacks, with realistic repetition), then prints the time
of orjson-parsing every line (in process) and of `efc-tui score` on the same file (as a
subprocess, start-up included), wall and CPU, and their ratios (the best of each, and the
median of each turn's score over the parse run just before it: the host's speed drifts
between minutes, which the best of each can mix); the same with the compiled
fast path switched off (EFC_TUI_PURE_PYTHON=1); and the peak memory of scoring 5 and 40
runs, which should not grow with the number of runs. Target (issue 13): score <= 5x the
bare parse (moonshot 2x).

    .venv/bin/python bench/score_bench.py [--events 100000] [--repeat 3] [--keep]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "value",
    "result",
    "config",
    "module",
    "handler",
    "request",
    "response",
    "cache",
    "session",
    "token",
    "parser",
    "output",
    "error",
    "retry",
    "timeout",
    "buffer",
    "stream",
    "client",
    "server",
]


def observation(rng: random.Random, t: int) -> tuple[str, str, str, dict | None]:
    r = rng.random()
    if r < 0.15:
        failed = rng.randint(0, 3)
        passed = 40 - failed
        lines = [
            f"tests/test_mod{t % 17}.py::test_case_{i} {'FAILED' if i < failed else 'PASSED'}"
            for i in range(12)
        ]
        lines.append(
            f"E   AssertionError: expected {rng.randint(0, 9)} got {rng.randint(0, 9)}"
            if failed
            else ""
        )
        lines.append(
            f"===== {failed} failed, {passed} passed in {rng.random():.2f}s ====="
            if failed
            else f"===== {passed} passed in {rng.random():.2f}s ====="
        )
        status = "assertion_error" if failed else "passed"
        return (
            "check",
            "pytest -q tests/",
            "\n".join(lines),
            {"passed": passed, "failed": failed, "total": 40} | {"status": status},
        )
    if r < 0.25:
        tb = ["Traceback (most recent call last):"]
        tb += [
            f'  File "src/pkg/mod{rng.randint(0, 30)}.py", line {rng.randint(1, 400)}, in fn_{rng.randint(0, 50)}'
            for _ in range(8)
        ]
        tb.append(f"KeyError: 'key_{rng.randint(0, 20)}'")
        return "tool", f"python scripts/run_{t % 11}.py", "\n".join(tb), {"status": "runtime_error"}
    path = f"src/pkg/mod{rng.randint(0, 200)}.py"
    lines = [f"{i:4d}  {' '.join(rng.choices(WORDS, k=7))}" for i in range(18)]
    return "tool", f"sed -n 1,18p {path}", "\n".join(lines), None


def generate(path: Path, n: int, seed: int = 0) -> int:
    rng = random.Random(seed)
    size = 0
    with path.open("wb") as f:
        head = {
            "type": "run",
            "schema": "efc-trace/1",
            "run_id": "bench",
            "task_id": "bench",
            "success": False,
            "task_demand": {"L": 20, "H_tool": 1.5, "S_state": 2, "N_obs": 0.1, "V_ver": 0.5},
        }
        f.write(orjson.dumps(head) + b"\n")
        for t in range(n):
            kind, cmd, text, extra = observation(rng, t)
            obs: dict = {"text": text}
            if extra:
                obs["status"] = extra.pop("status")
                if extra:
                    obs["checks"] = extra
            step = {
                "type": "step",
                "t": t,
                "action": {"kind": kind, "tool": "bash", "input": cmd},
                "observation": obs,
                "usage": {
                    "tokens_in": 800 + rng.randint(0, 400),
                    "tokens_out": rng.randint(20, 200),
                    "wall_s": round(rng.random() * 3, 3),
                },
            }
            line = orjson.dumps(step) + b"\n"
            size += len(line)
            f.write(line)
    return size


def time_parse(path: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of an orjson parse of every line, in this process."""
    t0, c0 = time.perf_counter(), time.process_time()
    with path.open("rb") as f:
        for line in f:
            orjson.loads(line)
    return time.perf_counter() - t0, time.process_time() - c0


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def installed_env(**extra: str) -> dict[str, str]:
    """The environment of a timed child: byte code cached as in an installed package (a
    PYTHONDONTWRITEBYTECODE=1 shell would make every run compile the package from source,
    ~0.3 s that an install never pays)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(extra)
    return env


def warm_up(tmp: Path) -> None:
    """One untimed `score` of a small trace, each path: the byte code is written."""
    small = tmp / "warm.jsonl"
    generate(small, 50)
    for pure in (False, True):
        time_score(small, pure)


def time_score(path: Path, pure: bool = False) -> tuple[float, float]:
    """(wall, CPU) seconds of `efc-tui score` as a subprocess, start-up included;
    ``pure``: with the compiled fast path switched off."""
    exe = Path(sys.executable).with_name("efc-tui")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "efc_tui"]
    env = installed_env(EFC_TUI_PURE_PYTHON="1" if pure else "0")
    t0, c0 = time.perf_counter(), _child_cpu()
    subprocess.run(
        [*cmd, "score", str(path), "--jsonl", "--quiet"],
        check=True,
        stdout=subprocess.DEVNULL,
        env=env,
    )
    return time.perf_counter() - t0, _child_cpu() - c0


def peak_rss_mb(folder: Path) -> float:
    """Peak resident memory of `efc-tui score --jsonl` over a folder (MB)."""
    exe = Path(sys.executable).with_name("efc-tui")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "efc_tui"]
    code = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
        "stdout=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *cmd, "score", str(folder), "--jsonl", "--quiet"],
        check=True,
        capture_output=True,
        text=True,
        env=installed_env(),
    ).stdout
    return int(out) / 1024


def memory_by_runs(tmp: Path, counts: tuple[int, ...] = (5, 40), events: int = 1000) -> list[float]:
    """Peak memory of scoring folders of ``counts`` runs of ``events`` events each: flat in
    the number of runs when nothing is kept from one run to the next."""
    one = tmp / "one.jsonl"
    generate(one, events)
    head, *steps = one.read_bytes().splitlines(keepends=True)
    body = b"".join(steps)
    out = []
    for n in counts:
        folder = tmp / f"runs{n}"
        folder.mkdir()
        for i in range(n):
            h = orjson.loads(head)
            h["run_id"] = f"run{i}"
            (folder / f"run{i}.jsonl").write_bytes(orjson.dumps(h) + b"\n" + body)
        out.append(peak_rss_mb(folder))
    return out


def best(runs: list[tuple[float, float]]) -> tuple[float, float]:
    """The fastest wall time and the least CPU time of several runs."""
    return min(w for w, _ in runs), min(c for _, c in runs)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3, help="take the best of this many runs")
    ap.add_argument("--keep", action="store_true", help="keep the generated trace")
    ap.add_argument(
        "--no-pure",
        dest="pure",
        action="store_false",
        help="skip the run with the compiled fast path switched off",
    )
    ap.add_argument(
        "--no-memory",
        dest="memory",
        action="store_false",
        help="skip the memory check (5 vs 40 runs)",
    )
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="efc-bench-"))
    path = tmp / "bench.jsonl"
    size = generate(path, args.events)
    print(
        f"trace: {args.events:,} events, {size / 1e6:.1f} MB ({size / args.events:.0f} B/event) at {path}"
    )
    from efc_tui import _fast

    warm_up(tmp)
    # parse and score in turn, so that both see the machine as it is (its speed drifts on a
    # shared host): the ratio compares the best of each over the same minutes
    parses, scores = [], []
    for _ in range(args.repeat):
        parses.append(time_parse(path))
        scores.append(time_score(path))
    parse, score = best(parses), best(scores)
    pure = best([time_score(path, pure=True) for _ in range(args.repeat)]) if args.pure else None
    print(f"best of {args.repeat}; wall time, and CPU time (steadier on a busy machine)")
    print(f"orjson parse of every line : {parse[0]:7.2f} s wall {parse[1]:7.2f} s CPU")
    print(
        f"efc-tui score (subprocess) : {score[0]:7.2f} s wall {score[1]:7.2f} s CPU  [{_fast.STATUS}]"
    )
    print(
        f"ratio score / parse        : {score[0] / parse[0]:7.2f} x wall {score[1] / parse[1]:5.2f} x CPU"
        "   (target <= 5x, moonshot 2x)"
    )
    paired = sorted(s[1] / p[1] for p, s in zip(parses, scores, strict=True))
    print(
        f"paired ratio (CPU)         : {statistics.median(paired):7.2f} x median of the "
        f"{len(paired)} turns (each score over the parse just before it; "
        f"{paired[0]:.2f}-{paired[-1]:.2f})"
    )
    print(f"per event                  : {score[0] / args.events * 1e6:7.1f} us wall")
    if pure is not None:
        print(
            f"pure Python (EFC_TUI_PURE_PYTHON=1): {pure[0]:7.2f} s wall {pure[1]:7.2f} s CPU = "
            f"{pure[0] / parse[0]:.2f}x wall {pure[1] / parse[1]:.2f}x CPU the parse; the compiled "
            f"path is {pure[1] / score[1]:.2f}x faster (CPU)"
        )
    if args.memory:
        small, large = memory_by_runs(tmp)
        print(
            f"peak memory, 5 runs vs 40 runs of 1,000 events: {small:.0f} MB vs {large:.0f} MB "
            f"({large / small:.2f}x)"
        )
    if not args.keep:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
