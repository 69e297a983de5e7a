"""Benchmark: the first screen of `efc-tui open` on mini-swe-agent `.traj.json` runs.

Generates mini-swe-agent trajectories (format ``mini-swe-agent-1``: an assistant message
with a bash block, then the tool output, ~1.2 KB a step) of 100, 10k and 100k steps, and
for each opens it in a fresh process (the app headless at 120x40, as `efc-tui open` would
run it) and prints, from the moment the process is started:

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
- a minimal Textual viewer that parses the whole file with orjson and shows its first
  messages in a DataTable (a stand-in for a peer such as mini-swe-agent's inspector, which
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

    .venv/bin/python bench/open_bench.py [--steps 100,10000,100000] [--repeat 1] [--scored] [--keep]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from score_bench import WORDS, observation
from score_bench import generate as generate_native

#: the measured process: `efc-tui open` as the console script runs it, or the viewer
CHILD = Path(__file__).resolve().parent / "_open_child.py"
#: issue 13's figures for mini-swe-agent's inspector (one machine, not this run)
INSPECTOR_ISSUE_S = {100: 0.48, 10_000: 0.73, 100_000: 2.07}

SYSTEM = "You are a helpful assistant that can interact with a computer."
TASK = "Please solve this issue: the parser drops the last token of a quoted string."


def generate_traj(path: Path, n: int, seed: int = 0) -> int:
    """A mini-swe-agent-1 trajectory of ``n`` steps; the size in bytes."""
    rng = random.Random(seed)
    messages: list[dict[str, object]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": TASK},
    ]
    for t in range(n):
        _kind, cmd, text, extra = observation(rng, t)
        thought = " ".join(rng.choices(WORDS, k=24))
        messages.append(
            {"role": "assistant", "content": f"THOUGHT: {thought}\n\n```bash\n{cmd}\n```"}
        )
        rc = 1 if extra and extra.get("status") not in (None, "passed") else 0
        messages.append(
            {
                "role": "user",
                "content": f"<returncode>{rc}</returncode>\n<output>\n{text}\n</output>",
            }
        )
    doc = {
        "info": {
            "exit_status": "Submitted",
            "submission": "",
            "model_stats": {"instance_cost": 0.0, "api_calls": n},
            "mini_version": "1.13.4",
        },
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1",
    }
    data = orjson.dumps(doc)
    path.write_bytes(data)
    return len(data)


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


def best_open(path: Path | None, scored: bool, repeat: int, viewer: bool = False) -> dict[str, float]:
    runs = [open_once(path, scored, viewer) for _ in range(repeat)]
    return min(runs, key=lambda r: r["first"])


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
    ap.add_argument("--repeat", type=int, default=1, help="opens per file (best is kept)")
    ap.add_argument("--scored", action="store_true", help="also wait until the scores are shown")
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    args = ap.parse_args()

    inspector = importlib.util.find_spec("minisweagent") is not None
    tmp = Path(tempfile.mkdtemp(prefix="efc-open-bench-"))
    print(
        f"best of {args.repeat} fresh process(es) per file; seconds from process start "
        "(CPU: the process's CPU time at the first screen)"
    )
    print(
        f"{'steps':>8} {'MB':>6} | {'app imported':>12} {'first screen':>12} {'(CPU)':>6} {'all read':>9}"
        + (f"{'scored':>8}" if args.scored else "")
        + f" | {'bare parse':>10} {'x parse':>8} | {'native first':>12} {'(CPU)':>6} {'x native':>8}"
        f" | {'viewer':>7} {'x viewer':>8} | {'inspector*':>10} {'x insp.':>7}"
    )
    warm = tmp / "warm.traj.json"
    generate_traj(warm, 20)
    open_once(warm, False)  # untimed: the byte code is written
    open_once(warm, False, viewer=True)
    floor = best_open(None, False, max(args.repeat, 3), viewer=True)["first"]
    for n in (int(s) for s in args.steps.split(",")):
        traj, native = tmp / f"run{n}.traj.json", tmp / f"run{n}.jsonl"
        size = generate_traj(traj, n)
        generate_native(native, n)
        ours = best_open(traj, args.scored, args.repeat)
        base = best_open(native, False, args.repeat)
        view = best_open(traj, False, args.repeat, viewer=True)
        parse = bare_parse(traj, max(args.repeat, 3))
        insp = INSPECTOR_ISSUE_S.get(n)
        scored = f" {ours['scored']:7.2f}" if args.scored else ""
        insp_s = (
            f"{insp:10.2f} {ours['first'] / insp:6.2f}x"
            if insp is not None
            else f"{'-':>10} {'-':>7}"
        )
        print(
            f"{n:>8,} {size / 1e6:6.1f} | {ours['imported']:12.2f} {ours['first']:12.2f}"
            f" {ours['first_cpu']:6.2f} {ours['read']:9.2f}{scored}"
            f" | {parse:10.3f} {ours['first'] / parse:7.0f}x"
            f" | {base['first']:12.2f} {base['first_cpu']:6.2f} {ours['first'] / base['first']:7.2f}x"
            f" | {view['first']:7.2f} {ours['first'] / view['first']:7.2f}x"
            f" | {insp_s}"
        )
    print(
        f"floor: a Textual app showing one row, reading nothing: {floor:.2f} s "
        "(every first screen here includes it)"
    )
    print(
        "viewer: a minimal Textual viewer that parses the whole file and shows its first "
        "messages (the same-run stand-in for a peer's)"
    )
    print(
        "* mini-swe-agent's inspector: "
        + (
            "installed, but not measured by this bench; figures are issue 13's (another run)"
            if inspector
            else "not installed; figures are issue 13's (one machine, another run)"
        )
    )
    print("targets (issue 13): first screen < 1 s at 100k steps, < 0.5 s at 10k")
    if args.keep:
        print(f"files kept in {tmp}")
    else:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
