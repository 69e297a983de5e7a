"""The import contracts of ``[tool.importlinter]`` (pyproject.toml), applied to what
``lint-imports`` cannot see: the modules the command line and the app import when first
used, through ``efc_tui._lazy.lazy_module("efc_tui.x.y")`` (a string, not an import
statement). Each such target must sit in its importer's own package or a lower layer,
and a forbidden contract (textual outside the app, Dask outside cluster/) holds for it as
for an import statement."""

from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import efc_tui

PACKAGE = Path(efc_tui.__file__).parent
PYPROJECT = PACKAGE.parent / "pyproject.toml"


@dataclass(frozen=True)
class LazyImport:
    importer: str  # the module that declares it (efc_tui.cli.fit)
    target: str  # what it imports when first used (efc_tui.pipeline.score, numpy)
    where: str  # file:line


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def lazy_imports(tree: ast.AST, importer: str, where: str) -> list[LazyImport]:
    """Every ``lazy_module(...)`` call in ``tree``; one whose argument is not a literal
    string fails the test (its target could not be checked)."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _called_name(node.func) == "lazy_module"):
            continue
        arg = node.args[0] if node.args else None
        assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), (
            f"{where}:{node.lineno}: lazy_module takes the module's name as a literal string"
        )
        found.append(LazyImport(importer, arg.value, f"{where}:{node.lineno}"))
    return found


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def package_lazy_imports() -> list[LazyImport]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "_lazy.py":  # defines lazy_module (its docstring's example)
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        where = str(path.relative_to(PACKAGE.parent))
        found += lazy_imports(tree, module_name(path), where)
    return found


def contracts() -> list[dict]:
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _matches(pattern: str, module: str) -> bool:
    """import-linter's module pattern: ``*`` one name, ``**`` any number of names."""
    regex = re.escape(pattern).replace(r"\*\*", ".+").replace(r"\*", "[^.]+")
    return re.fullmatch(regex, module) is not None


def _ignored(contract: dict, importer: str, target: str) -> bool:
    for rule in contract.get("ignore_imports", []):
        src, _, dst = (s.strip() for s in rule.partition("->"))
        if _matches(src, importer) and _matches(dst, target):
            return True
    return False


def layer_violations(imports: list[LazyImport], contract: dict) -> list[str]:
    """A ``layers`` contract: a module imports its own package, a sibling its layer joins
    with ``:``, or a lower layer; never a higher one nor a sibling joined with ``|``."""
    (container,) = contract["containers"]
    layer_of: dict[str, tuple[int, bool]] = {}  # package -> (layer, siblings independent)
    for i, layer in enumerate(contract["layers"]):
        independent = "|" in layer
        for name in re.split(r"[|:]", layer):
            layer_of[f"{container}.{name.strip()}"] = (i, independent)

    def package(module: str) -> str | None:
        return next((p for p in layer_of if _within(module, p)), None)

    bad = []
    for imp in imports:
        src, dst = package(imp.importer), package(imp.target)
        if src is None or dst is None or src == dst or _ignored(contract, imp.importer, imp.target):
            continue  # outside the layers (an external library), or within one package
        (i, independent), (j, _) = layer_of[src], layer_of[dst]
        if j < i or (j == i and independent):
            bad.append(f"{imp.where}: {imp.importer} -> {imp.target} ({contract['id']})")
    return bad


def forbidden_violations(imports: list[LazyImport], contract: dict) -> list[str]:
    """A ``forbidden`` contract: no module under ``source_modules`` imports one under
    ``forbidden_modules`` (an external package is named by its top level, as import-linter
    records it), but for the contract's ``ignore_imports``."""
    bad = []
    for imp in imports:
        if not any(_within(imp.importer, s) for s in contract["source_modules"]):
            continue
        for forbidden in contract["forbidden_modules"]:
            if not _within(imp.target, forbidden):
                continue
            named = imp.target if imp.target.startswith("efc_tui") else forbidden
            if not _ignored(contract, imp.importer, named):
                bad.append(f"{imp.where}: {imp.importer} -> {imp.target} ({contract['id']})")
    return bad


def violations(imports: list[LazyImport]) -> list[str]:
    bad = []
    for contract in contracts():
        if contract["type"] == "layers":
            bad += layer_violations(imports, contract)
        elif contract["type"] == "forbidden":
            bad += forbidden_violations(imports, contract)
    return bad


def test_the_package_has_lazy_imports_to_check() -> None:
    imports = package_lazy_imports()
    importers = {imp.importer.split(".")[1] for imp in imports}
    assert {"cli", "app"} <= importers, importers
    assert any(imp.target.startswith("efc_tui.") for imp in imports)


def test_every_lazy_import_keeps_the_import_contracts() -> None:
    bad = violations(package_lazy_imports())
    assert not bad, "lazy imports that break the import contracts:\n" + "\n".join(bad)


def _declared(source: str, importer: str) -> list[LazyImport]:
    return lazy_imports(ast.parse(source), importer, importer)


def test_a_lazy_import_up_the_layers_or_across_independent_siblings_is_found() -> None:
    cases = {
        # a lower layer importing a higher one
        ('work = lazy_module("efc_tui.pipeline.score")', "efc_tui.scoring.ledger"): 1,
        ('tables = lazy_module("efc_tui.cli._tables")', "efc_tui.app.app"): 1,
        # app and cluster are independent siblings
        ('remote = lazy_module("efc_tui.cluster.remote")', "efc_tui.app.loading"): 1,
        # textual outside the app, Dask outside cluster/
        ('ui = lazy_module("textual.widgets")', "efc_tui.report.output"): 1,
        ('ui = lazy_module("textual.widgets")', "efc_tui.cli.fit"): 1,
        ('dd = _lazy.lazy_module("dask.dataframe")', "efc_tui.pipeline.pool"): 1,
        # allowed: a lower layer, the same package, siblings joined by ':', an ignored import
        ('np = lazy_module("numpy")', "efc_tui.cli.fit"): 0,
        ('work = lazy_module("efc_tui.pipeline.score")', "efc_tui.cli.fit"): 0,
        ('fitview = lazy_module("efc_tui.app.fitview")', "efc_tui.app.app"): 0,
        ('io = lazy_module("efc_tui.io")', "efc_tui.model"): 0,
        ('pilot = lazy_module("textual.pilot")', "efc_tui.cli._open_run"): 0,
        ('tasks = lazy_module("efc_tui.cluster.tasks")', "efc_tui.cli._dask"): 0,
    }
    for (source, importer), expected in cases.items():
        found = violations(_declared(source, importer))
        assert len(found) == expected, (source, importer, found)


def test_a_lazy_import_of_a_computed_name_is_refused() -> None:
    try:
        _declared('mod = lazy_module(f"efc_tui.{name}")', "efc_tui.cli.fit")
    except AssertionError as exc:
        assert "literal string" in str(exc)
    else:
        raise AssertionError("a computed module name was accepted")
