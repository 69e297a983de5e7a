"""The one output policy (``efc_tui.report.output``): file names, folder targets, never overwriting
an input, streamed and atomic writes, for the CLI and the app alike."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from efc_tui.cli import app
from efc_tui.errors import InputError
from efc_tui.report.output import (
    FileSink,
    FolderSink,
    ScoreDocuments,
    is_folder_target,
    ledger_filename,
    open_ledgers,
    refuse_input,
)
from tests.conftest import SAMPLES

runner = CliRunner()


@pytest.mark.parametrize(
    ("run_id", "name"),
    [
        ("repair-loop", "repair-loop.ledger.json"),
        ("café-run", "café-run.ledger.json"),  # letters of any script are kept
        (".hidden", "hidden.ledger.json"),  # never a hidden file
        ("../../etc/passwd", "_.._etc_passwd.ledger.json"),  # no path separators survive
        ("a b\u202ec\x1b[2J", "a_b_c__2J.ledger.json"),  # bidi override, escape, space
        ("", "run.ledger.json"),
        ("...", "run.ledger.json"),
        ("x" * 300, "x" * 120 + ".ledger.json"),
        ("日" * 100, "日" * 66 + ".ledger.json"),  # 3 bytes each: at most 200 bytes
    ],
)
def test_ledger_filename(run_id: str, name: str) -> None:
    assert ledger_filename(run_id) == name


def test_folder_targets(tmp_path: Path) -> None:
    assert is_folder_target(str(tmp_path))  # an existing folder
    assert is_folder_target("not-yet/")  # a trailing slash
    assert not is_folder_target(tmp_path / "out.json")
    assert not is_folder_target("out")


def test_repeated_run_ids_in_a_folder_do_not_overwrite_each_other(tmp_path: Path) -> None:
    sink = FolderSink(tmp_path / "new" / "ledgers")  # created, with its parents
    paths = [sink.add("NORMALIZED_SESSION_ID", b'{"n": %d}' % k) for k in range(3)]
    assert [p.name for p in paths] == [
        "NORMALIZED_SESSION_ID.ledger.json",
        "NORMALIZED_SESSION_ID-2.ledger.json",
        "NORMALIZED_SESSION_ID-3.ledger.json",
    ]
    assert [json.loads(p.read_text())["n"] for p in paths] == [0, 1, 2]


@pytest.mark.parametrize(
    ("name", "docs", "expected"),
    [
        ("one.json", [b"{}"], b"{}\n"),
        ("none.json", [], b"[]\n"),
        ("two.json", [b'{"a":1}', b'{"b":2}'], b'[{"a":1},\n{"b":2}]\n'),
        ("two.jsonl", [b'{"a":1}', b'{"b":2}'], b'{"a":1}\n{"b":2}\n'),
    ],
)
def test_file_targets(tmp_path: Path, name: str, docs: list[bytes], expected: bytes) -> None:
    with open_ledgers(tmp_path / name) as sink:
        for k, d in enumerate(docs):
            sink.add(f"r{k}", d)
            assert not (tmp_path / name).exists()  # nothing appears until it is complete
    assert (tmp_path / name).read_bytes() == expected


def test_a_failed_export_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_bytes(b"old")
    with pytest.raises(RuntimeError), FileSink(out) as sink:
        sink.add("r", b"{}")
        raise RuntimeError("the second run was bad")
    assert out.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_an_input_is_never_a_target(tmp_path: Path) -> None:
    trace = tmp_path / "run.jsonl"
    trace.write_text("{}\n")
    os.symlink(trace, tmp_path / "link.json")
    for target in (trace, tmp_path / "link.json", tmp_path / "sub" / ".." / "run.jsonl"):
        with pytest.raises(InputError, match="refusing to overwrite an input file"):
            refuse_input(target, [trace])
    refuse_input(tmp_path / "other.json", [trace])  # anything else is fine
    folder = FolderSink(tmp_path, [tmp_path / "repair-loop.ledger.json"])
    with pytest.raises(InputError, match="refusing"):
        folder.add("repair-loop", b"{}")


def test_score_documents_stream_one_valid_json_document() -> None:
    out: list[str] = []
    docs = ScoreDocuments(out.append)
    docs.add(b'{"run": 1}')
    docs.add(b'{"run": 2}')
    assert len(out) == 2  # written as each run is scored
    docs.close()
    assert json.loads("".join(out)) == {"schema": "efc-score/1", "runs": [{"run": 1}, {"run": 2}]}
    empty: list[str] = []
    ScoreDocuments(empty.append).close()
    assert json.loads("".join(empty)) == {"schema": "efc-score/1", "runs": []}


def test_export_to_a_new_folder_with_a_trailing_slash(tmp_path: Path) -> None:
    out = tmp_path / "ledgers"
    r = runner.invoke(app, ["export", str(SAMPLES), "-o", f"{out}/", "-q"])
    assert r.exit_code == 0, r.output
    assert out.is_dir() and len(list(out.glob("*.ledger.json"))) == 4


def test_the_app_and_the_cli_name_a_run_alike(tmp_path: Path) -> None:
    """`export -o DIR` names files by ledger_filename, the function the app's `e` uses."""
    trace = tmp_path / "café.jsonl"
    text = (SAMPLES / "clean_pass.jsonl").read_text().replace('"clean-pass"', '".café run"', 1)
    trace.write_text(text)
    r = runner.invoke(app, ["export", str(trace), "-o", str(tmp_path), "-q"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / ledger_filename(".café run")).is_file()
    assert ledger_filename(".café run") == "café_run.ledger.json"


def test_export_of_a_bad_file_writes_no_output_file(tmp_path: Path) -> None:
    bad = tmp_path / "runs"
    bad.mkdir()
    shutil.copy(SAMPLES / "clean_pass.jsonl", bad / "a.jsonl")
    (bad / "b.jsonl").write_text((SAMPLES / "repair_loop.jsonl").read_text() + "{not json\n{}\n")
    r = runner.invoke(
        app,
        ["export", str(bad / "a.jsonl"), str(bad / "b.jsonl"), "-o", str(tmp_path / "out.json")],
    )
    assert r.exit_code == 2 and "b.jsonl" in r.stderr
    assert not (tmp_path / "out.json").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["runs"]  # no temporary left behind
