"""The run-level figures are declared once (``efc_tui.scoring.figures``, issue 34 item 3):
the ledger computes them as declared, every reader takes its titles from there, no other
module spells a title, and docs/export.md's table is the spec's."""

from __future__ import annotations

import ast
from itertools import islice
from pathlib import Path

import pytest

from efc_tui.scoring.figures import BY_KEY, FIGURES, LEDGER_FIGURES, markdown_table
from tests.conftest import REPO, SAMPLES

PACKAGE = REPO / "efc_tui"


def test_every_figure_is_declared_once_with_known_parts() -> None:
    keys = [f.key for f in FIGURES]
    assert len(keys) == len(set(keys))
    titles = [f.title for f in FIGURES]
    assert len(titles) == len(set(titles)), "two figures share a title"
    for f in FIGURES:
        assert f.meaning and f.title, f.key
        if f.ratio is not None:
            num, den = f.ratio
            assert BY_KEY[num].source == BY_KEY[den].source == f.source == "ledger", f.key
            assert f.formula == f"{BY_KEY[num].title} ÷ {BY_KEY[den].title}"


def test_run_figures_are_the_declared_ledger_figures_in_order() -> None:
    from efc_tui.scoring.ledger import RunFigures

    assert list(RunFigures.__struct_fields__) == [f.key for f in LEDGER_FIGURES]


def _real_and_sample_runs(real: Path) -> list[Path]:
    files = sorted(p for p in real.rglob("*") if p.suffix in (".jsonl", ".json"))[:12]
    return [*files, *sorted(SAMPLES.glob("*.jsonl"))]


def test_the_ledger_computes_each_ratio_as_declared_on_real_logs(real_fixtures: Path) -> None:
    """η, η_NRS, X, ... of scored real logs (and the samples, with oracle blocks) are the
    declared numerator over the declared denominator; None only without a positive one."""
    from efc_tui import api
    from efc_tui.errors import EfcError

    checked = 0
    for path in _real_and_sample_runs(real_fixtures):
        try:
            runs = list(islice(api.load_all(path), 2))
        except EfcError:
            continue  # a fixture of a format this file does not hold runs of
        for run in runs:
            fig = api.score(run).ledger.figures.as_dict()
            for f in LEDGER_FIGURES:
                if f.ratio is None:
                    continue
                num, den = (fig[k] for k in f.ratio)
                if num is None or den is None or den <= 0:
                    assert fig[f.key] is None, (path.name, f.key)
                else:
                    assert fig[f.key] == pytest.approx(num / den, rel=1e-12), (path.name, f.key)
                    checked += 1
    assert checked > 50


def test_the_readers_take_titles_and_ranks_from_the_spec() -> None:
    from efc_tui.app.glossary import glossary
    from efc_tui.app.screens.picker import PICKER_COLUMNS
    from efc_tui.app.widgets.summary import HEADLINE
    from efc_tui.cli._score_run import FIT_TABLE, SCORE_TABLE
    from efc_tui.fitting.fitfile import FIT_COLUMNS
    from efc_tui.fitting.predictors import PREDICTORS
    from efc_tui.report.cireport import FIGURES as CI_FIGURES
    from efc_tui.report.output import RUN_COLUMNS

    for col in (*SCORE_TABLE, *FIT_TABLE):
        if col.key in BY_KEY:
            f = BY_KEY[col.key]
            assert (col.title, col.rank) == (f.title, f.rank), col.key
    shown = {c.key for c in (*SCORE_TABLE, *FIT_TABLE)}
    ranked = {f.key for f in FIGURES if f.rank is not None}
    assert ranked == shown & set(BY_KEY), "a rank is the score table's: ranked = shown"
    for pc in PICKER_COLUMNS:
        if pc.key in BY_KEY:
            assert (pc.title, pc.kind) == (BY_KEY[pc.key].title, BY_KEY[pc.key].kind)
    assert all(key in BY_KEY for key, _ in HEADLINE)
    assert all(key in BY_KEY for key in CI_FIGURES)
    # the row score prints: run metadata, and figures
    from efc_tui.model import Run

    meta = set(Run.__struct_fields__)
    assert all(k in BY_KEY or k in meta for k in RUN_COLUMNS)
    assert all(k in BY_KEY for k in FIT_COLUMNS)
    words = dict(glossary())
    for key in ("c_raw", "nrs_efc", "eta_nrs", "x_nrs", "efc"):
        assert words[BY_KEY[key].title] == BY_KEY[key].meaning
    assert words["$ logged"] == BY_KEY["cost_usd"].meaning
    for p in PREDICTORS:
        if (over := BY_KEY.get(p.name)) is not None:
            assert over.predictor == p.label, p.name
            assert (p.num, p.den) == (over.ratio or (over.key, None)), p.name
    assert {p.name for p in PREDICTORS} >= {f.key for f in FIGURES if f.predictor}


