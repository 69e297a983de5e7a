"""Validity report on labeled real runs (issues 12, 29): does any coordinate predict success
on runs of harnesses and models it was never fitted on?

    python bench/validity_real.py [DIR ...] [--split harness,model,source] [--json OUT]

Default: ../shared/real-runs-grouped and ../shared/real-runs. Every predictor on the same
runs and groups (benchmark × harness × model), in sample and held out by harness and by
model (``efc_tui/fitting/crossfit.py``: task demand and curves refitted per fold on the
training runs only; in sample each run's D_task comes from the other groups' runs of its
task). Per predictor: grouped R² with the groups' noise ceiling, per-run AUC pooled,
within task and within group, Brier against the training base rate. SAS comes from the
fit's own held-out machinery (``fit_corpus``; no within-task AUC). Prints the table and the
issue's targets. Not a test: it reads ../shared and takes a few minutes (run it alone on the
machine).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from efc_tui.api import load_all  # noqa: E402
from efc_tui.fitting.coordinates import real_columns  # noqa: E402
from efc_tui.fitting.corpus import BENCHMARK_GROUP_BY, fit_corpus  # noqa: E402
from efc_tui.fitting.crossfit import (  # noqa: E402
    Coordinate,
    figures,
    group_benchmark,
    held_out,
    in_sample,
    model_label,
    rows_from,
)
from efc_tui.fitting.table import RunTable, run_row, source_label  # noqa: E402
from efc_tui.scoring import score_run  # noqa: E402

COORDS = (
    Coordinate("tool_calls", "Tool calls", "tool_calls"),
    Coordinate("tokens", "Raw tokens", "tokens"),
    Coordinate("c_raw", "Raw cost", "c_raw"),
    Coordinate("length", "Length only (logistic, events)", "events", curve=False),
    Coordinate("est_efc", "Est-EFC", "est_efc"),
    Coordinate("x_est", "Est-EFC/D_task", "est_efc", demand="est_efc"),
    Coordinate("nrs_efc", "NRS-EFC", "nrs_efc"),
    Coordinate("x_nrs", "NRS-EFC/D_task (paper)", "nrs_efc", demand="nrs_efc"),
    Coordinate("rf_rate", "RF rate", "rf_rate"),
    Coordinate("x_rf", "RF rate/D_task (ours)", "rf_rate", demand="rf_rate"),
    Coordinate("api_rate", "Retained API feedback rate", "api_rate"),
    Coordinate("x_api", "Retained API rate/D_task (ours)", "api_rate", demand="api_rate"),
)
OURS = ("x_rf", "x_api")
PAPER = "x_nrs"
RAW = ("tool_calls", "tokens", "c_raw", "sas")


def sas_figures(runs: list, roots: list[Path], splits: tuple[str, ...]) -> dict[str, dict]:  # type: ignore[type-arg]
    """SAS on the same groups (its own held-out machinery: cells refitted per fold)."""
    rows = []
    for r in runs:
        if r.success is None:
            continue
        src = source_label(r.source_format, r.source_path, roots)
        row = run_row(score_run(r), src)
        row["benchmark"], row["model"] = group_benchmark(r, src), model_label(r)
        rows.append(row)
    holds = [s for s in splits if s != "source"]
    fit = fit_corpus(
        RunTable.from_rows(rows),
        predictors=["sas"],
        group_by=BENCHMARK_GROUP_BY,
        holdout=holds,
        cv_folds=0,
    )
    sas = fit.get("sas")
    out: dict[str, dict] = {}  # type: ignore[type-arg]
    if sas.groups_in is not None and sas.runs_in is not None:
        f = sas.runs_in
        out["in-sample"] = {
            "groups": sas.groups_in.groups,
            "r2": sas.groups_in.r2,
            "ceiling": sas.groups_in.ceiling,
            "auc": f.auc,
            "brier": f.brier,
            "brier_base": f.brier_base,
            "runs": f.runs,
        }
    for s in holds:
        h = sas.holdout(s)
        if h is None or h.runs is None:
            continue
        out[s] = {
            "groups": h.groups.groups if h.groups else 0,
            "r2": h.groups.r2 if h.groups else None,
            "ceiling": h.groups.ceiling if h.groups else None,
            "auc": h.runs.auc,
            "brier": h.runs.brier,
            "brier_base": h.runs.brier_base,
            "runs": h.runs.runs,
        }
    return out


def fmt(v: object, spec: str = ".2f") -> str:
    return "–" if v is None else format(v, spec)


def report(name: str, res: dict[str, dict[str, Any]]) -> None:
    print(f"\n{name}")
    print(
        f"{'predictor':34s} {'groups':>6s} {'R²':>6s} {'ceil':>5s} {'AUC':>5s} {'AUCtask':>7s} "
        f"{'AUCgrp':>6s} {'Brier':>6s} {'base':>6s}"
    )
    labels = {c.name: c.label for c in COORDS} | {"sas": "SAS"}
    for k, r in res.items():
        if not r.get("runs"):
            continue
        print(
            f"{labels.get(k, k):34s} {r.get('groups', 0) or 0:6d} {fmt(r.get('r2')):>6s} "
            f"{fmt(r.get('ceiling')):>5s} {fmt(r.get('auc')):>5s} {fmt(r.get('auc_task')):>7s} "
            f"{fmt(r.get('auc_group')):>6s} {fmt(r.get('brier'), '.3f'):>6s} {fmt(r.get('brier_base'), '.3f'):>6s}"
        )


def targets(split: str, res: dict[str, dict[str, Any]]) -> None:
    for name in (*OURS, PAPER):
        p = res.get(name, {})
        if not p.get("runs"):
            continue
        best_raw = max((res.get(k, {}).get("r2") or -9 for k in RAW), default=-9)
        length = res.get("length", {}).get("auc_task") or 0
        print(
            f"  {split} {name}: R² {fmt(p.get('r2'))} (≥ 0.7: {'met' if (p.get('r2') or -9) >= 0.7 else 'NOT met'}; "
            f"best raw/SAS {fmt(best_raw)}: {'above' if (p.get('r2') or -9) > best_raw else 'NOT above'}), "
            f"AUC within task {fmt(p.get('auc_task'))} (≥ 0.70: {'met' if (p.get('auc_task') or 0) >= 0.7 else 'NOT met'}; "
            f"length {fmt(length)}: {'above' if (p.get('auc_task') or 0) > length else 'NOT above'}), "
            f"Brier {fmt(p.get('brier'), '.3f')} vs base {fmt(p.get('brier_base'), '.3f')}: "
            f"{'below' if (p.get('brier') or 1) < (p.get('brier_base') or 0) else 'NOT below'}"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "dirs",
        nargs="*",
        default=[
            str(REPO.parent / "shared" / "real-runs-grouped"),
            str(REPO.parent / "shared" / "real-runs"),
        ],
    )
    ap.add_argument("--split", default="harness,model")
    ap.add_argument("--json", default=None, help="also write the figures as JSON here")
    args = ap.parse_args()
    folders = [Path(d) for d in args.dirs]
    missing = [f for f in folders if not f.is_dir()]
    if missing:
        print(f"no {missing[0]}: nothing to report", file=sys.stderr)
        return 2
    splits = tuple(s.strip() for s in args.split.split(",") if s.strip())
    t0 = time.perf_counter()
    roots = [f.resolve() for f in folders]
    runs = [r for f in folders for r in load_all(str(f))]
    rows = rows_from(
        runs, real_columns, lambda r: source_label(r.source_format, r.source_path, roots)
    )
    print(
        f"{len(runs)} runs, {len(rows)} labeled ({int(rows.y.sum())} successes), "
        f"{len(set(rows.group))} groups (benchmark × harness × model), {len(set(rows.task))} tasks "
        f"from {', '.join(str(f) for f in folders)}"
    )
    sas = sas_figures(runs, roots, splits)
    out: dict[str, Any] = {}
    preds = {"in-sample": in_sample(rows, COORDS)}
    for s in splits:
        preds[s] = held_out(rows, COORDS, s)
    for split, pr in preds.items():
        res = {name: figures(rows, p) for name, p in pr.items()}
        if split in sas:
            res["sas"] = sas[split]
        out[split] = res
        report(
            f"{split} ({'each run fitted with the rest' if split == 'in-sample' else f'held out by {split}: every fold refits D_task and curves without its runs'})",
            res,
        )
    print("\ntargets (issue 29):")
    for split in splits:
        targets(split, out[split])
    print(f"\n{time.perf_counter() - t0:.0f} s")
    if args.json:
        Path(args.json).write_bytes(orjson.dumps(out, option=orjson.OPT_INDENT_2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
