"""The adapter is causal: decisions at event t read events 0..t only (SPEC §6).

Property: for any run and any cut t, the decisions of the run truncated after t equal the
first t + 1 decisions of the whole run, field for field (floats bit for bit), for both stop
rules (the window rule and the repetition rule).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from efc_tui.adapter import score_and_decide
from efc_tui.model import Checks, Event, EventKind, Run, Status, TaskDemand
from efc_tui.scoring import load_estimator
from tests.conftest import FIXTURES

EST = load_estimator(FIXTURES / "adapter" / "estimator.json")

# a small vocabulary so actions, observations and error signatures repeat
LINES = st.sampled_from(
    [
        "E   AssertionError: assert 1 == 2",
        "Traceback (most recent call last):",
        "ValueError: bad input",
        "ok",
        "src/app/models.py:42",
        "3 passed in 0.10s",
        "FAILED tests/test_a.py::test_x",
        "",
        "def f(): return 1",
        "done",
    ]
)
ACTIONS = st.sampled_from(["pytest -q", "cat a.py", "edit a.py", "ls", "python run.py", ""])


@st.composite
def events(draw, index: int, step: int) -> Event:
    kind = draw(st.sampled_from(list(EventKind)))
    status = draw(st.sampled_from(list(Status)))
    checks = None
    if draw(st.booleans()):
        total = draw(st.integers(0, 8))
        passed = draw(st.integers(0, total))
        checks = Checks(passed, total - passed, draw(st.sampled_from([None, total])))
    obs = "\n".join(draw(st.lists(LINES, max_size=4)))
    return Event(
        index=index,
        step=step,
        kind=kind,
        tool=draw(st.sampled_from([None, "bash", "pytest", "edit"])),
        status=status,
        action_text=draw(ACTIONS),
        observation_text=obs,
        tokens_in=draw(st.integers(0, 3000)),
        tokens_out=draw(st.integers(0, 500)),
        tool_calls=draw(st.integers(0, 2)),
        wall_s=draw(st.floats(0, 30, allow_nan=False)),
        ops=draw(st.integers(0, 3)),
        refs=tuple(draw(st.lists(st.integers(0, max(0, index - 1)), max_size=2))) if index else (),
        checks=checks,
        memory_write=draw(st.sampled_from([None, "note", "todo: fix f"])),
        plan=draw(st.sampled_from([None, None, "try another approach"])),
        truncated=draw(st.booleans()),
    )


@st.composite
def runs(draw) -> Run:
    n = draw(st.integers(1, 24))
    evs = []
    step = 0
    for i in range(n):
        step += draw(st.sampled_from([0, 1, 1, 1]))  # some events share a step (alternatives)
        evs.append(draw(events(i, step)))
    demand = draw(
        st.sampled_from([None, TaskDemand(L=3, H_tool=1.2), TaskDemand(4, 1.0, 1.5, 0.1, 0.5)])
    )
    return Run(
        run_id="prop",
        events=evs,
        success=draw(st.sampled_from([None, True, False])),
        task_demand=demand,
        budget=draw(st.sampled_from([{}, {"steps": 10}])),
        source_format="test",
    )


def _truncated(run: Run, t: int) -> Run:
    return Run(
        run_id=run.run_id,
        events=list(run.events[: t + 1]),
        success=run.success,
        task_demand=run.task_demand,
        budget=run.budget,
        source_format=run.source_format,
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    run=runs(),
    window=st.integers(1, 8),
    epsilon=st.sampled_from([0.0, 0.001, 0.02, 0.5, 10.0]),
    repeat=st.sampled_from([0, 2, 3]),
    data=st.data(),
)
def test_truncation_never_changes_earlier_decisions(run, window, epsilon, repeat, data) -> None:
    whole = score_and_decide(run, EST, window=window, epsilon=epsilon, repeat=repeat).decisions
    t = data.draw(st.integers(0, len(run.events) - 1), label="cut after event")
    part = score_and_decide(
        _truncated(run, t), EST, window=window, epsilon=epsilon, repeat=repeat
    ).decisions
    assert [d.as_dict() for d in part] == [d.as_dict() for d in whole[: t + 1]]


@settings(max_examples=40, deadline=None)
@given(run=runs())
def test_every_prefix_agrees_with_the_whole_run(run) -> None:
    whole = [d.as_dict() for d in score_and_decide(run, EST, window=3, epsilon=0.02).decisions]
    for t in range(len(run.events)):
        part = score_and_decide(_truncated(run, t), EST, window=3, epsilon=0.02).decisions
        assert part[-1].as_dict() == whole[t]
