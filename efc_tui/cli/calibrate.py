"""``efc-tui calibrate``: fit the estimator on traces with oracle blocks (SPEC §3.4, §4, §6)."""

from __future__ import annotations

import functools
import itertools
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from efc_tui._lazy import lazy_module
from efc_tui.cli._app import app
from efc_tui.cli._common import (
    LABELS_HELP,
    THRESHOLD_HELP,
    collect_paths,
    fail,
    iter_runs,
    note,
    outcomes_from,
    stdout_console,
    warn,
)
from efc_tui.errors import EfcError
from efc_tui.io import write_atomic
from efc_tui.scoring.constants import DEFAULT_SEED_FRACTION, THETA_METHODS
from efc_tui.synthetic.templates import DEFAULT_HOLDOUT

if TYPE_CHECKING:
    from rich.table import Table

# rich, numpy and the calibration code, imported when the command runs (efc_tui._lazy)
adapter_ = lazy_module("efc_tui.adapter")
calibration = lazy_module("efc_tui.scoring.calibrate")
calibration_real = lazy_module("efc_tui.scoring.calibrate_real")
estimators = lazy_module("efc_tui.scoring.estimator")
synthetic_corpus = lazy_module("efc_tui.synthetic.corpus")
orjson = lazy_module("orjson")
rich_box = lazy_module("rich.box")
rich_table = lazy_module("rich.table")
rich_text = lazy_module("rich.text")


def _holdout(values: list[str] | None) -> tuple[str, ...]:
    if not values:
        return DEFAULT_HOLDOUT
    return tuple(p.strip() for v in values for p in v.split(",") if p.strip())


def _corpus(paths: list[str], n_files: int) -> dict[str, Any]:
    """What the provenance says about the corpus: its manifest when there is one."""
    if len(paths) == 1 and Path(paths[0]).is_dir():
        m = synthetic_corpus.read_manifest(Path(paths[0]))
        if m is not None:
            return {"manifest": m.get("spec"), "generator": m.get("generator"), "files": n_files}
    return {"files": n_files}


def figures_table(figures: dict[str, Any]) -> Table:
    split_label = {
        calibration.CALIBRATION: "calibration (in-sample)",
        calibration.HELDOUT_TEMPLATE: "held-out templates",
        calibration.HELDOUT_SEED: "held-out seeds",
    }
    Text = rich_text.Text
    table = rich_table.Table(
        title="Estimated-EFC vs Oracle-EFC",
        title_justify="left",
        header_style="bold",
        box=rich_box.SIMPLE_HEAD,
    )
    for c in (
        "θ",
        "split",
        "runs",
        "events",
        "event R² log1p(y)",
        "run R²",
        "run corr²",
        "mean Oracle",
        "mean Est.",
    ):
        table.add_column(c, justify="left" if c in ("θ", "split") else "right")
    for mode in ("full", "prefix"):
        for split, q in figures[mode].items():
            if not q.get("runs"):
                continue
            table.add_row(
                *(
                    Text(str(x))
                    for x in (
                        mode,
                        split_label.get(split, split),
                        q["runs"],
                        q["events"],
                        f"{q['event_r2_log1p']:.3f}",
                        f"{q['run_r2']:.3f}",
                        f"{q['run_corr2']:.3f}",
                        f"{q['oracle_mean']:.2f}",
                        f"{q['estimated_mean']:.2f}",
                    )
                )
            )
    return table


