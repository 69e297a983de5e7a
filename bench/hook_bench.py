"""Benchmark: the latency of one `efc-tui hook claude-code` call on a growing session.

For sessions of 100, 2,000 and 20,000 events (a Claude Code transcript written as Claude
Code writes it, ``tests/hookgen.py``), the state is first brought up to date, then the
transcript grows by one tool call and its result at a time and the hook is called
(PostToolUse) after each: the per-call time is the median of ``--calls`` such calls. Also
timed: the first call on the session (it reads and scores the whole transcript and keeps
the reader's checkpoint and the adapter's state), a call that finds no new line (a
PreToolUse right after), and the whole process (`python -m efc_tui hook claude-code`,
interpreter start-up and imports included, bytecode cached as in an installed package).

    .venv/bin/python bench/hook_bench.py [--sizes 100 2000 20000]
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

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from efc_tui.adapter.integrations.hook import HookOptions, handle  # noqa: E402
from efc_tui.pipeline import gc_policy  # noqa: E402
from tests import hookgen  # noqa: E402


def _median_ms(samples: list[float]) -> float:
    return 1000 * statistics.median(samples)


def bench_size(n: int, calls: int, procs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        plan = hookgen.session_calls(n + calls)
        t = hookgen.write_session(d / "s.jsonl", plan[:n])
        opts = HookOptions(harness="claude-code", mode="warn", state_dir=d / "state")
        t0 = time.perf_counter()
        handle(hookgen.payload("PostToolUse", t), opts)  # bring the state up to date
        first = time.perf_counter() - t0
        grow, idle = [], []
        for k in range(n, n + calls):
            cmd, out, err = plan[k]
            a, u = hookgen.call_lines(k + 1, cmd, out, is_error=err)
            with t.open("a") as f:
                f.write(a + "\n" + u + "\n")
            t0 = time.perf_counter()
            ans = handle(hookgen.payload("PostToolUse", t), opts)
            t1 = time.perf_counter()
            handle(hookgen.payload("PreToolUse", t), opts)
            t2 = time.perf_counter()
            assert "error" not in ans.audit and ans.verdicts, ans.audit
            grow.append(t1 - t0)
            idle.append(t2 - t1)
        # as installed: bytecode cached (a first, untimed process writes it if missing)
        env = {**os.environ, "EFC_TUI_HOOK_DIR": str(d / "state")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run(
            [sys.executable, "-m", "efc_tui", "hook", "claude-code"],
            input=hookgen.payload("PreToolUse", t),
            capture_output=True,
            env=env,
        )
        proc_new, proc_idle = [], []
        for k in range(n + calls, n + calls + procs):
            cmd, out, err = hookgen.session_calls(k + 1)[k]
            a, u = hookgen.call_lines(k + 1, cmd, out, is_error=err)
            with t.open("a") as f:
                f.write(a + "\n" + u + "\n")
            for sink, event in ((proc_new, "PostToolUse"), (proc_idle, "PreToolUse")):
                t0 = time.perf_counter()
                r = subprocess.run(
                    [sys.executable, "-m", "efc_tui", "hook", "claude-code"],
                    input=hookgen.payload(event, t),
                    capture_output=True,
                    env=env,
                )
                sink.append(time.perf_counter() - t0)
                assert r.returncode == 0 and not r.stdout, r
    return {
        "events": n,
        "first_call_ms": 1000 * first,
        "call_new_ms": _median_ms(grow),
        "call_idle_ms": _median_ms(idle),
        "process_new_ms": _median_ms(proc_new),
        "process_idle_ms": _median_ms(proc_idle),
    }


def main() -> None:
    gc_policy.apply()  # as the efc-tui process does (cli.main)
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 2_000, 20_000])
    ap.add_argument("--calls", type=int, default=15, help="timed calls per size")
    ap.add_argument("--procs", type=int, default=5, help="timed processes per size")
    args = ap.parse_args()
    print(
        f"{'events':>8}  {'first call':>11}  {'call, new lines':>16}  {'call, no new line':>18}  "
        f"{'process, new lines':>19}  {'process, no new line':>21}"
    )
    for n in args.sizes:
        r = bench_size(n, args.calls, args.procs)
        print(
            f"{n:>8,}  {r['first_call_ms']:>8.0f} ms  {r['call_new_ms']:>13.1f} ms  "
            f"{r['call_idle_ms']:>15.2f} ms  "
            f"{r['process_new_ms']:>16.0f} ms  {r['process_idle_ms']:>18.0f} ms",
            flush=True,
        )


if __name__ == "__main__":
    main()
