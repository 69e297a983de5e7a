"""Shared test helpers: where the real fixtures live, and small trace builders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLES = REPO / "sample_traces"
#: ../shared beside the repo (CI puts it there); tests that need it skip when absent
SHARED = Path(os.environ.get("EFC_SHARED", REPO.parent / "shared"))
REAL = SHARED / "fixtures" / "real"

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

try:  # property tests without hypothesis' per-example deadline: a timing assertion, which a
    # loaded 2-core machine fails now and then (tests hold no timing assertions)
    from hypothesis import settings

    settings.register_profile("efc-tui", deadline=None)
    settings.load_profile("efc-tui")
except ImportError:  # hypothesis is a dev extra
    pass


@pytest.fixture
def real_fixtures() -> Path:
    if not REAL.is_dir():
        pytest.skip("../shared/fixtures/real is not present")
    return REAL


def pytest_report_header() -> str:
    from efc_tui import _fast

    return f"efc-tui fast path: {_fast.STATUS}"
