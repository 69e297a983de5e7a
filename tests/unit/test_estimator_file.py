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
        (
            {"schema": "efc-estimator/1", "full": {"theta0": 0}, "prefix": {}},
            "full needs theta0 and theta",
        ),
        (
            {
                "schema": "efc-estimator/1",
                "full": {"theta0": 0, "theta": [1, 2]},
                "prefix": {"theta0": 0, "theta": [0] * 9},
            },
            "full.theta needs 9 weights",
        ),
    ],
)
def test_bad_estimator_files(doc: dict, reason: str) -> None:
    with pytest.raises(InputError, match=reason):
        parse_estimator(json.dumps(doc).encode(), "est.json")


def test_missing_estimator_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read estimator file"):
        load_estimator(tmp_path / "nope.json")


@pytest.mark.parametrize("rows", [0, 1, 511, 512, 513, 1025, 2049, 4097, 20_000 + 3])
def test_predict_gives_each_row_its_own_value_however_many_rows_come_with_it(rows: int) -> None:
    """Theta.predict is θ0 + Σ_j φ_j θ_j with a fixed order per row: a row's value does not
    depend on the rows around it (a BLAS product's does: blocks of rows, threads and the
    CPU's kernel round it differently, e.g. the last row of 2,049 split in blocks of 512),
    and it is the matrix product's to within rounding."""
    import numpy as np

    est = load_estimator()
    rng = np.random.default_rng(rows)
    phi = rng.random((rows, 9))
    phi[:, 2] = rng.random(rows) < 0.3  # 0/1 columns like z, p, m
    for theta in (est.full, est.prefix):
        got = theta.predict(phi)
        assert got.shape == (rows,)
        alone = [
            float(theta.predict(phi[i : i + 1])[0]) for i in range(0, rows, max(1, rows // 97))
        ]
        assert alone == [float(v) for v in got[:: max(1, rows // 97)]]
        assert np.array_equal(theta.predict(phi[: rows // 2]), got[: rows // 2])
        product = np.maximum(
            0.0, np.expm1(np.minimum(theta.theta0 + phi @ np.asarray(theta.theta), 50.0))
        )
        assert np.allclose(got, product, rtol=1e-12, atol=0.0)
