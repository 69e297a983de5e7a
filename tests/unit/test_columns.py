"""One ledger column spec (``efc_tui.scoring.columns``): ``Ledger.columns()``, the export,
the published schema and the app's ledger all agree with it."""

from __future__ import annotations

import json

import pytest

import efc_tui
from efc_tui.app.widgets.ledger import BY_VIEW_KEY, ORDER, VIEW, layout
from efc_tui.report.export import ledger_document
from efc_tui.scoring import load_estimator, score_run
from efc_tui.scoring.columns import BY_KEY, GROUPS, LEDGER_COLUMNS
from tests.conftest import FIXTURES, REPO, SAMPLES

SCHEMA = json.loads((REPO / "efc_tui" / "schemas" / "efc-ledger-1.schema.json").read_text())
EVENT = SCHEMA["$defs"]["event"]
EST = load_estimator(FIXTURES / "app" / "estimator.json")
#: event-entry keys the export adds beside the ledger's columns
EXPORT_ONLY = {"adapter", "flags", "extra", "action", "observation"}


def test_every_column_has_a_unique_key_and_a_meaning() -> None:
    keys = [c.key for c in LEDGER_COLUMNS]
    assert len(keys) == len(set(keys))
    for c in LEDGER_COLUMNS:
        assert c.meaning.strip(), c.key
        assert (c.get is None) != (c.event is None), f"{c.key}: exactly one getter"


def test_the_schema_lists_exactly_the_spec_columns() -> None:
    top = [c.export_name for c in LEDGER_COLUMNS if c.group is None]
    expected = set(top) | set(GROUPS) | EXPORT_ONLY
    assert set(EVENT["properties"]) == expected
    # every column is required (oracle ones as null when the run has none)
    assert set(EVENT["required"]) == expected - {"extra", "action", "observation"}
    for group, names in GROUPS.items():
        prop = EVENT["properties"][group]
        obj = next(p for p in prop.get("oneOf", [prop]) if p.get("type") == "object")
        assert set(obj["properties"]) == set(names), group
        assert set(obj["required"]) == set(names), group


def test_ledger_columns_and_export_follow_the_spec() -> None:
    led = score_run(efc_tui.load(SAMPLES / "repair_loop.jsonl"), EST)
    cols = led.columns()
    assert list(cols) == [c.key for c in LEDGER_COLUMNS if not c.oracle]
    doc = ledger_document(led)
    entry = doc["events"][3]
    for c in LEDGER_COLUMNS:
        got = (
            entry[c.group][c.export_name]
            if c.group and entry[c.group]
            else entry.get(c.export_name)
        )
        if c.oracle:
            assert entry["oracle_factors"] is None and entry["efc_oracle"] is None
            continue
        want = cols[c.key][3]
        assert got == (want.item() if hasattr(want, "item") else want), c.key


def test_oracle_columns_appear_with_oracle_blocks() -> None:
    led = score_run(efc_tui.load(FIXTURES / "golden" / "oracle_small.jsonl"), EST)
    cols = led.columns()
    assert [k for k in cols if k.endswith("_oracle")] == [c.key for c in LEDGER_COLUMNS if c.oracle]
    entry = ledger_document(led)["events"][1]
    assert entry["oracle_factors"] == pytest.approx(
        {
            "I": 0.9 * 0.9 * 0.7,
            "V": 0.5 * 0.9 * 0.9,
            "R": 0.6 * 0.9,
            "M": 0.9 * (0.82 + 0.18 * 0.405),
        }
    )


def test_the_app_ledger_shows_spec_columns_with_their_titles() -> None:
    wide = layout(400)
    assert [s.col.key for s in wide] == list(ORDER)
    assert {c.key for c in VIEW} <= set(ORDER)
    assert all(BY_VIEW_KEY[c.key] is c for c in VIEW)
    assert BY_KEY["nrs_efc"].title == "ÊFC_nr" and BY_KEY["X_nr_cum"].title == "X̂_nr"
    assert all(c.width > 0 for c in VIEW)
