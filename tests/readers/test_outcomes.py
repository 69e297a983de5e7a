"""Run discovery, outcomes from sidecars, and labels files (library), on our own fixtures.

The fixtures in tests/fixtures/outcomes are written by its _make.py: benchmark output as it
sits on disk (Harbor jobs, Terminal-Bench 1 runs, SWE-bench reports and submissions,
mini-swe-agent evaluations, ATIF corpora with metadata.json).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from efc_tui.errors import InputError
from efc_tui.model import Run
from efc_tui.parsers import Outcomes, discover, expand_paths, load
from efc_tui.parsers.discover import is_sidecar, looks_like_sidecar, looks_like_trajectory
from efc_tui.parsers.labels import load_labels
from efc_tui.parsers.native_writer import write_runs
from efc_tui.parsers.sidecars import _report_files, find_trial, parse_report, read_submission_yaml
from tests.conftest import FIXTURES

HERE = FIXTURES / "outcomes"
JOB = HERE / "job_mixed"
SECRET = "sk-FAKE-never-copy-this-key"


@pytest.fixture(autouse=True)
def _in_fixtures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(HERE)  # paths in messages are relative, as a user types them


def runs_of(*paths: str | Path, outcomes: Outcomes | None = None) -> dict[str, Run]:
    out: dict[str, Run] = {}
    for p in discover(paths).sources:
        for run in load(p, outcomes=outcomes):
            assert run.run_id not in out, run.run_id
            out[run.run_id] = run
    return out


# --------------------------------------------------------------------------- discovery


def test_a_job_folder_gives_one_run_per_trial_with_the_preferred_log() -> None:
    found = discover(["job_mixed"])
    rel = [p.relative_to("job_mixed").as_posix() for p in found.sources]
    assert rel == [
        "fix-build__Fa1/agent/trajectory.json",  # ATIF first, though a stream and a session exist
        "fix-build__Fb2/agent/sessions/projects/-app/sess-b2.jsonl",  # the main session, not agent-*
        "fix-build__Fc3/agent/trajectory.json",
        "fix-build__Fd4/agent/mini-swe-agent.trajectory.json",
        "fix-build__Fe5/agent/trajectory.json",
    ]
    assert found.trials == 5 and not found.unreadable_trials
    fa1 = Path("job_mixed/fix-build__Fa1/agent/trajectory.json")
    assert {p.name for p in found.alternatives[fa1]} == {"sess-a1.jsonl", "claude-code.txt"}
    side = {p.relative_to("job_mixed").as_posix() for p in found.sidecars}
    assert {
        "config.json",
        "result.json",
        "fix-build__Fa1/result.json",
        "fix-build__Fa1/config.json",
        "fix-build__Fa1/trial.log",
        "fix-build__Fa1/verifier/reward.txt",
        "fix-build__Fa1/verifier/ctrf.json",
        "fix-build__Fa1/verifier/test-stdout.txt",
    } <= side
    # the same one run per trial whether pointed at the job, a trial, its agent/ or the parent
    assert discover(["job_mixed/fix-build__Fa1"]).sources == [fa1]
    assert discover(["job_mixed/fix-build__Fa1/agent"]).sources == [fa1]
    assert fa1 in discover(["."]).sources and expand_paths(["job_mixed"]) == found.sources


def test_a_named_file_is_always_read_and_keeps_its_trial() -> None:
    session = JOB / "fix-build__Fa1" / "agent" / "sessions" / "projects" / "-app" / "sess-a1.jsonl"
    found = discover([session])
    assert found.sources == [session] and found.named == {session}
    (run,) = list(load(session))
    assert (run.run_id, run.success, run.reward, run.source_format) == (
        "fix-build__Fa1",
        True,
        1.0,
        "claude-code",
    )
    assert (
        find_trial(session) is not None
        and find_trial(HERE / "atif_meta" / "t1" / "trajectory.json") is None
    )


def test_what_counts_as_a_sidecar_or_a_trajectory() -> None:
    for name in (
        "result.json",
        "results.json",
        "config.json",
        "metadata.json",
        "verifier/reward.txt",
        "verifier/ctrf.json",
        "swebench_report.x.json",
        "all_preds.jsonl",
        "preds.json",
        "patches/a.patch",
        "logs/run_evaluation/r/m/i/test_output.txt",
    ):
        assert is_sidecar(Path("x") / name), name
    for name in ("trajectory.json", "a.traj", "output.jsonl", "session.jsonl", "claude-code.txt"):
        assert not is_sidecar(Path("x") / name), name
    assert looks_like_sidecar(HERE / "mini_eval" / "openai__gpt-4o-mini.eval1.json")
    logs = HERE / "unreadable_logs"
    assert looks_like_trajectory(logs / "session-001.jsonl")  # by name
    assert looks_like_trajectory(logs / "run_trajectory.json")  # by name
    assert looks_like_trajectory(logs / "dump.json")  # by shape: steps
    assert not looks_like_trajectory(logs / "notes.txt")
    assert not looks_like_trajectory(JOB / "result.json")


# --------------------------------------------------------------------------- Harbor trials


def test_harbor_trial_outcomes_and_metadata() -> None:
    runs = runs_of("job_mixed")
    assert sorted(runs) == [
        "fix-build__Fa1",
        "fix-build__Fb2",
        "fix-build__Fc3",
        "fix-build__Fd4",
        "fix-build__Fe5",
    ]
    a1 = runs["fix-build__Fa1"]
    assert (a1.task_id, a1.task_family, a1.harness) == (
        "fix-build",
        "terminal-bench",
        "claude-code",
    )
    # the trial's record of the model wins; the log's spelling is kept
    assert (a1.model, a1.extra["log_model"]) == ("claude-sonnet-4-5", "claude-sonnet-4-5-20250929")
    assert (a1.success, a1.reward) == (True, 1.0)
    assert a1.success_from == "harbor reward: job_mixed/fix-build__Fa1/result.json"
    assert a1.extra["log_run_id"] == "sess-a1" and a1.extra["trial"]["job"] == "job_mixed"
    assert a1.extra["tests"] == {
        "tests": 3,
        "passed": 3,
        "failed": 0,
        "skipped": 0,
        "pending": 0,
        "other": 0,
    }
    # the trial's totals in the one source-totals structure (parsers/_totals.py)
    assert a1.extra["source_totals"] == {
        "tokens_in": 1200,
        "tokens_out": 90,
        "cache_tokens": 300,
        "cost_usd": 0.04,
        "from": "fix-build__Fa1/result.json agent_result",
    }
    # a reward of 0.5 is kept as a number and is not a success at the default threshold
    b2 = runs["fix-build__Fb2"]
    assert (b2.success, b2.reward, b2.source_format) == (False, 0.5, "claude-code")
    # a crashed trial with no reward: unknown, not a failure; how it ended is kept
    c3 = runs["fix-build__Fc3"]
    assert (c3.success, c3.reward, c3.success_from) == (None, None, None)
    assert c3.exit_status == "AgentTimeoutError"
    assert c3.extra["trial_exception"] == "Agent execution timed out after 900 s"
    assert any("AgentTimeoutError and no reward; outcome unknown" in f for f in c3.flags)
    # the reward only in verifier/reward.txt
    d4 = runs["fix-build__Fd4"]
    assert (d4.success, d4.reward, d4.harness) == (False, 0.0, "mini-swe-agent")
    assert d4.success_from == "harbor reward: job_mixed/fix-build__Fd4/verifier/reward.txt"
    assert d4.exit_status == "Submitted" and d4.cost_usd == pytest.approx(0.01)
    # no reward anywhere: the CTRF report decides (one test failed)
    e5 = runs["fix-build__Fe5"]
    assert (e5.success, e5.reward) == (False, None)
    assert e5.success_from == "harbor ctrf: job_mixed/fix-build__Fe5/verifier/ctrf.json"


def test_success_threshold_applies_to_numeric_rewards() -> None:
    runs = runs_of("job_mixed", "atif_meta", outcomes=Outcomes(success_threshold=0.5))
    assert runs["fix-build__Fb2"].success is True and runs["fix-build__Fb2"].reward == 0.5
    assert runs["fix-build__Fd4"].success is False  # reward 0
    assert runs["meta-1"].success is True  # metadata.json reward 0.5, no verdict of its own


def test_no_secret_from_a_harbor_config_reaches_a_run(tmp_path: Path) -> None:
    runs = list(runs_of("job_mixed").values())
    text = json.dumps(
        [
            {
                "extra": r.extra,
                "flags": r.flags,
                "warnings": r.warnings,
                "model": r.model,
                "harness": r.harness,
            }
            for r in runs
        ],
        default=str,
    )
    assert (
        SECRET not in text
        and "OPENAI_API_KEY" not in text
        and "env" not in json.dumps([r.extra.get("trial") for r in runs])
    )
    out = tmp_path / "runs.jsonl"
    write_runs(out, runs)
    assert SECRET not in out.read_text()


# --------------------------------------------------------------------------- other sidecars


def test_swebench_experiments_submission_model_and_a_report_listing_runs_twice() -> None:
    runs = runs_of("swebench_experiments")
    assert {r.model for r in runs.values()} == {"model-x-2025-01"}  # only in metadata.yaml
    assert all("metadata.yaml tags.model" in r.flags[-1] for r in runs.values())
    one, two, three = runs["demo__calc-1"], runs["demo__calc-2"], runs["demo__calc-3"]
    assert (one.success, one.reward) == (True, 1.0)  # twice in `resolved`, twice in submitted_ids
    assert one.success_from is not None and one.success_from.endswith("results/results.json")
    assert (two.success, two.reward) == (False, 0.0)
    # resolved and unresolved at once: the report contradicts itself, the outcome is unknown
    assert three.success is None and any(
        "as resolved and as not resolved" in w for w in three.warnings
    )


def test_mini_swe_agent_predictions_and_evaluation_reports() -> None:
    runs = runs_of("mini_eval")
    assert set(runs) == {"demo__calc-1", "demo__calc-2", "demo__calc-4"}  # the summary is a sidecar
    # the harness summary is named after the model in preds.json: <model>.<run_id>.json
    assert runs["demo__calc-1"].success is True
    assert (
        runs["demo__calc-1"].success_from
        == "swe-bench report: mini_eval/openai__gpt-4o-mini.eval1.json"
    )
    assert runs["demo__calc-2"].success is False  # error_ids count as not resolved
    # a per-instance report under logs/run_evaluation/<run>/<model>/<id>/
    assert runs["demo__calc-4"].success is True
    assert "logs/run_evaluation/eval1" in (runs["demo__calc-4"].success_from or "")


def test_evaluation_reports_are_the_files_named_like_reports(tmp_path: Path) -> None:
    """A folder's reports: ``*report*.json`` and ``results.json`` beside the logs, any
    ``*result*.json`` under ``results/``; never a trajectory, another file or a folder."""
    for name in (
        "b.report.json",
        "results.json",
        "a_report.json",
        "x.traj.json",
        "notes.txt",
        "result.json",
        "report.jsonl",
    ):
        (tmp_path / name).write_text("{}")
    (tmp_path / "folder_report.json").mkdir()
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "run_result.json").write_text("{}")
    (tmp_path / "results" / "other.json").write_text("{}")
    assert _report_files(tmp_path) == [
        tmp_path / "a_report.json",
        tmp_path / "b.report.json",
        tmp_path / "results.json",
        tmp_path / "results" / "run_result.json",
    ]


def test_atif_metadata_json_beside_the_trajectory() -> None:
    runs = runs_of("atif_meta")
    one, two = runs["meta-1"], runs["meta-2"]
    assert (one.success, one.reward, one.task_family, one.harness) == (
        False,
        0.5,
        "sdlc_debug",
        "claude-code",
    )
    assert one.success_from == "metadata.json: atif_meta/t1/metadata.json"
    # passed: false with no reward; the model the log left empty comes from the metadata
    assert (two.success, two.reward, two.model) == (False, None, "claude-sonnet-4-6")
    assert "log_model" not in two.extra  # the log named none


def test_terminal_bench_1_trials() -> None:
    runs = runs_of("tb1_run")
    ok = runs["hello-world.1-of-1.2025-06-01__10-00-00"]
    assert (ok.task_id, ok.success, ok.reward) == ("hello-world", True, 1.0)
    assert ok.success_from is not None and ok.success_from.startswith("terminal-bench results.json")
    bad = runs["broken-task.1-of-1.2025-06-01__10-00-00"]
    assert (bad.success, bad.exit_status) == (None, "agent_timeout")


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (
            {"a": {"resolved": True}, "b": {"resolved": False}, "c": {"x": 1}},
            {"a": True, "b": False},
        ),
        (
            {
                "resolved_ids": ["a", "a"],
                "unresolved_ids": ["b"],
                "error_ids": ["c"],
                "empty_patch_ids": ["d"],
                "incomplete_ids": ["e"],
                "completed_ids": ["a", "b", "f"],
            },
            {"a": True, "b": False, "c": False, "d": False, "f": False},
        ),
        (
            {"resolved": ["a"], "no_generation": ["b"], "applied": ["a", "c"]},
            {"a": True, "b": False, "c": False},
        ),
        ({"resolved_ids": ["a"], "unresolved_ids": ["a"]}, {"a": None}),
        ({"accuracy": 0.5}, {}),
        ([1, 2], {}),
    ],
)
def test_parse_report(doc: object, expected: dict[str, bool | None]) -> None:
    assert parse_report(doc).labels == expected


def test_read_submission_yaml_both_layouts(tmp_path: Path) -> None:
    old = tmp_path / "old.yaml"
    old.write_text("name: SWE-agent + GPT 4\noss: true\nsite: https://x\n")
    assert read_submission_yaml(old) == {"name": "SWE-agent + GPT 4"}
    new = tmp_path / "new.yaml"
    new.write_text(
        "info:\n  name: 'Agent X'\n  site: y\ntags:\n  model:\n  - claude-3-5\n  - gpt-4o\n"
        "  org:\n  - Acme\n"
    )
    assert read_submission_yaml(new) == {"name": "Agent X", "models": ["claude-3-5", "gpt-4o"]}
    inline = tmp_path / "inline.yaml"
    inline.write_text("tags:\n  model: [m1, 'm2']\n")
    assert read_submission_yaml(inline) == {"models": ["m1", "m2"]}


def test_a_broken_sidecar_is_a_warning_not_an_error(tmp_path: Path) -> None:
    trial = tmp_path / "t__1"
    (trial / "agent").mkdir(parents=True)
    (trial / "agent" / "trajectory.json").write_bytes(
        (JOB / "fix-build__Fe5/agent/trajectory.json").read_bytes()
    )
    (trial / "config.json").write_text(
        json.dumps({"trial_name": "t__1", "agent": {"name": "x"}, "task": {}})
    )
    (trial / "result.json").write_text('{"trial_name": "t__1", ')
    (trial / "verifier").mkdir()
    (trial / "verifier" / "reward.txt").write_text("high\n")
    (run,) = runs_of(trial).values()
    assert run.success is None and run.run_id == "t__1"
    assert any("result.json: not valid JSON" in w for w in run.warnings)
    assert any("reward.txt: not a number" in w for w in run.warnings)


# --------------------------------------------------------------------------- labels files


def test_labels_csv_win_over_sidecars_and_say_so() -> None:
    labels = load_labels("labels/labels.csv")
    runs = runs_of("job_mixed", "mini_eval", outcomes=Outcomes(labels=labels))
    c3 = runs["fix-build__Fc3"]  # crashed, no reward: labelled by hand
    assert (c3.success, c3.success_from) == (True, "labels labels/labels.csv:2")
    calc2 = runs["demo__calc-2"]  # by task id; the report said False
    assert (calc2.success, calc2.reward) == (True, None)
    assert any("labels labels/labels.csv:3 says True, replacing False" in f for f in calc2.flags)
    b2 = runs["fix-build__Fb2"]  # by path (relative to the labels file), reward only
    assert (b2.success, b2.reward, b2.success_from) == (False, 0.25, "labels labels/labels.csv:4")
    assert [(r.line, r.run_id) for r in labels.unmatched()] == [(5, "no-such-run")]
    assert (
        runs["fix-build__Fa1"].success_from == "harbor reward: job_mixed/fix-build__Fa1/result.json"
    )


def test_labels_json_mapping_and_jsonl() -> None:
    labels = load_labels("labels/labels.json")
    runs = runs_of("job_mixed", outcomes=Outcomes(labels=labels, success_threshold=1.0))
    assert runs["fix-build__Fa1"].success is False and runs["fix-build__Fa1"].reward is None
    assert (runs["fix-build__Fd4"].success, runs["fix-build__Fd4"].reward) == (True, 1.0)
    assert runs["fix-build__Fd4"].success_from == "labels labels/labels.json:3"
    assert [r.any_key for r in labels.unmatched()] == ["demo__calc-404"]
    labels = load_labels("labels/labels.jsonl")
    runs = runs_of("job_mixed", "swebench_experiments", outcomes=Outcomes(labels=labels))
    assert runs["demo__calc-1"].success is False and runs["fix-build__Fe5"].success is True
    assert runs["fix-build__Fe5"].success_from == "labels labels/labels.jsonl:2"
    assert labels.unmatched() == []


def test_labels_by_path_and_task_pick_one_run_of_a_many_run_file(tmp_path: Path) -> None:
    from tests.helpers import make_run

    runs = [make_run([], run_id=f"r{i}", task_id=str(i)) for i in range(3)]
    log = tmp_path / "many.jsonl"
    write_runs(log, runs)
    labels_file = tmp_path / "l.csv"
    labels_file.write_text("path,task_id,success\nmany.jsonl,1,true\nmany.jsonl,,false\n")
    got = {
        r.task_id: r.success for r in load(log, outcomes=Outcomes(labels=load_labels(labels_file)))
    }
    assert got == {"0": False, "1": True, "2": False}  # the more specific row wins


def test_labels_that_disagree_label_nothing(tmp_path: Path) -> None:
    labels_file = tmp_path / "l.csv"
    labels_file.write_text("run_id,success\nfix-build__Fa1,1\nfix-build__Fa1,0\n")
    runs = runs_of("job_mixed/fix-build__Fa1", outcomes=Outcomes(labels=load_labels(labels_file)))
    run = runs["fix-build__Fa1"]
    assert (
        run.success is True
        and run.success_from is not None
        and run.success_from.startswith("harbor")
    )
    assert any("lines 2, 3 disagree" in w for w in run.warnings)


@pytest.mark.parametrize(
    ("name", "line", "reason"),
    [
        ("bad_success.csv", 3, "success 'maybe' is not true/false"),
        ("bad.json", 3, "not valid JSON"),
        ("bad_reward.jsonl", 2, "reward 'high' is not a number"),
        ("nokey.csv", 1, "the header names no key column"),
    ],
)
def test_malformed_labels_files_name_file_and_line(name: str, line: int, reason: str) -> None:
    with pytest.raises(InputError) as info:
        load_labels(Path("labels") / name)
    assert info.value.line == line and reason in info.value.reason
    assert str(info.value).startswith(f"labels/{name}:{line}: ")


def test_labels_file_edge_cases(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such labels file"):
        load_labels(tmp_path / "missing.csv")
    empty = tmp_path / "empty.csv"
    empty.write_text("run_id,success\n")
    with pytest.raises(InputError, match="holds no label"):
        load_labels(empty)
    wide = tmp_path / "wide.csv"
    wide.write_text("run_id,success\na,1,extra\n")
    with pytest.raises(InputError, match="3 fields where the header has 2") as info:
        load_labels(wide)
    assert info.value.line == 2
    noname = tmp_path / "noname.jsonl"
    noname.write_text('{"success": true}\n')
    with pytest.raises(InputError, match="names no run") as info:
        load_labels(noname)
    assert info.value.line == 1
    with pytest.raises(InputError, match="finite"):
        Outcomes(success_threshold=float("nan"))
    bom = tmp_path / "bom.tsv"
    bom.write_bytes("\ufeffrun_id\tsuccess\tnote\nx\tpass\tok\n".encode())
    (row,) = load_labels(bom).rows
    assert (row.run_id, row.success) == ("x", True)


def test_paths_in_labels_resolve_from_the_labels_folder_or_the_cwd(tmp_path: Path) -> None:
    labels_file = tmp_path / "l.csv"
    target = os.path.relpath(
        JOB / "fix-build__Fd4/agent/mini-swe-agent.trajectory.json", Path.cwd()
    )
    labels_file.write_text(f"path,success\n{target},1\n")
    runs = runs_of("job_mixed/fix-build__Fd4", outcomes=Outcomes(labels=load_labels(labels_file)))
    assert runs["fix-build__Fd4"].success is True


def test_a_label_the_log_derived_from_a_reward_follows_the_threshold(tmp_path: Path) -> None:
    from tests.helpers import write_trace

    log = write_trace(
        tmp_path / "r.jsonl",
        {"run_id": "r", "success": False, "reward": 0.5, "success_from": "tau-bench reward"},
        [],
    )
    (default,) = load(log)
    assert (default.success, default.reward) == (False, 0.5)
    (run,) = load(log, outcomes=Outcomes(success_threshold=0.5))
    assert (run.success, run.success_from) == (True, "tau-bench reward")
    # a verdict the log states (not from a reward) is kept whatever the threshold
    log = write_trace(
        tmp_path / "v.jsonl",
        {"run_id": "v", "success": False, "reward": 0.5, "success_from": "openhands resolved"},
        [],
    )
    (run,) = load(log, outcomes=Outcomes(success_threshold=0.5))
    assert run.success is False


def test_the_python_api_reads_outcomes_and_labels() -> None:
    import efc_tui

    runs = {r.run_id: r for r in efc_tui.load_all("job_mixed", success_threshold=0.5)}
    assert len(runs) == 5 and runs["fix-build__Fb2"].success is True
    run = efc_tui.load(
        "job_mixed/fix-build__Fa1/agent/trajectory.json", labels="labels/labels.json"
    )
    assert (run.success, run.success_from) == (False, "labels labels/labels.json:2")
