"""The Typer app, its version flag, and the one place commands are loaded (the exit codes
of SPEC §1 are in ``_exits.py``).

Every command line is read by Typer. The root's commands are built lazily: ``efc-tui
COMMAND ...`` imports that command's module alone (``COMMANDS`` in ``efc_tui/cli/__init__``
says which), ``efc-tui --help`` lists the commands from their summaries (``SUMMARIES``)
without importing any, and a mistyped command is matched against the names. Only shell
completion, which shows every command's help, builds them all.
"""

from __future__ import annotations

import sys
from difflib import get_close_matches
from importlib import import_module
from typing import Any

import typer
from typer._click import Command, Context, HelpFormatter
from typer._click.exceptions import UsageError
from typer._click.utils import make_default_short_help
from typer.core import TyperGroup
from typer.main import get_command_from_info, get_command_name

from efc_tui import __version__
from efc_tui.cli import COMMANDS, SUMMARIES
from efc_tui.cli._exits import EXIT_INPUT as EXIT_INPUT
from efc_tui.cli._exits import EXIT_OK as EXIT_OK
from efc_tui.cli._exits import EXIT_THRESHOLD as EXIT_THRESHOLD


class LazyCommands(TyperGroup):
    """The root group: each command is imported and built when it is first asked for."""

    def list_commands(self, ctx: Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            import_module(f"efc_tui.cli.{COMMANDS[cmd_name]}")  # registers it on ``app``
            for info in app.registered_commands:
                assert info.callback is not None
                if (info.name or get_command_name(info.callback.__name__)) == cmd_name:
                    self.commands[cmd_name] = get_command_from_info(
                        info,
                        pretty_exceptions_short=app.pretty_exceptions_short,
                        rich_markup_mode=app.rich_markup_mode,
                    )
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        """The command list of ``efc-tui --help``: a built command's own short help, the
        others' from ``SUMMARIES`` (the same text: a test compares them)."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [
            (
                name,
                self.commands[name].get_short_help_str(limit)
                if name in self.commands
                else make_default_short_help(SUMMARIES[name], limit).strip(),
            )
            for name in names
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def resolve_command(
        self, ctx: Context, args: list[str]
    ) -> tuple[str | None, Command | None, list[str]]:
        """As Typer's, with the suggestions for a mistyped command taken from the names
        (Typer's looks at the commands built so far: none, here)."""
        try:
            return self._click_resolve_command(ctx, args)
        except UsageError as exc:
            matches = get_close_matches(args[0], self.list_commands(ctx)) if args else []
            if matches:
                suggestions = ", ".join(f"{m!r}" for m in matches)
                exc.message = f"{exc.message.rstrip('.')}. Did you mean {suggestions}?"
            raise


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


app = typer.Typer(
    name="efc-tui",
    cls=LazyCommands,
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
app.callback()(_root)


def main(args: list[str] | None = None) -> Any:
    """Run the command line (``args``: default ``sys.argv[1:]``). Usage errors exit 2
    (click's convention matches ours); Ctrl-C exits 130."""
    try:
        return app(args)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
