"""EFC-Adapter would-be decisions (SPEC §6): hand-built traces, gating reasons, the ledger
entries, the counterfactual summary, corpus totals and the sweep.

The behavioural tests use a pinned estimator (tests/fixtures/adapter/estimator.json: the
provisional θ with W = 6, ε = 0.001) so they hold whatever calibration ships.
"""

from __future__ import annotations

import math

import numpy as np
import orjson
import pytest

import efc_tui
from efc_tui.adapter import (
    AdapterConfig,
    apply,
    choose_adapter,
    choose_stop_rules,
    corpus_summary,
    decide,
    prefix_demand,
    prefix_nr,
    score_and_decide,
    sweep,
)
from efc_tui.adapter.config import D_PRIOR
from efc_tui.adapter.gating import DISCARD, PROMOTE, SCRATCH, gate_memory
from efc_tui.adapter.summary import budget_key, stop_index, success_at_risk, waste_split
from efc_tui.errors import InputError
from efc_tui.model import TaskDemand
from efc_tui.report.export import ledger_document
from efc_tui.scoring import Ledger, load_estimator, score_run
from tests.conftest import FIXTURES
from tests.helpers import ev, make_run

ADAPTER = FIXTURES / "adapter" / "traces"
EST = load_estimator(FIXTURES / "adapter" / "estimator.json")


def replay(name: str, **kw):
    return score_and_decide(efc_tui.load(ADAPTER / name), EST, **kw)


# --- hand-built traces -------------------------------------------------------------------


def test_repair_loop_is_stopped_inside_the_loop() -> None:
    led = replay("repair_loop.jsonl")
    s = led.summary
    kinds = [e.kind.value for e in led.run.events]
    checks = [t for t, k in enumerate(kinds) if k == "check"]
    # the same pytest fails the same way after every edit: stopped at its third failure
    assert s.stop_event == checks[2] and s.stop_by == "repeat" and s.repeat_stop_event == checks[2]
    assert led.decisions[s.stop_event].control == "stop"
    assert led.decisions[s.stop_event].control_reason.startswith(
        f"stop: one action has failed the same way 3 times in a row since event {checks[0]}"
    )
    # the loop goes on unbroken: every later decision says stop too
    assert all(d.control == "stop" and d.repeat_rule for d in led.decisions[s.stop_event :])
    assert [d.repeat_count for d in led.decisions[: s.stop_event + 1]] == [0, 0, 1, 1, 2, 2, 3]
    assert s.cost_saved == pytest.approx(float(led.ledger.cost.delta[s.stop_event + 1 :].sum()))
    assert s.cost_saved > 0.5 * s.c_raw
    assert s.success is False and not s.success_at_risk
    assert s.waste.repeated_errors > 0.3 and s.waste.after_stop == pytest.approx(
        s.cost_saved / s.c_raw
    )
    assert s.rollback_event is None  # equal scores: nothing better to roll back to


def test_steady_improvement_is_never_stopped() -> None:
    led = replay("steady.jsonl")
    s = led.summary
    assert s.stop_event is None and s.cost_saved == 0.0
    assert all(d.control == "continue" for d in led.decisions)
    assert s.rollback_event is None
    assert s.first_pass_event == len(led) - 1 and s.success and not s.success_at_risk
    assert s.d_task_source == "metadata"


def test_late_regression_rolls_back_to_the_better_candidate() -> None:
    led = replay("late_regression.jsonl")
    s = led.summary
    events = led.run.events
    # candidate at 3 (the repair) scored 4/5; the rewrite at 6 scored 0/5 at its check (7)
    assert (s.rollback_event, s.rollback_to) == (7, 3)
    d = led.decisions[7]
    assert d.control == "rollback" and d.rollback_to == 3
    assert d.candidate_score == 0.0 and "0.80" in d.control_reason
    assert events[3].kind.value == "repair"
    assert all(x.control != "rollback" for x in led.decisions[:7])
    assert led.decisions[4].candidate_score == pytest.approx(0.8)


def test_rollouts_at_one_step_are_ranked_by_roi_not_rolled_back() -> None:
    led = replay("rollouts.jsonl")
    ds = led.decisions
    assert [d.selection for d in ds] == ["audit", "audit", "rank", "rank", "audit"]
    assert (ds[2].roi_rank, ds[2].roi_of) == (2, 2)  # B (3/5) below A (passed)
    assert (ds[3].roi_rank, ds[3].roi_of) == (3, 3)  # C (syntax error) last
    assert ds[1].roi is not None and ds[1].roi > 0
    assert led.summary.ranked_steps == 1
    # siblings are alternatives, not versions: the current candidate is the best of them
    assert all(d.control != "rollback" for d in ds)
    assert ds[3].candidate_score == 1.0


