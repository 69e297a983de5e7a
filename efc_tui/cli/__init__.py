"""The ``efc-tui`` command line (Typer). Thin: every command calls the library.

One module per command (``score.py``, ``export.py``, ...) so each command's options stay
readable on their own; they all register on the one ``app`` in ``_app.py``, which builds a
command only when it is asked for (``COMMANDS``) and lists them from ``SUMMARIES``. Each
command's module imports the readers, numpy and rich only when its command runs.

``main`` is the entry point of every way the command line starts (the console script,
``python -m efc_tui``), and the one place the process's settings are made: BLAS threads
and the garbage collector's policy (``BLAS_THREADS``, ``GC_THRESHOLDS``). Nothing else in
the command line or the app changes the collector.
"""

from __future__ import annotations

import gc
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["app", "main"]


#: every command and the module of ``efc_tui.cli`` that registers it, in the order
#: ``efc-tui --help`` lists them (a test checks this against what the modules register)
COMMANDS = {
    "calibrate": "calibrate",
    "diff": "diff",
    "experiment": "experiment",
    "export": "export",
    "fit": "fit",
    "formats": "formats",
    "validate": "formats",
    "hook": "hook",
    "open": "open",
    "score": "score",
    "simulate": "simulate",
}


#: each command's first sentence of help: what ``efc-tui --help`` lists, without building the
#: commands (a test checks the listing against the one the commands themselves give)
SUMMARIES = {
    "calibrate": "Calibrate an estimator file and write it with its provenance.",
    "diff": "Compare two runs step by step: the events aligned on their actions, where the runs "
    "diverge, which feedback one got that the other did not, where the adapter would stop each, "
    "and the raw-cost and NRS-EFC gap (B - A) at every aligned step, then a summary.",
    "experiment": "Run one of the paper's controlled experiments on the simulator and report it: "
    "matched-budget pairs (same raw budget, better feedback), module ablations of the closed loop "
    "H5 (routing, verification, memory, noise), or the η factor scan (one harness or environment "
    "factor at a time).",
    "export": "Write annotated ledgers (schema efc-ledger/1): every event with its features, "
    "factors, gates, EFC variants, raw cost and adapter decision.",
    "fit": "Fit failure rate against each predictor over groups of runs (the saturating curve "
    "E_inf + (E_0 − E_inf)/(1 + (z/z_0)^α) by default, the paper's E_inf + A·z^(−α) with "
    "--curve power).",
    "formats": "List every log format efc-tui reads and what detection looks for.",
    "validate": "Check files: which reader matched, how many runs and events, and any problem by "
    "file:line.",
    "hook": "Run the EFC-Adapter live as a Claude Code or Codex CLI hook: stop or redirect loops "
    "that add no effective feedback, and user budgets.",
    "open": "Replay a run in the terminal: step through its ledger (every event's factors, EFC, "
    "raw cost and adapter decision), its action and observation text, and where the run and its "
    "prefix sit on the fitted scaling curve.",
    "score": "Score runs headless: EFC, Estimated-EFC, NRS-EFC, raw cost, eta, D_task and X per run.",
    "simulate": "Write synthetic runs with hidden state as efc-trace/1 files (one per family × "
    "harness × model) with an oracle block on every event and task-demand factors in each "
    "header, plus a corpus.manifest.",
}


#: BLAS threads for the CLI's process (and the Dask workers it starts), unless the user set
#: them: efc-tui's products are a handful of features by the events of one run, too small
#: for a second thread to share: it only spins, burning CPU another process could use, and
#: makes some results depend on the thread count. Set before numpy is imported (nothing
#: here imports it), as numpy reads them then.
BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


#: the cyclic garbage collector's thresholds for the whole process (generation 0, 1, 2).
#: A run is hundreds of thousands of small acyclic objects (events, their tuples and
#: dicts): at Python's default (700, 10, 10) the collector walks them over and over while a
#: run is read and scored (10-30% of `score` on a 100k-event trace), and the replay app's
#: full collections over a loaded run paused it between key presses. Collecting after
#: 100,000 allocations instead of 700 keeps every collection of the youngest objects short
#: and makes full ones rare; reference counting frees the rest as before. Set once, here,
#: before any command runs: never turned off, frozen or changed per thread elsewhere (a
#: thread that turns the collector off turns it off for every thread).
GC_THRESHOLDS = (100_000, 50, 100)

#: the commands a coding agent's harness runs on every tool call: a usage error there must
#: not exit 2, which blocks the agent's tool call (docs/live.md)
_HOOKS = (["hook", "claude-code"], ["hook", "codex"])


def main() -> None:
    """Console-script entry point: the process's settings, then Typer reads the command
    line (``_app.main``)."""
    for name, value in BLAS_THREADS.items():
        os.environ.setdefault(name, value)
    gc.set_threshold(*GC_THRESHOLDS)
    from efc_tui.cli._app import main as run

    if sys.argv[1:3] in _HOOKS:
        try:
            run()
        except SystemExit as exc:
            if exc.code not in (0, None):
                sys.exit(0)
            raise
        return
    run()


def __getattr__(name: str) -> Any:
    if name == "app":
        from efc_tui.cli._app import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
