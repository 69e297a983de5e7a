"""``score --jobs N``: local files read and scored on a pool of processes give the output of
the in-process path (``--jobs 1``) byte for byte: tables, --jsonl, --csv, --json, the
warnings, the errors and the exit status (issue 31, item 3)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from efc_tui.pipeline.pool import map_files, read_files, submission_order
from efc_tui.pipeline.score import Job, read_file, read_group
from tests.conftest import REAL, SAMPLES


def score(args: list[str], jobs: int, cwd: Path) -> tuple[int, str, str]:
    r = subprocess.run(
        [sys.executable, "-m", "efc_tui", "score", *args, "--jobs", str(jobs)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200"},
    )
    return r.returncode, r.stdout, r.stderr


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every format's real fixtures (when ../shared is there) and the sample traces, a file
    no reader recognizes that looks like an agent log, and one that does not."""
    root = tmp_path_factory.mktemp("mixed")
    if REAL.is_dir():
        shutil.copytree(REAL, root / "real")
    shutil.copytree(SAMPLES, root / "samples")
    (root / "zz").mkdir()
    (root / "zz" / "session.traj.json").write_bytes(b'{"something": "else"}')
    (root / "zz" / "notes.txt").write_text("not a log\n")
    return root


OUTPUTS = [
    [],
    ["--jsonl"],
    ["--csv"],
    ["--json"],
    ["--adapter"],
    ["--min-eta", "0.5"],
    ["--fit", "default"],
    ["--json", "--fit", "default"],
]


@pytest.mark.parametrize("mode", OUTPUTS, ids=lambda m: " ".join(m) or "table")
def test_two_jobs_print_what_one_job_prints_on_a_mixed_folder(mixed: Path, mode: list[str]) -> None:
    one = score([".", *mode], 1, mixed)
    two = score([".", *mode], 2, mixed)
    assert one == two
    assert one[0] in (0, 1), one[2]
    assert "looks like an agent log" in one[2]  # the unrecognized log was met and named
    if mode == ["--jsonl"]:
        rows = [orjson.loads(line) for line in one[1].splitlines()]
        assert len(rows) >= 4 and len({r["source_path"] for r in rows}) >= 4


