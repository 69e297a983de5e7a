"""The adapter's repetition rule (issue 18 item 2): identical failure loops are stopped by
their third repetition; productive runs are not stopped before their pass; a run without a
success label reports its risk as unknown."""

from __future__ import annotations

import numpy as np
import pytest

import efc_tui
from efc_tui.adapter import repeat_stop, repeat_streaks, score_and_decide
from efc_tui.adapter.config import REPEAT_LIMIT
from efc_tui.scoring import load_estimator
from tests.conftest import FIXTURES, REPO
from tests.helpers import ev, make_run

ADAPTER = FIXTURES / "adapter" / "traces"
EST = load_estimator(FIXTURES / "adapter" / "estimator.json")
FAIL = "E   AssertionError: assert 1 == 2\n1 failed, 2 passed in 0.04s"


def _checks(run: efc_tui.Run) -> list[int]:
    return [t for t, e in enumerate(run.events) if e.kind.value == "check"]


# --- the loops a person checks first, with the shipped estimator and the pinned one ---------


@pytest.mark.parametrize("estimator", [None, EST], ids=["shipped", "pinned"])
def test_the_repair_loop_sample_is_stopped_at_its_third_failure(estimator) -> None:
    run = efc_tui.load(REPO / "sample_traces" / "repair_loop.jsonl")
    scored = score_and_decide(run, estimator)
    s = scored.summary
    third = _checks(run)[2]  # five identical failing test-and-edit pairs after the first check
    assert s.repeat_stop_event == third
    assert s.stop_event is not None and s.stop_event <= third and "repeat" in (s.stop_by or "")
    assert s.cost_saved == pytest.approx(float(scored.ledger.cost.delta[s.stop_event + 1 :].sum()))
    assert s.cost_saved > 0.5 * s.c_raw
    assert s.success is False and s.success_at_risk is False


@pytest.mark.parametrize("estimator", [None, EST], ids=["shipped", "pinned"])
def test_a_six_times_repeated_failing_check_is_stopped_at_the_third(estimator) -> None:
    run = efc_tui.load(ADAPTER / "pytest_six_times.traj.json")  # mini-swe-agent, step limit
    pytest_runs = [t for t, e in enumerate(run.events) if "pytest" in e.action_text]
    assert len(pytest_runs) == 6 and all(
        run.events[t].status.value == "assertion_error" for t in pytest_runs
    )
    scored = score_and_decide(run, estimator)
    s = scored.summary
    assert s.repeat_stop_event == pytest_runs[2]
    assert s.stop_event is not None and s.stop_event <= pytest_runs[2]
    # (the harness's stop after the last pytest, an error event of its own, is no new action)
    counts = [d.repeat_count for d in scored.decisions]
    assert counts[pytest_runs[0] : pytest_runs[-1] + 1] == [1, 2, 3, 4, 5, 6]
    assert s.cost_saved == pytest.approx(float(scored.ledger.cost.delta[s.stop_event + 1 :].sum()))
    # no success label (no sidecar): at risk is unknown, never "no"
    assert s.success is None and s.success_at_risk is None and s.at_risk_label == "unknown"
    assert s.at_risk_reason.startswith("no success label: unknown")


@pytest.mark.parametrize("estimator", [None, EST], ids=["shipped", "pinned"])
def test_a_productive_run_is_not_stopped_before_its_pass(estimator) -> None:
    run = efc_tui.load(ADAPTER / "productive.jsonl")
    statuses = [e.status.value for e in run.events]
    # a few different failures (the first one twice), then a pass at the last event
    assert statuses.count("assertion_error") == 3 and "runtime_error" in statuses
    assert statuses[-1] == "passed"
    repeat_only = score_and_decide(run, estimator, epsilon=0.0).summary
    assert repeat_only.stop_event is None and repeat_only.repeat_stop_event is None
    assert max(d.repeat_count for d in score_and_decide(run, estimator).decisions) == 2
    if estimator is None:  # the shipped setting, both rules on
        s = score_and_decide(run).summary
        assert s.first_pass_event is not None
        assert s.stop_event is None or s.stop_event >= s.first_pass_event
        assert s.success_at_risk is False


