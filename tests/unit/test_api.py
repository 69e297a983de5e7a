"""The Python API for notebooks: load, score, to_pandas."""

from __future__ import annotations

import pytest

import efc_tui
from tests.conftest import SAMPLES


def test_load_score_to_pandas() -> None:
    run = efc_tui.load(SAMPLES / "memory_writes.jsonl")
    ledger = efc_tui.score(run)
    df = ledger.to_pandas()
    assert len(df) == len(run.events) == 8
    assert list(df["kind"][:3]) == ["tool", "plan", "generation"]
    assert df["nrs_efc"].sum() == pytest.approx(ledger.figures.nrs_efc)
    assert df["C_cum"].iloc[-1] == pytest.approx(ledger.figures.c_raw)
    # event 5 cites event 0 explicitly
    assert df["z"].iloc[0] == 1.0
    runs = list(efc_tui.load_all(SAMPLES))
    assert len(runs) == 4
