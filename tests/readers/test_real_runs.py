"""Every labeled real run in ../shared/real-runs, read as it sits on disk WITHOUT labels.csv:
each is found exactly once, and the outcome read from the source's own files (Harbor
result.json, ATIF metadata.json, Multi-SWE-bench results, tau-bench rewards) equals
labels.csv. Skips cleanly without ../shared.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest
from typer.testing import CliRunner

from efc_tui.errors import UnrecognizedFormat
from efc_tui.model import Run
from efc_tui.parsers import discover, load
from tests.conftest import SHARED

REAL_RUNS = SHARED / "real-runs"
pytestmark = pytest.mark.skipif(
    not (REAL_RUNS / "labels.csv").is_file(), reason="../shared/real-runs is not present"
)


@cache
def corpus() -> tuple[dict[Path, list[Run]], set[Path], int]:
    """Runs per source file (in file order), the files no reader recognizes, the number of
    files discovery returned. Events are dropped after counting to keep memory small."""
    found = discover([REAL_RUNS])
    by_file: dict[Path, list[Run]] = defaultdict(list)
    unreadable: set[Path] = set()
    for path in found.sources:
        try:
            for run in load(path):
                run.extra["_events"] = len(run.events)
                run.extra["_tool_calls"] = sum(e.tool_calls for e in run.events)
                run.events = []
                by_file[path.resolve()].append(run)
        except UnrecognizedFormat:
            unreadable.add(path.resolve())
    return dict(by_file), unreadable, len(found.sources)


@cache
def labels() -> dict[str, list[dict[str, str]]]:
    rows: dict[str, list[dict[str, str]]] = defaultdict(list)
    with (REAL_RUNS / "labels.csv").open(newline="") as f:
        for row in csv.DictReader(f):
            rows[row["source"]].append(row)
    return dict(rows)


def _expected(row: dict[str, str]) -> tuple[bool | None, float | None]:
    success = None if row["success"] == "" else row["success"] == "1"
    reward = None if row["reward"] == "" else float(row["reward"])
    return success, reward


@pytest.mark.parametrize(
    "source",
    sorted(
        [
            "ccb_golden_corpus_atif",
            "harbor_openclaw_sample",
            "multi_swe_bench_java_sweagent",
            "openhands_output_jsonl",
            "sweagent_1x_swebench",
            "sweagent_repo_testdata",
            "tau_bench_sample",
        ]
    ),
)
def test_every_labeled_run_is_found_once_with_the_label_of_its_own_files(source: str) -> None:
    by_file, unreadable, _ = corpus()
    rows = labels()[source]
    per_file: dict[Path, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        per_file[(REAL_RUNS / row["trajectory_file"]).resolve()].append(row)
    for path, file_rows in per_file.items():
        assert path not in unreadable, f"no reader recognizes {path}"
        runs = by_file.get(path, [])
        # found exactly once: as many runs as labeled rows (a many-run file: rows in file order)
        assert len(runs) == len(file_rows), (path, len(runs), len(file_rows))
        for row, run in zip(file_rows, runs, strict=True):
            success, reward = _expected(row)
            assert run.success == success, (
                path,
                run.run_id,
                run.success,
                success,
                run.success_from,
            )
            if reward is None:
                assert run.reward is None, (path, run.reward)
            else:
                assert run.reward == pytest.approx(reward), (path, run.reward, reward)
            if success is not None:
                assert run.success_from, (path, run.run_id)


def test_no_run_is_read_twice_or_from_a_sidecar() -> None:
    by_file, unreadable, n_sources = corpus()
    labeled = {
        (REAL_RUNS / r["trajectory_file"]).resolve() for rows in labels().values() for r in rows
    }
    # every file discovery returned is a labeled trajectory: no sidecar, no second log of a trial
    assert not unreadable and set(by_file) == labeled and n_sources == len(labeled)
    assert sum(len(runs) for runs in by_file.values()) == sum(
        len(rows) for rows in labels().values()
    )
    run_ids = [(p, r.run_id) for p, runs in by_file.items() for r in runs]
    assert len(run_ids) == len(set(run_ids))


def _run(rel: str) -> Run:
    """The (first) run of a file."""
    by_file, _, _ = corpus()
    return by_file[(REAL_RUNS / rel).resolve()][0]


# Counted by hand from the raw JSON (python -c 'json.load(...)'), not through efc_tui:
#
# SWE-agent (.traj): one event per `trajectory[]` step plus the task message; every step is
# a tool call except `exit_*` steps (errors). apache__dubbo-10638 (doubao): 41 steps, the
# last is `exit_cost` -> 42 events, 40 tool calls. google__gson-1093 (deepseek-chat): 15
# steps ending in `submit` -> 16, 15. psf__requests-2931 (1.x): 15 steps -> 16, 15.
# pydicom__pydicom-1458 (repo testdata): 12 steps -> 13, 12.
#
# ATIF: `user` steps are messages; each `tool_calls[]` entry of an `agent` step is one call;
# an agent step with results but no call is one call; an agent step with neither is a
# reflect. openclaw 0xpolygon: 2 user + 132 agent steps holding 75 tool calls, 75 steps with
# results and no call, 1 text-only step -> 2 + 75 + 75 + 1 = 153 events, 150 tool calls.
# ccb 00903c52c51f (claude-code, untrimmed): 1 user + 15 agent steps with 5 tool calls and
# 10 text-only steps -> 16 events, 5 tool calls.
#
# tau-bench (one run per entry): the system prompt is not an event; user turns are messages;
# each assistant `tool_calls[]` entry is one call (its `role: tool` reply the result); an
# assistant turn without calls is a reply. Task 0: 8 user, 15 assistant (8 calls, 7 text
# only), 8 tool -> 8 + 8 + 7 = 23 events, 8 tool calls.
#
# OpenHands output.jsonl (one run per record): `history` actions, joined to observations by
# `cause`; the system action is not an event; the user message and the recall observation
# are messages; run/read/edit/think/finish are one call each. ponyc-4595: 1 system, 1 user
# message, 1 recall, 13 run, 6 read, 2 edit, 1 think, 1 finish -> 2 + 23 = 25 events, 23
# tool calls.
#
# Cursor CLI stream-json (wrapped in steps[] by the corpus): ce7450890301 holds 1 user turn,
# 4 `tool_call` started/completed pairs (each pair one call) and 4 assistant texts, 3 of
# them followed by a call (its thought) and the last not (a reply); thinking deltas, the
# init / result lines and the corpus note are not events -> 1 + 4 + 1 = 6 events, 4 calls.
HAND_COUNTS = [
    (
        "multi_swe_bench_java_sweagent/evaluation/java/verified/20240825_SWE-agent_doubao-pro-128k/trajs/apache__dubbo-10638.traj",
        42,
        40,
    ),
    (
        "multi_swe_bench_java_sweagent/evaluation/java/verified/20240825_SWE-agent_deepseek-chat-v2/trajs/google__gson-1093.traj",
        16,
        15,
    ),
    ("sweagent_1x_swebench/trajs/psf__requests-2931.traj", 16, 15),
    (
        "sweagent_repo_testdata/tests/test_data/trajectories/gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/pydicom__pydicom-1458.traj",
        13,
        12,
    ),
    # 75 tool_calls, each answered by a toolResult step of its own, 2 user steps, 1 final text
    (
        "harbor_openclaw_sample/verify_openclaw_0xpolygon_2026-04-10_10-35-30/0xpolygon__bor_ba46e15a_aaaa392a__uaR4pUh/agent/trajectory.json",
        78,
        75,
    ),
    ("ccb_golden_corpus_atif/tests/fixtures/golden_corpus/00903c52c51f/trajectory.json", 16, 5),
    ("tau_bench_sample/gpt-4o-airline.first5.json", 23, 8),
    ("openhands_output_jsonl/evaluation/benchmarks/multi_swe_bench/examples/output.jsonl", 25, 23),
    ("ccb_golden_corpus_atif/tests/fixtures/golden_corpus/ce7450890301/trajectory.json", 6, 4),
]


@pytest.mark.parametrize(("rel", "events", "tool_calls"), HAND_COUNTS, ids=lambda v: str(v)[-30:])
def test_events_and_tool_calls_of_a_sample_per_source_match_a_hand_count(
    rel: str, events: int, tool_calls: int
) -> None:
    run = _run(rel)
    assert (run.extra["_events"], run.extra["_tool_calls"]) == (events, tool_calls)


def test_run_metadata_from_the_sources_own_files() -> None:
    # Harbor: the trial is the run, its task from result.json
    run = _run(
        "harbor_openclaw_sample/verify_openclaw_0xpolygon_2026-04-10_10-35-30/"
        "0xpolygon__bor_ba46e15a_aaaa392a__uaR4pUh/agent/trajectory.json"
    )
    assert (run.run_id, run.task_id, run.harness) == (
        "0xpolygon__bor_ba46e15a_aaaa392a__uaR4pUh",
        "0xpolygon__bor_ba46e15a_aaaa392a",
        "openclaw",
    )
    assert "OPENAI_API_KEY" not in json.dumps(run.extra, default=str)
    # result.json keeps OpenClaw's cache (larger than the input) apart: both are input
    assert run.extra["source_totals"]["cache_tokens"] == 2803421
    assert run.extra["source_totals"]["tokens_in"] == 153481 + 2803421
    # Multi-SWE-bench experiments layout: the model only in the submission's metadata.yaml
    run = _run(
        "multi_swe_bench_java_sweagent/evaluation/java/verified/20240825_SWE-agent_doubao-pro-128k/"
        "trajs/apache__dubbo-10638.traj"
    )
    assert (run.model, run.harness, run.task_family) == (
        "doubao-pro-128k",
        "swe-agent",
        "apache__dubbo",
    )
    assert run.exit_status == "submitted (exit_cost)" and run.cost_usd == pytest.approx(3.08776)
    # ATIF corpus: the benchmark from metadata.json is the task family
    run = _run("ccb_golden_corpus_atif/tests/fixtures/golden_corpus/0008ad20ef51/trajectory.json")
    assert (run.task_family, run.model, run.success, run.reward) == (
        "sdlc_debug",
        "claude-sonnet-4-6",
        True,
        0.3,
    )


#: labeled runs per (agent, model): MANIFEST.md's table, with the agent names the readers give
#: (Harbor's and the ATIF corpus's model names are the benchmark's own record)
AGENT_MODEL_RUNS = {
    ("claude-code", "claude-haiku-4-5-20251001"): 9,
    ("claude-code", "claude-opus-4-5-20251101"): 1,
    ("claude-code", "claude-opus-4-6"): 1,
    ("claude-code", "claude-sonnet-4-6"): 6,
    ("cursor-cli", "claude-opus-4-6"): 12,
    ("openhands", "?"): 1,
    ("openhands", "claude-haiku-4-5-20251001"): 6,
    ("openhands", "claude-sonnet-4-6"): 9,
    ("openclaw", "z-ai/glm-5"): 2,
    ("swe-agent", "deepseek-chat-v2"): 91,
    ("swe-agent", "deepseek-coder-v2"): 91,
    ("swe-agent", "doubao-pro-128k"): 15,
    ("tau-bench", "gpt-4o"): 5,
}


def test_fit_on_the_real_runs_without_a_labels_file_groups_by_agent_and_model(
    tmp_path: Path,
) -> None:
    from efc_tui.cli import app

    out = tmp_path / "fit.json"
    r = CliRunner().invoke(
        app,
        [
            "fit",
            str(REAL_RUNS),
            "-o",
            str(out),
            "--bootstrap",
            "0",
            "-p",
            "tokens,nrs_efc,x_nrs",
            "--quiet",
        ],
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    # the tau-bench and SWE-bench-graded runs name their benchmark
    assert doc["settings"]["group_by"] == ["benchmark", "harness", "model", "budget"]
    assert doc["notes"][0] == "9 of 258 runs have no success label: left out"
    tokens = next(p for p in doc["predictors"] if p["name"] == "tokens")
    per_pair: dict[tuple[str, str], int] = defaultdict(int)
    for g in tokens["groups"]:
        per_pair[(g["key"]["harness"], g["key"]["model"])] += g["runs"]
    assert dict(per_pair) == AGENT_MODEL_RUNS
