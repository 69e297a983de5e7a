"""Detection asks the sniffs in efc_tui/parsers/sniffs.py and imports only the winning
reader's module, and detects exactly what trying every reader detects
(efc_tui/parsers/registry.py, parsers.detect)."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from efc_tui.errors import EfcError
from efc_tui.parsers import BEST_SCORE, EXTENSION_BONUS, READERS, Reader, detect, get_reader, sniffs
from efc_tui.parsers.base import Sniff, read_head
from efc_tui.parsers.registry import CEILINGS, FORMATS
from tests.conftest import FIXTURES, REAL, SAMPLES, SHARED


def logs() -> list[Path]:
    roots = [FIXTURES, SAMPLES, REAL, SHARED / "real-runs"]
    return sorted(p for root in roots if root.is_dir() for p in root.rglob("*") if p.is_file())


def every_reader_detects(path: Path) -> Reader | None:
    """Detection as it was: every reader sniffs, the best score wins, the earlier on a tie."""
    s = read_head(path)
    best: tuple[float, int, Reader] | None = None
    for order, reader in enumerate(READERS):
        try:
            score = reader.sniff(s)
        except Exception:
            score = 0.0
        if score <= 0:
            continue
        if any(path.name.lower().endswith(ext) for ext in reader.extensions):
            score += EXTENSION_BONUS
        if best is None or (score, -order) > best[:2]:
            best = (score, -order, reader)
    return None if best is None or not s.head.strip() else best[2]


def test_formats_names_every_reader_module_in_detection_order() -> None:
    assert [r.name for r in READERS] == list(FORMATS)
    for name, module in FORMATS.items():
        reader = get_reader(name)
        assert reader.name == name and reader.read.__module__ == f"efc_tui.parsers.{module}"
        assert reader.sniff is getattr(sniffs, module)  # what detect() asks in its stead
    with pytest.raises(EfcError, match="known formats: native, mini-swe-agent"):
        get_reader("nope")


def test_detection_stops_early_only_where_nothing_could_win() -> None:
    """Every sniff stays in [0, 1] (what makes BEST_SCORE a bound) and detect() picks what
    trying every reader picks, on every log we have."""
    paths = logs()
    assert len(paths) > 50
    for path in paths:
        s = read_head(path)
        for reader in READERS:
            try:
                score = reader.sniff(s)
            except Exception:
                continue
            assert 0.0 <= score <= CEILINGS[reader.name][0] <= BEST_SCORE - EXTENSION_BONUS, (
                reader.name,
                path,
            )
        expected = every_reader_detects(path)
        try:
            got: Reader | None = detect(path)
        except EfcError:
            got = None
        assert got is expected, path


def readers_imported(code: str) -> list[str]:
    """The formats whose reader modules a fresh interpreter has imported after ``code``."""
    code = f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    readers = {f"efc_tui.parsers.{m}": n for n, m in FORMATS.items()}
    return sorted(readers[m] for m in set(r.stdout.split()) & set(readers))


#: for each log given on stdin (one path a line), the format detected and the formats whose
#: reader modules detection imported; reader modules are dropped from sys.modules between
#: logs, so each detection starts with none imported
_DETECT_EACH = """
import sys
from pathlib import Path
from efc_tui.errors import EfcError
from efc_tui.parsers import detect
from efc_tui.parsers.registry import FORMATS

modules = {f"efc_tui.parsers.{m}": n for n, m in FORMATS.items()}
for line in sys.stdin.read().splitlines():
    for m in modules:
        sys.modules.pop(m, None)
    try:
        name = detect(Path(line)).name
    except EfcError:
        name = "-"
    print(line, name, *sorted(modules[m] for m in modules if m in sys.modules), sep="\t")