def test_unlabelled_runs_report_unknown_risk_whether_or_not_stopped() -> None:
    evs = [ev(0, "tool", action="ls", obs="a.py")]
    evs += [
        ev(i, "check", "assertion_error", tool="pytest", action="pytest", obs=FAIL)
        for i in range(1, 5)
    ]
    stopped = score_and_decide(make_run(evs), EST).summary
    assert stopped.stop_event == 3 and stopped.success_at_risk is None
    quiet = score_and_decide(make_run(evs[:2]), EST).summary
    assert (
        quiet.stop_event is None
        and quiet.success_at_risk is None
        and quiet.at_risk_label == "unknown"
    )
    labelled = score_and_decide(make_run(evs, success=False), EST).summary
    assert labelled.success_at_risk is False and labelled.at_risk_label == "no"


# --- what extends a streak and what ends it -------------------------------------------------


def _streaks(evs) -> list[int]:
    return repeat_streaks(make_run(evs)).tolist()


def check(
    i: int, status: str = "assertion_error", obs: str = FAIL, action: str = "pytest -q", checks=None
):
    return ev(i, "check", status, tool="pytest", action=action, obs=obs, checks=checks)


def test_edits_thoughts_and_messages_carry_the_streak() -> None:
    evs = [
        check(0),
        ev(1, "repair", tool="edit", action="a.py: try 1", obs="edited"),
        ev(2, "reflect", tool=None, action="hmm", obs=""),
        check(3),
        ev(4, "message", tool=None, action="", obs=""),  # no action: ignored
        ev(5, "memory", tool="notes", action="remember", obs="ok"),
        ev(6, "error", "api_error", tool=None, action="", obs="429"),
        check(7),
    ]
    assert _streaks(evs) == [1, 1, 1, 2, 2, 2, 2, 3]


def test_numbers_and_whitespace_do_not_make_a_failure_new() -> None:
    evs = [
        check(0, obs=FAIL),
        check(1, obs=FAIL.replace("0.04", "0.07")),
        check(2, obs=FAIL.replace("0.04", "1.25"), action="pytest   -q "),
    ]
    assert _streaks(evs) == [1, 2, 3]


@pytest.mark.parametrize(
    "between",
    [
        ev(1, "tool", tool="bash", action="cat a.py", obs="def f(): return 1"),  # another action
        check(1, "passed", obs="3 passed"),  # a pass
        check(1, "none", obs="ok"),  # the same action without a failure
        check(1, obs="E   AssertionError: assert 2 == 3"),  # another failure of the same action
        ev(
            1, "check", "assertion_error", tool="pytest", action="pytest -x", obs=FAIL
        ),  # another check
    ],
    ids=["other-tool", "pass", "no-verdict", "other-failure", "other-check"],
)
def test_anything_else_ends_the_streak(between) -> None:
    s = _streaks([check(0), between, check(2), check(3)])
    assert s[2] == 1 and s[3] == 2


def test_changed_check_counts_are_progress() -> None:
    evs = [check(0, checks=(1, 2, 3)), check(1, checks=(2, 1, 3)), check(2, checks=(2, 1, 3))]
    assert _streaks(evs) == [1, 1, 2]


def test_a_failing_edit_outside_the_loop_neither_extends_nor_ends_it() -> None:
    evs = [
        check(0),
        ev(1, "repair", "static_reject", tool="edit", action="a.py: x", obs="file not read"),
        check(2),
        check(3),
    ]
    assert _streaks(evs) == [1, 1, 2, 3]


def test_repeat_stop_and_limits() -> None:
    s = np.array([0, 1, 2, 2, 3, 0, 4])
    assert repeat_stop(s, 3) == 4 and repeat_stop(s, 2) == 2 and repeat_stop(s, 5) is None
    assert repeat_stop(s, 0) is None  # off
    assert REPEAT_LIMIT == 3
    assert repeat_streaks(make_run([])).tolist() == []


# --- the figures of docs/adapter.md (make adapter-report) ------------------------------------


