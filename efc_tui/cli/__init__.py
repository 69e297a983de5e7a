"""The ``efc-tui`` command line (Typer). Thin: every command calls the library.

One module per command (``score.py``, ``export.py``, ...) so each command's options stay
readable on their own; they all register on the one ``app`` in ``_app.py``, which builds a
command only when it is asked for (``COMMANDS``) and lists them from ``SUMMARIES``. Each
command's module imports the readers, numpy and rich only when its command runs.

``main`` is the entry point of every way the command line starts (the console script,
``python -m efc_tui``), and the one place the process's settings are made: BLAS threads
and the garbage collector's policy (``BLAS_THREADS``, ``efc_tui.pipeline.gc_policy``, which
nothing else in the package calls but the workers of ``score --jobs``).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from contextlib import suppress

from efc_tui.pipeline import gc_policy

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


#: the commands a coding agent's harness runs on every tool call: a usage error there must
#: not exit 2, which blocks the agent's tool call (docs/live.md); they too end without the
#: interpreter's teardown (``_hard_exit``), 0.071 -> 0.060 s a call on a 35-call session
_HOOKS = (["hook", "claude-code"], ["hook", "codex"])


def main() -> None:
    """Console-script entry point: the process's settings, then Typer reads the command
    line (``_app.main``)."""
    for name, value in BLAS_THREADS.items():
        os.environ.setdefault(name, value)
    gc_policy.apply()
    from efc_tui.cli._app import main as run

    if sys.argv[1:3] in _HOOKS:  # exit 0 whatever happened (_HOOKS)
        with suppress(SystemExit):
            run()
        _hard_exit(0)
        sys.exit(0)
    try:
        run()
    except SystemExit as exc:
        _hard_exit(exc.code)
        raise
    _hard_exit(0)


def _hard_exit(code: object) -> None:
    """End the process with exit status ``code`` without tearing the interpreter down.

    What Python does at exit is run the ``atexit`` functions, flush the standard streams,
    then free every object and module one by one and collect cycles: about 0.025 s after
    a small ``score`` (an eighth of its run), for memory the system takes back at once.
    Here the exit functions run (a temporary folder's clean-up, a Dask client's close) and
    the standard streams are flushed, then the process ends (``os._exit``), as mypy's
    ``hard_exit`` does. Every file the commands write is closed before they return
    (``efc_tui.io``'s atomic writes). It returns, for Python's own exit, whenever the
    teardown could still matter: a status that is not an int (Python prints it), a thread
    still running (Python waits for it), or a stream that cannot be flushed (a closed
    pipe: Python reports it as it always has)."""
    if code is None:
        code = 0
    if type(code) is not int or threading.active_count() > 1:
        return
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    os._exit(code)


def __getattr__(name: str) -> Any:
    if name == "app":
        from efc_tui.cli._app import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
