"""Structure rules the import contracts cannot state. Which package may import which
(textual only in the app, Dask only in cluster/, the layers, no cycles) is declared in
``[tool.importlinter]`` (pyproject.toml) and checked by ``lint-imports`` in ``make lint``
(their lazy imports by tests/unit/test_layers.py)."""

from __future__ import annotations

import ast
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


#: the one module that changes the garbage collector (the process's policy, applied by the
#: entry point and by each worker process of ``score --jobs``)
GC_POLICY = "pipeline/gc_policy.py"
#: what no code may do to the collector, the policy included: off in one thread is off in
#: every thread, and what is frozen is never freed
GC_NEVER = {"disable", "freeze", "unfreeze"}


def collector_uses(source: str) -> list[tuple[int, str]]:
    """Where ``source`` reaches the ``gc`` module: imports of it and calls of its
    functions (``gc.x(...)``, ``from gc import x``), as (line, what)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, "import gc") for a in node.names if a.name == "gc"]
        elif isinstance(node, ast.ImportFrom) and node.module == "gc":
            found += [(node.lineno, f"gc.{a.name}") for a in node.names]
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "gc"
        ):
            found.append((node.lineno, f"gc.{node.attr}"))
    return found


def test_only_the_gc_policy_touches_the_garbage_collector() -> None:
    root = Path(efc_tui.__file__).parent
    outside, never = [], []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for line, what in collector_uses(path.read_text(encoding="utf-8")):
            if rel != GC_POLICY:
                outside.append(f"{rel}:{line}: {what}")
            if what.removeprefix("gc.") in GC_NEVER:
                never.append(f"{rel}:{line}: {what}")
    assert not outside, f"the collector is changed only in {GC_POLICY}: {outside}"
    assert not never, f"never turn the collector off or freeze objects: {never}"
    assert collector_uses((root / GC_POLICY).read_text(encoding="utf-8"))  # it is still there


def test_the_collector_scan_sees_every_way_in() -> None:
    cases = {
        "import gc\ngc.disable()\n": ["import gc", "gc.disable"],
        "from gc import freeze\nfreeze()\n": ["gc.freeze"],
        "def f():\n    import gc\n    gc.set_threshold(1)\n": ["import gc", "gc.set_threshold"],
        "import os\nos.getpid()\n": [],
    }
    for source, expected in cases.items():
        assert [what for _, what in collector_uses(source)] == expected, source
