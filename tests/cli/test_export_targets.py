"""Issue 30, item 11: export creates folders, carries the event text unless told not to,
and writes the format its suffix names or refuses; --junit creates its folder."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from efc_tui.cli import app
from tests.conftest import FIXTURES

FIX = FIXTURES
SWE = FIX / "agents" / "swe_agent_1x.traj"
runner = CliRunner()


def test_export_refuses_a_suffix_it_does_not_write(tmp_path: Path) -> None:
    out = tmp_path / "events.csv"
    r = runner.invoke(app, ["export", str(SWE), "-o", str(out)])
    assert r.exit_code == 2
    assert "not .csv" in r.output and "score --csv" in r.output
    assert not out.exists()


def test_export_creates_folders_and_carries_the_text(tmp_path: Path) -> None:
    out = tmp_path / "new" / "deeper" / "run.json"
    r = runner.invoke(app, ["export", str(SWE), "-o", str(out), "-q"])
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    events = doc["events"]
    assert events[2]["action"] == "python -m pytest -q"
    assert "1 failed, 1 passed" in events[2]["observation"]
    lean = tmp_path / "lean.json"
    assert (
        runner.invoke(app, ["export", str(SWE), "-o", str(lean), "--no-text", "-q"]).exit_code == 0
    )
    assert "action" not in json.loads(lean.read_text())["events"][2]


def test_junit_creates_its_folder(tmp_path: Path) -> None:
    report = tmp_path / "reports" / "x.xml"
    r = runner.invoke(app, ["score", str(SWE), "--junit", str(report), "-q"])
    assert report.is_file(), r.output
    assert report.read_text().startswith("<?xml")