"""


def test_a_native_trace_loads_the_native_reader_alone() -> None:
    assert readers_imported(
        "from efc_tui.parsers import load\n"
        f"assert len(list(load({str(SAMPLES / 'repair_loop.jsonl')!r}))) == 1"
    ) == ["native"]


def _returned_numbers(fn: ast.FunctionDef, calls: dict[str, float]) -> list[float]:
    """The highest value each ``return`` of ``fn`` can give: a number, a conditional
    expression of numbers, or a call of a function in ``calls`` (its ceiling)."""

    def top(e: ast.expr) -> float:
        if isinstance(e, ast.Constant) and isinstance(e.value, int | float):
            return float(e.value)
        if isinstance(e, ast.IfExp):
            return max(top(e.body), top(e.orelse))
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in calls:
            return calls[e.func.id]
        raise AssertionError(f"{fn.name} returns {ast.unparse(e)}: give CEILINGS a bound for it")

    return [top(n.value) for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None]


def _function(module: str, name: str) -> ast.FunctionDef:
    tree = ast.parse(
        (
            Path(__file__).resolve().parent.parent / "efc_tui" / "parsers" / f"{module}.py"
        ).read_text()
    )
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)


def test_ceilings_are_each_readers_highest_sniff_and_its_extensions() -> None:
    """CEILINGS lets detection skip a reader without importing it: its ceiling must be the
    most its sniff can return (read off the sniff's source, so the bound is proven, not
    sampled) and its extensions the reader's own."""
    assert list(CEILINGS) == list(FORMATS)
    # chat_score returns 0 or a local ``score``: numbers assigned to it, then only lowered
    chat = _function("sniffs", "chat_score")
    assigned = [
        n.value
        for n in ast.walk(chat)
        if isinstance(n, ast.Assign) and [ast.unparse(t) for t in n.targets] == ["score"]
    ]
    assert all(isinstance(n.op, ast.Sub) for n in ast.walk(chat) if isinstance(n, ast.AugAssign))
    numbers = [
        c.value
        for v in assigned
        for c in ast.walk(v)
        if isinstance(c, ast.Constant) and isinstance(c.value, float)
    ]
    assert numbers and max(numbers) <= 0.5
    for name, module in FORMATS.items():
        top, extensions = CEILINGS[name]
        assert extensions == get_reader(name).extensions, name
        returned = _returned_numbers(_function("sniffs", module), {"chat_score": 0.5})
        assert max(returned) == top, name


def test_detection_asks_only_readers_that_could_win(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Claude Code session (0.95, plus the .jsonl bonus: 1.0): the sniffs before it are
    asked, and none after it, since none of them can score above 1.0 on a .jsonl file; of
    the readers, only Claude Code's module is imported."""
    path = FIXTURES / "agents" / "claude_interrupted.jsonl"
    asked: list[str] = []

    def asking(name: str, sniff: Callable[[Sniff], float]) -> Callable[[Sniff], float]:
        def asked_sniff(s: Sniff) -> float:
            asked.append(name)
            return sniff(s)

        return asked_sniff

    for name, module in FORMATS.items():
        monkeypatch.setattr(sniffs, module, asking(name, getattr(sniffs, module)))
    assert detect(path).name == "claude-code"
    assert asked == ["native", "mini-swe-agent", "swe-agent", "claude-code"]
    assert readers_imported(
        "from efc_tui.parsers import detect\nfrom pathlib import Path\n"
        f"assert detect(Path({str(path)!r})).name == 'claude-code'"
    ) == ["claude-code"]


def test_a_sniff_that_raises_counts_as_not_mine(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(s: Sniff) -> float:
        raise ValueError("a sniffer's bug")

    path = FIXTURES / "agents" / "claude_interrupted.jsonl"
    monkeypatch.setattr(sniffs, "native", broken)
    assert detect(path).name == "claude-code"
    monkeypatch.setattr(sniffs, "claude_code", broken)
    with pytest.raises(EfcError, match="unrecognized format"):
        detect(path)


def test_detecting_any_log_imports_the_winning_reader_alone() -> None:
    """On every log we have (each format is among them), detection imports the module of
    the reader it returns and no other reader's module; an unrecognized file imports none."""
    paths = logs()
    r = subprocess.run(
        [sys.executable, "-c", _DETECT_EACH],
        input="\n".join(map(str, paths)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    rows = [line.split("\t") for line in r.stdout.splitlines()]
    assert [row[0] for row in rows] == [str(p) for p in paths]
    found = {row[1] for row in rows}
    assert {
        "native",
        "mini-swe-agent",
        "claude-code",
        "inspect-ai",
        "openhands",
        "openai-chat",
        "cursor-cli",
        "terminal-bench",
        "-",
    } <= found, found
    for path, name, *imported in rows:
        assert imported == ([] if name == "-" else [name]), path


def test_the_sniffs_module_is_light() -> None:
    """What detection costs before the winner's import: none of a reader's machinery."""
    code = "import sys\nimport efc_tui.parsers.sniffs\nprint(' '.join(sorted(sys.modules)))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    heavy = {
        "zipfile",
        "zstandard",
        "efc_tui.parsers._msg",
        "efc_tui.parsers._builder",
        "efc_tui.parsers._drafts",
        "efc_tui.parsers._content",
        "efc_tui.parsers._chat_sse",
        "efc_tui.parsers.status",
        "efc_tui._fast",
    }
    readers = {f"efc_tui.parsers.{m}" for m in FORMATS.values()}
    assert not (heavy | readers) & set(r.stdout.split())
