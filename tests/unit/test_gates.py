"""SPEC §3.5: Q, the G/G_nr and Λ/Λ_nr tables row by row, A_t and the ambiguity penalty."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import efc_tui
from efc_tui.model import EventKind, Status
from efc_tui.scoring import load_estimator
from efc_tui.scoring.constants import Q_STATUS
from efc_tui.scoring.gates import GateState, compute_gates, loop_gate, progress_gate
from efc_tui.scoring.ledger import score_run
from tests.conftest import FIXTURES, SAMPLES, SHARED
from tests.helpers import ev

S = Status


def _spec_q() -> dict[str, float]:
    """The Q table as SPEC §3.5 writes it ("Q (status quality): passed 1.00, ...")."""
    text = (SHARED / "SPEC.md").read_text()
    m = re.search(r"Q \(status quality\):(.*?)events with status none: Q = ([\d.]+)", text, re.S)
    assert m, "SPEC §3.5 no longer states Q in the expected words"
    table = {k: float(v) for k, v in re.findall(r"([a-z_]+) ([\d.]+)", m.group(1))}
    table["none"] = float(m.group(2))
    return table


def test_status_quality_is_the_specs_table() -> None:
    """Every status's Q, as the gates apply it to an event, is the SPEC's number (read from
    the SPEC itself, not from a copy of the table)."""
    if not (SHARED / "SPEC.md").is_file():
        pytest.skip("../shared/SPEC.md is not present")
    spec = _spec_q()
    assert set(spec) == {s.value for s in Status}
    for status in Status:
        g = compute_gates([ev(0, "check", status.value)])
        assert g.Q[0] == spec[status.value], status


def test_status_quality_scales_the_stable_and_nrs_efc() -> None:
    """repair_loop's event 1 is its first verdict, a failing check (A = 0, so G = Λ = 1):
    ÊFC_stable = ÊFC_nr = 0.42 · ÊFC; its first passing check would be scaled by 1."""
    led = score_run(
        efc_tui.load(SAMPLES / "repair_loop.jsonl"),
        load_estimator(FIXTURES / "app" / "estimator.json"),
    )
    assert led.run.events[1].status is S.ASSERTION_ERROR and led.gates.A[1] == 0
    assert led.est[1] > 0
    assert led.stable[1] == pytest.approx(0.42 * led.est[1])
    assert led.nr[1] == pytest.approx(0.42 * led.est[1])
    assert Q_STATUS[S.API_ERROR] == 0.0 and Q_STATUS[S.NONE] == 1.0  # the two ends


@pytest.mark.parametrize(
    ("status", "prev", "attempt", "expected", "row"),
    [
        (S.ASSERTION_ERROR, None, 0, (1.00, 1.00), "A_t = 0"),
        (S.PASSED, S.ASSERTION_ERROR, 0, (1.00, 1.00), "A_t = 0 wins over newly passed"),
        (S.PASSED, S.ASSERTION_ERROR, 2, (1.35, 1.35), "newly passed"),
        (S.PASSED, S.API_ERROR, 1, (1.35, 1.35), "newly passed from the lowest"),
        (S.ASSERTION_ERROR, S.RUNTIME_ERROR, 1, (1.15, 1.15), "severity rose"),
        (S.TIMEOUT, S.API_ERROR, 3, (1.15, 1.15), "severity rose"),
        (S.RUNTIME_ERROR, S.RUNTIME_ERROR, 1, (0.62, 0.16), "same failure"),
        (S.OTHER, S.OTHER, 4, (0.62, 0.16), "same failure"),
        (S.TIMEOUT, S.ASSERTION_ERROR, 1, (0.45, 0.10), "severity fell"),
        (S.ASSERTION_ERROR, S.PASSED, 2, (0.45, 0.10), "regression from passed"),
        (S.PASSED, S.PASSED, 2, (1.00, 1.00), "passed again: otherwise"),
        (S.NONE, S.ASSERTION_ERROR, 3, (1.00, 1.00), "status none: otherwise"),
    ],
)
def test_progress_gate_rows(status, prev, attempt, expected, row) -> None:
    assert progress_gate(status, prev, attempt) == expected, row


@pytest.mark.parametrize(
    ("kind", "status", "expected"),
    [
        (EventKind.REPAIR, S.PASSED, (0.95, 0.45)),
        (EventKind.REPAIR, S.NONE, (0.95, 0.45)),
        (EventKind.GENERATION, S.PASSED, (0.92, 0.92)),
        (EventKind.GENERATION, S.ASSERTION_ERROR, (0.85, 0.85)),
        (EventKind.GENERATION, S.NONE, (0.85, 0.85)),
        (EventKind.CHECK, S.PASSED, (1.00, 1.00)),
        (EventKind.TOOL, S.RUNTIME_ERROR, (1.00, 1.00)),
    ],
)
def test_loop_gate_rows(kind, status, expected) -> None:
    assert loop_gate(kind, status) == expected


def test_attempt_index_and_ambiguity_penalty() -> None:
    # statuses: none, fail, none, fail(same), pass, none
    events = [
        ev(0),
        ev(1, "check", "assertion_error"),
        ev(2, "repair"),
        ev(3, "check", "assertion_error"),
        ev(4, "check", "passed"),
        ev(5),
    ]
    g = compute_gates(events)
    # A_t counts status-bearing events strictly before t
    assert g.A.tolist() == [0, 0, 1, 1, 2, 3]
    # 1 / (1 + 0.35 A_t)
    np.testing.assert_allclose(g.ambiguity, [1, 1, 1 / 1.35, 1 / 1.35, 1 / 1.7, 1 / 2.05])
    # event 3 repeats the failure (0.62 / 0.16); event 4 newly passes (1.35)
    assert g.G.tolist() == [1.0, 1.0, 1.0, 0.62, 1.35, 1.0]
    assert g.G_nr.tolist() == [1.0, 1.0, 1.0, 0.16, 1.35, 1.0]
    assert g.L_nr.tolist() == [1.0, 1.0, 0.45, 1.0, 1.0, 1.0]
    assert g.Q.tolist() == [1.0, 0.42, 1.0, 0.42, 1.0, 1.0]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(list(EventKind)), st.sampled_from(list(Status)))))
def test_the_run_at_once_is_the_rules_event_by_event(pairs: list[tuple[EventKind, Status]]) -> None:
    """compute_gates (the rules as tables, the whole run at once) gives, bit for bit, what
    GateState.step (progress_gate and loop_gate, one event after another) gives."""
    events = [ev(i, k.value, s.value) for i, (k, s) in enumerate(pairs)]
    g = compute_gates(events)
    state = GateState()
    rows = [state.step(e) for e in events]
    columns = [list(c) for c in zip(*rows, strict=True)] if rows else [[]] * 6
    for name, col in zip(("Q", "G", "G_nr", "L", "L_nr", "A"), columns, strict=True):
        got = getattr(g, name)
        assert got.tolist() == col, name
        assert got.dtype == (np.int64 if name == "A" else np.float64) and len(got) == len(events)
