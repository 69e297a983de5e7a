"""The shipped estimator file follows its published schema, and bad estimator files are
input errors with a reason (SPEC §3.4)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from efc_tui.errors import InputError
from efc_tui.scoring.estimator import load_estimator, parse_estimator
from tests.conftest import REPO

SCHEMA = json.loads((REPO / "efc_tui" / "schemas" / "efc-estimator-1.schema.json").read_text())
SHIPPED = REPO / "efc_tui" / "data" / "estimator.json"


def test_shipped_estimator_matches_schema() -> None:
    doc = json.loads(SHIPPED.read_text())
    jsonschema.validate(doc, SCHEMA)
    est = load_estimator()
    assert len(est.full.theta) == len(est.prefix.theta) == 9
    assert est.prefix.theta[2] == 0.0  # no z in prefix mode (SPEC §6)
    assert est.window >= 1 and est.epsilon >= 0


@pytest.mark.parametrize(
    ("doc", "reason"),
    [
        ({"schema": "other"}, 'must have "schema": "efc-estimator/1"'),
        ({"schema": "efc-estimator/1", "full": {"theta0": 0}, "prefix": {}}, "full needs theta0 and theta"),
        ({"schema": "efc-estimator/1", "full": {"theta0": 0, "theta": [1, 2]},
          "prefix": {"theta0": 0, "theta": [0] * 9}}, "full.theta needs 9 weights"),
    ],
)
def test_bad_estimator_files(doc: dict, reason: str) -> None:
    with pytest.raises(InputError, match=reason):
        parse_estimator(json.dumps(doc).encode(), "est.json")


def test_missing_estimator_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read estimator file"):
        load_estimator(tmp_path / "nope.json")


@pytest.mark.parametrize("rows", [0, 1, 511, 512, 513, 1024, 2048 + 7, 20_000 + 3])
def test_predict_in_blocks_equals_one_product(rows: int) -> None:
    """Theta.predict multiplies at most BLAS_ROWS rows at a time (no BLAS helper thread):
    the values are those of one product of the whole matrix, bit for bit."""
    import numpy as np

    from efc_tui.scoring.estimator import BLAS_ROWS

    assert BLAS_ROWS & (BLAS_ROWS - 1) == 0
    est = load_estimator()
    rng = np.random.default_rng(rows)
    phi = rng.random((rows, 9))
    phi[:, 2] = rng.random(rows) < 0.3  # 0/1 columns like z, p, m
    for theta in (est.full, est.prefix):
        whole = theta.theta0 + phi @ np.asarray(theta.theta)
        expected = np.maximum(0.0, np.expm1(np.minimum(whole, 50.0)))
        got = theta.predict(phi)
        assert got.shape == (rows,)
        assert np.array_equal(got, expected)
