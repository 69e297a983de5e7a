"""SPEC §4: C_raw and D_task with hand-computed values."""

from __future__ import annotations

import pytest

from efc_tui.model import TaskDemand
from efc_tui.scoring.constants import D_PRIOR
from efc_tui.scoring.demand import d_task_fitted, d_task_hand, task_demand, trace_demand
from efc_tui.scoring.factors import harness_quantities
from efc_tui.scoring.features import compute_features
from efc_tui.scoring.ledger import score_run
from efc_tui.scoring.raw_cost import c_raw, raw_cost
from tests.helpers import ev, make_run


def test_c_raw_totals() -> None:
    # 2500 tokens, 4 tool calls, 10 s, 7 ops: 2.5 + 1.4 + 1.0 + 0.28
    assert c_raw(2500, 4, 10.0, 7) == pytest.approx(5.18)


def test_c_raw_per_event_sums_to_run() -> None:
    run = make_run(
        [
            ev(0, tokens_in=1000, tokens_out=500, tool_calls=1, wall_s=2.0, ops=2),
            ev(1, tokens_in=800, tokens_out=200, tool_calls=0, wall_s=0.5, ops=1),
        ]
    )
    rc = raw_cost(run)
    # event 0: 1.5 + 0.35 + 0.2 + 0.08 = 2.13; event 1: 1.0 + 0 + 0.05 + 0.04 = 1.09
    assert rc.delta.tolist() == pytest.approx([2.13, 1.09])
    assert rc.total == pytest.approx(3.22)
    assert rc.flags == []


def test_estimated_tokens_are_flagged() -> None:
    e = ev(0)
    e.flags = ("tokens", "wall_s")
    rc = raw_cost(make_run([e, ev(1)]))
    assert any("tokens estimated" in f and "1 of 2" in f for f in rc.flags)
    assert any("wall time unknown" in f for f in rc.flags)


def test_estimates_are_counted_over_events_flagged_alike_and_not() -> None:
    flags = [("tokens",), ("kind", "tokens", "wall_s"), ("status", "wall_s"), ("kind",), ()]
    events = [ev(i) for i in range(len(flags))] * 2
    for e, f in zip(events, flags * 2, strict=True):
        e.flags = f
    assert raw_cost(make_run(events)).flags == [
        "tokens estimated from text length (4 chars/token) for 4 of 10 events",
        "wall time unknown for 4 of 10 events: counted as 0 s",
    ]


def test_d_task_hand() -> None:
    # 6 · 1.6 · 2 · (1 + 0.1) · (1 − 0.6) = 8.448
    assert d_task_hand(6, 1.6, 2.0, 0.1, 0.6) == pytest.approx(8.448)
    # a fully visible verifier drives the product to 0: floored at ε_D = 0.05
    assert d_task_hand(6, 1.6, 2.0, 0.1, 1.0) == 0.05


def test_d_task_fitted_is_identity_at_medians() -> None:
    beta = [0.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    spec = {
        "beta": beta,
        "medians": {"L": 6, "H_tool": 1.6, "S_state": 2.0, "N_obs": 1.1, "V_ver": 0.4},
    }
    comps = {"L": 6, "H_tool": 1.6, "S_state": 2.0, "N_obs": 0.1, "V_ver": 0.6}
    assert d_task_fitted(comps, spec) == pytest.approx(1.0)
    beta[1] = 2.0  # L twice the median with β1 = 2: ×4
    comps["L"] = 12
    assert d_task_fitted(comps, spec) == pytest.approx(4.0)


def test_demand_comes_from_the_task_never_from_the_run() -> None:
    """D_task: metadata when complete; else the estimator's task and benchmark tables; else
    metadata plus the documented prior. The trace estimates are kept for comparison only."""
    events = [ev(0, action="ls src/a.py"), ev(1, "check", "passed", tool="pytest")]
    run = make_run(
        events, task_demand=TaskDemand(L=6, H_tool=1.6, S_state=2.0, N_obs=0.1, V_ver=0.6)
    )
    d = task_demand(run, None)
    assert d.hand == pytest.approx(8.448) and d.source == "metadata"
    assert not d.flags or all("fitted" in f for f in d.flags)
    # partial metadata: the missing components from the prior (not from the trace)
    run.task_demand = TaskDemand(L=3)
    d = task_demand(run, None)
    assert d.source == "prior" and d.components["L"] == 3.0
    assert d.components["H_tool"] == D_PRIOR["H_tool"] and d.hand == pytest.approx(8.448 / 2)
    assert any("prior" in f and "H_tool" in f for f in d.flags)
    # the paper's trace estimate is still there, on request, for comparison: L 2 targets,
    # H_tool 1 + entropy of {bash, pytest} = 2, S_state 1 (nothing cited), N_obs 1 (both
    # outputs empty: q = 0.5), V_ver 1 of 2 events with a verdict = 0.5
    f = compute_features(run)
    trace = trace_demand(run, f)
    assert trace == pytest.approx(2 * 2.0 * 1.0 * (1 + 1.0) * (1 - 0.5))
    # the ledger gives the run's harness quantities: H_tool's entropy is theirs, not recounted
    assert trace_demand(run, f, harness_quantities(run, f)) == trace
    led = score_run(run)
    assert led.trace_demand() == trace and led.demand.hand == d.hand
    # a longer run of the same task has the same D_task
    longer = make_run(
        [*events, *(ev(i, action=f"cat f{i}.py") for i in range(2, 40))],
        task_demand=TaskDemand(L=3),
    )
    assert task_demand(longer, None).hand == d.hand
    # the estimator's tables: task, then benchmark, then prior
    spec = {
        "tasks": {"t1": {"D": 5.0, "runs": 4}},
        "families": {"bench": {"D": 3.0, "tasks": 9}},
        "prior": {"D": 2.0},
    }
    for task_id, family, want, source in (
        ("t1", "bench", 5.0, "task"),
        ("t2", "bench", 3.0, "benchmark"),
        ("t2", "other", 2.0, "prior"),
    ):
        r = make_run(events, task_id=task_id, task_family=family)
        d = task_demand(r, spec)
        assert (d.hand, d.fitted, d.source) == (want, want, source)


def test_estimated_l_counts_distinct_targets_of_acting_events() -> None:
    """L (SPEC §4's trace estimate): the distinct (tool, target) of tool, check, generation
    and repair events, on the samples and ../shared's real runs, with the batch's event
    columns and without."""
    from efc_tui.model import EventKind
    from efc_tui.parsers import discover, load
    from efc_tui.scoring.demand import estimate_components
    from efc_tui.scoring.event_columns import event_columns
    from efc_tui.scoring.features import target
    from tests.conftest import REAL, SAMPLES, SHARED

    acting = {EventKind.TOOL, EventKind.CHECK, EventKind.GENERATION, EventKind.REPAIR}
    roots = [SAMPLES, REAL, *sorted(SHARED.glob("real-runs*"))]
    files = discover([str(p) for p in roots if p.is_dir()]).sources
    seen = 0
    for run in (r for path in files[::7] for r in load(path)):
        f = compute_features(run)
        want = len({(e.tool, target(e.action_text)) for e in run.events if e.kind in acting})
        for cols in (None, event_columns(run.events)):
            assert estimate_components(run, f, None, cols)["L"] == max(1, want), run.run_id
        seen += want > 1
    assert seen >= 5
