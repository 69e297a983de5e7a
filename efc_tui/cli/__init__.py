"""The ``efc-tui`` command line (Typer). Thin: every command calls the library.

One module per command (``score.py``, ``export.py``, ...) so each command's options stay
readable on their own; they all register on the one ``app`` in ``_app.py``.

Start-up is kept short: ``efc-tui --version`` answers before any command is imported, and
the command modules import the readers, numpy and rich only when their command runs.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing itself is not imported on the --version path
if TYPE_CHECKING:
    from typing import Any

    from typer import Typer

__all__ = ["app", "main"]


def _registered_app() -> Typer:
    """The Typer app with every command registered (importing a module registers it)."""
    from efc_tui.cli import (  # noqa: F401
        calibrate,
        diff,
        experiment,
        export,
        fit,
        formats,
        open,
        score,
        simulate,
    )
    from efc_tui.cli._app import app

    return app


def main() -> None:
    """Console-script entry point (see ``_app.main``)."""
    if sys.argv[1:] in (["--version"], ["-V"]):  # no need to build every command for this
        from efc_tui import __version__

        sys.stdout.write(f"efc-tui {__version__}\n")
        return
    _registered_app()
    from efc_tui.cli._app import main as run

    run()


def __getattr__(name: str) -> Any:
    if name == "app":
        return _registered_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
