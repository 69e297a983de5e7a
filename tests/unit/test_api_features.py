"""Retained API feedback (efc_tui/scoring/api_features.py): per-event terms on a hand-built
tool trace, and on the real tau-bench runs of ../shared/real-runs-grouped (skipped when
absent): a run's answers are retained when a later call passes a value they returned."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from efc_tui.api import load_all
from efc_tui.fitting.crossfit import within_auc
from efc_tui.model import Event, EventKind, Run, Status
from efc_tui.scoring.api_features import api_feedback, values
from efc_tui.scoring.demand import task_key
from tests.conftest import SHARED

GROUPED = SHARED / "real-runs-grouped"


def call(i: int, tool: str, args: str, answer: str, status: Status = Status.NONE) -> Event:
    return Event(
        index=i,
        step=i,
        kind=EventKind.TOOL,
        tool=tool,
        status=status,
        action_text=args,
        observation_text=answer,
        tool_calls=1,
    )


def say(i: int, text: str) -> Event:
    return Event(index=i, step=i, kind=EventKind.MESSAGE, observation_text=text)


def test_values_are_tokens_holding_a_digit_of_five_characters_or_more() -> None:
    got = values('{"order_id": "#W2378156", "zip": "1912", "item": "HAT078", "name": "Keyboard"}')
    assert got == {"#W2378156", "HAT078"}


def test_an_answer_is_effective_when_a_later_call_passes_a_value_it_returned() -> None:
    run = Run(
        "r",
        [
            say(0, "my name is Yusuf Rossi, zip 19122"),
            call(1, "find_user", '{"zip": "19122"}', "yusuf_rossi_9620"),  # id used later
            call(2, "get_user", '{"user_id": "yusuf_rossi_9620"}', '{"orders": ["#W2378156"]}'),
            call(3, "get_user", '{"user_id": "yusuf_rossi_9620"}', '{"orders": ["#W2378156"]}'),
            call(4, "list_types", "", '{"Keyboard": "1656367028"}'),  # never used
            call(
                5,
                "exchange",
                '{"order_id": "#W1111111"}',
                "Error: order not found",
                Status.RUNTIME_ERROR,
            ),
            call(6, "exchange", '{"order_id": "#W2378156"}', '{"status": "exchange requested"}'),
        ],
    )
    fb = api_feedback(run)
    assert fb.call.tolist() == [False, True, True, True, True, True, True]
    assert fb.valid.tolist() == [False, True, True, True, True, False, True]
    assert fb.novel.tolist() == [False, True, True, False, True, True, True]
    # 1: its id is call 2's argument; 2 and 3: the order id is call 6's; 4: never used;
    # 5: nothing returned; 6: the last call, nothing after it
    assert fb.retained.tolist() == [False, True, True, True, False, False, False]
    assert fb.effective.tolist() == [False, True, True, False, False, False, False]
    assert fb.rate == pytest.approx(2 / 6)


def test_a_value_the_call_itself_passed_is_not_returned_feedback() -> None:
    run = Run(
        "r",
        [
            call(0, "get_order", '{"order_id": "#W2378156"}', '{"order_id": "#W2378156"}'),
            call(1, "cancel", '{"order_id": "#W2378156"}', '{"status": "cancelled"}'),
        ],
    )
    assert api_feedback(run).effective.tolist() == [False, False]
    assert api_feedback(Run("empty")).rate == 0.0


@cache
def tau_runs() -> list[Run]:
    return [
        r for r in load_all(GROUPED) if r.source_format == "tau-bench" and r.success is not None
    ]


@pytest.mark.skipif(not GROUPED.is_dir(), reason="../shared/real-runs-grouped is not present")
def test_on_real_tau_bench_runs_the_rate_ranks_successes_above_failures_of_the_same_task() -> None:
    runs = tau_runs()
    assert len(runs) >= 1000
    rate = np.array([api_feedback(r).rate for r in runs])
    y = np.array([float(bool(r.success)) for r in runs])
    assert 0.0 <= rate.min() < rate.max() <= 1.0
    # measured 0.63 (docs/fitting.md); the EFC sums rank the other way within a group
    got = within_auc(y, rate, [task_key(r) or r.run_id for r in runs])
    assert got is not None and got > 0.58


def test_the_protocol_keeps_the_rate_as_a_column_of_every_scored_run() -> None:
    from efc_tui.fitting.coordinates import real_columns
    from efc_tui.scoring import score_run

    run = Run(
        "r",
        [
            call(0, "find_user", '{"zip": "19122"}', "yusuf_rossi_9620"),
            call(1, "get_user", '{"user_id": "yusuf_rossi_9620"}', "{}"),
        ],
    )
    cols = real_columns(score_run(run))
    assert cols["api_rate"] == pytest.approx(0.5)
    assert cols["events"] == 2.0
