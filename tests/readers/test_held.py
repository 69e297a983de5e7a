"""A run the command is done with is freed, and the heap trimmed after a large one, just
before a reader reads more input, and not at all after the last run
(``parsers.held``, ``pipeline.score.run_by_run``)."""

from __future__ import annotations

from pathlib import Path
from typing import IO

import orjson
import pytest

from efc_tui.parsers import base, held, load
from efc_tui.pipeline.score import run_by_run


def _trace(path: Path, runs: dict[str, int]) -> Path:
    lines: list[dict[str, object]] = []
    for run_id, steps in runs.items():
        lines.append({"type": "run", "schema": "efc-trace/1", "run_id": run_id})
        lines += [
            {
                "type": "step",
                "t": t,
                "action": {"kind": "tool", "tool": "bash", "input": f"ls {t}"},
                "observation": {"text": f"file{t}.py"},
            }
            for t in range(steps)
        ]
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    return path


@pytest.fixture
def log(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What happened, in order: files opened, runs scored and freed, heap trims."""
    out: list[str] = []
    monkeypatch.setattr(held, "_held", [])
    monkeypatch.setattr(held, "TRIM_EVENTS", 3)
    monkeypatch.setattr(held, "_malloc_trim", lambda: lambda pad: out.append("trim"))
    opened = base._open

    def logged(path: Path) -> IO[bytes]:
        f = opened(path)  # frees the held run first
        if out[-1:] != [f"open {path.name}"]:  # sniffing and reading open it in turn
            out.append(f"open {path.name}")
        return f

    monkeypatch.setattr(base, "_open", logged)
    return out


class _Probe:
    """Says when the run that holds it is freed (a Run takes no weak reference)."""

    def __init__(self, log: list[str], run_id: str) -> None:
        self.log, self.run_id = log, run_id

    def __del__(self) -> None:
        self.log.append(f"freed {self.run_id}")


def _score(paths: list[Path], log: list[str]) -> None:
    for path in paths:
        for run in run_by_run(load(path)):
            run.extra["probe"] = _Probe(log, run.run_id)
            log.append(f"score {run.run_id}")
            del run


def test_each_run_is_freed_before_more_is_read_and_the_last_is_not(
    tmp_path: Path, log: list[str]
) -> None:
    a = _trace(tmp_path / "a.jsonl", {"a": 3})
    b = _trace(tmp_path / "b.jsonl", {"b1": 1, "b2": 4})
    c = _trace(tmp_path / "c.jsonl", {"c": 1})
    _score([a, b, c], log)
    assert log == [
        "open a.jsonl",
        "score a",
        "freed a",  # a large run: freed and the heap trimmed as the next file is opened
        "trim",
        "open b.jsonl",
        "score b1",
        "freed b1",  # b2's lines came in b1's block: freed as the next run is held
        "score b2",
        "freed b2",
        "trim",
        "open c.jsonl",
        "score c",  # the last run: nothing reads again, so it is never freed
    ]
    held.release()  # a library caller that reads nothing more can free it
    assert log[-1] == "freed c"
    held.release()
    assert log[-1] == "freed c"


def test_a_run_is_freed_before_the_next_block_of_its_file_is_read(
    tmp_path: Path, log: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from efc_tui.parsers import native

    monkeypatch.setattr(native, "BLOCK", 64)  # a block a line or so
    a = _trace(tmp_path / "a.jsonl", {"a1": 3, "a2": 3})
    _score([a], log)
    # a1 is freed as the reader reads the block after the one that ended it, before a2 is
    # whole; the heap is trimmed there, after a large run
    assert log[:4] == ["open a.jsonl", "score a1", "freed a1", "trim"]
    assert log[4:] == ["score a2"]


def test_a_reading_error_leaves_the_run_before_it_to_be_freed(
    tmp_path: Path, log: list[str]
) -> None:
    from efc_tui.errors import InputError

    a = _trace(tmp_path / "a.jsonl", {"a": 3, "b": 1})
    a.write_bytes(a.read_bytes() + b"{not json\n")
    with pytest.raises(InputError, match=r"a\.jsonl:7"):
        _score([a], log)
    assert log == ["open a.jsonl", "score a"]
    held.release()
    assert log[-2:] == ["freed a", "trim"]