def test_report_tunes_in_sample_and_leaving_each_source_out(tmp_path) -> None:
    from efc_tui.adapter.calibrate import replay
    from efc_tui.adapter.reproduce import (
        DOCS_END,
        DOCS_PATH,
        DOCS_START,
        Corpora,
        markdown,
        report,
        write_docs,
    )

    def rp(name: str):
        return replay(efc_tui.load(ADAPTER / name), EST)

    synth = [
        rp("repair_loop.jsonl"),
        rp("steady.jsonl"),
        rp("late_regression.jsonl"),
        rp("rollouts.jsonl"),
    ]
    real = {
        "a": [rp("productive.jsonl"), rp("repair_loop.jsonl")],
        "b": [rp("steady.jsonl"), rp("late_regression.jsonl")],
        "c": [rp("pytest_six_times.traj.json")],
    }  # unlabelled only
    doc = report(Corpora(synth, synth[:2], real, "synth", "real"), (6, 0.001))
    assert doc["repeat"] == 3 and doc["chosen"]["window"] in (3, 4, 6, 8, 10, 12)
    ins = doc["in_sample"]
    assert ins["real"]["c"]["labelled"] == 0 and ins["real"]["c"]["unknown"] == 1
    assert ins["real"]["a"]["stopped"] >= 1  # the repair loop, by the repetition rule
    assert ins["real_total"]["runs"] == 5 and ins["real_total"]["successes"] == 2
    # one held-out row per labelled source, each tuned without it
    assert [h["source"] for h in doc["leave_one_source_out"]] == ["a", "b"]
    assert doc["leave_one_source_out"][0]["tuned_on"] == ["synthetic", "b"]
    assert set(doc["compare"]) >= {"window rule alone (paper)", "repetition rule alone (k = 3)"}
    block = markdown(doc)
    assert "| real: c | 1 | 0 | 1 |" in block and "unknown (1 stopped)" in block
    assert "**Held out**" in block and "| a | " in block
    # the docs carry the markers the block is written between
    text = DOCS_PATH.read_text(encoding="utf-8")
    assert text.index(DOCS_START) < text.index(DOCS_END)
    copy = tmp_path / "adapter.md"
    copy.write_text(f"intro\n{DOCS_START}\nold\n{DOCS_END}\nend\n", encoding="utf-8")
    write_docs(block, copy)
    assert copy.read_text(encoding="utf-8") == f"intro\n{DOCS_START}\n{block}{DOCS_END}\nend\n"


# --- real logs (../shared; skipped when absent) ----------------------------------------------

CLAUDE_SESSION = "claude-code/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"


def test_real_claude_session_is_not_stopped_before_the_edit_it_was_asked_for(real_fixtures) -> None:
    """The session asked to update CLAUDE.md reads the project for 22 events, then edits it.
    At the setting tuned on the real runs (window rule off, docs/adapter.md) no rule stops it:
    reading different files is no loop."""
    run = efc_tui.load(real_fixtures / CLAUDE_SESSION)
    edits = [t for t, e in enumerate(run.events) if e.tool in ("Edit", "MultiEdit")]
    assert edits and edits[0] > 15
    s = score_and_decide(run, epsilon=0.0).summary
    assert s.repeat_stop_event is None and s.stop_event is None
    assert max(d.repeat_count for d in score_and_decide(run, epsilon=0.0).decisions) < REPEAT_LIMIT


def test_real_claude_sessions_have_no_identical_failure_loop(real_fixtures) -> None:
    for path in sorted((real_fixtures / "claude-code").glob("*.jsonl")):
        for run in efc_tui.load_all(path):
            assert score_and_decide(run, epsilon=0.0).summary.repeat_stop_event is None, path.name


def test_a_real_javac_loop_is_stopped_by_its_third_repetition() -> None:
    """Multi-SWE-bench Java: SWE-agent re-runs `javac` after `javac: command not found`."""
    from tests.conftest import SHARED

    path = (
        SHARED
        / "real-runs"
        / "multi_swe_bench_java_sweagent"
        / "evaluation"
        / "java"
        / "verified"
        / "20240825_SWE-agent_deepseek-chat-v2"
        / "trajs"
        / "googlecontainertools__jib-4035.traj"
    )
    if not path.is_file():
        pytest.skip("../shared/real-runs is not present")
    run = efc_tui.load(path)
    s = score_and_decide(run, epsilon=0.0).summary
    assert (
        s.stop_event is not None and s.stop_event == s.repeat_stop_event and s.stop_by == "repeat"
    )
    loop = [t for t, e in enumerate(run.events[: s.stop_event + 1]) if "javac" in e.action_text]
    assert len(loop) >= REPEAT_LIMIT
    # labelled resolved, with its final submission after the stop: counted at risk
    assert s.success is True and s.success_at_risk is True
