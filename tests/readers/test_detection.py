"""Detection asks the sniffs in efc_tui/parsers/sniffs.py and imports only the winning
reader's module, and detects exactly what trying every reader detects
(efc_tui/parsers/registry.py, parsers.detect)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from efc_tui.errors import EfcError
from efc_tui.parsers import BEST_SCORE, EXTENSION_BONUS, READERS, Reader, detect, get_reader, sniffs
from efc_tui.parsers.base import Sniff, read_head
from efc_tui.parsers.registry import FORMATS
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
    for name, f in FORMATS.items():
        reader = get_reader(name)
        assert reader.name == name and reader.read.__module__ == f"efc_tui.parsers.{f.module}"
        assert reader.sniff is getattr(sniffs, f.module)  # what detect() asks in its stead
        assert (reader.summary, reader.extensions) == (f.summary, f.extensions)
        assert get_reader(name) is reader  # one Reader per format
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
            assert 0.0 <= score <= FORMATS[reader.name].ceiling <= BEST_SCORE - EXTENSION_BONUS, (
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
    readers = {f"efc_tui.parsers.{f.module}": n for n, f in FORMATS.items()}
    return sorted(readers[m] for m in set(r.stdout.split()) & set(readers))


#: for each log given on stdin (one path a line), the format detected and the formats whose
#: reader modules detection imported; reader modules (and the readers built from them) are
#: dropped between logs, so each detection starts with none imported
_DETECT_EACH = """
import sys
from pathlib import Path
from efc_tui.errors import EfcError
from efc_tui.parsers import detect
from efc_tui.parsers.registry import _BUILT, FORMATS

modules = {f"efc_tui.parsers.{f.module}": n for n, f in FORMATS.items()}
for line in sys.stdin.read().splitlines():
    for m in modules:
        sys.modules.pop(m, None)
    _BUILT.clear()
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


def test_discovering_trials_imports_no_reader() -> None:
    """Discovery asks whether each trial's chosen log is readable (``detect_format``), which
    imports no reader: the command's process forks its workers without them, and each
    imports what it reads, side by side, not one after the other before the fork."""
    job = FIXTURES / "outcomes" / "job_mixed"
    code = (
        "from efc_tui.parsers import discover\n"
        f"found = discover([{str(job)!r}])\n"
        "assert found.trials and found.sources, found"
    )
    assert readers_imported(code) == []
    assert readers_imported(code + "\nfrom efc_tui.parsers import detect\ndetect(found.sources[0])")


def test_a_sniff_counts_for_its_ceiling_at_most(monkeypatch: pytest.MonkeyPatch) -> None:
    """Detection skips a format whose ceiling cannot beat the best score so far; a sniff
    that returned more than its ceiling would break that, so it counts for its ceiling: a
    native trace stays native when the Codex sniff (ceiling 0.95) claims it at 2.0."""
    path = SAMPLES / "repair_loop.jsonl"
    monkeypatch.setattr(sniffs, "codex", lambda s: 2.0)
    assert detect(path).name == "native"
    monkeypatch.setattr(sniffs, "native", lambda s: 0.0)
    assert detect(path).name == "codex"


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

    for name, f in FORMATS.items():
        monkeypatch.setattr(sniffs, f.module, asking(name, getattr(sniffs, f.module)))
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
    readers = {f"efc_tui.parsers.{f.module}" for f in FORMATS.values()}
    assert not (heavy | readers) & set(r.stdout.split())
