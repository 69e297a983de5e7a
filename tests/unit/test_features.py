"""SPEC §3.2-3.5 on a tiny hand-made trace: each phi feature, the factor estimates, the
run-level harness quantities and the EFC variants, all computed by hand."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from efc_tui.model import Status
from efc_tui.scoring.estimator import Estimator, Theta
from efc_tui.scoring.features import compute_features, distinctive_tokens, shingles
from efc_tui.scoring.ledger import score_run
from tests.helpers import ev, make_run


def tiny_run():
    return make_run(
        [
            ev(
                0,
                "tool",
                tool="bash",
                action="cat src/app.py",
                obs="def main():\n    return compute_total(items)\n",
            ),
            ev(
                1,
                "check",
                "assertion_error",
                tool="pytest",
                action="pytest tests",
                obs="FAILED tests/app/test_pilot.py::test_total\n1 failed, 1 passed in 0.1s",
                checks=(1, 1, 2),
            ),
            ev(
                2,
                "repair",
                tool="edit",
                action="src/app.py: fix compute_total",
                obs="edited",
                memory="compute_total was wrong",
            ),
            ev(
                3,
                "check",
                "passed",
                tool="pytest",
                action="pytest tests",
                obs="2 passed in 0.1s",
                checks=(2, 0, 2),
            ),
        ]
    )


def test_phi_features_by_hand() -> None:
    f = compute_features(tiny_run())
    assert f.c.tolist() == [0, 1, 0, 1]  # checker fired
    assert f.h.tolist() == [0, 1, 0, 1]  # 2 of 2 known checks ran
    # "compute_total" from event 0's output is reused by the action of event 2
    assert f.z.tolist() == [1, 0, 0, 0]
    # next action differs in (kind, tool, target) for 0->1, 1->2, 2->3; last has no next
    assert f.p.tolist() == [1, 1, 1, 0]
    assert f.p_prefix.tolist() == [0, 1, 1, 1]
    # m: memory write (2) or referenced later (0); else 0.3. Prefix: the memory write only.
    assert f.m.tolist() == [1, 0.3, 1, 0.3]
    assert f.m_prefix.tolist() == [0, 0, 1, 0]
    assert f.a.tolist() == [1, 1, 1, 1]
    assert f.q.tolist() == [1, 1, 1, 1]  # the re-run after an edit is not inconsistent
    # Δ: passing fraction 0 -> 0.5 (first verdict, no severity term); 0.5 -> 1.0 plus 0.5
    # for assertion_error -> passed, clipped to 1
    assert f.delta.tolist() == [0, 0.5, 0, 1.0]
    np.testing.assert_allclose(f.rho, [0, 1 / 11, 2 / 12, 3 / 13])
    # n: event 3's word 3-grams ("2 passed in", "passed in 0.1s"): the second was in event 1
    assert f.n.tolist() == [1, 1, 1, 0.5]


def test_repeated_error_and_inconsistent_observation() -> None:
    err = "Traceback (most recent call last):\n  File \"a.py\", line 3\nKeyError: 'user_42'"
    run = make_run(
        [
            ev(0, "tool", "runtime_error", action="python a.py", obs=err),
            ev(1, "tool", "runtime_error", action="python a.py", obs=err.replace("42", "43")),
            ev(2, "tool", "none", action="date", obs="Mon"),
            ev(3, "tool", "none", action="date", obs="Tue"),
            ev(4, "tool", "none", action="cat big.log", obs="partial", truncated=True),
            ev(5, "tool", "none", action="true", obs=""),
        ]
    )
    f = compute_features(run)
    # the same error signature with numbers normalized: a = 0 the second time
    assert f.a.tolist() == [1, 0, 1, 1, 1, 1]
    assert f.repeat_error.tolist() == [False, True, False, False, False, False]
    # same action, different observation (1, 3); truncated (4); empty (5)
    assert f.q.tolist() == [1, 0.5, 1, 0.5, 0.5, 0.5]
    assert f.repeat_action.tolist() == [False, True, False, True, False, False]


def test_repeated_edit_is_a_repeat_but_rerun_after_edit_is_not() -> None:
    run = make_run(
        [
            ev(
                0,
                "check",
                "assertion_error",
                tool="pytest",
                action="pytest",
                obs="1 failed in 0.1s",
            ),
            ev(1, "repair", tool="edit", action="a.py: x = 1", obs="edited"),
            ev(
                2,
                "check",
                "assertion_error",
                tool="pytest",
                action="pytest",
                obs="2 failed in 0.1s",
            ),
            ev(3, "repair", tool="edit", action="a.py: x = 1", obs="edited"),
            ev(
                4,
                "check",
                "assertion_error",
                tool="pytest",
                action="pytest",
                obs="2 failed in 0.1s",
            ),
        ]
    )
    f = compute_features(run)
    assert f.repeat_action.tolist() == [False, False, False, True, False]
    assert f.q.tolist() == [1, 1, 1, 1, 1]


def test_explicit_refs_and_compaction() -> None:
    a = ev(0, obs="fact one")
    b = ev(1, obs="fact two")
    summary = ev(2, "message", tool=None, obs="summary of the conversation so far")
    summary.extra["compaction"] = True
    c = ev(3, action="use it")
    c.refs = (0,)
    d = ev(4, action="use it too")
    d.refs = (1,)
    f = compute_features(make_run([a, b, summary, c, d]))
    assert f.z.tolist()[:2] == [1, 1]
    # both were referenced only after the compaction: not retained
    assert f.m.tolist()[:2] == [0.3, 0.3]


def test_shingles_and_tokens() -> None:
    assert len(shingles("a\nb\nc\na")) == 3  # lines when there are at least 3
    assert len(shingles("one two three four")) == 2  # word 3-grams otherwise
    assert shingles("") == set()
    toks = distinctive_tokens("see src/app/models.py:42 and directory ValueError, 1234567890.")
    # a colon separates (grep output); the trailing dot is stripped as a second variant
    assert toks == {b"src/app/models.py", b"ValueError", b"1234567890.", b"1234567890"}


_TOKEN_TEXT = st.text(
    alphabet=st.sampled_from(list("abcdefghXYZ0123456789_./-: \n\u00e9")), max_size=80
)


@settings(max_examples=300, deadline=None)
@given(_TOKEN_TEXT)
def test_distinctive_tokens_rule(text: str) -> None:
    """Each maximal run of token characters of >= 8 bytes that is not a plain lower-case
    word, and the same stripped of leading/trailing ``. - /`` when that leaves >= 8 bytes;
    the Python pass's ``_action_info`` gives the same set."""
    from efc_tui.scoring.features import _action_info

    want: set[bytes] = set()
    for w in re.findall(rb"[A-Za-z0-9_./\x80-\xff-]+", text.encode()):
        if len(w) >= 8 and not (w.isalpha() and w.islower()):
            want.add(w)
            if len(w.strip(b".-/")) >= 8:
                want.add(w.strip(b".-/"))
    assert distinctive_tokens(text) == want
    assert _action_info(text)[0] == want
    assert _action_info(text)[0] == want  # again


