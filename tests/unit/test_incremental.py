"""The prefix adapter event by event (``adapter/incremental.py``): a run fed to a
``PrefixScorer`` in random pieces, its state pickled and taken on between pieces as the
live hook does between processes, is decided as ``score --adapter`` decides the whole run,
event for event, on every real run and every Claude Code and Codex transcript we have."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys

import pytest

import efc_tui
from efc_tui.adapter.incremental import PrefixScorer
from efc_tui.adapter.loops import streaks_and_starts
from efc_tui.compact import stable_digest
from efc_tui.model import Run
from efc_tui.parsers import load
from efc_tui.scoring.features import PrefixState
from tests.cli.test_hook_replay import TRANSCRIPTS
from tests.conftest import SHARED


def _runs() -> list[Run]:
    runs = [next(iter(load(p))) for _, p in TRANSCRIPTS]
    if (SHARED / "real-runs").is_dir():
        runs += list(efc_tui.load_all(SHARED / "real-runs"))
    return runs


def _in_pieces(run: Run, seed: int) -> list:
    rng = random.Random(seed)
    scorer = PrefixScorer(run, stable=True)
    steps = []
    t = 0
    T = len(run.events)
    while t < T:
        k = min(T - t, rng.choice((1, 1, 2, 3, 7, 40)))
        steps += scorer.feed(run.events[t : t + k])
        t += k
        scorer = pickle.loads(pickle.dumps(scorer))  # as the next hook process takes it on
    return steps


def test_real_runs_in_random_pieces_are_decided_as_the_whole_run() -> None:
    runs = _runs()
    assert len(runs) >= 10
    for i, run in enumerate(runs):
        offline = efc_tui.score(run).decisions
        steps = _in_pieces(run, seed=i)
        assert [s.decision.as_dict() for s in steps] == [d.as_dict() for d in offline], run.run_id
        starts = streaks_and_starts(run)[1].tolist()
        assert [s.start for s in steps] == starts, run.run_id


def test_a_stop_reason_counts_the_streak_as_the_whole_run_does(tmp_path) -> None:
    from efc_tui.adapter.live import Monitor
    from tests import hookgen

    t = hookgen.write_session(tmp_path / "loop.jsonl", hookgen.session_calls(3, 6))
    run = next(iter(load(t)))
    offline = efc_tui.score(run).decisions
    mon = Monitor(stable=True)
    for ev in run.events:  # one event at a time
        mon.feed(ev)
    v = mon.stopped
    assert v is not None and v.rule == "repeat"
    start = int(streaks_and_starts(run)[1][v.index])
    cost = sum(offline[i].dC for i in range(start, v.index + 1))
    tokens = sum(e.tokens_in + e.tokens_out for e in run.events[start : v.index + 1])
    assert f"(since event {start})" in v.reason
    assert f"cost {cost:.2f} raw-cost units ({tokens:,} tokens)" in v.reason


def test_only_a_stable_state_is_pickled() -> None:
    with pytest.raises(TypeError):
        pickle.dumps(PrefixState())
    pickle.loads(pickle.dumps(PrefixState(stable_digest)))


def test_the_stable_digest_is_the_same_in_another_interpreter() -> None:
    values = ["line of output", ("a", "b", "c"), (3, None, "pytest -x"), ("run", "ab", "")]
    code = f"from efc_tui.compact import stable_digest as d; print([d(x) for x in {values!r}])"
    out = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""} | {"PYTHONPATH": ":".join(sys.path)},
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert out == {f"{[stable_digest(x) for x in values]}\n"}
    # distinct values, distinct digests (the encoding tells a tuple from its joined text)
    assert len({stable_digest(x) for x in [*values, "abc", ("ab", "c")]}) == len(values) + 2