# --- memory gating -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "feats", "decision", "reason"),
    [
        (
            ev(3, "check", "assertion_error", obs="E AssertionError: x"),
            dict(n=0.9, a=0.0, p=1, memory_write=0),
            DISCARD,
            "repeated error: assertion_error",
        ),
        (
            ev(3, "tool", "api_error", obs="429 rate limited"),
            dict(n=1.0, a=1, p=1, memory_write=0),
            DISCARD,
            "invalid: api_error",
        ),
        (
            ev(3, "tool", "static_reject", obs="bash: foo: command not found"),
            dict(n=1.0, a=1, p=1, memory_write=0),
            DISCARD,
            "invalid: static_reject",
        ),
        (
            ev(3, "error", obs="harness crashed"),
            dict(n=1.0, a=1, p=1, memory_write=0),
            DISCARD,
            "invalid: error event",
        ),
        (
            ev(3, "tool", obs="same listing as before"),
            dict(n=0.1, a=1, p=1, memory_write=0),
            DISCARD,
            "redundant: novelty 0.10 < 0.2",
        ),
        (
            ev(3, "reflect", obs="I think the bug is in ratio()"),
            dict(n=1.0, a=1, p=1, memory_write=1),
            SCRATCH,
            "unverified: no verdict (reflect event)",
        ),
        (
            ev(3, "check", "passed", obs="6 passed"),
            dict(n=0.8, a=1, p=1, memory_write=0),
            PROMOTE,
            "verified passed, novel (n=0.80), used (plan/action change)",
        ),
        (
            ev(3, "check", "assertion_error", obs="E AssertionError: 2 != 3"),
            dict(n=0.5, a=1, p=0, memory_write=1),
            PROMOTE,
            "verified assertion_error, novel (n=0.50), used (memory write)",
        ),
        (
            ev(3, "check", "passed", obs="6 passed"),
            dict(n=0.3, a=1, p=1, memory_write=1),
            SCRATCH,
            "verified passed but novelty 0.30 < 0.5",
        ),
        (
            ev(3, "check", "passed", obs="6 passed"),
            dict(n=0.9, a=1, p=0, memory_write=0),
            SCRATCH,
            "verified passed but not used",
        ),
        # an empty observation is not "redundant": there is nothing to compare
        (
            ev(3, "memory", obs=""),
            dict(n=0.0, a=1, p=1, memory_write=1),
            SCRATCH,
            "unverified: no verdict (memory event)",
        ),
    ],
)
def test_memory_gating_reasons(event, feats, decision, reason) -> None:
    got, why = gate_memory(event, **feats)
    assert got == decision
    assert why.startswith(reason)


def test_memory_gating_on_a_replayed_run() -> None:
    run = make_run(
        [
            ev(0, "tool", action="cat a.py", obs="def f():\n    return 1\n# end"),
            ev(
                1,
                "check",
                "assertion_error",
                tool="pytest",
                action="pytest",
                obs="E   AssertionError: f() == 2",
            ),
            ev(
                2,
                "check",
                "assertion_error",
                tool="pytest",
                action="pytest -x",
                obs="E   AssertionError: f() == 2",
            ),
            ev(3, "reflect", tool=None, action="maybe f should return 2", obs=""),
            ev(
                4,
                "repair",
                tool="edit",
                action="a.py: return 2",
                obs="ok",
                memory="f returns 2 now",
            ),
            ev(5, "check", "passed", tool="pytest", action="pytest", obs="1 passed in 0.01s"),
        ]
    )
    led = score_and_decide(run, EST)
    got = [(d.memory, d.memory_reason.split(":")[0]) for d in led.decisions]
    assert got[1] == (
        "promote",
        "verified assertion_error, novel (n=1.00), used (plan/action change)",
    )
    assert got[2] == ("discard", "repeated error")
    assert got[3] == ("scratch", "unverified")
    assert got[5][0] == "promote"
    assert led.summary.memory == {"promote": 2, "scratch": 3, "discard": 1}
    assert led.columns()["memory"] == [d.memory for d in led.decisions]


# --- ledger entries and the stop rule ----------------------------------------------------


