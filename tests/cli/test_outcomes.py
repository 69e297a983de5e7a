"""Outcomes through the CLI: --labels, --success-threshold, run metadata in every output,
and folder walks that never hide a failure (issue 17 item 4)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from efc_tui.cli import app
from tests.conftest import FIXTURES, REPO, SAMPLES

HERE = FIXTURES / "outcomes"
SECRET = "sk-FAKE-never-copy-this-key"
OUTCOME_FIELDS = ("reward", "success_from", "exit_status", "cost_usd")
runner = CliRunner()


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(autouse=True)
def _in_fixtures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(HERE)


def jsonl(text: str) -> dict[str, dict]:
    rows = [json.loads(line) for line in text.splitlines()]
    return {r["run_id"]: r for r in rows}


def test_score_jsonl_and_csv_carry_the_outcome_and_how_the_run_ended() -> None:
    r = invoke("score", "job_mixed", "--jsonl")
    assert r.exit_code == 0, r.output
    rows = jsonl(r.stdout)
    assert len(rows) == 5 and SECRET not in r.stdout + r.stderr
    a1, c3 = rows["fix-build__Fa1"], rows["fix-build__Fc3"]
    assert (a1["success"], a1["reward"], a1["harness"], a1["task_id"]) == (
        True,
        1.0,
        "claude-code",
        "fix-build",
    )
    assert a1["success_from"] == "harbor reward: job_mixed/fix-build__Fa1/result.json"
    assert (c3["success"], c3["reward"], c3["exit_status"]) == (None, None, "AgentTimeoutError")
    assert rows["fix-build__Fd4"]["cost_usd"] == pytest.approx(0.01)
    r = invoke("score", "job_mixed", "--csv")
    table = list(csv.DictReader(io.StringIO(r.stdout)))
    assert all(f in table[0] for f in OUTCOME_FIELDS)
    b2 = next(t for t in table if t["run_id"] == "fix-build__Fb2")
    assert (b2["success"], b2["reward"]) == ("False", "0.5")


def test_export_and_score_json_carry_the_outcome_and_validate(tmp_path: Path) -> None:
    schema = json.loads((REPO / "efc_tui" / "schemas" / "efc-ledger-1.schema.json").read_text())
    out = tmp_path / "ledgers.jsonl"
    r = invoke("export", "job_mixed", "-o", out)
    assert r.exit_code == 0, r.output
    docs = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(docs) == 5 and SECRET not in out.read_text()
    for d in docs:
        jsonschema.validate(d, schema)
        assert all(f in d["run"] for f in OUTCOME_FIELDS)
    b2 = next(d for d in docs if d["run"]["run_id"] == "fix-build__Fb2")
    assert (b2["run"]["reward"], b2["run"]["success"]) == (0.5, False)
    r = invoke("score", "job_mixed/fix-build__Fc3", "--json")
    (doc,) = json.loads(r.stdout)["runs"]
    assert doc["run"]["exit_status"] == "AgentTimeoutError" and doc["run"]["success"] is None


def test_labels_option_wins_and_names_labels_for_runs_that_do_not_exist() -> None:
    r = invoke("score", "job_mixed", "mini_eval", "--jsonl", "--labels", "labels/labels.csv")
    assert r.exit_code == 0, r.output
    rows = jsonl(r.stdout)
    assert (rows["fix-build__Fc3"]["success"], rows["fix-build__Fc3"]["success_from"]) == (
        True,
        "labels labels/labels.csv:2",
    )
    assert rows["demo__calc-2"]["success"] is True
    assert (
        "labels/labels.csv: 1 label(s) name no run that was read: line 5 (run_id no-such-run)"
        in r.stderr
    )


def test_success_threshold_option() -> None:
    rows = jsonl(invoke("score", "job_mixed", "--jsonl", "--success-threshold", "0.5").stdout)
    assert rows["fix-build__Fb2"]["success"] is True
    rows = jsonl(invoke("score", "job_mixed", "--jsonl").stdout)
    assert rows["fix-build__Fb2"]["success"] is False


@pytest.mark.parametrize("command", ["score", "fit", "calibrate", "export", "open"])
def test_every_command_that_uses_labels_takes_them_and_rejects_a_malformed_file(
    command: str, tmp_path: Path
) -> None:
    r = invoke(command, "--help")
    assert "--labels" in r.stdout and "--success-threshold" in r.stdout
    extra = {
        "fit": ["-o", tmp_path / "f.json"],
        "calibrate": ["-o", tmp_path / "e.json"],
        "export": ["-o", tmp_path / "x.json"],
    }.get(command, [])
    r = invoke(command, "job_mixed", *extra, "--labels", "labels/bad_success.csv")
    assert r.exit_code == 2
    assert r.stderr.strip() == (
        "efc-tui: error: labels/bad_success.csv:3: success 'maybe' is not true/false, 1/0, yes/no or blank"
    )


def test_open_reads_runs_with_their_outcome_and_labels() -> None:
    from efc_tui.app.app import EfcApp
    from efc_tui.parsers import Outcomes
    from efc_tui.parsers.labels import load_labels

    tui = EfcApp([Path("job_mixed")], outcomes=Outcomes(labels=load_labels("labels/labels.json")))
    assert len(tui.paths) == 5 and tui.use_picker
    (run,) = list(tui.read_runs(tui.paths[0]))
    assert (run.run_id, run.success, run.success_from) == (
        "fix-build__Fa1",
        False,
        "labels labels/labels.json:2",
    )


# --------------------------------------------------------------------------- issue 17 item 4


def test_a_folder_of_unreadable_logs_exits_2_naming_them() -> None:
    r = invoke("score", "unreadable_logs", "--json")
    assert r.exit_code == 2 and r.stdout == ""
    for name in ("session-001.jsonl", "run_trajectory.json", "dump.json"):
        assert f"{name}: looks like an agent log, but no reader recognizes it" in r.stderr
    assert (
        "efc-tui: error: no runs in unreadable_logs: 3 agent log(s) could not be read" in r.stderr
    )
    assert (
        "notes.txt: looks like" not in r.stderr and "skipped: unreadable_logs/notes.txt" in r.stderr
    )
    r = invoke("validate", "unreadable_logs")
    assert r.exit_code == 2 and "dump.json: looks like an agent log" in r.stderr
    assert "notes.txt: skipped" in r.stdout


def test_a_trial_whose_logs_no_reader_knows_is_named() -> None:
    r = invoke("score", "job_unreadable")
    assert r.exit_code == 2
    assert (
        "no runs in job_unreadable: 1 trial(s) hold logs no reader recognizes: job_unreadable/fix-build__X1"
        in r.stderr
    )
    r = invoke("validate", "job_unreadable", "job_mixed")
    assert (
        r.exit_code == 2
        and "fix-build__X1: a trial whose logs no reader recognizes (openclaw-output.txt)"
        in r.stderr
    )
    # with readable runs beside it, the trial is a warning and counted in the summary
    r = invoke("score", "job_unreadable", "job_mixed", "--jsonl")
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 5
    assert (
        "5 run(s) read; 1 agent log(s) could not be read: job_unreadable/fix-build__X1" in r.stderr
    )


def test_readable_runs_beside_unreadable_logs_exit_0_with_a_count(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "run.jsonl").write_bytes((SAMPLES / "repair_loop.jsonl").read_bytes())
    for name in ("session-001.jsonl", "dump.json", "notes.txt"):
        (folder / name).write_bytes((HERE / "unreadable_logs" / name).read_bytes())
    r = invoke("score", folder, "--jsonl")
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 1
    assert "1 run(s) read; 2 agent log(s) could not be read" in r.stderr
    assert invoke("validate", folder).exit_code == 2
    assert invoke("score", folder, "--jsonl", "--quiet").stderr == ""


def test_validate_lists_sidecars_and_the_logs_of_a_trial_it_did_not_read() -> None:
    r = invoke("validate", "job_mixed")
    assert r.exit_code == 0, r.output
    assert (
        "job_mixed/fix-build__Fa1/agent/trajectory.json: ok: atif, 1 run(s), 4 event(s)" in r.stdout
    )
    assert "  same trial, not read: job_mixed/fix-build__Fa1/agent/claude-code.txt" in r.stdout
    assert "job_mixed/fix-build__Fa1/verifier/reward.txt: sidecar" in r.stdout
    assert "skipped" not in r.stdout


def test_the_replay_loader_applies_labels_both_ways_it_reads(tmp_path: Path) -> None:
    from efc_tui.app.loading import Header, RunLoader
    from efc_tui.parsers import Outcomes
    from efc_tui.parsers.labels import load_labels

    labels = tmp_path / "l.csv"
    labels.write_text("run_id,success,reward\nrepair-loop,1,0.9\nfix-build__Fc3,yes,\n")
    outcomes = Outcomes(labels=load_labels(labels))
    # a native trace is read progressively (the header first): the label is on the header
    # sent again once the first rows are painted (the outcome waits for the first frame)
    native = RunLoader(SAMPLES / "repair_loop.jsonl", outcomes=outcomes)
    native.painted.set()
    assert native.progressive
    first, head = [u for u in native.updates() if isinstance(u, Header)]
    assert first.run.success_from is None  # the trace's own label, False
    assert (head.run.success, head.run.reward, head.run.success_from) == (
        True,
        0.9,
        f"labels {labels}:2",
    )
    # any other log is read whole, through parsers.load
    trial = RunLoader(Path("job_mixed/fix-build__Fc3/agent/trajectory.json"), outcomes=outcomes)
    (head,) = [u for u in trial.updates() if isinstance(u, Header)]
    assert (head.run.run_id, head.run.success, head.run.exit_status) == (
        "fix-build__Fc3",
        True,
        "AgentTimeoutError",
    )
