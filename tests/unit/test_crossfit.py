"""The grouped real-runs protocol (efc_tui/fitting/crossfit.py): nothing fitted sees the
runs it is scored on. Flipping the held-out runs' outcomes leaves their predictions where
they were (the task demand and the curves are refitted without them), while the same
flip moves the predictions of runs that had them in training (the check can fail)."""

from __future__ import annotations

import numpy as np
import pytest

from efc_tui.fitting.crossfit import (
    Coordinate,
    Rows,
    figures,
    held_out,
    in_sample,
    within_auc,
)

COORDS = (
    Coordinate("nrs_efc", "NRS-EFC", "nrs_efc"),
    Coordinate("x_nrs", "NRS-EFC/D_task", "nrs_efc", demand="nrs_efc"),
    Coordinate("length", "length", "events", curve=False),
)


def corpus(seed: int = 0) -> Rows:
    """3 harnesses × 2 models × 24 tasks; success follows NRS-EFC over a per-task demand."""
    rng = np.random.default_rng(seed)
    demand = np.exp(rng.normal(1.0, 0.5, 24))
    lab: dict[str, list[str]] = {
        k: [] for k in ("run_id", "task", "benchmark", "harness", "model", "source", "family")
    }
    nrs, events, y = [], [], []
    for h, skill_h in (("h1", 0.5), ("h2", 1.0), ("h3", 2.0)):
        for m, skill_m in (("m1", 0.7), ("m2", 1.4)):
            for t in range(24):
                e = demand[t] * skill_h * skill_m * float(np.exp(rng.normal(0, 0.3)))
                p = 1 / (1 + (e / demand[t]) ** -1.5)
                for k, v in (
                    ("run_id", f"{h}/{m}/{t}"),
                    ("task", f"b/{t}"),
                    ("benchmark", "b"),
                    ("harness", h),
                    ("model", m),
                    ("source", "s"),
                    ("family", "b"),
                ):
                    lab[k].append(v)
                nrs.append(e)
                events.append(float(rng.integers(5, 40)))
                y.append(float(rng.random() < p))
    return Rows(
        run_id=lab["run_id"],
        task=lab["task"],
        benchmark=lab["benchmark"],
        harness=lab["harness"],
        model=lab["model"],
        source=lab["source"],
        family=lab["family"],
        y=np.asarray(y),
        cols={"nrs_efc": np.asarray(nrs), "events": np.asarray(events)},
    )


@pytest.mark.parametrize("axis", ["harness", "model"])
def test_held_out_predictions_do_not_move_when_their_own_labels_do(axis: str) -> None:
    rows = corpus()
    before = held_out(rows, COORDS, axis)
    held = np.array(rows.axis(axis)) == rows.axis(axis)[0]
    flipped = Rows(
        rows.run_id,
        rows.task,
        rows.benchmark,
        rows.harness,
        rows.model,
        rows.source,
        rows.family,
        y=np.where(held, 1 - rows.y, rows.y),
        cols=rows.cols,
    )
    after = held_out(flipped, COORDS, axis)
    for c in COORDS:
        b, a = before[c.name].p, after[c.name].p
        assert np.isfinite(b[held]).all()
        np.testing.assert_array_equal(a[held], b[held])
        # the flip reaches every fold that trained on those runs
        assert not np.allclose(a[~held], b[~held])


def test_in_sample_demand_comes_from_the_other_groups() -> None:
    rows = corpus()
    groups = np.array(rows.group)
    g0 = groups == groups[0]
    flipped = Rows(
        rows.run_id,
        rows.task,
        rows.benchmark,
        rows.harness,
        rows.model,
        rows.source,
        rows.family,
        y=np.where(g0, 1 - rows.y, rows.y),
        cols=rows.cols,
    )
    from efc_tui.fitting.crossfit import demand_table

    own = demand_table(rows, np.flatnonzero(~g0), "nrs_efc")
    again = demand_table(flipped, np.flatnonzero(~g0), "nrs_efc")
    assert own is not None and again is not None
    assert [own(int(i)) for i in np.flatnonzero(g0)] == [again(int(i)) for i in np.flatnonzero(g0)]
    # the curve of x_nrs recovers the generating law's ranking in sample
    fig = figures(rows, in_sample(rows, COORDS)["x_nrs"])
    assert fig["auc"] > 0.7 and fig["r2"] is not None and fig["r2"] > 0.5


def test_within_auc_counts_only_pairs_that_share_a_key() -> None:
    y = np.array([1.0, 0.0, 1.0, 0.0])
    p = np.array([0.9, 0.1, 0.2, 0.8])
    assert within_auc(y, p, ["a", "a", "b", "b"]) == 0.5
    assert within_auc(y, p, ["a", "a", "a", "a"]) == 0.75
    assert within_auc(y, p, ["a", "b", "c", "d"]) is None