def _string_literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


#: string literals equal to a title that name something else (file: literals)
NOT_A_TITLE = {
    "export.py": {"C_raw"},  # the key of the C_raw weights in the export's constants
    "raw_cost.py": {"tool calls"},  # a term of C_raw (in cost units), not the count
    "detail.py": {"EFC"},  # the selected event's EFC_t, not the run's
    "experiment.py": {"η"},  # headers of the simulator's tables, beside "Δ η", "mean C_raw"
}


def test_no_other_module_spells_a_figure_title() -> None:
    """A title is written in scoring/figures.py only: any other module's string literal
    equal to a title is a second spelling (titles that are also the figure's key, or a
    per-event column's name, such as φ's z, are words any module may use)."""
    from efc_tui.scoring.columns import LEDGER_COLUMNS

    columns = {c.key for c in LEDGER_COLUMNS} | {c.title for c in LEDGER_COLUMNS}
    titles = {f.title for f in FIGURES if f.title != f.key and f.title not in columns}
    assert {"NRS-EFC", "η_NRS", "η", "X_NRS", "C_raw", "Est-EFC", "cost $"} <= titles
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "scoring" / "figures.py":
            continue
        allowed = NOT_A_TITLE.get(path.name, set())
        for line, text in _string_literals(path):
            if text in titles and text not in allowed:
                found.append(f"{path.relative_to(REPO)}:{line}: {text!r}")
    assert not found, found


def test_docs_list_the_figures_as_the_spec_has_them() -> None:
    """docs/export.md, "Run figures": its table is generated from FIGURES."""
    doc = (REPO / "docs" / "export.md").read_text(encoding="utf-8")
    table = doc.split("<!-- figures:", 1)[1].split("<!-- /figures -->", 1)[0]
    assert table.split("\n", 1)[1].strip() == markdown_table()


def test_the_ci_report_and_the_gates_use_the_titles() -> None:
    from efc_tui.cli._score_run import Thresholds
    from efc_tui.report.cireport import RunCheck, junit_xml

    row = {"nrs_efc": 2.5, "eta": 0.05, "eta_nrs": 0.125, "x": 0.0, "c_raw": 20.0}
    misses = Thresholds(min_eta=0.1, min_x=0.5, min_nrs=3.0).misses(row)
    assert misses == [
        f"{BY_KEY['eta'].title} 0.05 < 0.1",
        f"{BY_KEY['x'].title} 0 < 0.5",
        f"{BY_KEY['nrs_efc'].title} 2.5 < 3",
    ]
    out = junit_xml([RunCheck("r", "r.jsonl", row, misses)]).decode()
    assert f"{BY_KEY['eta_nrs'].title} 0.125" in out and "eta_NRS" not in out


def test_the_fitting_docs_list_every_predictor_with_its_label() -> None:
    """docs/fitting.md, "Predictors": one row per predictor (or a figure and its form over
    the fitted D_task, "(hand, fitted)"), labelled as the code labels it."""
    from efc_tui.fitting.predictors import PREDICTORS

    doc = (REPO / "docs" / "fitting.md").read_text(encoding="utf-8")
    table = doc.split("### Predictors", 1)[1].split("\n\n", 2)[1]
    listed: dict[str, str] = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        names = [n.strip(" `") for n in cells[0].split(",")]
        if len(names) == 2:
            base = cells[1].removesuffix(" (hand, fitted)")
            listed.update({names[0]: base, names[1]: f"{base} (fitted)"})
        else:
            listed[names[0]] = cells[1]
    assert listed == {p.name: p.label for p in PREDICTORS}


def test_the_export_schema_has_the_computed_figures() -> None:
    """efc-ledger-1.schema.json's ``figures``: every computed figure, in order, typed by its
    kind (a count an integer, a yes / no a boolean or null, the rest numbers)."""
    import json

    schema = json.loads((PACKAGE / "schemas" / "efc-ledger-1.schema.json").read_text("utf-8"))
    figures = schema["properties"]["figures"]
    keys = [f.key for f in LEDGER_FIGURES]
    assert figures["required"] == keys and list(figures["properties"]) == keys
    for f in LEDGER_FIGURES:
        kind = figures["properties"][f.key]["type"]
        want = {"count": "integer", "bool": ["boolean", "null"]}.get(f.kind, "number")
        assert kind == want or kind == [want, "null"], f.key
