"""``score`` over a sequence of large files peaks at what its largest run needs, not at the
sum of two (issue 32, item 7: a 250k-event trace then a 121 MB Inspect log peaked at
932 MB against 527 and 556 MB alone). Each run is let go of, and the memory it freed given
back, before the next file is read.

A file of many short runs is scored in small batches (issue 31, item 2): its peak does not
grow with the number of runs either.

Peak memory is measured in a fresh interpreter (``ru_maxrss`` of a child, which counts the
child's own workers), so nothing this test process holds counts."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import orjson
import pytest

from tests.conftest import REPO

BENCH = REPO / "bench"
#: the goal of issue 32: a sequence peaks at most this much over its largest file alone
BOUND = 1.2

PEAK = (
    "import resource, subprocess, sys\n"
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "assert r.returncode == 0, r.stderr\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def _bench(name: str) -> ModuleType:
    sys.path.insert(0, str(BENCH))  # docgen imports score_bench beside it
    try:
        spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules.setdefault(name, mod)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(BENCH))


def peak_kb(paths: list[Path], *options: str) -> int:
    cmd = [sys.executable, "-m", "efc_tui", "score", *map(str, paths), "--jsonl", "-q", *options]
    out = subprocess.run(
        [sys.executable, "-c", PEAK, *cmd],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONMALLOC"},
    ).stdout
    return int(out)


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A 20,000-event native trace (21 MB) and a 2,000-step Inspect log (13 MB): each
    needs about twice the interpreter's own memory to score."""
    folder = tmp_path_factory.mktemp("large")
    native, inspect = folder / "a.jsonl", folder / "b.json"
    _bench("score_bench").generate(native, 20_000)
    _bench("docgen").inspect_ai(inspect, 2_000, 0)
    return native, inspect


def test_a_large_run_is_let_go_of_before_the_next_file_is_read(large: tuple[Path, Path]) -> None:
    native, inspect = large
    alone = max(peak_kb([native], "--jobs", "1"), peak_kb([inspect], "--jobs", "1"))
    both = peak_kb([native, inspect], "--jobs", "1")
    assert both <= BOUND * alone, f"{both / 1024:.0f} MB for both, {alone / 1024:.0f} MB alone"


def test_each_worker_of_the_pool_holds_one_run_at_a_time(large: tuple[Path, Path]) -> None:
    """Two workers, two traces then two Inspect logs: each worker reads one of each in turn."""
    native, inspect = large
    alone = max(peak_kb([native], "--jobs", "1"), peak_kb([inspect], "--jobs", "1"))
    again = [native.with_name("c.jsonl"), inspect.with_name("d.json")]
    for src, dst in zip(large, again, strict=True):
        shutil.copyfile(src, dst)
    four = peak_kb([native, again[0], inspect, again[1]], "--jobs", "2")
    assert four <= BOUND * alone, f"{four / 1024:.0f} MB for four, {alone / 1024:.0f} MB alone"


def _short_runs(path: Path, runs: int, events: int = 15) -> None:
    """A native trace of ``runs`` runs of ``events`` events each (a tau-bench file's shape),
    cut from one generated run."""
    one = path.with_suffix(".one")
    _bench("score_bench").generate(one, runs * events)
    head, *steps = one.read_bytes().splitlines()
    header = orjson.loads(head)
    with path.open("wb") as f:
        for i in range(runs):
            f.write(orjson.dumps({**header, "run_id": f"r{i}"}) + b"\n")
            for t, line in enumerate(steps[i * events : (i + 1) * events]):
                f.write(orjson.dumps({**orjson.loads(line), "t": t}) + b"\n")
    one.unlink()


def test_many_short_runs_peak_at_what_a_few_do(tmp_path: Path) -> None:
    """1,000 runs of 15 events (16 MB) peak within ``BOUND`` of 100 of them: the batches
    scored together are bounded (``pipeline.score.BATCH_RUNS``), not the file."""
    few, many = tmp_path / "few.jsonl", tmp_path / "many.jsonl"
    _short_runs(few, 100)
    _short_runs(many, 1_000)
    small, large = peak_kb([few], "--jobs", "1"), peak_kb([many], "--jobs", "1")
    assert large <= BOUND * small, (
        f"{large / 1024:.0f} MB for 1,000 runs, {small / 1024:.0f} for 100"
    )
