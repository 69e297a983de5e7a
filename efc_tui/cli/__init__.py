"""The ``efc-tui`` command line (Typer). Thin: every command calls the library.

One module per command (``score.py``, ``export.py``, ...) so each command's options stay
readable on their own; they all register on the one ``app`` in ``_app.py``.

Start-up is kept short: ``efc-tui --version`` answers before any command is imported,
``efc-tui COMMAND ...`` imports and builds that command alone (``COMMANDS`` says which
module defines it), and the command modules import the readers, numpy and rich only when
their command runs. ``efc-tui --help``, an unknown command and shell completion build them all.
"""

from __future__ import annotations

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
    "open": "open",
    "score": "score",
    "simulate": "simulate",
}


def _registered_app(command: str | None = None) -> Typer:
    """The Typer app with ``command`` registered, or every command when it is None or not
    one of ours (importing a command's module registers it)."""
    from importlib import import_module

    module = COMMANDS.get(command or "")
    for name in [module] if module else dict.fromkeys(COMMANDS.values()):
        import_module(f"efc_tui.cli.{name}")
    from efc_tui.cli._app import app

    return app


def main() -> None:
    """Console-script entry point (see ``_app.main``)."""
    args = sys.argv[1:]
    if args in (["--version"], ["-V"]):  # no need to build every command for this
        from efc_tui import __version__

        sys.stdout.write(f"efc-tui {__version__}\n")
        return
    # `efc-tui score ...` builds `score` alone; anything else (--help, no command, a typo
    # that gets suggestions, shell completion, whose words are not in argv) builds them all
    _registered_app(args[0] if args else None)
    from efc_tui.cli._app import main as run

    run()


def __getattr__(name: str) -> Any:
    if name == "app":
        return _registered_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