def test_a_labels_file_is_matched_across_processes(mixed: Path, tmp_path: Path) -> None:
    """Labels matched in different workers all count: only the one naming no run is named."""
    rows = [orjson.loads(line) for line in score([".", "--jsonl", "-q"], 1, mixed)[1].splitlines()]
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "run_id,success\n"
        + "".join(f"{r['run_id']},1\n" for r in rows[:: max(1, len(rows) // 4)])
        + "no-such-run,0\n"
    )
    one = score([".", "--jsonl", "--labels", str(labels)], 1, mixed)
    two = score([".", "--jsonl", "--labels", str(labels)], 2, mixed)
    assert one == two
    assert "1 label(s) name no run that was read" in one[2]


def test_an_unreadable_file_is_named_once_and_exits_2_after_the_runs_before_it(
    tmp_path: Path,
) -> None:
    """The same runs are printed before it, the same one line names it, nothing after."""
    for i in range(6):
        shutil.copy(SAMPLES / "clean_pass.jsonl", tmp_path / f"a{i}.jsonl")
    lines = (SAMPLES / "repair_loop.jsonl").read_bytes().splitlines(keepends=True)
    (tmp_path / "b_broken.jsonl").write_bytes(b"".join(lines[:3]) + b"{not json\n" + lines[3])
    for i in range(6):
        shutil.copy(SAMPLES / "noisy_high_budget.jsonl", tmp_path / f"c{i}.jsonl")
    for mode in (["--jsonl"], []):
        one = score([".", *mode], 1, tmp_path)
        two = score([".", *mode], 2, tmp_path)
        assert one == two
        code, out, err = one
        assert code == 2
        assert err.count("b_broken.jsonl") == 1 and err.startswith("efc-tui: error: ")
        if mode:
            assert len(out.splitlines()) == 6  # the a* files' runs, none of the c* files'


def test_the_pool_gives_each_files_result_in_input_order() -> None:
    """``read_files`` on 2 processes: each file's runs, in order, as read in-process."""
    files = sorted(SAMPLES.glob("*.jsonl")) * 3
    job = Job("score", None)
    pooled = list(read_files(files, job, 2))
    assert [r.index for r in pooled] == list(range(len(files)))
    here = [read_file(i, f, job) for i, f in enumerate(files)]
    assert [[it.row for it in r.items] for r in pooled] == [
        [it.row for it in r.items] for r in here
    ]
    assert all(r.items and r.error is None for r in pooled)


def test_a_group_of_files_is_each_files_result_and_stops_where_the_command_would(
    tmp_path: Path,
) -> None:
    """``read_group``: the runs of consecutive files scored in batches across them give
    each file's ``read_file`` result; a file no reader recognizes is passed, a malformed
    one is the last read (the command exits there)."""
    files = sorted(SAMPLES.glob("*.jsonl"))
    (tmp_path / "other.json").write_bytes(b'{"something": "else"}')
    lines = (SAMPLES / "repair_loop.jsonl").read_bytes().splitlines(keepends=True)
    (tmp_path / "broken.jsonl").write_bytes(b"".join(lines[:3]) + b"{not json\n")
    group = [*files, tmp_path / "other.json", *files, tmp_path / "broken.jsonl", *files]
    job = Job("score", None)
    got = read_group(5, group, job)
    n = 2 * len(files) + 2
    assert [r.index for r in got] == list(range(5, 5 + n))
    want = [read_file(5 + k, f, job) for k, f in enumerate(group[:n])]
    assert [[it.row for it in r.items] for r in got] == [[it.row for it in r.items] for r in want]
    assert [(r.error, r.error_kind) for r in got] == [(r.error, r.error_kind) for r in want]
    assert got[len(files)].error_kind == "unrecognized" and got[-1].error_kind == "input"
    assert sum(len(r.items) for r in got) > len(files)


def test_the_last_files_are_handed_out_largest_first(tmp_path: Path) -> None:
    """Files go to the workers in input order but for the last ``window``, largest first
    (a missing file counts as empty), and ``map_files`` still gives results in input order
    when the file it waits for was handed out after larger ones."""
    sizes = [5, 1, 9, 3, 7, 7]
    files = []
    for i, n in enumerate(sizes):
        f = tmp_path / f"f{i}.jsonl"
        f.write_bytes(b"x" * n)
        files.append(f)
    files.append(tmp_path / "missing.jsonl")
    sizes = [*sizes, 0]
    assert submission_order(sizes, 4) == [0, 1, 2, 4, 5, 3, 6]
    assert submission_order(sizes, 0) == list(range(7))
    assert submission_order(sizes, 99) == [2, 4, 5, 0, 3, 1, 6]
    assert list(map_files(files, _name_of, 2, ahead=1)) == [
        (i, f.name) for i, f in enumerate(files)
    ]


def _name_of(index: int, path: Path) -> tuple[int, str]:
    return index, path.name


KILLER = """
import os, signal, sys
import efc_tui.pipeline.pool as pool
read = pool.read_group
def read_group(first, paths, job):
    if first <= 1 < first + len(paths):
        os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's OOM killer would
    return read(first, paths, job)
pool.read_group = read_group
pool.GROUP_FILES = 1
sys.argv = ["efc-tui", "score", sys.argv[1], "--jsonl", "-q", "--jobs", "2"]
from efc_tui.cli import main
main()
"""


def test_a_worker_that_dies_ends_the_command_with_one_line_and_exit_2() -> None:
    r = subprocess.run(
        [sys.executable, "-c", KILLER, str(SAMPLES)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2
    assert r.stderr.startswith("efc-tui: error: a worker process stopped")
    assert len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr


def test_warnings_come_just_before_their_runs_rows_with_one_job_or_two(tmp_path: Path) -> None:
    """Short runs are scored in batches, but what reading says is said in step with the
    rows (stdout and stderr unbuffered into one stream): a run's warning just before its
    row, a skipped file between the rows of the files around it, the error that ends the
    command after the rows of the runs before it; the same with one job and with two."""
    head, *steps = (SAMPLES / "clean_pass.jsonl").read_bytes().splitlines(keepends=True)
    for i in range(4):  # runs with a warning each: their last line cut short
        (tmp_path / f"a{i}.jsonl").write_bytes(head + b"".join(steps) + b'{"type": "st')
    (tmp_path / "b_session.traj.json").write_bytes(b'{"something": "else"}')
    for i in range(3):
        shutil.copy(SAMPLES / "repair_loop.jsonl", tmp_path / f"c{i}.jsonl")

    def merged(jobs: int) -> tuple[int, list[str]]:
        r = subprocess.run(
            [sys.executable, "-m", "efc_tui", "score", ".", "--jsonl", "--jobs", str(jobs)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=300,
            cwd=tmp_path,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        return r.returncode, r.stdout.splitlines()

    code, lines = merged(1)
    assert (code, lines) == merged(2)
    said = [("row " + orjson.loads(x)["source_path"]) if x.startswith("{") else x for x in lines]
    for i in range(4):
        at = said.index(f"row a{i}.jsonl")
        assert "truncated last line ignored" in said[at - 1] and f"a{i}.jsonl" in said[at - 1]
    skipped = next(i for i, x in enumerate(said) if "b_session.traj.json" in x)
    assert said.index("row a3.jsonl") < skipped < said.index("row c0.jsonl")
    (tmp_path / "d_broken.jsonl").write_bytes(head + b"{not json\n")
    code, lines = merged(1)
    assert (code, lines) == merged(2)
    assert code == 2 and "d_broken.jsonl" in lines[-1] and lines[-2].startswith("{")
