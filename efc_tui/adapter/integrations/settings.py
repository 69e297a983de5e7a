"""Writing the ``efc-tui hook`` entries into Claude Code's and Codex's settings, and removing
them (``efc-tui hook install|uninstall``).

Both read the same shape: ``{"hooks": {EVENT: [{"matcher": …, "hooks": [{"type": "command",
"command": …, "timeout": …}]}]}}``; Claude Code in ``settings.json`` (project
``.claude/settings.json``, user ``~/.claude/settings.json`` or ``$CLAUDE_CONFIG_DIR``), Codex
in ``hooks.json`` (project ``.codex/hooks.json``, user ``~/.codex/hooks.json`` or
``$CODEX_HOME``). Codex's ``matcher`` is a regular expression, so its entries have none
(every tool), Claude Code's have ``"*"``.

Our entries are the matcher groups whose only handler runs ``efc_tui hook`` (or
``efc-tui hook``). Installing removes ours first, then adds them, so it is idempotent and a
new mode replaces the old; every other key, event, group and handler is kept as it was, in
its order. Uninstalling removes our groups, and an event list or the ``hooks`` object only
when removing ours left it empty. Before any write the file's previous text is kept as
``<file>.efc-tui.bak``.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from efc_tui.errors import InputError

#: the hook events the companion listens to
EVENTS = ("PreToolUse", "PostToolUse", "Stop")
#: seconds the harness waits for the hook before going on without it
TIMEOUT = 30
_MARKERS = ("efc_tui hook ", "efc-tui hook ")


def settings_path(harness: str, scope: str, cwd: Path | None = None) -> Path:
    """The settings file a hook entry goes to (``scope``: "project" or "user")."""
    base = cwd or Path.cwd()
    if harness == "claude-code":
        if scope == "project":
            return base / ".claude" / "settings.json"
        home = os.environ.get("CLAUDE_CONFIG_DIR")
        return (Path(home) if home else Path.home() / ".claude") / "settings.json"
    if harness == "codex":
        if scope == "project":
            return base / ".codex" / "hooks.json"
        home = os.environ.get("CODEX_HOME")
        return (Path(home) if home else Path.home() / ".codex") / "hooks.json"
    raise InputError(f"unknown harness {harness!r} (claude-code or codex)")


def hook_command(harness: str, mode: str, extra: list[str] | None = None) -> str:
    """The command a hook entry runs: this Python, so the hook finds this efc-tui."""
    args = [sys.executable, "-m", "efc_tui", "hook", harness, "--mode", mode, *(extra or [])]
    return shlex.join(args)


def _ours(group: Any) -> bool:
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return False
    handlers = group["hooks"]
    return bool(handlers) and all(
        isinstance(h, dict) and any(m in str(h.get("command", "")) for m in _MARKERS)
        for h in handlers
    )


def remove_entries(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` without our groups (a new dict; the rest as it was)."""
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return dict(doc)
    new_hooks: dict[str, Any] = {}
    touched = False
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            new_hooks[event] = groups
            continue
        kept = [g for g in groups if not _ours(g)]
        if len(kept) != len(groups):
            touched = True
            if not kept:
                continue
        new_hooks[event] = kept
    out = dict(doc)
    if touched and not new_hooks:
        del out["hooks"]
    else:
        out["hooks"] = new_hooks
    return out


def add_entries(doc: dict[str, Any], harness: str, command: str) -> dict[str, Any]:
    """``doc`` with our groups (after removing any earlier ones)."""
    out = remove_entries(doc)
    hooks = out.get("hooks")
    if hooks is None:
        hooks = {}
    elif not isinstance(hooks, dict):
        raise InputError('"hooks" is not an object: fix the settings file first')
    hooks = dict(hooks)
    for event in EVENTS:
        group: dict[str, Any] = {}
        if harness == "claude-code" and event != "Stop":
            group["matcher"] = "*"
        group["hooks"] = [{"type": "command", "command": command, "timeout": TIMEOUT}]
        groups = hooks.get(event, [])
        if not isinstance(groups, list):
            raise InputError(f'"hooks.{event}" is not a list: fix the settings file first')
        hooks[event] = [*groups, group]
    out["hooks"] = hooks
    return out


@dataclass
class Change:
    """What an install or uninstall does to one file."""

    path: Path
    before: str | None  # None: the file did not exist
    after: str
    backup: Path | None = None

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        import difflib

        return "".join(
            difflib.unified_diff(
                (self.before or "").splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                fromfile=f"{self.path} (now)",
                tofile=f"{self.path} (after)",
            )
        )


def _read(path: Path) -> tuple[str | None, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, {}
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
    if not text.strip():
        return text, {}
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc.msg})", path, exc.lineno) from None
    if not isinstance(doc, dict):
        raise InputError("the settings file is not a JSON object", path)
    return text, doc


def _dump(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def plan(path: Path, harness: str, command: str | None) -> Change:
    """The change that installs ``command`` (or, with None, uninstalls) in ``path``."""
    before, doc = _read(path)
    new = add_entries(doc, harness, command) if command is not None else remove_entries(doc)
    if command is None and new == doc:
        return Change(path, before, before if before is not None else "")
    if command is None and not new:
        return Change(path, before, "")  # nothing but our entries was in it: removed
    return Change(path, before, _dump(new))


def write(change: Change) -> Change:
    """Apply a change: the old text to ``<file>.efc-tui.bak``, then the new text, atomically
    (an empty new text removes the file: it held nothing but our entries)."""
    if not change.changed or (change.before is None and not change.after):
        return change
    change.path.parent.mkdir(parents=True, exist_ok=True)
    if change.before is not None:
        backup = change.path.with_name(change.path.name + ".efc-tui.bak")
        backup.write_text(change.before, encoding="utf-8")
        change.backup = backup
    if not change.after:
        change.path.unlink()
        return change
    tmp = change.path.with_name(change.path.name + ".efc-tui.tmp")
    tmp.write_text(change.after, encoding="utf-8")
    os.replace(tmp, change.path)
    return change
