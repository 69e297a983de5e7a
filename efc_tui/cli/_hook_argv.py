"""``efc-tui hook claude-code|codex`` with plain options, without Typer.

The harness runs the hook on every tool call, so its start-up counts: Typer and click
cost more to import than the rest of a call that finds nothing new to decide. This parser
reads the options a hook entry uses (``cli/hook.py`` declares them for Typer, and a test
keeps the two in step); anything else returns None and Typer reads the command line.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from efc_tui.adapter.integrations.hook import HookOptions

_VALUED = {
    "--mode": ("mode", str),
    "--state-dir": ("state_dir", str),
    "--max-usd": ("max_usd", float),
    "--max-tokens": ("max_tokens", int),
    "--max-steps": ("max_steps", int),
    "--window": ("window", int),
    "--epsilon": ("epsilon", float),
    "--repeat": ("repeat", int),
}


def parse(args: list[str]) -> HookOptions | None:
    """``args`` after ``hook``: the options, or None when Typer should read them."""
    if not args or args[0] not in ("claude-code", "codex"):
        return None
    from pathlib import Path

    from efc_tui.adapter.integrations.hook import MODES, HookOptions

    values: dict[str, object] = {"harness": args[0]}
    rest = args[1:]
    i = 0
    while i < len(rest):
        arg = rest[i]
        if arg == "--window-rule":
            values["window_rule"] = True
            i += 1
            continue
        name, eq, inline = arg.partition("=")
        if name not in _VALUED:
            return None
        if not eq:
            if i + 1 >= len(rest):
                return None
            inline = rest[i + 1]
            i += 1
        i += 1
        key, conv = _VALUED[name]
        try:
            values[key] = conv(inline)
        except ValueError:
            return None
    if values.get("mode", "warn") not in MODES:
        return None
    if "state_dir" in values:
        values["state_dir"] = Path(str(values["state_dir"]))
    return HookOptions(**values)  # type: ignore[arg-type]


def run(opts: HookOptions) -> None:
    """One hook call: the answer on stdout, exit 0."""
    import gc

    from efc_tui.adapter.integrations.hook import handle

    gc.set_threshold(100_000, 50, 100)  # as cli/_app.main
    answer = handle(sys.stdin.buffer.read(), opts)
    if answer.stdout:
        sys.stdout.write(answer.stdout + "\n")
