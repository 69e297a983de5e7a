"""Speed work never changes a result: every fixture's full ledger (every figure, every
per-event column, the adapter's decisions and summary) equals the reference written before
the work began (tests/reference_ledgers.py says what is compared and how to regenerate).

A failure names the first differing value, e.g. ``[0].ledger.features.n[17]: 0.5 != 0.4``.
If a reader or a scoring definition changed *on purpose*, regenerate the references in a
commit of their own that names that change.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REAL
from tests.reference_ledgers import (
    GENERATED,
    REFERENCE,
    decode,
    first_difference,
    fixture_files,
    generated,
    reference_path,
    score_file,
)

HOW = (
    "if this change is meant to alter results, regenerate in its own commit: "
    ".venv/bin/python -m tests.reference_ledgers --write"
)


@pytest.fixture(scope="module")
def generated_traces() -> Iterator[dict[str, Path]]:
    with tempfile.TemporaryDirectory() as tmp:
        yield dict(generated(Path(tmp)))


def _check(name: str, path: Path, generated_in: Path | None = None) -> None:
    ref = reference_path(name)
    current = score_file(path, generated_in)
    if current is None:
        assert not ref.exists(), f"{name}: no longer readable, but a reference exists"
        return
    assert ref.exists(), f"{name}: no reference ledger ({HOW})"
    diff = first_difference(decode(ref.read_bytes()), current)
    assert diff is None, f"{name}: ledger differs from the reference at {diff} ({HOW})"


@pytest.mark.parametrize(
    "name,path", [pytest.param(n, p, id=n) for n, p in fixture_files() if not n.startswith("real/")]
)
def test_fixture_ledger_matches_reference(name: str, path: Path) -> None:
    _check(name, path)


@pytest.mark.parametrize("name", GENERATED)
def test_generated_ledger_matches_reference(name: str, generated_traces: dict[str, Path]) -> None:
    path = generated_traces[name]
    _check(name, path, path.parent)


def test_real_fixture_ledgers_match_references(real_fixtures: Path) -> None:
    """../shared/fixtures/real (skipped when absent): one test, one line per differing file."""
    bad = []
    for name, path in fixture_files():
        if name.startswith("real/"):
            try:
                _check(name, path)
            except AssertionError as exc:
                bad.append(str(exc).split("\n")[0])
    assert not bad, "\n".join(bad)


def test_every_reference_has_an_input() -> None:
    """A stale reference (its fixture was renamed or deleted) is noticed, not kept forever."""
    names = {reference_path(n).name for n, _ in fixture_files()} | {
        reference_path(n).name for n in GENERATED
    }
    stale = sorted(
        p.name
        for p in REFERENCE.glob("*.json.gz")
        if p.name not in names and not (p.name.startswith("real__") and not REAL.is_dir())
    )
    assert not stale, f"references without an input: {stale}"


def test_the_comparison_tolerates_last_bits_and_sees_a_real_change() -> None:
    """A few ULPs (what another CPU's numpy kernels give) pass; a change of one part in
    10⁸ to one figure of one event, or a flipped flag, is reported where it is."""
    import math

    path = REFERENCE / "samples__repair_loop.jsonl.json.gz"
    ref = decode(path.read_bytes())
    ulps = decode(path.read_bytes())
    n = ulps[0]["ledger"]["features"]["n"]
    for _ in range(4):
        n[0] = math.nextafter(n[0], 2.0)
    assert first_difference(ref, ref) is None
    assert first_difference(ref, ulps) is None
    changed = decode(path.read_bytes())
    m = changed[0]["ledger"]["features"]["n"]
    m[0] = m[0] * (1 + 1e-8)
    assert (
        first_difference(ref, changed)
        == f"[0].ledger.features.n[0]: {ref[0]['ledger']['features']['n'][0]!r} != {m[0]!r}"
    )
    renamed = decode(path.read_bytes())
    renamed[0]["run"]["run_id"] += "x"
    assert first_difference(ref, renamed) == (
        f"[0].run.run_id: {ref[0]['run']['run_id']!r} != {renamed[0]['run']['run_id']!r}"
    )
