"""The core never imports textual (STYLE.md, "One way through"): checked in a fresh
interpreter for every core module, so one stray import anywhere fails here."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

import efc_tui

CORE = (
    "model",
    "errors",
    "io",
    "api",
    "report",
    "parsers",
    "scoring",
    "fitting",
    "adapter",
    "synthetic",
)


def core_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(efc_tui.__path__, "efc_tui."):
        top = info.name.split(".")[1]
        if top in CORE:
            names.append(info.name)
    return sorted(names)


def test_core_modules_exist() -> None:
    mods = core_modules()
    assert "efc_tui.scoring.features" in mods and "efc_tui.parsers.native" in mods


@pytest.mark.parametrize("module", core_modules())
def test_core_module_does_not_import_textual(module: str) -> None:
    code = (
        f"import sys, importlib; importlib.import_module({module!r}); "
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.')); "
        "print(','.join(bad))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "", f"{module} pulls in textual: {r.stdout.strip()}"


#: no module over this many lines (issue "One owner per job")
MAX_MODULE_LINES = 800


def test_no_module_is_over_the_line_limit() -> None:
    from pathlib import Path

    root = Path(efc_tui.__file__).parent
    long = {
        str(p.relative_to(root)): n
        for p in root.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"split these modules (over {MAX_MODULE_LINES} lines): {long}"
