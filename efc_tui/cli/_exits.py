"""The exit-code contract (SPEC §1) and the one way the commands exit early.

Exit codes for every headless command: 0 success, 1 a CI threshold was not met, 2 bad
input or usage (one line naming file and line), anything else is a bug.
"""

from __future__ import annotations

import typer

TYPE_CHECKING = False  # typing itself is not needed at run time
if TYPE_CHECKING:
    from typing import NoReturn

EXIT_OK = 0
EXIT_THRESHOLD = 1
EXIT_INPUT = 2


def exit_now(code: int) -> NoReturn:
    """End the command with exit status ``code`` (Typer's ``Exit``: Typer turns it into
    the exit status, and a test's ``CliRunner`` reads it)."""
    raise typer.Exit(code)
