"""A file's short runs scored together (issue 31, item 2: ``scoring.score_runs``,
``pipeline.score.score_items``) give every run the ledger it gets alone, bit for bit: each
column and figure, its flags, its row and ledger document, on every real run and the
samples; and the batches are bounded (a large run is let go before the next is read, a
reading error comes after the runs read before it)."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from itertools import islice
from typing import Any

import numpy as np
import pytest

from efc_tui.errors import InputError
from efc_tui.model import Run
from efc_tui.parsers import discover, load
from efc_tui.pipeline import score as work
from efc_tui.pipeline.score import BATCH_RUNS, TRIM_EVENTS, Job, score_item, score_items
from efc_tui.scoring.features import _FIELDS, _loop, compute_features, compute_features_runs
from efc_tui.scoring.gates import compute_gates
from efc_tui.scoring.ledger import Ledger, score_run, score_runs
from efc_tui.synthetic.corpus import CorpusSpec, generate
from tests.conftest import REAL, SAMPLES, SHARED


@pytest.fixture(scope="module")
def files() -> list[list[Run]]:
    """The runs of each file of the samples, ../shared's real fixtures and real runs (when
    there), and a few simulated runs (oracle blocks: the synthetic estimator)."""
    roots = [SAMPLES, REAL, *sorted(SHARED.glob("real-runs*"))]
    found = discover([str(p) for p in roots if p.is_dir()]).sources
    out = [list(load(f)) for f in found]
    spec = CorpusSpec(families=("needle_lookup",), harnesses=("H0",), models=("sim-small",), runs=3)
    out.append(list(islice(generate(spec), 6)))
    return out


def _bits(led: Ledger) -> bytes:
    """Every number of a ledger, exactly (pickle keeps a float's every bit)."""
    cols = {k: np.asarray(v).tobytes() for k, v in led.columns().items()}
    return pickle.dumps((cols, led.figures.as_dict(), led.flags, led.estimator.sha256))


def _batches(files: list[list[Run]]) -> Iterator[list[Run]]:
    """Each file's runs in batches of 1, 2, 7 and all; then runs of every file together,
    simulated and real ones in one batch (two estimators)."""
    for runs in files:
        for size in (2, 7, len(runs)):
            for i in range(0, len(runs), size):
                yield runs[i : i + size]
    yield [runs[0] for runs in files]


def test_runs_scored_together_get_the_ledgers_they_get_alone(files: list[list[Run]]) -> None:
    alone = {id(r): _bits(score_run(r)) for runs in files for r in runs}
    assert sum(map(len, files)) >= 10
    batched = 0
    for batch in _batches(files):
        ledgers = score_runs(batch)
        assert [led.run for led in ledgers] == batch
        for led in ledgers:
            assert _bits(led) == alone[id(led.run)], led.run.run_id
        batched += len(batch) > 1
    assert batched >= 5
    # a batch with both estimators was among them
    assert len({led.estimator.sha256 for led in score_runs([r[0] for r in files])}) == 2


def test_runs_featured_together_get_their_features_alone(files: list[list[Run]]) -> None:
    """Every feature column (the prefix ones the adapter reads too), batches with and
    without a run that compacts its context (whose retention is its own)."""
    runs = [r for f in files for r in f]
    # ../shared's real runs hold three that compact (the samples and simulated runs none)
    compacting = [r for r in runs if _loop(r.events).compaction]
    assert compacting or not SHARED.is_dir()
    alone = {id(r): compute_features(r) for r in runs}
    batches: list[list[Run]] = [
        runs[:50],
        runs[50:120],
        [runs[0], *compacting, runs[1]],
        runs[-9:],
        [],
    ]
    for batch in batches:
        joined, each = compute_features_runs(batch)
        assert len(each) == len(batch)
        for run, f in zip(batch, each, strict=True):
            for k in _FIELDS:
                want = getattr(alone[id(run)], k)
                got = getattr(f, k)
                assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (run.run_id, k)
        for k in _FIELDS:
            whole = np.concatenate([getattr(alone[id(r)], k) for r in batch] or [[]])
            assert getattr(joined, k).tobytes() == whole.astype(getattr(joined, k).dtype).tobytes()


def test_each_run_of_a_batch_starts_its_gates_afresh(files: list[list[Run]]) -> None:
    """Attempts and the previous verdict do not carry from one run to the next: without
    the runs' bounds the same events get other gates (so the comparison can fail)."""
    runs = [r for f in files for r in f if any(e.status.value != "none" for e in r.events)]
    runs = runs[:40]
    bounds = np.cumsum([0, *(len(r.events) for r in runs)]).tolist()
    events = [e for r in runs for e in r.events]
    together, unbounded = compute_gates(events, bounds), compute_gates(events)
    for name in ("Q", "G", "G_nr", "L", "L_nr", "A"):
        alone = np.concatenate([getattr(compute_gates(r.events), name) for r in runs])
        assert getattr(together, name).tobytes() == alone.tobytes(), name
    assert not np.array_equal(unbounded.A, together.A)
    assert not np.array_equal(unbounded.G, together.G)


def _item_bits(item: work.ScoredItem) -> bytes:
    return pickle.dumps((item.row, item.document, item.warnings, repr(item.summary)))


@pytest.mark.parametrize("mode", ["score", "fit"])
def test_score_items_gives_score_items_one_by_one(files: list[list[Run]], mode: str) -> None:
    job = Job(mode, None, documents=mode == "score", summaries=mode == "score")  # type: ignore[arg-type]
    runs = [r for f in files for r in f]
    one = [_item_bits(score_item(r, job)) for r in runs]
    assert [_item_bits(i) for i in score_items(iter(runs), job)] == one


class _Log:
    """Records what was read and what was scored, in order."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.steps: list[tuple[str, Any]] = []
        batch = work.score_batch

        def scored(runs: list[Run], job: Job) -> list[work.ScoredItem]:
            self.steps.append(("scored", [r.run_id for r in runs]))
            return batch(runs, job)

        monkeypatch.setattr(work, "score_batch", scored)

    def reading(self, runs: list[Run], error: Exception | None = None) -> Iterator[Run]:
        for r in runs:
            self.steps.append(("read", r.run_id))
            yield r
        if error is not None:
            raise error


def _renamed(run: Run, i: int) -> Run:
    from msgspec.structs import replace

    return replace(run, run_id=f"r{i}")


def test_batches_are_bounded_and_a_large_run_is_scored_alone_before_the_next_is_read(
    files: list[list[Run]], monkeypatch: pytest.MonkeyPatch
) -> None:
    short = next(r for f in files for r in f if 2 <= len(r.events) < 50)
    large = next((r for f in files for r in f if len(r.events) >= TRIM_EVENTS), None)
    if large is None:  # the samples alone: make one from a short run's events
        from msgspec.structs import replace

        large = replace(short, events=short.events * (TRIM_EVENTS // len(short.events) + 1))
    runs = [_renamed(short, i) for i in range(BATCH_RUNS + 5)]
    runs.insert(3, _renamed(large, 999))
    log = _Log(monkeypatch)
    items = list(score_items(log.reading(runs), Job("score", None)))
    assert [i.run_id for i in items] == [r.run_id for r in runs]
    scored = [ids for step, ids in log.steps if step == "scored"]
    # the large run is scored alone, after the batch before it, before the next is read
    at = log.steps.index(("read", "r999"))
    assert log.steps[at + 1 : at + 4] == [
        ("scored", ["r0", "r1", "r2"]),
        ("scored", ["r999"]),
        ("read", "r3"),
    ]
    assert max(map(len, scored)) == BATCH_RUNS
    assert scored[2] == [f"r{i}" for i in range(3, 3 + BATCH_RUNS)]
    assert sum(map(len, scored)) == len(runs)


def test_a_reading_error_comes_after_the_runs_read_before_it(
    files: list[list[Run]], monkeypatch: pytest.MonkeyPatch
) -> None:
    short = next(r for f in files for r in f if len(r.events) < 50)
    runs = [_renamed(short, i) for i in range(5)]
    log = _Log(monkeypatch)
    got: list[str] = []
    with pytest.raises(InputError, match="bad line"):
        for item in score_items(
            log.reading(runs, InputError("bad line", "x.jsonl")), Job("score", None)
        ):
            got.append(item.run_id)
    assert got == [r.run_id for r in runs]
    assert log.steps[-1] == ("scored", got)
