"""Structure rules the import contracts cannot state. Which package may import which
(textual only in the app, Dask only in cluster/, the layers, no cycles) is declared in
``[tool.importlinter]`` (pyproject.toml) and checked by ``lint-imports`` in ``make lint``."""

from __future__ import annotations

from pathlib import Path

import efc_tui

#: no module over this many lines (issue "One owner per job")
MAX_MODULE_LINES = 800


def test_no_module_is_over_the_line_limit() -> None:
    root = Path(efc_tui.__file__).parent
    long = {
        str(p.relative_to(root)): n
        for p in root.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"split these modules (over {MAX_MODULE_LINES} lines): {long}"
