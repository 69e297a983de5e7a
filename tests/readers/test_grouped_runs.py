"""The grouped real runs (../shared/real-runs-grouped) read as users keep them, WITHOUT
labels.csv: the tau-bench domain (task_family) from the agent's system prompt, the
benchmark, agent design and model as run metadata, SWE-bench outcomes from sb-cli's
``results_summary.json`` and ``logs/<instance>/report.json``; and ``fit``'s default groups
are benchmark × harness × model. labels.csv is only what the readings are checked against.
Skips cleanly without ../shared.
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from efc_tui.api import load_all
from efc_tui.fitting.corpus import BENCHMARK_GROUP_BY, default_group_by, fit_corpus
from efc_tui.fitting.table import RunTable
from efc_tui.model import Run
from efc_tui.parsers import _swebench, sidecars
from efc_tui.parsers.tau_bench import prompt_domain
from tests.conftest import SHARED

GROUPED = SHARED / "real-runs-grouped"

pytestmark = pytest.mark.skipif(
    not (GROUPED / "labels.csv").is_file(), reason="../shared/real-runs-grouped is not present"
)


@cache
def runs() -> list[Run]:
    return list(load_all(GROUPED))


@cache
def label_rows() -> list[dict[str, str]]:
    with (GROUPED / "labels.csv").open(newline="") as f:
        return list(csv.DictReader(f))


def _tau_key(run: Run) -> tuple[str, str, str]:
    return (str(Path(run.source_path or "").name), str(run.task_id), str(run.extra["trial"]))


def test_every_labeled_run_is_read_with_the_outcome_labels_csv_gives() -> None:
    rows = label_rows()
    got = runs()
    assert len(got) == len(rows) == 1240
    tau = {_tau_key(r): r for r in got if r.source_format == "tau-bench"}
    swe = {r.task_id: r for r in got if r.source_format == "mini-swe-agent"}
    assert len(tau) == 1160 and len(swe) == 80
    for row in rows:
        want = row["success"] == "1"
        if row["source"].startswith("tau_bench"):
            domain, _, tid, _, trial = row["task"].split()
            run = tau[(Path(row["trajectory_file"]).name, tid, trial)]
            # the domain is the task family, read from the agent's system prompt
            assert run.task_family == domain
            assert run.extra["benchmark"] == f"tau-bench {domain}"
            assert f"[tau-bench {domain}]" in row["agent"]
            assert row["agent"].startswith(run.harness or "?")
            assert row["model"].startswith(f"{run.model} (user sim")
        else:
            run = swe[row["task"]]
            assert run.extra["benchmark"] == "SWE-bench"
            assert (run.success_from or "").startswith("sb-cli: ")
        assert run.success is want, row


def test_sbcli_files_each_give_the_outcome_alone(tmp_path: Path) -> None:
    """``logs/<id>/report.json`` alone and ``results_summary.json`` alone each decide."""
    src = next(r for r in runs() if r.source_format == "mini-swe-agent" and r.success is False)
    iid = str(src.task_id)
    traj = tmp_path / "run" / "trajs" / iid / f"{iid}.traj.json"
    traj.parent.mkdir(parents=True)
    traj.write_bytes(Path(str(src.source_path)).read_bytes())
    report = tmp_path / "run" / "logs" / iid / "report.json"
    report.parent.mkdir(parents=True)
    report.write_text(json.dumps({"patch_exists": True, "resolved": False}))
    sidecars.clear_caches()
    [run] = list(load_all(traj))
    assert run.success is False and "report.json" in (run.success_from or "")
    report.unlink()
    summary = tmp_path / "run" / _swebench.SBCLI_SUMMARY
    summary.write_text(json.dumps({"instances": [{"instance_id": iid, "resolved": True}]}))
    sidecars.clear_caches()
    [run] = list(load_all(traj))
    assert run.success is True and _swebench.SBCLI_SUMMARY in (run.success_from or "")
    summary.unlink()
    sidecars.clear_caches()
    [run] = list(load_all(traj))
    assert run.success is None


def test_prompt_domain_reads_the_policy_heading() -> None:
    assert prompt_domain([{"role": "system", "content": "# Airline Agent Policy\n..."}]) == (
        "airline"
    )
    assert prompt_domain([{"role": "system", "content": "# Retail agent policy"}]) == "retail"
    # the heading only: a policy that mentions another domain further down is not that domain
    assert prompt_domain([{"role": "system", "content": "# Policy\nairline"}]) is None
    assert prompt_domain([{"role": "user", "content": "# Airline"}]) is None


def test_fit_groups_the_grouped_corpus_by_benchmark_harness_and_model() -> None:
    from efc_tui.fitting.table import run_row
    from efc_tui.scoring import score_run

    table = RunTable.from_rows(run_row(score_run(r)) for r in runs())
    assert default_group_by(table) == BENCHMARK_GROUP_BY
    fit = fit_corpus(table, predictors=["tool_calls"], cv_folds=0)
    assert fit.grouping.by == BENCHMARK_GROUP_BY
    sizes: Counter[tuple[str, str, str]] = Counter()
    for g, n in enumerate(np.bincount(fit.grouping.codes)):
        key = fit.grouping.key_dict(g)
        # the SWE-bench group's model is spelt "@google/..." in 3 of its 80 trajectories
        sizes[(key["benchmark"], key["harness"], key["model"].lstrip("@"))] += int(n)
    want: Counter[tuple[str, str, str]] = Counter()
    for row in label_rows():
        if row["source"].startswith("swebench"):
            bench, harness, model = "SWE-bench", "mini-swe-agent", "google/" + row["model"]
        else:
            bench = row["agent"].split("[")[1].rstrip("]")
            harness = row["agent"].split(" [")[0]
            model = row["model"].split(" (user sim")[0]
        want[(bench, harness, model)] += 1
    # groups.csv's 16 groups, each with its runs
    assert sizes == want and len(sizes) == 16


def test_the_shipped_real_fit_shows_a_number_only_when_it_is_predictive_held_out() -> None:
    """`score --fit default` on a real trace: the real fit's curve when its validity block
    says predictive (held out by harness), else no number and the reason."""
    from typer.testing import CliRunner

    from efc_tui.cli import app
    from efc_tui.fitting.fitfile import load_fit
    from tests.conftest import REPO

    real = load_fit(REPO / "efc_tui" / "data" / "default_fit_real.json")
    validity = real.doc["validity"]
    assert validity["predictive"] is (real.predictive_curve() is not None)
    assert validity["selection_axis"] == "harness"
    assert {"harness", "model"} <= set(validity["heldout"])
    tau = next(GROUPED.glob("tau_bench_grok/results/*.json"))
    r = CliRunner().invoke(app, ["score", str(tau), "--fit", "default", "--jsonl"])
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    if validity["predictive"]:
        held = validity["heldout"]["harness"]
        assert held["brier"] < held["brier_base"] and held["auc"] > 0.5
        assert all(row["fit_success"] is not None for row in rows)
    else:
        assert all(row["fit_success"] is None for row in rows)
        assert "no predictive curve" in r.stderr
