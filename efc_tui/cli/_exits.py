"""The exit-code contract (SPEC §1) and the one way the commands exit early, without Typer.

Exit codes for every headless command: 0 success, 1 a CI threshold was not met, 2 bad
input or usage (one line naming file and line), anything else is a bug.

``exit_now`` raises Typer's ``Exit`` when Typer is running the command (it turns it into
the exit status), and ``SystemExit`` when it is not: ``efc-tui score`` with plain options
runs without importing Typer at all (``cli/_score_argv.py``), and nothing there can be
waiting for Typer's exception, since nothing has imported it.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing itself is not needed at run time
if TYPE_CHECKING:
    from typing import NoReturn

EXIT_OK = 0
EXIT_THRESHOLD = 1
EXIT_INPUT = 2


def exit_now(code: int) -> NoReturn:
    """End the command with exit status ``code``."""
    if "typer" in sys.modules:
        import typer

        raise typer.Exit(code)
    raise SystemExit(code)
