"""Validity report on labeled real runs (issue 12): does any coordinate predict success on
runs from a source (or a model) it never saw?

    python bench/validity_real.py [REAL_RUNS_DIR] [--split source|model|both]

For every held-out value of the split (each source folder, or each model), nothing fitted
sees the held-out runs' outcomes:

1. the task-demand table is calibrated on the training runs only (``calibrate_outcomes``),
   and the training runs themselves are scored cross-fitted (each run's D from a table
   calibrated without its own agent × model), so the curve is fitted on out-of-sample D;
2. every predictor's failure curve is fitted on the training runs' groups (agent × model);
3. the held-out runs are scored with the training table (their tasks: the training runs'
   D where other agents ran them, else the benchmark's or the prior) and predicted.

Held-out predictions are pooled over folds: per-run AUC, Brier against the training base
rate, Brier skill, and grouped R² of the held-out agent × model groups with their noise
ceiling. SAS comes from the fit's own held-out machinery (it does not use D). Prints a table
and the issue's targets (AUC ≥ 0.75 for the primary coordinate, above raw tokens, raw cost
and SAS; grouped R² above raw tokens; Brier below the base rate). Not a test: it reads
../shared and takes a minute or two.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import orjson

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from efc_tui.api import load_all  # noqa: E402
from efc_tui.fitting.corpus import fit_corpus  # noqa: E402
from efc_tui.fitting.fitfile import fit_document, parse_fit  # noqa: E402
from efc_tui.fitting.table import RunTable, run_row, source_label  # noqa: E402
from efc_tui.fitting.validity import auc, brier, group_figures, is_predictive  # noqa: E402
from efc_tui.scoring.calibrate_real import (  # noqa: E402
    calibrate_outcomes,
    cross_fitted,
    outcome_rows,
    real_estimator_document,
    run_key,
)
from efc_tui.scoring.estimator import load_estimator, parse_estimator  # noqa: E402
from efc_tui.scoring.ledger import score_run  # noqa: E402

PREDICTORS = ("tokens", "c_raw", "nrs_efc", "x_nrs", "est_efc", "x_est", "eta_nrs")
PRIMARY = "x_nrs"
GROUP_BY = ("harness", "model")


def fold_key(split: str, run, roots) -> str:  # type: ignore[no-untyped-def]
    if split == "model":
        return str(run.model or "?")
    return source_label(run.source_format, run.source_path, roots)


def evaluate(runs: list, split: str, roots: list[Path]) -> dict:  # type: ignore[type-arg]
    base = load_estimator()
    keys = [fold_key(split, r, roots) for r in runs]
    every = outcome_rows(runs, base)  # scored once; each fold takes its training runs' rows
    pooled: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))  # type: ignore[type-arg]
    folds_used = 0
    for fold in sorted(set(keys)):
        test_i = [i for i, k in enumerate(keys) if k == fold and runs[i].success is not None]
        train_i = [i for i, k in enumerate(keys) if k != fold]
        train_runs = [runs[i] for i in train_i]
        y_train = [r.success for r in train_runs if r.success is not None]
        if not test_i or len(set(y_train)) < 2:
            continue
        train_keys = {run_key(r) for r in train_runs}
        train_rows = [row for row in every if row.key in train_keys]
        cal = calibrate_outcomes(train_rows)
        if cal is None:
            continue
        doc = real_estimator_document(base, cal, train_rows)
        est = parse_estimator(orjson.dumps(doc), f"fold without {fold}")
        train_leds, _ = cross_fitted(train_runs, base, by="group", rows=train_rows)
        rows = [
            run_row(led, source_label(led.run.source_format, led.run.source_path, roots))
            for led in train_leds
        ]
        fit = fit_corpus(
            RunTable.from_rows(rows), predictors=list(PREDICTORS), group_by=GROUP_BY, cv_folds=0
        )
        ff = parse_fit(orjson.dumps(fit_document(fit)), f"fit without {fold}")
        base_rate = float(np.mean([bool(v) for v in y_train]))
        folds_used += 1
        for i in test_i:
            led = score_run(runs[i], est)
            group = f"{fold}|{led.run.harness} × {led.run.model}"
            for name in PREDICTORS:
                try:
                    curve = ff.curve(name)
                except Exception:  # no curve for it in this fold
                    continue
                pos = curve.predict_figures(led.figures)
                if pos is None:
                    continue
                d = pooled[name]
                d["y"].append(float(bool(runs[i].success)))
                d["p"].append(pos.success)
                d["b"].append(base_rate)
                d["g"].append(group)
    out = {}
    for name, d in pooled.items():
        y, p, b = (np.asarray(d[k], dtype=float) for k in ("y", "p", "b"))
        groups = sorted(set(d["g"]))
        gi = np.array([groups.index(g) for g in d["g"]])
        n = np.bincount(gi).astype(float)
        obs = 1 - np.bincount(gi, weights=y) / n
        pred = 1 - np.bincount(gi, weights=p) / n
        gf = group_figures(obs, pred, n)
        bs, bb = brier(y, p), brier(y, b)
        out[name] = {
            "runs": len(y),
            "successes": int(y.sum()),
            "auc": auc(y, p),
            "brier": bs,
            "brier_base": bb,
            "skill": 1 - bs / bb if bb > 0 else None,
            "r2": gf.r2,
            "ceiling": gf.ceiling,
            "groups": gf.groups,
        }
    return {"split": split, "folds": folds_used, "predictors": out}


def sas_heldout(runs: list, split: str, roots: list[Path]) -> dict | None:  # type: ignore[type-arg]
    base = load_estimator()
    leds, _ = cross_fitted(runs, base, by="group", rows=outcome_rows(runs, base))
    rows = [
        run_row(led, source_label(led.run.source_format, led.run.source_path, roots))
        for led in leds
    ]
    fit = fit_corpus(
        RunTable.from_rows(rows),
        predictors=["sas", "tokens"],
        group_by=(*GROUP_BY, "source") if split == "source" else GROUP_BY,
        holdout=[split],
        cv_folds=0,
    )
    h = fit.get("sas").holdout(split)
    if h is None:
        return None
    r = h.runs
    return {
        "runs": r.runs,
        "auc": r.auc,
        "brier": r.brier,
        "brier_base": r.brier_base,
        "skill": r.skill,
        "r2": h.groups.r2 if h.groups else None,
        "ceiling": h.groups.ceiling if h.groups else None,
    }


def fmt(v: object, spec: str = ".2f") -> str:
    return "–" if v is None else format(v, spec)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="?", default=str(REPO.parent / "shared" / "real-runs"))
    ap.add_argument("--split", choices=("source", "model", "both"), default="both")
    args = ap.parse_args()
    folder = Path(args.runs)
    if not folder.is_dir():
        print(f"no {folder}: nothing to report", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    runs = list(load_all(str(folder)))
    roots = [folder.resolve()]
    labeled = sum(r.success is not None for r in runs)
    print(
        f"{len(runs)} runs ({labeled} labeled, {sum(bool(r.success) for r in runs)} successful) from {folder}"
    )
    splits = ("source", "model") if args.split == "both" else (args.split,)
    for split in splits:
        rep = evaluate(runs, split, roots)
        sas = sas_heldout(runs, split, roots)
        print(
            f"\nheld out by {split} ({rep['folds']} folds; every fold refits task demand and curves "
            "without the held-out runs)"
        )
        print(
            f"{'predictor':10s} {'runs':>5s} {'AUC':>5s} {'Brier':>6s} {'base':>6s} {'skill':>6s} "
            f"{'groupR2':>8s} {'ceiling':>8s}  predictive"
        )
        rows = dict(rep["predictors"])
        if sas is not None:
            rows["sas"] = sas
        for name in (*PREDICTORS, "sas"):
            r = rows.get(name)
            if r is None:
                continue
            pred = is_predictive(
                r["brier"], r["brier_base"], r["auc"], r.get("successes"), r["runs"]
            )
            print(
                f"{name:10s} {r['runs']:5d} {fmt(r['auc']):>5s} {fmt(r['brier'], '.3f'):>6s} "
                f"{fmt(r['brier_base'], '.3f'):>6s} {fmt(r['skill']):>6s} {fmt(r['r2']):>8s} "
                f"{fmt(r['ceiling']):>8s}  {'yes' if pred else 'no'}"
            )
        prim = rows.get(PRIMARY, {})
        checks = [
            (f"AUC of {PRIMARY} ≥ 0.75", (prim.get("auc") or 0) >= 0.75, fmt(prim.get("auc"))),
            (
                f"{PRIMARY} AUC above tokens, c_raw and SAS",
                all(
                    (prim.get("auc") or 0) > (rows.get(k, {}).get("auc") or 0)
                    for k in ("tokens", "c_raw", "sas")
                ),
                "",
            ),
            (
                f"{PRIMARY} grouped R² above tokens",
                (prim.get("r2") if prim.get("r2") is not None else -9)
                > (rows.get("tokens", {}).get("r2") or -9),
                "",
            ),
            (
                f"{PRIMARY} Brier below the base rate",
                (prim.get("brier") or 1) < (prim.get("brier_base") or 0),
                "",
            ),
        ]
        for text, ok, val in checks:
            print(f"  target: {text}: {'met' if ok else 'NOT met'} {val}")
    print(f"\n{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
