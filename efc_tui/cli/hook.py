"""``efc-tui hook``: the EFC-Adapter live, as a Claude Code / Codex CLI command hook
(docs/live.md). The work is in ``efc_tui.adapter.integrations`` (``hook.py``: the hook
contract, state and audit log; ``settings.py``: install and uninstall); this module reads
stdin, prints, and sets the exit code.

``efc-tui hook claude-code|codex`` always exits 0: a hook that fails must not stop (or, with
exit 2, block) someone's session. Only what is imported at the top of this module and of
``integrations/hook.py`` loads on a call that finds no new transcript lines.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from efc_tui._lazy import lazy_module
from efc_tui.cli._app import EXIT_INPUT, app
from efc_tui.cli._common import fail, note
from efc_tui.errors import EfcError

if TYPE_CHECKING:
    from efc_tui.adapter.integrations.hook import HookOptions

# what each action needs, imported when it runs (efc_tui._lazy): a hook call loads the
# hook contract alone
hooks = lazy_module("efc_tui.adapter.integrations.hook")
settings = lazy_module("efc_tui.adapter.integrations.settings")
parsers = lazy_module("efc_tui.parsers")
orjson = lazy_module("orjson")
tempfile = lazy_module("tempfile")

_ACTIONS = ("claude-code", "codex", "install", "uninstall", "replay")


@app.command()
def hook(
    action: str = typer.Argument(
        ...,
        metavar="ACTION",
        help="claude-code or codex (the hook itself: payload on stdin), install, uninstall, "
        "or replay.",
    ),
    target: str | None = typer.Argument(
        None,
        metavar="[HARNESS|TRANSCRIPT]",
        help="install / uninstall: claude-code or codex. replay: a finished Claude Code or "
        "Codex transcript (JSONL).",
    ),
    mode: str = typer.Option(
        "warn",
        "--mode",
        help="What a stop decision does: warn (the reason goes back to the model after the "
        "tool ran), stop (the session ends), veto (PreToolUse: a call that repeats the failing "
        "one is denied).",
    ),
    user: bool = typer.Option(
        False,
        "--user/--project",
        help="install / uninstall: the user's settings (~/.claude/settings.json, "
        "~/.codex/hooks.json) instead of the project's (.claude/settings.json, "
        ".codex/hooks.json under the current folder).",
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="install / uninstall: print the diff, write nothing."
    ),
    state_dir: Path | None = typer.Option(
        None,
        "--state-dir",
        help="Where the hook keeps its per-session state, session traces and audit.jsonl "
        "(default: $EFC_TUI_HOOK_DIR, else $XDG_CACHE_HOME/efc-tui/hooks, else "
        "~/.cache/efc-tui/hooks).",
    ),
    max_usd: float | None = typer.Option(
        None, "--max-usd", help="Stop when the session's recorded cost passes this (USD)."
    ),
    max_tokens: int | None = typer.Option(
        None, "--max-tokens", help="Stop when the session's tokens (in + out) pass this."
    ),
    max_steps: int | None = typer.Option(
        None, "--max-steps", help="Stop when the session has more events than this."
    ),
    window_rule: bool = typer.Option(
        False,
        "--window-rule",
        help="Act on the window rule too (recorded either way; not validated on real agent "
        "runs, docs/adapter.md).",
    ),
    window: int | None = typer.Option(None, "--window", help="Override W (as score --adapter)."),
    epsilon: float | None = typer.Option(
        None, "--epsilon", help="Override ε (as score --adapter)."
    ),
    repeat: int | None = typer.Option(
        None, "--repeat", help="Override the repetition limit k (0: off; as score --adapter)."
    ),
    harness: str | None = typer.Option(
        None,
        "--harness",
        help="replay: claude-code or codex (default: detected from the transcript).",
    ),
    as_json: bool = typer.Option(
        False, "--json", help="replay: one JSON object per hook call instead of a table."
    ),
) -> None:
    """Run the EFC-Adapter live as a Claude Code or Codex CLI hook: stop or redirect loops that
    add no effective feedback, and user budgets.

    `efc-tui hook claude-code` / `codex` is the command a hook entry runs: it reads the hook
    JSON on stdin and the transcript's new lines, decides the new events as `score --adapter`
    would, and answers by --mode. It always exits 0 and appends every call to audit.jsonl in
    the state folder. `hook install HARNESS` writes the entries (PreToolUse, PostToolUse,
    Stop) into the settings file, keeping every other setting and a .efc-tui.bak backup;
    `hook uninstall HARNESS` removes exactly those. `hook replay TRANSCRIPT` feeds a finished
    transcript through the hook call by call and prints each decision (a backtest of the
    policy on your own history).
    """
    if action not in _ACTIONS:
        _usage(f"unknown ACTION {action!r}: one of {', '.join(_ACTIONS)}")
    if mode not in hooks.MODES:
        _usage(f"--mode must be one of {', '.join(hooks.MODES)}, got {mode!r}")
    opts = hooks.HookOptions(
        harness=action if action in ("claude-code", "codex") else (harness or "claude-code"),
        mode=mode,
        state_dir=state_dir,
        window=window,
        epsilon=epsilon,
        repeat=repeat,
        max_usd=max_usd,
        max_tokens=max_tokens,
        max_steps=max_steps,
        window_rule=window_rule,
    )
    if action in ("claude-code", "codex"):
        answer = hooks.handle(sys.stdin.buffer.read(), opts)
        if answer.stdout:
            sys.stdout.write(answer.stdout + "\n")
        raise typer.Exit(0)
    if action == "replay":
        _replay(target, opts, harness, as_json)
        return
    _install(action, target, opts, user, dry_run)


def _usage(message: str) -> None:
    fail(message, EXIT_INPUT)


def _passed_options(opts: HookOptions) -> list[str]:
    """The options a hook entry repeats (budgets, rule overrides, state folder)."""
    out: list[str] = []
    for name in ("max_usd", "max_tokens", "max_steps", "window", "epsilon", "repeat"):
        value = getattr(opts, name)
        if value is not None:
            out += [
                f"--{name.replace('_', '-')}",
                f"{value:g}" if isinstance(value, float) else str(value),
            ]
    if opts.window_rule:
        out.append("--window-rule")
    state = opts.state_dir
    if state is not None:
        out += ["--state-dir", str(Path(state).resolve())]
    return out


def _install(action: str, target: str | None, opts: HookOptions, user: bool, dry_run: bool) -> None:
    if target not in ("claude-code", "codex"):
        _usage(f"hook {action} needs HARNESS: claude-code or codex")
    assert target is not None
    try:
        path = settings.settings_path(target, "user" if user else "project")
        command = None
        if action == "install":
            command = settings.hook_command(target, opts.mode, _passed_options(opts))
        change = settings.plan(path, target, command)
        if dry_run:
            sys.stdout.write(change.diff() or f"{path}: no change\n")
            return
        settings.write(change)
    except (EfcError, OSError) as exc:
        _usage(str(exc))
        return
    if not change.changed:
        note(f"{path}: already {'installed' if command else 'without efc-tui hooks'}; no change")
    elif command is None:
        note(
            f"{path}: efc-tui hooks removed"
            + (f" (backup: {change.backup})" if change.backup else "")
        )
    else:
        note(f"{path}: efc-tui hook entries written for PreToolUse, PostToolUse and Stop")
        if change.backup:
            note(f"previous file kept as {change.backup}")
        if target == "codex":
            note("Codex runs a new command hook once you have reviewed and trusted it (/hooks)")


def _replay(target: str | None, opts: HookOptions, harness: str | None, as_json: bool) -> None:
    if not target:
        _usage("hook replay needs TRANSCRIPT")
    assert target is not None
    path = Path(target)
    try:
        if harness is None:
            harness = parsers.detect(path).name
        if harness not in hooks.HARNESSES:
            _usage(f"{path}: a {harness} log; hook replay reads claude-code or codex transcripts")
        opts.harness = harness
        with tempfile.TemporaryDirectory(prefix="efc-hook-replay-") as work:
            calls = hooks.replay(path, opts, Path(work))
    except EfcError as exc:
        _usage(str(exc))
        return
    out = sys.stdout
    for c in calls:
        a = c.answer
        if as_json:
            out.write(
                orjson.dumps(
                    {
                        "line": c.line,
                        "hook_event": c.event,
                        "tool_name": c.tool_name,
                        "answer": a.audit.get("answer"),
                        "stdout": a.audit.get("stdout"),
                        "error": a.audit.get("error"),
                        "decisions": [v.as_dict() for v in a.verdicts],
                    }
                ).decode()
                + "\n"
            )
            continue
        decided = ", ".join(f"{v.index}:{v.control}{'!' if v.act else ''}" for v in a.verdicts)
        line = f"line {c.line:>5}  {c.event:<12} {c.tool_name or ''!s:<12} {a.audit.get('answer', 'none'):<5}"
        if decided:
            line += f"  decided {decided}"
        out.write(line.rstrip() + "\n")
        for v in a.verdicts:
            if v.act:
                out.write(f"      -> {v.reason}\n")