def test_factors_and_efc_by_hand() -> None:
    led = score_run(
        tiny_run(),
        Estimator(
            full=Theta(0.0, (0, 0, 0, 0, 0, 0, 0, 1.0, 0)),  # ÊFC_t = e^Δ − 1
            prefix=Theta(0.0, (0,) * 9),
            demand=None,
            window=6,
            epsilon=0.02,
        ),
    )
    hq = led.harness
    assert hq.B_router == pytest.approx(1 / 3)  # tool events 0, 1, 3; only 0 referenced
    assert hq.B_verify == 1.0  # the repair is checked before any next generation
    assert hq.H_tool == pytest.approx(1.5)  # bash, pytest, pytest, edit
    assert hq.E_explore == pytest.approx(1.5 / math.log2(9))
    assert hq.V_ver == 0.5  # 2 of 4 events carry a verdict
    denom = 1 + 0.12 * 1.5 + 0.20 * 1.5 / math.log2(9)
    i_scale = (0.70 + 0.30 / 3) / denom
    np.testing.assert_allclose(led.factors.I, [0, 0.5 * i_scale, 0, 1.0 * i_scale])
    np.testing.assert_allclose(led.factors.V, [0.86] * 4)  # 1 · 1.0 · (0.72 + 0.28 · 0.5)
    np.testing.assert_allclose(led.factors.R, [1 / 1.18, 1 / 1.18, 1 / 1.18, 0.64 / 1.18])
    np.testing.assert_allclose(led.factors.M, [1.0, 0.3, 1.0, 0.24])
    efc = [0, 10 * 0.5 * i_scale * 0.86 / 1.18 * 0.3, 0, 10 * i_scale * 0.86 * 0.64 / 1.18 * 0.24]
    np.testing.assert_allclose(led.efc, efc)
    assert led.figures.efc == pytest.approx(sum(efc))
    assert led.figures.efc == pytest.approx(1.388739, abs=1e-5)
    # Estimated, stable and NRS variants
    e1, e3 = math.e**0.5 - 1, math.e - 1
    np.testing.assert_allclose(led.est, [0, e1, 0, e3])
    np.testing.assert_allclose(led.stable, [0, e1 * 0.42, 0, e3 * 1.35])
    # event 3: Q 1, G_nr 1.35 (newly passed), Λ_nr 1, A_t = 1 -> / 1.35
    np.testing.assert_allclose(led.nr, [0, e1 * 0.42, 0, e3])
    assert led.run.events[3].status is Status.PASSED


def test_empty_run_scores_to_zero() -> None:
    led = score_run(make_run([]))
    assert led.figures.events == 0
    assert led.figures.efc == 0 and led.figures.c_raw == 0
    assert led.figures.eta is None  # C_raw = 0: no ratio, not a NaN


# last_exception_line: the last match of _EXC_LINE, as a scan of the whole text finds it
_EXC_PIECES = [
    "E",
    "  E  ",
    "",
    " ",
    "\t",
    "KeyError: 'k'",
    "E   AssertionError: 1 != 2",
    '  File "x.py", line 3',
    "ValueErrors",
    "x.FooException",
    "TestFailure ok",
    "Error",
    "ErrorLog",
    "élan Error",
    "E\tTypeError",
    "\x85",
    "\u2028",
    "1 failed",
]


@settings(max_examples=500)
@given(
    st.lists(st.one_of(st.sampled_from(_EXC_PIECES), st.text(max_size=12)), max_size=14),
    st.sampled_from(["\n", "\r\n", "\n\n"]),
)
def test_last_exception_line_matches_a_full_scan(pieces: list[str], sep: str) -> None:
    from efc_tui.scoring.features import _EXC_LINE, last_exception_line

    text = sep.join(pieces)
    line = ""
    for m in _EXC_LINE.finditer(text):
        line = m.group(0)
    assert last_exception_line(text) == line
