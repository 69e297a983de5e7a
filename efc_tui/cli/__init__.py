"""The ``efc-tui`` command line (Typer). Thin: every command calls the library.

One module per command (``score.py``, ``export.py``, ...) so each command's options stay
readable on their own; they all register on the one ``app`` in ``_app.py``.

Start-up is kept short: ``efc-tui --version`` answers before any command is imported,
``efc-tui COMMAND ...`` imports and builds that command alone (``COMMANDS`` says which
module defines it), and the command modules import the readers, numpy and rich only when
their command runs; ``efc-tui score`` with plain options runs without Typer at all
(``_score_argv.py``; Typer reads anything else), and so does the hook a harness runs on every
tool call, ``efc-tui hook claude-code|codex`` (``_hook_argv.py``). ``efc-tui --help`` lists the commands from
their summaries (``SUMMARIES``) without building them; an unknown command and shell
completion build them all.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing itself is not imported on the --version path
if TYPE_CHECKING:
    from typing import Any

    from typer import Typer

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


def _listing_app() -> Typer:
    """A root whose commands are a name and a summary each: what ``efc-tui --help`` lists,
    without importing and building the commands (``app`` is left as it is)."""
    from efc_tui.cli._app import new_app

    listing = new_app()
    for name, summary in SUMMARIES.items():

        def command() -> None:  # listed, never run
            raise AssertionError("the --help listing runs no command")

        command.__doc__ = summary
        listing.command(name)(command)
    return listing


def _registered_app(command: str | None = None) -> Typer:
    """The Typer app with ``command`` registered, or every command when it is None or not
    one of ours (importing a command's module registers it)."""
    from importlib import import_module

    module = COMMANDS.get(command or "")
    for name in [module] if module else dict.fromkeys(COMMANDS.values()):
        import_module(f"efc_tui.cli.{name}")
    from efc_tui.cli._app import app

    return app


#: BLAS threads for the CLI's process (and the Dask workers it starts), unless the user set
#: them: efc-tui's products are a handful of features by the events of one run, which one
#: thread does in microseconds; a second thread only spins (~0.1 s of CPU while numpy
#: loads, ~0.15 s over a 100k-event score) and makes some results depend on the thread
#: count. Set before numpy is imported (nothing here imports it).
BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def main() -> None:
    """Console-script entry point (see ``_app.main``)."""
    for name, value in BLAS_THREADS.items():
        os.environ.setdefault(name, value)
    args = sys.argv[1:]
    if args in (["--version"], ["-V"]):  # no need to build every command for this
        from efc_tui import __version__

        sys.stdout.write(f"efc-tui {__version__}\n")
        return
    completing = any(key.endswith("_COMPLETE") for key in os.environ)  # words not in argv
    if args and args[0] in ("score", "open") and not completing:  # plain options: no Typer
        from importlib import import_module

        plain = import_module(f"efc_tui.cli._{args[0]}_argv")
        options = plain.parse(args[1:])
        if options is not None:
            plain.run(options)
            return
    hooking = args[:1] == ["hook"] and args[1:2] in (["claude-code"], ["codex"]) and not completing
    if hooking:  # the hook runs on every tool call: plain options without Typer
        from efc_tui.cli import _hook_argv

        hook_options = _hook_argv.parse(args[1:])
        if hook_options is not None:
            _hook_argv.run(hook_options)
            return
    from efc_tui.cli._app import main as run

    if args in ([], ["--help"], ["-h"]) and not completing:
        run(_listing_app())  # the root's help lists the commands by their summaries
        return
    # `efc-tui score ...` builds `score` alone; anything else (a typo that gets suggestions,
    # shell completion, root options) builds them all
    _registered_app(args[0] if args else None)
    if hooking:
        try:  # a hook's usage error must not exit 2: that blocks the agent's tool call
            run()
        except SystemExit as exc:
            if exc.code not in (0, None):
                sys.exit(0)
            raise
        return
    run()


def __getattr__(name: str) -> Any:
    if name == "app":
        return _registered_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
