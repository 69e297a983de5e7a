"""`efc-tui hook install|uninstall`: idempotent, keeps every other setting and a backup,
and uninstall removes exactly what install added."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from efc_tui.adapter.integrations import settings

USER_SETTINGS: dict[str, Any] = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"], "deny": []},
    "hooks": {
        "PostToolUse": [
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier -w"}]}
        ],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    },
    "env": {"FOO": "1"},
}


def _cli(cwd: Path, *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "CODEX_HOME": "", "CLAUDE_CONFIG_DIR": ""}
    env = {k: v for k, v in env.items() if v != ""}
    return subprocess.run(
        [sys.executable, "-m", "efc_tui", "hook", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_install_twice_then_uninstall_restores_the_file(harness: str, tmp_path: Path) -> None:
    path = settings.settings_path(harness, "project", tmp_path)
    path.parent.mkdir(parents=True)
    original = json.dumps(USER_SETTINGS, indent=2) + "\n"
    path.write_text(original)

    r = _cli(tmp_path, "install", harness, "--mode", "stop", "--max-usd", "5", home=tmp_path)
    assert r.returncode == 0, r.stderr
    once = path.read_text()
    doc = json.loads(once)
    # every other setting kept, in order; ours added after the user's groups
    assert list(doc) == list(USER_SETTINGS)
    assert doc["permissions"] == USER_SETTINGS["permissions"] and doc["env"] == {"FOO": "1"}
    assert doc["hooks"]["Notification"] == USER_SETTINGS["hooks"]["Notification"]
    post = doc["hooks"]["PostToolUse"]
    assert post[0] == USER_SETTINGS["hooks"]["PostToolUse"][0]
    ours = post[1]["hooks"][0]
    assert ours["type"] == "command" and ours["timeout"] == settings.TIMEOUT
    assert f"-m efc_tui hook {harness} --mode stop --max-usd 5" in ours["command"]
    assert ("matcher" in post[1]) == (harness == "claude-code")  # Codex: a regex; none = all
    assert set(doc["hooks"]) == {"PostToolUse", "Notification", "PreToolUse", "Stop"}
    assert "matcher" not in doc["hooks"]["Stop"][0]
    backup = path.with_name(path.name + ".efc-tui.bak")
    assert backup.read_text() == original

    r = _cli(tmp_path, "install", harness, "--mode", "stop", "--max-usd", "5", home=tmp_path)
    assert r.returncode == 0 and "no change" in r.stderr
    assert path.read_text() == once  # idempotent

    r = _cli(tmp_path, "install", harness, "--mode", "veto", home=tmp_path)
    doc = json.loads(path.read_text())
    cmds = [h["command"] for g in doc["hooks"]["PreToolUse"] for h in g["hooks"]]
    assert len(cmds) == 1 and cmds[0].endswith(f"hook {harness} --mode veto")  # replaced

    r = _cli(tmp_path, "uninstall", harness, home=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(path.read_text()) == USER_SETTINGS
    assert path.read_text() == original


def test_dry_run_prints_the_diff_and_writes_nothing(tmp_path: Path) -> None:
    r = _cli(tmp_path, "install", "claude-code", "--dry-run", home=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("--- ")
    assert '+    "PreToolUse": [' in r.stdout
    assert "efc_tui hook claude-code --mode warn" in r.stdout
    assert not (tmp_path / ".claude").exists()


def test_user_scope_and_a_file_we_created_is_removed_again(tmp_path: Path) -> None:
    home = tmp_path / "home"
    r = _cli(tmp_path, "install", "codex", "--user", home=home)
    assert r.returncode == 0, r.stderr
    path = home / ".codex" / "hooks.json"
    assert set(json.loads(path.read_text())["hooks"]) == set(settings.EVENTS)
    _cli(tmp_path, "uninstall", "codex", "--user", home=home)
    assert not path.exists()


def test_a_broken_settings_file_is_an_input_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"hooks": [}\n')
    r = _cli(tmp_path, "install", "claude-code", home=tmp_path)
    assert r.returncode == 2
    assert str(path) in r.stderr and "not valid JSON" in r.stderr
    assert path.read_text() == '{"hooks": [}\n'


def test_uninstall_keeps_a_group_that_mixes_our_handler_with_others() -> None:
    """Only groups whose every handler is ours are ours."""
    mixed = {
        "hooks": {
            "Stop": [
                {
                    "hooks": [
                        {"type": "command", "command": "efc-tui hook claude-code"},
                        {"type": "command", "command": "say done"},
                    ]
                }
            ]
        }
    }
    assert settings.remove_entries(mixed) == mixed
