"""The reader registry imports a reader's module only when detection tries it, and detects
exactly what trying every reader detects (efc_tui/parsers/registry.py, parsers.detect)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from efc_tui.errors import EfcError
from efc_tui.parsers import BEST_SCORE, EXTENSION_BONUS, READERS, Reader, detect, get_reader
from efc_tui.parsers.base import read_head
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
    for name, module in FORMATS.items():
        reader = get_reader(name)
        assert reader.name == name and reader.sniff.__module__ == f"efc_tui.parsers.{module}"
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
            assert 0.0 <= score <= BEST_SCORE - EXTENSION_BONUS, (reader.name, path)
        expected = every_reader_detects(path)
        try:
            got: Reader | None = detect(path)
        except EfcError:
            got = None
        assert got is expected, path


def test_a_native_trace_loads_the_native_reader_alone() -> None:
    code = (
        "import sys\nfrom efc_tui.parsers import load\n"
        f"assert len(list(load({str(SAMPLES / 'repair_loop.jsonl')!r}))) == 1\n"
        "print(' '.join(sorted(sys.modules)))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    readers = {f"efc_tui.parsers.{m}" for m in FORMATS.values()}
    assert sorted(readers & set(r.stdout.split())) == ["efc_tui.parsers.native"]
