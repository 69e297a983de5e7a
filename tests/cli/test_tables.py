"""Tables a person reads: numbers are never cut, names shorten in the middle, the least
important columns go first and the caption says which (issue 18)."""

from __future__ import annotations

import json
import re

import pytest
from rich.console import Console
from typer.testing import CliRunner

from efc_tui.cli import app
from efc_tui.cli._col import Col
from efc_tui.cli._tables import HARD_MIN, fitted_table
from efc_tui.model import Run
from efc_tui.report.display import at_risk_label, ended_label, middle_ellipsis, start_ellipsis
from tests.conftest import FIXTURES, SAMPLES

runner = CliRunner()
COLS = (
    Col("run", "run", "name", 0),
    Col("file", "file", "path", 5),
    Col("EFC", "efc"),
    Col("C_raw", "c_raw", rank=2),
    Col("D_task", "d", rank=3),
)
ROWS = [
    {
        "run": "a" * 10 + "-middle-" + "z" * 30,
        "file": "runs/one/trajectory.jsonl",
        "efc": "123.456",
        "c_raw": "98,765",
        "d": "0.000123",
    },
    {"run": "short", "file": "runs/two/trajectory.jsonl", "efc": "1.5", "c_raw": "2", "d": "3"},
]


def _render(width: int) -> tuple[str, list[Col]]:
    table, hidden = fitted_table("t", COLS, ROWS, width)
    console = Console(width=width, record=True, markup=False, emoji=False, highlight=False)
    with console.capture() as cap:
        console.print(table)
    return cap.get(), hidden


@pytest.mark.parametrize("width", range(30, 130, 7))
def test_numbers_are_never_cut_and_the_run_always_shows(width: int) -> None:
    text, hidden = _render(width)
    shown = [c for c in COLS if c not in hidden]
    assert COLS[0] in shown  # the run column stays
    for col in shown:
        if col.kind == "number":
            for row in ROWS:
                assert re.search(rf"(^|\s){re.escape(row[col.key])}(\s|$)", text, re.M), (
                    width,
                    col.title,
                    row[col.key],
                )
    if hidden:
        assert "not shown at" in text
        for col in hidden:
            assert col.title in text.split("not shown at", 1)[1]


def test_names_shorten_before_a_column_goes() -> None:
    natural, hidden = _render(200)
    assert not hidden and ROWS[0]["run"] in natural
    first_drop = next(w for w in range(200, 20, -1) if _render(w)[1])
    text, hidden = _render(first_drop + 1)
    assert not hidden and "…" in text  # shortening the name was enough here
    assert "aaaaa" in text and "zzzz" in text  # the head and the tail of the id
    text, hidden = _render(first_drop)
    assert [c.title for c in hidden] == ["file"]  # the least important column goes first


def test_middle_and_start_ellipsis() -> None:
    assert middle_ellipsis("abcdefghij", 5) == "ab…ij"
    assert middle_ellipsis("abc", 5) == "abc"
    assert middle_ellipsis("日本語のテキスト", 7) == "日…ト"  # wide characters count twice
    assert start_ellipsis("runs/first/trajectory.json", 16) == "…trajectory.json"
    assert HARD_MIN >= 6


def test_how_a_run_ended_and_unknown_outcomes() -> None:
    assert ended_label(Run(run_id="r")) is None
    assert ended_label(Run(run_id="r", exit_status="LimitsExceeded")) == "LimitsExceeded"
    assert ended_label(Run(run_id="r", exit_status="Submitted", reward=0.5)) == "Submitted r=0.5"


def test_an_unlabelled_run_is_never_shown_as_not_at_risk() -> None:
    from efc_tui.adapter import score_and_decide
    from efc_tui.api import load

    run = load(SAMPLES / "repair_loop.jsonl")  # stopped by the repetition rule
    run.success = None  # no label, and the run shows no passing verdict
    s = score_and_decide(run).summary
    assert s.stop_event is not None and s.stop_event < s.events - 1
    assert at_risk_label(s) == "unknown"
    run.success = False
    assert at_risk_label(score_and_decide(run).summary) == "no"


@pytest.mark.parametrize("width", ["80", "120"])
def test_score_table_at_80_and_120_columns_shows_whole_figures(width: str) -> None:
    args = ["score", str(SAMPLES), str(FIXTURES / "golden" / "names"), "-q"]
    table = runner.invoke(app, args, env={"COLUMNS": width}).stdout
    rows = [json.loads(x) for x in runner.invoke(app, [*args, "--jsonl"]).stdout.splitlines()]
    lines = table.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= int(width)
    rule = next(i for i, line in enumerate(lines) if line.strip().startswith("─"))
    titles = lines[rule - 1].split()
    body = lines[rule + 1 : rule + 1 + len(rows)]
    assert len(body) == len(rows)  # one line per run: every run is named
    from efc_tui.cli._common import fmt_value
    from efc_tui.scoring.figures import title

    for key in ("efc", "nrs_efc", "eta", "x"):
        if title(key) in titles:
            for line, row in zip(body, rows, strict=True):
                assert f" {fmt_value(row[key])} " in f"{line} ", (key, line)
    # every column is either shown or named as left out (optional ones, "ended" and "cost $",
    # are left out silently: no run of these says how it ended or what it cost in dollars)
    from efc_tui.cli.score import SCORE_TABLE

    note = " ".join(table.split("not shown at", 1)[1].split()) if "not shown at" in table else ""
    left = note.split(": ", 1)[1].split(" (", 1)[0].split(", ") if note else []
    assert sorted(titles + left) == sorted(c.title for c in SCORE_TABLE if not c.optional)


def test_two_long_names_shorten_evenly() -> None:
    """The widest name gives way first, but not alone: two long columns end up alike
    (the diff's A and B actions), instead of one cut to its floor and the other whole."""
    cols = (
        Col("a", "a", "name", 0, min_width=8),
        Col("b", "b", "name", 0, min_width=8),
        Col("n", "n"),
    )
    rows = [{"a": "x" * 70, "b": "y" * 50, "n": "1.25"}]
    table, hidden = fitted_table("t", cols, rows, 80)
    console = Console(width=80, record=True, markup=False, emoji=False, highlight=False)
    with console.capture() as cap:
        console.print(table)
    line = next(x for x in cap.get().splitlines() if "x" in x)
    a, b = line.count("x"), line.count("y")
    assert not hidden and "1.25" in line and len(line.rstrip()) <= 80
    assert abs(a - b) <= 2 and a + b > 50, (a, b)  # even, and the room is used


def test_score_table_at_80_columns_keeps_outcome_cost_and_size() -> None:
    """Issue 30, item 6: at 80 columns the run's outcome, how it ended, its cost (C_raw and
    dollars) and its length stay; η_NRS and X_NRS go first."""
    priced = FIXTURES / "more" / "harbor_trial"
    args = ["score", str(priced), str(FIXTURES / "agents" / "swe_agent_1x.traj"), "-q"]
    table = runner.invoke(app, args, env={"COLUMNS": "80"}).stdout
    lines = table.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.strip().startswith("─"))
    header = lines[rule - 1]
    for title in ("success", "ended", "C_raw", "cost $", "events"):
        assert title in header, (title, table)
