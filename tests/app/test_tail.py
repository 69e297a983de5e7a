"""The app's incremental native reader (efc_tui/app/tail.py) reads the same events as
``efc_tui.parsers.load``, and follows a file that grows (SPEC §9: a truncated last line is a
warning, not an error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from efc_tui.app.tail import NativeTail, can_tail
from efc_tui.errors import InputError
from efc_tui.parsers import load
from tests.conftest import FIXTURES

APP = FIXTURES / "app"


def tail_all(path: Path, *, chunk: int = 1 << 20, lenient: bool = False) -> NativeTail:
    t = NativeTail(path, lenient=lenient)
    t.stat_size()
    while not t.at_end:
        before = t.offset
        batch = t.read(chunk)
        if batch.another_run or t.offset == before:
            break
    t.finish()
    return t


@pytest.mark.parametrize("name", ["small.jsonl", "hostile.jsonl"])
@pytest.mark.parametrize("chunk", [64, 1 << 20])
def test_same_events_as_the_headless_reader(name: str, chunk: int) -> None:
    path = APP / name
    [expected] = list(load(path))
    t = tail_all(path, chunk=chunk)
    run = t.finished_run()
    assert run.events == expected.events
    assert run.run_id == expected.run_id and run.success == expected.success
    assert run.task_demand == expected.task_demand
    assert run.warnings == expected.warnings and run.flags == expected.flags


def test_second_run_header_stops_reading() -> None:
    t = NativeTail(APP / "two_runs.jsonl")
    batch = t.read()
    assert batch.another_run
    assert t.stopped and t.n_events == 3
    first = next(iter(load(APP / "two_runs.jsonl")))
    assert t.finished_run().events == first.events


def test_follow_reads_only_whole_appended_lines(tmp_path: Path) -> None:
    lines = (APP / "small.jsonl").read_bytes().splitlines(keepends=True)
    log = tmp_path / "live.jsonl"
    log.write_bytes(b"".join(lines[:4]))
    t = NativeTail(log)
    assert len(t.read().events) == 3
    # half a line: nothing yet, the offset stays put
    with log.open("ab") as f:
        f.write(lines[4][:20])
    before = t.offset
    assert t.read().events == [] and t.offset == before
    with log.open("ab") as f:
        f.write(lines[4][20:] + b"".join(lines[5:8]))
    batch = t.read()
    assert [e.index for e in batch.events] == [3, 4, 5, 6]
    [expected] = list(load(APP / "small.jsonl"))
    assert t.finished_run().events == expected.events[:7]


def test_unterminated_whole_last_line_counts_once(tmp_path: Path) -> None:
    lines = (APP / "small.jsonl").read_bytes().splitlines(keepends=True)
    log = tmp_path / "live.jsonl"
    log.write_bytes(b"".join(lines[:3]) + lines[3].rstrip(b"\n"))
    t = NativeTail(log)
    t.read()
    assert t.n_events == 2
    assert len(t.finish().events) == 1  # whole JSON: a line, as parsers.load reads it
    with log.open("ab") as f:
        f.write(b"\n" + lines[4])
    assert [e.index for e in t.read().events] == [3]
    assert t.lineno == 5


def test_truncated_last_line_is_a_warning(tmp_path: Path) -> None:
    lines = (APP / "small.jsonl").read_bytes().splitlines(keepends=True)
    log = tmp_path / "cut.jsonl"
    log.write_bytes(b"".join(lines[:3]) + lines[3][:25])
    t = tail_all(log)
    [expected] = list(load(log))
    assert t.finished_run().events == expected.events
    assert t.finished_run().warnings == expected.warnings
    assert "truncated last line" in expected.warnings[0]


def test_bad_line_names_file_and_line(tmp_path: Path) -> None:
    lines = (APP / "small.jsonl").read_bytes().splitlines(keepends=True)
    log = tmp_path / "bad.jsonl"
    log.write_bytes(b"".join(lines[:3]) + b"{not json\n" + b"".join(lines[3:5]))
    with pytest.raises(InputError) as err:
        tail_all(log)
    assert err.value.line == 4
    t = tail_all(log, lenient=True)
    [expected] = list(load(log, lenient=True))
    assert t.finished_run().events == expected.events
    assert t.finished_run().flags == expected.flags


def test_shrunk_file_stops_following(tmp_path: Path) -> None:
    log = tmp_path / "live.jsonl"
    log.write_bytes((APP / "small.jsonl").read_bytes())
    t = tail_all(log)
    log.write_bytes(b"")
    assert t.read().shrank and t.stopped


def test_can_tail(tmp_path: Path) -> None:
    import gzip

    assert can_tail(APP / "small.jsonl")
    gz = tmp_path / "small.jsonl.gz"
    gz.write_bytes(gzip.compress((APP / "small.jsonl").read_bytes()))
    assert not can_tail(gz)
    other = tmp_path / "x.json"
    other.write_text('[{"role": "user", "content": "hi"}]')
    assert not can_tail(other)
