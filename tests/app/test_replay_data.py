"""The replay screen's data, text and chart helpers, without running the app."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rich.console import Console
from rich.syntax import Syntax
from rich.text import Text

from efc_tui import api
from efc_tui.app.fitview import load_fit_view
from efc_tui.app.replay_data import ReplayData, RowFilter
from efc_tui.app.textfmt import DETAIL_LIMIT, guess_lexer, more_marker, show_text
from efc_tui.app.widgets.braille import Chart, Marker, Series, VRule, render
from efc_tui.app.widgets.detail import bar
from efc_tui.app.widgets.ledger import fmt_num
from efc_tui.fitting.predictors import BY_NAME
from efc_tui.scoring import load_estimator
from tests.conftest import FIXTURES

APP = FIXTURES / "app"


@pytest.fixture(scope="module")
def scored() -> ReplayData:
    run = api.load(APP / "small.jsonl")
    data = ReplayData(run)
    data.set_scored(api.score(run, load_estimator(APP / "estimator.json")))
    return data


def test_rows_filter_and_positions(scored: ReplayData) -> None:
    d = scored
    assert d.n_rows == len(d) == 21
    d.set_filter(RowFilter("kind", "check"))
    checks = [e.index for e in d.events if e.kind.value == "check"]
    assert [d.event_at(r) for r in range(d.n_rows)] == checks
    assert d.row_of(checks[1]) == 1
    assert d.row_of(0) is None  # a plan event: hidden
    assert d.event_at(d.nearest_row(3)) == 4  # the first shown event after 3
    d.set_filter(RowFilter("status", "passed"))
    assert all(d.events[d.event_at(r)].status.value == "passed" for r in range(d.n_rows))
    d.set_filter(None)
    assert d.n_rows == 21 and d.row_of(20) == 20


def test_present_counts(scored: ReplayData) -> None:
    kinds = dict(scored.present("kind"))
    assert kinds["check"] == 5 and kinds["tool"] == 10 and sum(kinds.values()) == 21


def test_decisions_and_stop(scored: ReplayData) -> None:
    d = scored
    assert d.summary is not None
    assert d.stop == d.summary.stop_event == 18
    assert d.after_stop(19) and not d.after_stop(18)
    notable = [
        i
        for i in range(len(d))
        if d.decision_label(i).split(" ")[0] in ("promote", "discard")
        or "stop" in d.decision_label(i)
    ]
    assert d.next_decision(-1) == notable[0]
    assert d.next_decision(notable[0]) == notable[1]
    assert d.next_decision(notable[1], forward=False) == notable[0]
    assert d.next_decision(notable[-1]) is None
    assert d.is_discarded(4) and d.decision_label(4) == "discard"
    assert d.decision_label(18) == "discard · stop"


def test_search_wraps_and_ignores_case(scored: ReplayData) -> None:
    d = scored
    assert d.search("3 PASSED", -1) == 8
    assert d.search("3 passed", 8) == 9
    assert d.search("3 passed", 20) == 8  # wrapped
    assert d.search("3 passed", 9, forward=False) == 8
    assert d.search("no such text", 0) is None
    assert d.search("[dim]", 0) is None  # literal, not a pattern or markup


def test_prefix_columns_end_at_the_run_figures(scored: ReplayData) -> None:
    """The fit panel's prefix z after the last event is the run's own predictor value."""
    cols = scored.prefix_columns()
    figures = scored.ledger.figures  # type: ignore[union-attr]
    for name in (
        "tokens",
        "tool_calls",
        "wall_s",
        "ops",
        "c_raw",
        "est_efc",
        "nrs_efc",
        "x_nrs",
        "x_est",
        "eta",
        "eta_nrs",
    ):
        pred = BY_NAME[name]
        z = pred.column(cols)
        assert z[-1] == pytest.approx(pred.value(figures), rel=1e-9), name
        assert len(z) == 21


def test_fit_view_reads_the_fit_file() -> None:
    fit = load_fit_view(APP / "fit.json")
    assert [c.name for c in fit.curves] == ["x_nrs", "nrs_efc", "tokens"]
    assert fit.default == "x_nrs"
    curve = fit.curve("x_nrs")
    assert curve is not None
    # E(z) = E_inf + A (z / median)^-alpha at z = median: 0.08 + 0.45 = 0.53
    assert curve.success(np.array([1.5]))[0] == pytest.approx(0.47)
    pos = curve.predict(1.5)
    assert pos is not None and pos.success == pytest.approx(0.47)


def test_a_fit_without_held_out_evidence_draws_no_curve(tmp_path: Path) -> None:
    """A curve is drawn only when held-out runs say it predicts: an older file without
    held-out figures, or one whose curves do not beat the base rate, shows the reason."""
    import json

    doc = json.loads((APP / "fit.json").read_text())
    old = {
        k: v
        for k, v in doc.items()
        if k not in ("primary_reason", "selection", "primary_predictive")
    }
    for p in old["predictors"]:
        p.pop("predictive", None)
    (tmp_path / "old.json").write_text(json.dumps(old))
    view = load_fit_view(tmp_path / "old.json")
    assert view.curves == [] and view.problem is not None and "refit" in view.problem
    for p in doc["predictors"]:
        if "predictive" in p:
            p["predictive"] = False
    doc["primary"] = None
    (tmp_path / "flat.json").write_text(json.dumps(doc))
    view = load_fit_view(tmp_path / "flat.json")
    assert (
        view.curves == []
        and view.problem is not None
        and view.problem.startswith("no predictive curve")
    )


def test_missing_fit_is_not_an_error(tmp_path: Path) -> None:
    from efc_tui.errors import EfcError

    with pytest.raises(EfcError):
        load_fit_view(tmp_path / "nope.json")
    empty = load_fit_view(None)  # the package's default, when it ships one
    assert empty.curves or empty.problem


@pytest.mark.parametrize(
    ("value", "width", "shown"),
    [
        (0.123456, 5, "0.123"),
        (12.3456, 5, "12.35"),
        (1234.5, 5, "1234"),
        (None, 5, "–"),
        (float("nan"), 4, "–"),
        (123456789.0, 6, "1.2e8"),
        (-0.5, 4, "-0.5"),
        (1e12, 4, "1e12"),
    ],
)
def test_fmt_num(value: float | None, width: int, shown: str) -> None:
    assert fmt_num(value, width) == shown


def test_bar() -> None:
    assert bar(0.0, 8) == "░" * 8
    assert bar(1.0, 8) == "█" * 8
    assert bar(0.5, 8) == "████░░░░"
    assert bar(None, 4) == "····"


def test_lexer_guess() -> None:
    assert guess_lexer("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n") == "diff"
    assert guess_lexer('Traceback (most recent call last):\n  File "x"\nValueError: y') == "pytb"
    assert guess_lexer("ls -la", "bash", is_action=True) == "bash"
    assert guess_lexer("def f(x):\n    return x\n", "python") == "python"
    assert guess_lexer("All 3 tests passed, nothing to do.") is None


def test_show_text_is_bounded_and_inert() -> None:
    hostile = "[bold]x[/bold] \x1b[31mred\x1b[0m \x1b]52;c;ZXZpbA==\x07 a\rb \u202e"
    shown = show_text(hostile + "y" * (2 * DETAIL_LIMIT))
    assert shown.hidden == len(hostile) + 2 * DETAIL_LIMIT - DETAIL_LIMIT
    assert isinstance(shown.renderable, Text)
    plain = shown.renderable.plain
    assert "[bold]x[/bold]" in plain and "\x1b" not in plain and "␍" in plain
    assert "<U+202E>" in plain
    # the red SGR colour survives as a style, nothing else does
    [span] = shown.renderable.spans
    assert span.style.color.number == 1  # type: ignore[union-attr]
    assert shown.renderable.plain[span.start : span.end] == "red"
    assert "more characters" in more_marker(5).plain
    code = show_text("--- a\n+++ b\n@@ -1 +1 @@\n-\x1b[31mx\n+[b]y[/b]\n")
    assert isinstance(code.renderable, Syntax)
    console = Console(file=None, width=60, record=True, color_system=None)
    console.print(code.renderable)
    out = console.export_text()
    assert "[b]y[/b]" in out and "\x1b" not in out


def test_chart_draws_series_markers_and_rules() -> None:
    xs = np.linspace(0, 10, 100_000)
    chart = Chart(
        x_range=(0, 10),
        y_range=(0, 10),
        series=[Series(xs, xs)],
        markers=[Marker(5, 5, "●")],
        rules=[VRule(8, "┊", "", "stop")],
        x_label="C_raw",
    )
    lines = render(chart, 40, 10)
    assert len(lines) == 10
    assert all(line.cell_len <= 40 for line in lines)
    body = "\n".join(line.plain for line in lines)
    assert "●" in body and "stop" in body and "┊" in body and "C_raw" in body
    assert render(chart, 40, 10)[3].plain == lines[3].plain  # deterministic


def test_summary_shows_dollars_only_when_the_log_records_them() -> None:
    import msgspec

    from efc_tui.app.widgets.summary import RunSummary

    est = load_estimator(APP / "estimator.json")
    run = api.load(APP / "small.jsonl")
    for cost, shown in ((None, None), (0.0421, "$0.0421 logged")):
        r = msgspec.structs.replace(run, cost_usd=cost)
        data = ReplayData(r)
        data.set_scored(api.score(r, est))
        figures = RunSummary(data).render_summary().plain.splitlines()[1]
        assert "C_raw" in figures
        if shown is None:
            assert "$" not in figures
        else:
            # dollars lead the cost line when the log has them: what a person budgets in
            assert shown in figures and figures.index(shown) < figures.index("C_raw")
