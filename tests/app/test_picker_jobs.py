"""``open`` of a folder: the picker reads and scores its files on a pool of processes, as
``score --jobs`` does, and shows the rows and errors of reading them in this process
(issue 31, item 3)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from efc_tui.app.app import EfcApp
from efc_tui.app.screens.picker import PickerScreen, file_rows
from efc_tui.pipeline import pool
from efc_tui.pipeline.score import POOL_BYTES, default_jobs, pool_jobs
from tests.conftest import REAL, SAMPLES
from tests.pilot import pilot_test, settle

SIZE = (140, 40)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every format's real fixtures (when ../shared is there), the sample traces, and a
    malformed trace among them."""
    root = tmp_path_factory.mktemp("picker")
    if REAL.is_dir():
        shutil.copytree(REAL, root / "real")
    shutil.copytree(SAMPLES, root / "samples")
    good = (SAMPLES / "clean_pass.jsonl").read_bytes()
    (root / "samples" / "m_broken.jsonl").write_bytes(good + b"{not json\n")
    return root


async def picker_of(folder: Path, jobs: int) -> tuple[list[dict[str, Any]], list[str]]:
    app = EfcApp([folder], jobs=jobs)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, timeout=300)
        picker = app.screen
        assert isinstance(picker, PickerScreen) and picker.done
        assert picker.jobs == jobs
        return list(picker.rows), list(picker.errors)


@pilot_test
async def test_the_picker_on_two_processes_shows_what_one_shows(folder: Path) -> None:
    one_rows, one_errors = await picker_of(folder, 1)
    two_rows, two_errors = await picker_of(folder, 2)
    assert len(one_rows) > 10
    assert two_rows == one_rows  # the same rows, figures and order
    assert two_errors == one_errors
    assert len(one_errors) == 1 and "m_broken.jsonl" in one_errors[0]
    # a trace is read whole or not at all: the broken one has no row, the others all theirs
    assert not [r for r in one_rows if r["path"].endswith("m_broken.jsonl")]
    assert {r["path"] for r in one_rows} >= {str(p) for p in folder.rglob("clean_pass.jsonl")}


def test_a_files_rows_or_the_error_that_stopped_its_reading(folder: Path) -> None:
    app = EfcApp([folder])
    path = folder / "samples" / "m_broken.jsonl"
    rows, error = file_rows(0, path, read=app.read_runs, score=app.score, base=folder)
    assert rows == []
    assert error is not None and error.startswith(f"{path}:7: not valid JSON")
    good = folder / "samples" / "clean_pass.jsonl"
    rows, error = file_rows(0, good, read=app.read_runs, score=app.score, base=folder)
    assert error is None and [r["file"] for r in rows] == ["samples/clean_pass.jsonl"]


def test_map_files_gives_the_tasks_results_in_input_order() -> None:
    files = sorted(SAMPLES.glob("*.jsonl")) * 3
    got = list(pool.map_files(files, _size, 2, ahead=1))
    assert got == [(i, f.stat().st_size) for i, f in enumerate(files)]


def _size(index: int, path: Path) -> tuple[int, int]:
    return index, path.stat().st_size


def test_the_default_is_every_core_for_several_files_holding_enough(tmp_path: Path) -> None:
    small = sorted(SAMPLES.glob("*.jsonl"))
    assert pool_jobs(small, None) == 1  # a few KB: this process
    assert pool_jobs(small, 3) == 3  # asked: always followed
    assert pool_jobs(small[:1], 3) == 1  # one file: one reader reads it
    big = tmp_path / "big.jsonl"
    big.write_bytes(b" " * POOL_BYTES)
    assert pool_jobs([*small, big], None) == default_jobs()