@app.command("calibrate")
def calibrate_cmd(
    paths: list[str] = typer.Argument(
        ...,
        help="Trace files or folders: synthetic runs with oracle blocks (from `efc-tui simulate`), or labeled real runs.",
    ),
    output: Path = typer.Option(
        ..., "--output", "-o", help="Estimator file to write (efc-estimator/1 JSON)."
    ),
    holdout: list[str] | None = typer.Option(
        None,
        "--holdout",
        help="Held-out templates or task families, comma-separated (default: "
        + ",".join(DEFAULT_HOLDOUT)
        + ").",
    ),
    seed_fraction: float = typer.Option(
        DEFAULT_SEED_FRACTION,
        "--seed-fraction",
        min=0.0,
        max=0.9,
        help="Share of task seeds held out.",
    ),
    adapter: bool = typer.Option(
        True, "--adapter/--no-adapter", help="Choose the adapter's W and ε on the calibration runs."
    ),
    adapter_real: list[str] | None = typer.Option(
        None,
        "--adapter-real",
        help="Labelled real runs (files or folders) that also constrain the adapter's W and ε: chosen with the repetition rule on, at most 3% of each corpus's successes at risk (docs/adapter.md). Without it: the window rule alone on the calibration runs.",
    ),
    theta_fit: str = typer.Option(
        "poisson",
        "--theta-fit",
        help="How θ is fitted: poisson (unbiased run sums; default) or lsq (the paper's least squares on log1p(y)).",
    ),
    demand_bootstrap: int = typer.Option(
        100,
        "--demand-bootstrap",
        min=0,
        help="Task-level bootstrap resamples for the demand exponents' 95% intervals (0: none).",
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the demand bootstrap."),
    note_text: str | None = typer.Option(
        None, "--note", help="Recorded in the file's provenance (e.g. how to regenerate it)."
    ),
    fmt: str | None = typer.Option(
        None, "--format", "-f", help="Force a reader (see `efc-tui formats`)."
    ),
    json_out: bool = typer.Option(
        False, "--json", help="Print the fit figures as JSON instead of a table."
    ),
    lenient: bool = typer.Option(False, help="Skip and count malformed lines instead of failing."),
    labels: Path | None = typer.Option(None, "--labels", help=LABELS_HELP),
    success_threshold: float = typer.Option(1.0, "--success-threshold", help=THRESHOLD_HELP),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No table or notes (errors still go to stderr)."
    ),
    source: str = typer.Option(
        "auto",
        "--from",
        help="What to calibrate on: oracle (synthetic runs' oracle blocks), outcomes (labeled real runs: task demand from how runs ended), or auto (oracle when the first run has oracle blocks).",
    ),
    base: Path | None = typer.Option(
        None,
        "--estimator",
        help="With --from outcomes: the estimator whose θ the real file keeps (default: the shipped synthetic one).",
    ),
) -> None:
    """Calibrate an estimator file and write it with its provenance.

    On synthetic runs with oracle blocks: fit θ (full and prefix), the task-demand exponents
    (for curve collapse, with bootstrap intervals) and the adapter's W and ε on a
    calibration split (by template and seed), and report in-sample and held-out quality.
    On labeled real runs (--from outcomes): keep θ and calibrate task demand from the runs'
    outcomes: D per task id, per benchmark and a prior (docs/calibration.md). Use the file
    with `--estimator` or ship it."""
    if theta_fit not in THETA_METHODS:
        fail(f"--theta-fit must be one of {', '.join(THETA_METHODS)}, not {theta_fit!r}")
    if source not in ("auto", "oracle", "outcomes"):
        fail(f"--from must be auto, oracle or outcomes, not {source!r}")
    outcomes = outcomes_from(labels, success_threshold)
    files = collect_paths(paths)
    runs = iter_runs(files, fmt, lenient, quiet=quiet, outcomes=outcomes)
    if source == "auto":
        first = next(runs, None)
        if first is not None:
            runs = itertools.chain([first], runs)
        source = "oracle" if first is not None and first.simulated else "outcomes"
    if source == "outcomes":
        _calibrate_outcomes(
            runs, output, base, _corpus(paths, len(files)), note_text, json_out, quiet
        )
        return
    chooser: Any = None
    if adapter and adapter_real:
        real = list(
            iter_runs(collect_paths(adapter_real), None, lenient, quiet=quiet, outcomes=outcomes)
        )
        chooser = functools.partial(adapter_.choose_stop_rules, real_runs=real)
    elif adapter:
        chooser = adapter_.choose_adapter
    try:
        result = calibration.calibrate(
            runs,
            holdout=_holdout(holdout),
            seed_fraction=seed_fraction,
            corpus=_corpus(paths, len(files)),
            command=note_text,
            adapter=chooser,
            theta_method=theta_fit,
            demand_bootstrap=demand_bootstrap,
            seed=seed,
        )
        data = orjson.dumps(
            result.estimator, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
        )
        write_atomic(output, data)
    except EfcError as exc:
        fail(exc)
    for name in result.unmatched_holdout:
        warn(f"--holdout {name!r} matched no template or task family in the corpus")
    if quiet:
        return
    if json_out:
        sys.stdout.write(orjson.dumps(result.figures, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        stdout_console().print(figures_table(result.figures))
        dem = result.estimator.get("demand")
        if dem:
            iv = dem.get("intervals") or {}
            parts = [
                f"{k} {b:.2f}" + (f" [{iv[k][0]:.2f}, {iv[k][1]:.2f}]" if k in iv else "")
                for k, b in zip(
                    ("L", "H_tool", "S_state", "N_obs", "V_ver"), dem["beta"][1:], strict=False
                )
            ]
            note("demand exponents (hand form: all 1): " + ", ".join(parts))
    est = result.estimator
    note(
        f"wrote {output}: W = {est['adapter']['window']}, ε = {est['adapter']['epsilon']:g} "
        f"({est['provenance']['adapter']})"
    )
    if result.skipped_runs:
        note(f"{result.skipped_runs} run(s) without oracle blocks were left out")


def _real_adapter(doc: dict[str, Any], runs: list[Any]) -> None:
    """The real estimator's W and ε, chosen on the labelled real runs themselves with the
    repetition rule on (``choose_stop_rules``; docs/adapter.md), instead of the synthetic
    corpus's: its window rule put most real successes at risk."""
    chosen = adapter_.choose_stop_rules(
        runs, estimators.parse_estimator(orjson.dumps(doc), "real estimator (being written)")
    )
    if chosen is None:
        return
    window, epsilon = chosen.pop("window"), chosen.pop("epsilon")
    chosen.pop("status", None)
    doc["adapter"] = {"window": window, "epsilon": epsilon, "calibration": chosen}
    doc["provenance"]["adapter"] = (
        f"chosen on the {len(runs)} labelled real runs with the repetition rule on "
        "(docs/adapter.md)"
    )


def _calibrate_outcomes(
    runs: Any,
    output: Path,
    base: Path | None,
    corpus: dict[str, Any],
    note_text: str | None,
    json_out: bool,
    quiet: bool,
) -> None:
    try:
        est = estimators.load_estimator(base)
        runs = [r for r in runs if r.success is not None]
        rows = calibration_real.outcome_rows(runs, est)
        cal = calibration_real.calibrate_outcomes(rows)
        if cal is None:
            fail(
                f"outcome calibration needs at least 10 labeled runs with both outcomes ({len(rows)} labeled)"
            )
        doc = calibration_real.real_estimator_document(
            est, cal, rows, corpus=corpus, command=note_text
        )
        _real_adapter(doc, runs)
        write_atomic(
            output, orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
        )
    except EfcError as exc:
        fail(exc)
    if quiet:
        return
    figures = {
        "runs": cal.runs,
        "successes": sum(int(r.success) for r in rows),
        "tasks": len(cal.tasks),
        "benchmarks": cal.families,
        "prior_D": cal.prior,
        "curve": cal.curve,
        "loglik": cal.loglik,
        "loglik_prior": cal.loglik_prior,
    }
    if json_out:
        sys.stdout.write(orjson.dumps(figures, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        note(
            f"task demand from {cal.runs} labeled runs ({figures['successes']} successful) of "
            f"{len(cal.tasks)} tasks in {len(cal.families)} benchmarks; log-likelihood "
            f"{cal.loglik:.1f} with per-task D against {cal.loglik_prior:.1f} with one prior D"
        )
    note(f"wrote {output}")
