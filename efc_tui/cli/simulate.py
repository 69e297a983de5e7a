"""``efc-tui simulate``: write a synthetic corpus with hidden state (SPEC §7, §9)."""

from __future__ import annotations

import time
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from efc_tui._lazy import lazy_module
from efc_tui.cli._app import app
from efc_tui.cli._common import fail, note, progress_bar, progress_enabled
from efc_tui.errors import EfcError, InputError
from efc_tui.synthetic.harnesses import HARNESS_NAMES, MODEL_NAMES
from efc_tui.synthetic.tasks import (
    DEFAULT_BUDGETS,
    DEFAULT_MODELS,
    DEFAULT_RUNS,
    DEFAULT_SEED,
    parse_list,
)
from efc_tui.synthetic.templates import FAMILY_NAMES

if TYPE_CHECKING:
    from efc_tui.synthetic.corpus import CellSummary

# the simulator, imported when the command runs (efc_tui._lazy): not for its --help
corpus = lazy_module("efc_tui.synthetic.corpus")


def _budgets(values: list[str] | None) -> tuple[float, ...]:
    if not values:
        return DEFAULT_BUDGETS
    out: list[float] = []
    for v in values:
        for part in v.split(","):
            if not part.strip():
                continue
            try:
                b = float(part)
            except ValueError:
                raise InputError(f"--budgets: {part!r} is not a number") from None
            if b not in out:
                out.append(b)
    return tuple(out)


@app.command()
def simulate(
    output: Path = typer.Option(
        ..., "--output", "-o", help="Folder to write the corpus to (created if missing)."
    ),
    families: list[str] | None = typer.Option(
        None,
        "--families",
        help=f"Task families, comma-separated or repeated (default: all: {', '.join(FAMILY_NAMES)}).",
    ),
    harnesses: list[str] | None = typer.Option(
        None, "--harnesses", help=f"Harness presets (default: all: {', '.join(HARNESS_NAMES)})."
    ),
    models: list[str] | None = typer.Option(
        None,
        "--models",
        help=f"Simulated models (default: {', '.join(DEFAULT_MODELS)}; known: {', '.join(MODEL_NAMES)}; 'all' for every one).",
    ),
    budgets: list[str] | None = typer.Option(
        None,
        "--budgets",
        help="Budget levels: multipliers of each preset's steps and tool calls (default: "
        + ",".join(f"{b:g}" for b in DEFAULT_BUDGETS)
        + ").",
    ),
    runs: int = typer.Option(
        DEFAULT_RUNS,
        "--runs",
        "-n",
        min=1,
        help="Tasks per family; every harness runs every task with every model at every budget.",
    ),
    seed: int = typer.Option(
        DEFAULT_SEED, "--seed", "-s", help="Corpus seed: the same seed writes byte-identical files."
    ),
    jobs: int = typer.Option(
        1, "--jobs", "-j", min=1, help="Worker processes (output does not depend on it)."
    ),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No progress bar or summary on stderr."
    ),
) -> None:
    """Write synthetic runs with hidden state as efc-trace/1 files (one per family × harness × model)
    with an oracle block on every event and task-demand factors in each header, plus a
    corpus.manifest. Success comes from each task's deterministic evaluator."""
    try:
        spec = corpus.CorpusSpec(
            families=parse_list(families, FAMILY_NAMES, "family"),
            harnesses=tuple(
                h.upper()
                for h in parse_list(
                    [x.upper() for x in harnesses] if harnesses else None, HARNESS_NAMES, "harness"
                )
            ),
            models=(
                MODEL_NAMES
                if models and any(m.strip() == "all" for v in models for m in v.split(","))
                else parse_list(models, MODEL_NAMES, "model")
                if models
                else DEFAULT_MODELS
            ),
            budgets=_budgets(budgets),
            runs=runs,
            seed=seed,
        )
    except EfcError as exc:
        fail(exc)
    cells = len(spec.cells)
    progress = progress_bar("simulating", progress_enabled(quiet, cells))
    start = time.perf_counter()
    with progress if progress is not None else nullcontext():
        task = progress.add_task("simulate", total=cells) if progress is not None else None

        def advance(_: CellSummary) -> None:
            if progress is not None and task is not None:
                progress.advance(task)

        try:
            summary = corpus.write_corpus(spec, output, jobs=jobs, on_cell=advance)
        except EfcError as exc:
            fail(exc)
    elapsed = time.perf_counter() - start
    if not quiet:
        rate = summary.successes / summary.runs if summary.runs else 0.0
        note(
            f"wrote {summary.runs} runs ({summary.events} events, {rate:.0%} successful) "
            f"in {len(summary.files)} files to {output} in {elapsed:.1f} s"
        )
