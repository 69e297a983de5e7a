"""Parquet output: `score --parquet FILE` (one row per run) and `export -o X.parquet` (one row
per event) read back to the same values as the JSON outputs (issue 15 item 3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from efc_tui.cli import app
from efc_tui.report import parquet
from tests.conftest import FIXTURES, SAMPLES

runner = CliRunner()
pytest.importorskip("pyarrow")


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def assert_same_rows(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    assert len(got) == len(want) > 0
    for g, w in zip(got, want, strict=True):
        assert set(g) >= set(w)
        for k, v in w.items():
            assert parquet.same_value(g[k], v), (k, g[k], v)
        assert all(g[k] is None for k in set(g) - set(w))  # another row's column: null here


def test_score_parquet_round_trip_equals_jsonl_and_json(tmp_path: Path) -> None:
    out = tmp_path / "runs.parquet"
    r = invoke("score", SAMPLES, "--parquet", out, "-q")
    assert r.exit_code == 0, r.output
    assert "EFC by run" in r.stdout  # the table is still printed
    jsonl = invoke("score", SAMPLES, "--jsonl", "-q")
    rows = [json.loads(line) for line in jsonl.stdout.splitlines()]
    got = parquet.read_rows(out)
    assert_same_rows(got, rows)
    # ... and the figures of --json, run by run
    doc = json.loads(invoke("score", SAMPLES, "--json", "-q").stdout)
    for g, run in zip(got, doc["runs"], strict=True):
        assert g["run_id"] == run["run"]["run_id"]
        for k, v in run["figures"].items():
            if k in g:
                assert parquet.same_value(g[k], v), k


def test_score_parquet_with_json_on_stdout(tmp_path: Path) -> None:
    out = tmp_path / "runs.parquet"
    r = invoke("score", SAMPLES / "clean_pass.jsonl", "--json", "--parquet", out, "-q")
    assert r.exit_code == 0
    assert json.loads(r.stdout)["runs"][0]["run"]["run_id"] == parquet.read_rows(out)[0]["run_id"]


def test_export_parquet_one_row_per_event_equals_the_ledgers(tmp_path: Path) -> None:
    inputs = [SAMPLES / "repair_loop.jsonl", FIXTURES / "app" / "two_runs.jsonl"]
    out = tmp_path / "events.parquet"
    r = invoke("export", *inputs, "-o", out, "-q")
    assert r.exit_code == 0, r.output
    ledgers = tmp_path / "ledgers.json"
    assert invoke("export", *inputs, "-o", ledgers, "-q").exit_code == 0
    docs = json.loads(ledgers.read_text())
    want = [row for doc in docs for row in parquet.event_rows(doc)]
    got = parquet.read_rows(out)
    assert len(got) == sum(len(d["events"]) for d in docs)
    assert_same_rows(got, want)
    assert {g["run_id"] for g in got} == {"repair-loop", "pair-0", "pair-1"}
    assert "adapter.memory" in got[0] and "factors.I" in got[0]


def test_without_pyarrow_the_commands_say_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parquet, "available", lambda: False)
    for args in (
        ("score", SAMPLES, "--parquet", tmp_path / "x.parquet"),
        ("export", SAMPLES, "-o", tmp_path / "y.parquet"),
    ):
        r = invoke(*args)
        assert r.exit_code == 2 and "pip install 'efc-tui[parquet]'" in r.output
    assert list(tmp_path.iterdir()) == []


def test_parquet_never_overwrites_an_input(tmp_path: Path) -> None:
    trace = tmp_path / "run.parquet"
    trace.write_bytes((SAMPLES / "clean_pass.jsonl").read_bytes())  # a trace, oddly named
    before = trace.read_bytes()
    r = invoke("score", trace, "--format", "native", "--parquet", trace, "-q")
    assert r.exit_code == 2 and "refusing to overwrite an input file" in r.output
    assert trace.read_bytes() == before
