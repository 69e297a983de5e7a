"""Short runs take their run-level shares from Python lists (``scoring.factors.SMALL_RUN``):
the same numbers as numpy's, bit for bit, on every real run and the samples (issue 31,
item 2: a file of many short runs costs per event, not per run)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from efc_tui.model import EventKind, Run
from efc_tui.parsers import discover, load
from efc_tui.scoring.event_columns import KIND_CODE, event_columns
from efc_tui.scoring.factors import SMALL_RUN, _kind_shares, _kind_shares_short, share
from efc_tui.scoring.features import compute_features
from tests.conftest import REAL, SAMPLES, SHARED


@pytest.fixture(scope="module")
def runs() -> list[Run]:
    """The short runs of the samples, ../shared's real fixtures and real runs (when there)."""
    roots = [SAMPLES, REAL, *sorted(SHARED.glob("real-runs*"))]
    files = discover([str(p) for p in roots if p.is_dir()]).sources
    return [r for f in files for r in load(f) if len(r.events) < SMALL_RUN]


def test_short_runs_give_numpys_shares_bit_for_bit(runs: list[Run]) -> None:
    assert len(runs) >= 5
    kinds_seen: set[EventKind] = set()
    for run in runs:
        f = compute_features(run)
        kinds = [e.kind for e in run.events]
        kinds_seen.update(kinds)
        codes = event_columns(run.events).kind
        assert _kind_shares_short(kinds, f.z) == _kind_shares(codes, f.z), run.run_id
        for col in (f.z, f.q < 1.0, f.has_verdict):
            if len(col):
                assert share(col) == float(col.mean()), run.run_id
    # the runs hold the kinds the shares count (tool, check, generation, repair)
    assert {EventKind.TOOL, EventKind.CHECK, EventKind.GENERATION, EventKind.REPAIR} <= kinds_seen


def test_kind_shares_on_a_made_up_sequence() -> None:
    K = EventKind
    kinds = [K.TOOL, K.GENERATION, K.CHECK, K.REPAIR, K.REPAIR, K.CHECK, K.TOOL, K.GENERATION]
    z = np.array([1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    # router: tool/check events 0, 2, 5, 6 -> z 1, 1, 0, 0; verify: G C R R C G -> 2 of 4
    expected = (0.5, 0.5, list(Counter(kinds).values()))
    codes = np.array([KIND_CODE[k] for k in kinds], np.int8)
    assert _kind_shares_short(kinds, z) == expected == _kind_shares(codes, z)
    assert _kind_shares_short([], z[:0]) == (0.0, 0.0, []) == _kind_shares(codes[:0], z[:0])
    assert share(np.array([True, False, False, True, True])) == 0.6
    long = np.arange(SMALL_RUN * 2) % 3 == 0
    assert share(long) == float(long.mean())
