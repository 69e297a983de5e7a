"""``efc-tui score``: headless scoring with CI thresholds (SPEC §1).

The options are declared here, for Typer; the command itself is ``_score_run.run``.
"""

from __future__ import annotations

from pathlib import Path

import typer

from efc_tui.cli import _score_run
from efc_tui.cli._app import app
from efc_tui.cli._common import LABELS_HELP, THRESHOLD_HELP
from efc_tui.cli._dask import DASK_HELP, SCHEDULER_HELP, WORKERS_HELP
from efc_tui.cli._score_run import FIT_TABLE as FIT_TABLE
from efc_tui.cli._score_run import SCORE_TABLE as SCORE_TABLE
from efc_tui.cli._score_run import Thresholds as Thresholds
from efc_tui.cli._score_run import table_row as table_row


@app.command()
def score(
    paths: list[str] = typer.Argument(
        ..., help="Trace files, folders (searched recursively) or globs."
    ),
    fmt: str | None = typer.Option(
        None, "--format", "-f", help="Force a reader (see `efc-tui formats`)."
    ),
    json_out: bool = typer.Option(
        False, "--json", help="Print one JSON document: every run with its ledger."
    ),
    jsonl_out: bool = typer.Option(
        False, "--jsonl", help="Print one JSON line of run figures per run."
    ),
    csv_out: bool = typer.Option(False, "--csv", help="Print run figures as CSV."),
    min_eta: float | None = typer.Option(
        None, help="Exit 1 if any run's eta = EFC / C_raw is below this."
    ),
    min_x: float | None = typer.Option(
        None, help="Exit 1 if any run's X = EFC / D_task is below this."
    ),
    min_nrs: float | None = typer.Option(
        None,
        help="Exit 1 if any run's NRS-EFC is below this (warns where NRS-EFC is not shown "
        "to predict success for that kind of run: real agent logs, today).",
    ),
    max_usd: float | None = typer.Option(
        None, "--max-usd", min=0.0, help="Exit 1 if any run's logged dollars exceed this."
    ),
    max_tokens: int | None = typer.Option(
        None,
        "--max-tokens",
        min=0,
        help="Exit 1 if any run used more tokens than this (in + out, cached input "
        "included: the row's tokens_in + tokens_out).",
    ),
    max_steps: int | None = typer.Option(
        None, "--max-steps", min=0, help="Exit 1 if any run has more events than this."
    ),
    fail_on_limit: bool = typer.Option(
        False,
        "--fail-on-limit",
        help="Exit 1 for any run that ended on a limit (cost, context, steps, time: "
        "exit_cost, LimitsExceeded, ...).",
    ),
    estimator: str | None = typer.Option(
        None,
        help="Estimator file from `efc-tui calibrate` (default: the package's that matches each run: the synthetic one for traces with oracle blocks, the real-runs one otherwise).",
    ),
    lenient: bool = typer.Option(False, help="Skip and count malformed lines instead of failing."),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No progress bar or warnings on stderr."
    ),
    labels: Path | None = typer.Option(None, "--labels", help=LABELS_HELP),
    success_threshold: float = typer.Option(1.0, "--success-threshold", help=THRESHOLD_HELP),
    adapter: bool = typer.Option(
        False,
        "--adapter",
        help="Print what the EFC-Adapter would have decided: stop event, cost saved, success at risk, waste split per run, and corpus totals per budget cap.",
    ),
    adapter_sweep: bool = typer.Option(
        False,
        "--adapter-sweep",
        help="Print the cost-saved vs success-at-risk curve over a range of ε.",
    ),
    max_waste: float | None = typer.Option(
        None,
        "--max-waste",
        min=0.0,
        help="Exit 1 if any run spent more than this share of its raw cost after the adapter's stop point.",
    ),
    window: int | None = typer.Option(
        None,
        "--window",
        min=1,
        help="Adapter window W in events (default: the estimator's that scores each run).",
    ),
    epsilon: float | None = typer.Option(
        None,
        "--epsilon",
        min=0.0,
        help="Adapter stop threshold ε (default: the estimator's that scores each run).",
    ),
    repeat: int | None = typer.Option(
        None,
        "--repeat",
        min=0,
        help="Adapter repetition limit: stop when one action fails the same way this many times in a row (default 3; 0: off, the paper's window rule alone).",
    ),
    fit_file: Path | None = typer.Option(
        None,
        "--fit",
        help="Fit file from `efc-tui fit`, or `default` for the package's fit that matches each run (synthetic or real): add each run's predicted success and place on the primary curve (fit_success, fit_z, fit_z_norm, fit_pctl, fit_extrapolated). Empty when the fit has no predictive curve (held-out Brier not below the base rate's): a note says so.",
    ),
    jobs: int | None = typer.Option(
        None,
        "--jobs",
        min=1,
        metavar="N",
        help="Read and score local files on N processes (default: the CPUs this process may use, by its CPU affinity and its container's or cgroup's CPU quota, once the files hold 4 MB or more; 1: in this process). The output is the same either way.",
    ),
    dask: bool = typer.Option(False, "--dask", help=DASK_HELP),
    scheduler: str | None = typer.Option(
        None, "--scheduler", metavar="ADDRESS", help=SCHEDULER_HELP
    ),
    dask_workers: int | None = typer.Option(None, "--dask-workers", min=1, help=WORKERS_HELP),
    junit: Path | None = typer.Option(
        None,
        "--junit",
        metavar="FILE",
        help="Also write a JUnit XML report to FILE: one test case per run, a failure per threshold it missed (with the numbers), its figures as output.",
    ),
    parquet_out: Path | None = typer.Option(
        None,
        "--parquet",
        metavar="FILE",
        help="Also write the run figures to FILE as Parquet: one row per run, the columns of --jsonl (needs pyarrow: pip install 'efc-tui[parquet]').",
    ),
    github: bool = typer.Option(
        False,
        "--github",
        help="Print GitHub Actions annotations on stdout after the table: an error per missed threshold naming the run and its file, then a notice with the counts.",
    ),
) -> None:
    """Score runs headless: EFC, Estimated-EFC, NRS-EFC, raw cost, eta, D_task and X per run.

    Exit 0 when every run meets the thresholds, 1 when one does not (the runs are named on
    stderr), 2 on bad input (file:line and the reason).
    """
    _score_run.run(
        paths=paths,
        fmt=fmt,
        json_out=json_out,
        jsonl_out=jsonl_out,
        csv_out=csv_out,
        min_eta=min_eta,
        min_x=min_x,
        min_nrs=min_nrs,
        max_usd=max_usd,
        max_tokens=max_tokens,
        max_steps=max_steps,
        fail_on_limit=fail_on_limit,
        estimator=estimator,
        lenient=lenient,
        quiet=quiet,
        labels=labels,
        success_threshold=success_threshold,
        adapter=adapter,
        adapter_sweep=adapter_sweep,
        max_waste=max_waste,
        window=window,
        epsilon=epsilon,
        repeat=repeat,
        fit_file=fit_file,
        dask=dask,
        scheduler=scheduler,
        dask_workers=dask_workers,
        junit=junit,
        parquet_out=parquet_out,
        github=github,
        jobs=jobs,
    )


__all__ = ["score"]
