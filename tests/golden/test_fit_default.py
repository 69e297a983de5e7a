"""The shipped default fit and the docs' reproduction table match what the code produces
from the default synthetic corpus (issue 5, items 5 and 6). When one fails, the scorer, the
estimator, the simulator or the fit changed: run `make fit-default` and commit the result."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from efc_tui.fitting.fitfile import has_default_fit, load_fit
from efc_tui.fitting.reproduce import (
    DEFAULT_FIT_PATH,
    DOCS_PATH,
    docs_block,
    markdown_table,
    regenerate,
)
from tests.conftest import REPO
from tests.tolerance import ABS_FIT, REL_FIT, json_diff

FIT_SCHEMA = json.loads((REPO / "efc_tui" / "schemas" / "efc-fit-1.schema.json").read_text())
STALE = "stale: run `make fit-default` and commit efc_tui/data/default_fit.json and docs/fitting.md"


@pytest.fixture(scope="module")
def shipped() -> dict[str, Any]:
    if not has_default_fit():
        pytest.fail(f"efc_tui/data/default_fit.json is missing: {STALE}")
    return json.loads(DEFAULT_FIT_PATH.read_bytes())


def test_default_fit_is_valid_and_its_primary_is_predictive_or_absent_with_a_reason(
    shipped: dict[str, Any],
) -> None:
    jsonschema.validate(shipped, FIT_SCHEMA)
    fit = load_fit()
    curve = fit.predictive_curve()
    if fit.primary is None:  # no curve beat the base rate held-out: the file says why
        assert (
            curve is None and fit.primary_reason and fit.no_prediction_reason == fit.primary_reason
        )
        return
    assert curve is not None and curve.name == fit.primary and curve.points and curve.predictive
    assert fit.primary_description and fit.primary_description.startswith(
        f"{curve.name}: {curve.label}, "
    )
    held = curve.heldout
    assert held is not None and held.brier is not None and held.brier_base is not None
    assert held.brier < held.brier_base
    pos = curve.predict(curve.median)
    assert 0.0 <= pos.success <= 1.0 and pos.z_norm == pytest.approx(1.0)


def test_docs_table_is_rendered_from_the_shipped_fit(shipped: dict[str, Any]) -> None:
    assert docs_block(DOCS_PATH.read_text(encoding="utf-8")) == markdown_table(shipped), STALE


def test_default_fit_matches_a_fresh_fit_of_the_default_corpus(shipped: dict[str, Any]) -> None:
    fresh = regenerate()  # simulate, score and fit: ~10 s
    diffs = json_diff(shipped, fresh, rel=REL_FIT, abs_=ABS_FIT)
    assert not diffs, f"{STALE}; first differences: {diffs[:5]}"