def test_ledger_entries_use_the_prefix_theta_and_prefix_demand() -> None:
    led = replay("late_regression.jsonl")
    f, g = led.ledger.features, led.ledger.gates
    phi = f.matrix(prefix=True)
    assert not phi[:, 2].any()  # no z
    expected = np.maximum(0.0, np.expm1(EST.prefix.theta0 + phi @ np.asarray(EST.prefix.theta)))
    expected = expected * g.Q * g.G_nr * g.L_nr / (1 + 0.35 * g.A)
    nr = np.array([d.efc_nr for d in led.decisions])
    np.testing.assert_allclose(nr, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(nr, prefix_nr(f, g, EST), rtol=0, atol=0)
    d_hat = led.summary.d_task
    assert d_hat == pytest.approx(6 * 1.6 * 2.0 * 1.1 * 0.4)  # no metadata: the prior
    np.testing.assert_allclose([d.x_nr for d in led.decisions], np.cumsum(nr) / d_hat)
    np.testing.assert_allclose([d.dC for d in led.decisions], led.ledger.cost.delta)


def test_window_ratio_by_hand() -> None:
    led = replay("repair_loop.jsonl", window=4, epsilon=0.5)
    nr = np.array([d.efc_nr for d in led.decisions])
    dc = led.ledger.cost.delta
    d_hat = led.summary.d_task
    for t, d in enumerate(led.decisions):
        if t < 3:
            assert d.window_ratio is None and d.control_reason.startswith("window not full")
        else:
            want = (nr[t - 3 : t + 1].sum() / d_hat) / dc[t - 3 : t + 1].sum()
            assert d.window_ratio == pytest.approx(want)
            assert d.stop_rule == (want < 0.5)


def test_zero_cost_window_never_stops() -> None:
    run = make_run([ev(i, "tool", action=f"echo {i % 2}", obs="same") for i in range(8)])
    led = score_and_decide(run, EST, window=3, epsilon=1e9)
    assert led.summary.stop_event is None
    assert led.decisions[5].control_reason == "no raw cost in the last 3 events"


def test_epsilon_zero_never_stops_and_huge_epsilon_stops_at_the_first_full_window() -> None:
    # ε = 0 turns the window rule off; repeat = 0 turns the repetition rule off
    assert replay("repair_loop.jsonl", epsilon=0.0, repeat=0).summary.stop_event is None
    window_only = replay("repair_loop.jsonl", repeat=0).summary
    assert window_only.stop_by == "window" and window_only.stop_event == 8
    assert window_only.repeat == 0 and window_only.repeat_stop_event is None
    assert not any(d.repeat_rule for d in replay("repair_loop.jsonl", repeat=0).decisions)
    assert replay("steady.jsonl", window=3, epsilon=1e6).summary.stop_event == 2


def test_config_overrides_and_validation() -> None:
    cfg = AdapterConfig.from_estimator(EST)
    assert (cfg.window, cfg.epsilon) == (6, 0.001)
    assert AdapterConfig.from_estimator(EST, window=3, epsilon=0.5) == AdapterConfig(3, 0.5)
    with pytest.raises(InputError):
        AdapterConfig(0, 0.1)
    with pytest.raises(InputError):
        AdapterConfig(3, -0.1)
    with pytest.raises(InputError):
        AdapterConfig(3, math.nan)


# --- D̂_task ----------------------------------------------------------------------------


def test_prefix_demand_metadata_prior_and_mixed() -> None:
    full = make_run([], task_demand=TaskDemand(L=4, H_tool=1.0, S_state=1.5, N_obs=0.0, V_ver=0.5))
    d = prefix_demand(full)
    assert (d.value, d.source) == (pytest.approx(3.0), "metadata")
    none = prefix_demand(make_run([]))
    assert none.source == "prior" and none.components == D_PRIOR
    part = prefix_demand(make_run([], task_demand=TaskDemand(L=2)))
    assert part.source == "metadata+prior"
    assert part.value == pytest.approx(2 * 1.6 * 2.0 * 1.1 * 0.4)


def test_prefix_demand_ignores_the_trace() -> None:
    short = make_run([ev(0, action="ls", obs="a")])
    long = make_run([ev(i, action=f"cmd {i}", obs=f"out {i}", tool=f"t{i}") for i in range(30)])
    assert prefix_demand(short) == prefix_demand(long)


# --- summary, waste, corpus, sweep ---------------------------------------------------------


def test_waste_split_by_hand() -> None:
    dc = np.array([1.0, 2.0, 3.0, 4.0])
    ra = np.array([False, True, False, False])
    re_ = np.array([False, True, True, False])
    red = np.array([False, False, False, True])
    w = waste_split(dc, ra, re_, red, stop=2)
    assert (w.repeated_actions, w.repeated_errors, w.redundant_observations, w.after_stop) == (
        pytest.approx(0.2),
        pytest.approx(0.5),
        pytest.approx(0.4),
        pytest.approx(0.4),
    )
    assert w.any == pytest.approx(0.9)
    assert waste_split(np.zeros(2), ra[:2], re_[:2], red[:2], None).any == 0.0


@pytest.mark.parametrize(
    ("stop", "first_pass", "success", "risk"),
    [
        (None, 5, True, False),
        (3, 5, True, True),
        (3, 2, True, False),
        (3, 3, True, False),
        (3, 5, False, False),
        (3, None, True, True),
        # no success label: unknown, never "no" (issue 18)
        (3, 5, None, None),
        (3, None, None, None),
        (None, None, None, None),
        (9, None, None, None),
    ],
)
def test_success_at_risk(stop, first_pass, success, risk) -> None:
    assert success_at_risk(stop, first_pass, success)[0] is risk
    assert success_at_risk(stop, first_pass, success, 10)[0] is risk


def test_a_stop_at_the_last_event_cuts_nothing() -> None:
    assert success_at_risk(9, None, True, 10) == (False, "stopped at the last event: nothing cut")
    assert success_at_risk(8, None, True, 10)[0] is True


def test_stop_index_skips_nan() -> None:
    r = np.array([np.nan, np.nan, 0.5, 0.01, 0.0])
    assert stop_index(r, 0.02) == 3
    assert stop_index(r, 0.0) is None
    assert stop_index(np.zeros(0), 1.0) is None


def test_budget_key() -> None:
    assert budget_key(make_run([])) == "none"
    assert (
        budget_key(make_run([], budget={"tokens": 100000, "steps": 20}))
        == "steps=20, tokens=100000"
    )


def _summaries():
    return [
        replay(n).summary
        for n in ("repair_loop.jsonl", "steady.jsonl", "late_regression.jsonl", "rollouts.jsonl")
    ]


def test_corpus_summary_totals_and_budget_groups() -> None:
    sums = _summaries()
    sums[3].budget = "max_steps=50"  # a second cap
    c = corpus_summary(sums)
    assert c.total.runs == 4 and c.window == 6 and c.epsilon == 0.001
    assert c.total.c_raw == pytest.approx(sum(s.c_raw for s in sums))
    assert c.total.cost_saved == pytest.approx(sum(s.cost_saved for s in sums))
    assert c.total.stopped == sum(s.stop_event is not None for s in sums)
    assert c.total.successes == 2  # steady and rollouts are labelled successful
    assert [g.budget for g in c.by_budget] == ["max_steps=20", "max_steps=50"]
    assert [g.runs for g in c.by_budget] == [3, 1]
    assert sum(g.cost_saved for g in c.by_budget) == pytest.approx(c.total.cost_saved)
    orjson.dumps(c.as_dict())


def test_sweep_is_monotone_and_matches_a_rescore() -> None:
    sums = _summaries()
    pts = sweep(sums, [0.0, 0.001, 0.005, 0.02, 0.1, 1.0])
    saved = [p.total.cost_saved for p in pts]
    risk = [p.total.at_risk for p in pts]
    assert saved == sorted(saved) and risk == sorted(risk)
    # at ε = 0 only the repetition rule stops: the repair loop, at its third failure
    loop = sums[0]
    assert pts[0].total.stopped == 1 and pts[0].total.cost_saved == pytest.approx(loop.cost_saved)
    assert (
        sweep([replay(n, repeat=0).summary for n in ("repair_loop.jsonl", "steady.jsonl")], [0.0])[
            0
        ].total.stopped
        == 0
    )
    # re-deciding at ε from stored ratios equals scoring again at that ε
    for p in pts:
        again = [
            replay(n, epsilon=p.epsilon).summary
            for n in (
                "repair_loop.jsonl",
                "steady.jsonl",
                "late_regression.jsonl",
                "rollouts.jsonl",
            )
        ]
        assert p.total.cost_saved == pytest.approx(sum(s.cost_saved for s in again))
        assert p.total.at_risk == sum(s.success_at_risk for s in again)


# --- wiring: api, export, JSON safety ----------------------------------------------------


def test_api_score_fills_decisions_unless_asked_not_to() -> None:
    run = efc_tui.load(ADAPTER / "repair_loop.jsonl")
    led = efc_tui.score(run, EST)
    assert led.decisions is not None and len(led.decisions) == len(run.events)
    assert led.summary.window == 6
    assert type(efc_tui.score(run, EST, adapter=False)) is Ledger
    led2 = efc_tui.score(run, EST, window=3, epsilon=0.5)
    assert (led2.summary.window, led2.summary.epsilon) == (3, 0.5)


def test_apply_on_a_scored_ledger_equals_score_and_decide() -> None:
    run = efc_tui.load(ADAPTER / "steady.jsonl")
    a = apply(score_run(run, EST))
    b = score_and_decide(run, EST)
    assert [d.as_dict() for d in a.decisions] == [d.as_dict() for d in b.decisions]
    _, summary = decide(score_run(run, EST), AdapterConfig(6, 0.001))
    assert summary.as_dict() == b.summary.as_dict()


def test_export_document_carries_decisions_and_summary() -> None:
    led = replay("late_regression.jsonl")
    doc = orjson.loads(orjson.dumps(ledger_document(led), option=orjson.OPT_SERIALIZE_NUMPY))
    assert doc["adapter"]["rollback_to"] == 3 and doc["adapter"]["window"] == 6
    assert [e["adapter"]["control"] for e in doc["events"]][-1] == "rollback"
    for e in doc["events"]:
        a = e["adapter"]
        assert a["memory"] in ("promote", "scratch", "discard") and a["memory_reason"]
        assert a["control"] in ("continue", "stop", "rollback") and a["control_reason"]


def test_as_dict_is_json_safe_without_nan() -> None:
    led = replay("rollouts.jsonl")
    for d in led.decisions:
        blob = orjson.dumps(d.as_dict())
        assert b"NaN" not in blob and b"Infinity" not in blob
    orjson.dumps(led.summary.as_dict())


def test_empty_run() -> None:
    led = score_and_decide(make_run([]), EST)
    assert led.decisions == [] and led.summary.stop_event is None
    assert led.summary.c_raw == 0.0 and led.summary.waste.any == 0.0


# --- choosing W and ε on calibration runs --------------------------------------------------


def test_choose_adapter_picks_the_largest_saving_of_the_window_rule_within_the_risk_limit() -> None:
    runs = [
        efc_tui.load(ADAPTER / n)
        for n in ("repair_loop.jsonl", "steady.jsonl", "late_regression.jsonl", "rollouts.jsonl")
    ]
    got = choose_adapter(runs, EST, windows=(3, 6), epsilons=(0.0, 0.001, 0.01, 1.0))
    assert got is not None and got["runs"] == 4 and got["successes"] == 2
    # two successes and a 2% limit: no success may be put at risk
    assert got["successes_at_risk"] == 0 and got["epsilon"] > 0
    again = [
        score_and_decide(r, EST, window=got["window"], epsilon=got["epsilon"], repeat=0).summary
        for r in runs
    ]
    total = corpus_summary(again).total
    assert total.at_risk == 0
    assert total.saved_share == pytest.approx(got["cost_saved_share"])
    # every other feasible setting of the grid saves no more
    for w in (3, 6):
        for e in (0.0, 0.001, 0.01, 1.0):
            t = corpus_summary(
                [score_and_decide(r, EST, window=w, epsilon=e, repeat=0).summary for r in runs]
            ).total
            if t.at_risk == 0:
                assert t.saved_share <= got["cost_saved_share"] + 1e-12


def test_choose_stop_rules_picks_the_largest_saving_of_both_rules_within_the_risk_limit() -> None:
    runs = [
        efc_tui.load(ADAPTER / n)
        for n in ("repair_loop.jsonl", "steady.jsonl", "late_regression.jsonl", "rollouts.jsonl")
    ]
    got = choose_stop_rules(runs, EST, windows=(3, 6), epsilons=(0.0, 0.001, 0.01, 1.0))
    assert got is not None and got["runs"] == 4 and got["successes"] == 2 and got["repeat"] == 3
    # two successes and a 3% limit: no success may be put at risk. The repetition rule
    # already stops the loop; at W = 6 a larger ε saves nothing more, so the smaller wins
    assert got["successes_at_risk"] == 0 and (got["window"], got["epsilon"]) == (6, 0.0)
    again = [
        score_and_decide(r, EST, window=got["window"], epsilon=got["epsilon"]).summary for r in runs
    ]
    total = corpus_summary(again).total
    assert total.at_risk == 0 and total.stopped == 1  # the loop, by the repetition rule
    assert total.saved_share == pytest.approx(got["cost_saved_share"])
    assert got["corpora"]["calibration"]["cost_saved_share"] == pytest.approx(
        total.saved_share, rel=1e-5
    )
    for w in (3, 6):
        for e in (0.0, 0.001, 0.01, 1.0):
            t = corpus_summary(
                [score_and_decide(r, EST, window=w, epsilon=e).summary for r in runs]
            ).total
            if t.at_risk == 0:
                assert t.saved_share <= got["cost_saved_share"] + 1e-12


def test_choose_stop_rules_limits_each_corpus_and_skips_unlabelled_runs() -> None:
    calib = [
        efc_tui.load(ADAPTER / n)
        for n in ("repair_loop.jsonl", "late_regression.jsonl", "steady.jsonl")
    ]
    real = [efc_tui.load(ADAPTER / n) for n in ("productive.jsonl", "pytest_six_times.traj.json")]
    assert real[1].success is None
    got = choose_stop_rules(
        calib, EST, real_runs=real, windows=(3, 6), epsilons=(0.0, 0.001, 0.01, 1.0)
    )
    assert got is not None and set(got["corpora"]) == {"calibration", "real"}
    assert got["corpora"]["real"]["runs"] == 1  # the unlabelled run takes no part
    assert got["corpora"]["real"]["successes_at_risk"] == 0
    shares = [c["cost_saved_share"] for c in got["corpora"].values()]
    assert got["cost_saved_share"] == pytest.approx(sum(shares) / 2, rel=1e-5)
    # the productive run (a success) constrains ε: a setting that stops it early is refused
    early = score_and_decide(real[0], EST, window=3, epsilon=1.0).summary
    assert early.success_at_risk is True
    assert (got["window"], got["epsilon"]) != (3, 1.0)


def test_choosers_without_successes_or_runs() -> None:
    loop = efc_tui.load(ADAPTER / "repair_loop.jsonl")
    six = efc_tui.load(ADAPTER / "pytest_six_times.traj.json")  # unlabelled only
    for choose in (choose_adapter, choose_stop_rules):
        assert choose([loop], EST) is None
        assert choose([], EST) is None
        assert choose([six], EST) is None


def test_choosers_disable_the_window_rule_when_nothing_is_safe() -> None:
    steady = efc_tui.load(ADAPTER / "steady.jsonl")
    # only ε so large that the successful run is stopped early: ε = 0 is chosen
    got = choose_adapter([steady], EST, windows=(3,), epsilons=(1e6,))
    assert got is not None and got["epsilon"] == 0.0 and "stopping disabled" in got["status"]
    got = choose_stop_rules([steady], EST, windows=(3,), epsilons=(1e6,))
    assert got is not None and got["epsilon"] == 0.0 and "window rule off" in got["status"]


def test_choose_stop_rules_says_so_when_the_repetition_rule_alone_is_over_the_limit() -> None:
    # a success that loops three times before its fix: the repetition rule puts it at risk
    fail = "E   AssertionError: assert 1 == 2"
    evs = [ev(0, "tool", action="cat a.py", obs="def f(): return 1")]
    for i in range(3):
        evs.append(
            ev(1 + 2 * i, "check", "assertion_error", tool="pytest", action="pytest", obs=fail)
        )
        evs.append(ev(2 + 2 * i, "repair", tool="edit", action=f"a.py: attempt {i}", obs="ok"))
    evs.append(ev(7, "check", "passed", tool="pytest", action="pytest", obs="1 passed"))
    run = make_run(evs, success=True)
    assert score_and_decide(run, EST, epsilon=0.0).summary.success_at_risk is True
    got = choose_stop_rules([run], EST, windows=(3,), epsilons=(0.0, 1.0))
    assert got is not None and got["epsilon"] == 0.0 and got["successes_at_risk"] == 1
    assert "the repetition rule alone exceeds it" in got["status"]
    # without the repetition rule the window rule alone is safe at ε = 0
    off = choose_stop_rules([run], EST, windows=(3,), epsilons=(0.0,), repeat=0)
    assert off is not None and off["successes_at_risk"] == 0
