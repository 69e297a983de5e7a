"""The Typer app and the version flag (the exit codes of SPEC §1 are in ``_exits.py``)."""

from __future__ import annotations

import gc
import sys

import typer

from efc_tui import __version__
from efc_tui.cli import _coerce
from efc_tui.cli._exits import EXIT_INPUT as EXIT_INPUT
from efc_tui.cli._exits import EXIT_OK as EXIT_OK
from efc_tui.cli._exits import EXIT_THRESHOLD as EXIT_THRESHOLD

_coerce.install()  # plain option values are converted without importing pydantic


def _version(value: bool) -> None:
    if value:
        typer.echo(f"efc-tui {__version__}")
        raise typer.Exit(EXIT_OK)


def _root(
    version: bool = typer.Option(
        False,
        "--version",
        "-V",
        callback=_version,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    """efc-tui: Effective Feedback Compute for agent runs."""


def new_app() -> typer.Typer:
    """The root of the command line, without commands (``app`` is the one they register on)."""
    root = typer.Typer(
        name="efc-tui",
        help=(
            "Where did my agent's budget go, and which of its feedback actually helped?\n\n"
            "efc-tui reads agent logs (Claude Code, Codex CLI, mini-swe-agent, SWE-agent, "
            "OpenHands, Inspect AI, Harbor ATIF, OpenAI/Anthropic messages, OTel GenAI spans, "
            "or its own efc-trace/1 JSONL), scores every feedback event by Effective Feedback "
            "Compute, and shows it headless or in a replay app."
        ),
        no_args_is_help=True,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
        add_completion=True,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    root.callback()(_root)
    return root


app = new_app()


def main(target: typer.Typer | None = None) -> None:
    """Console-script entry point, running ``target`` (default ``app``). Usage errors exit 2
    (click's convention matches ours)."""
    # A trace is hundreds of thousands of small, acyclic objects: the default cyclic-GC
    # thresholds rescan them over and over while a run loads (10-30% of `score` on a
    # 100k-event trace). The command is short-lived; collect far less often.
    gc.set_threshold(100_000, 50, 100)
    try:
        (target or app)()
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
