"""Time a scaling fit of 10,000 runs with 1,000 task-level bootstrap resamples (issue 5).

    .venv/bin/python bench/fit_bench.py [--runs 10000] [--resamples 1000] [--workers N]

Rows come from ``efc_tui.fitting.toy`` (the model itself plus noise): 126 groups
(3 families × 7 harnesses × 3 models × 2 budgets), 300 tasks, every predictor and SAS.
Prints the time of each stage, and the point fit (with the task cross-validation that
always runs) as the baseline measured in the same run. No assertion: the issue's bar is < 10 s on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import time

from efc_tui.fitting.corpus import fit_corpus
from efc_tui.fitting.table import RunTable
from efc_tui.fitting.toy import toy_rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--resamples", type=int, default=1_000)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    groups = 3 * 7 * 3 * 2
    per_group = max(1, -(-args.runs // groups))
    t0 = time.perf_counter()
    rows = toy_rows(runs_per_group=per_group, tasks_per_family=100, seed=args.seed)
    table = RunTable.from_rows(rows[: args.runs])
    t_table = time.perf_counter() - t0

    fit_corpus(table, predictors=["x_nrs"])  # warm imports (scipy) outside the timings
    t0 = time.perf_counter()
    fit_corpus(table, cv_folds=0)
    t_bare = time.perf_counter() - t0
    t0 = time.perf_counter()
    base = fit_corpus(table)  # with the task cross-validation, as the CLI always runs it
    t_point = time.perf_counter() - t0
    t0 = time.perf_counter()
    cf = fit_corpus(table, bootstrap=args.resamples, seed=args.seed, workers=args.workers)
    t_boot = time.perf_counter() - t0
    t0 = time.perf_counter()
    fit_corpus(table, holdout=["task_family", "harness", "model", "combined"], workers=args.workers)
    t_hold = time.perf_counter() - t0

    n_pred = sum(1 for f in cf.fits if f.ok)
    print(
        f"runs {len(table):,}  groups {cf.grouping.n_groups}  tasks {cf.n_tasks}  "
        f"predictors fitted {n_pred} (incl. SAS)  cpus {os.cpu_count()}"
    )
    print(f"build run table           {t_table:7.2f} s")
    print(f"point fits, no task CV     {t_bare:6.2f} s")
    print(
        f"point fits + 5-fold task CV {t_point:5.2f} s  (baseline: what `efc-tui fit --bootstrap 0` does)"
    )
    print(
        f"+ {args.resamples:,} bootstrap resamples {t_boot:6.2f} s  ({t_boot / max(t_point, 1e-9):.1f}x baseline)"
    )
    print(f"+ held-out: family, harness, model, combined {t_hold:6.2f} s")
    x = base.get("x_nrs")
    if x.law is not None:
        h = x.holdout("tasks")
        print(
            f"x_nrs: E_inf={x.law.e_inf:.3f} A={x.law.a:.3f} alpha={x.law.alpha:.3f} "
            f"R2={x.r2:.3f} (true 0.1, 0.3, 0.7); ceiling {x.groups_in.ceiling:.3f}; held-out (tasks) "
            f"AUC {h.runs.auc:.3f}, Brier {h.runs.brier:.3f} vs {h.runs.brier_base:.3f} base"
        )


if __name__ == "__main__":
    main()
