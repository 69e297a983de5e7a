"""Event verdicts against hand-labelled ones (issue 28): the evaluation itself on a small
labels file of our own, then the figures on ../shared/event-labels (skipped without it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from efc_tui.errors import InputError
from efc_tui.parsers import load
from efc_tui.parsers.verdicts import STATUS_TO_VERDICT, evaluate, figures, read_labels
from tests.conftest import FIXTURES, SAMPLES, SHARED

LABELS = SHARED / "event-labels" / "events.jsonl"
#: tau-bench events labelled by hand after GUIDE.md (the shared labels have none): the
#: readers' 70 (tool answers) and 25 more that include crashed runs (provider and agent-code
#: crashes), argument errors and successful state changes
TAU_LABELS = (
    FIXTURES / "verdicts" / "tau_bench.jsonl",
    FIXTURES / "verdicts" / "tau_bench_crashes.jsonl",
)
SAMPLE = SAMPLES / "repair_loop.jsonl"


def _label(index: int, verdict: str, **over: object) -> dict[str, object]:
    ev = next(iter(load(SAMPLE))).events[index]
    row: dict[str, object] = {
        "id": f"s{index}",
        "source": "native",
        "path": f"sample_traces/{SAMPLE.name}",
        "run_index": 0,
        "event_index": index,
        "action": ev.action_text[:300],
        "observation": ev.observation_text[:600],
        "verdict": verdict,
        "is_check": ev.kind == "check",
    }
    row.update(over)
    return row


def _write(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    labels = tmp_path / "labels" / "events.jsonl"
    labels.parent.mkdir(exist_ok=True)
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return labels


def test_events_are_found_by_index_then_by_text(tmp_path: Path) -> None:
    run = next(iter(load(SAMPLE)))
    want = STATUS_TO_VERDICT[run.events[1].status]
    assert want == "test_failed"
    rows = [
        _label(1, "test_failed"),
        _label(1, "test_failed", id="moved", event_index=0),  # moved: found by text, nearest
        _label(0, "error", id="wrong"),  # efc-tui says none: a missed failure
        _label(0, "none", id="lost", action="no such action", observation="nor output"),
    ]
    labels = _write(tmp_path, rows)
    ev = evaluate(labels, root=SAMPLES.parent)
    found = {o.label.id: o for o in ev.outcomes}
    assert found["s1"].how == "index" and found["moved"].how == "text"
    assert found["moved"].event_index == 1 and found["moved"].predicted == "test_failed"
    assert [o.label.id for o in ev.unmatched] == ["lost"]
    assert ev.failure_recall == 2 / 3 and ev.failure_precision == 1.0
    assert [o.label.id for o in ev.disagreements()] == ["wrong"]
    assert ev.confusion[("error", "none")] == 1 and ev.check_agreement == 1.0
    # the default root is the labels file's parent's parent
    assert evaluate(labels).root == str(tmp_path.resolve())


def test_figures_leave_out_verdicts_neither_labelled_nor_given(tmp_path: Path) -> None:
    labels = _write(tmp_path, [_label(1, "test_failed"), _label(0, "none")])
    f = figures(evaluate(labels, root=SAMPLES.parent).outcomes)
    assert set(f.per_verdict) == {"test_failed", "none"} and f.macro_f1 == 1.0


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("{not json", "not a JSON line"),
        ('{"path": "x", "run_index": 0, "event_index": 0}', "lacks verdict"),
        ('{"path": "x", "run_index": 0, "event_index": 0, "verdict": "ok"}', "is not one of"),
        ('{"path": "x", "run_index": "a", "event_index": 0, "verdict": "none"}', "integers"),
    ],
)
def test_a_malformed_label_names_file_and_line(tmp_path: Path, line: str, reason: str) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(_label(0, "none")) + "\n" + line + "\n")
    with pytest.raises(InputError, match=reason) as info:
        read_labels(bad)
    assert str(info.value).startswith(f"{bad}:2:")


def test_validate_verdicts_cli(tmp_path: Path) -> None:
    from efc_tui.cli import app

    labels = _write(tmp_path, [_label(1, "test_failed"), _label(0, "error", id="wrong")])
    runner = CliRunner()
    r = runner.invoke(app, ["validate", "--verdicts", str(labels), "--root", str(SAMPLES.parent)])
    assert r.exit_code == 0, r.output
    assert "wrong" in r.stdout and "Top disagreements (1 of 1)" in r.stdout
    r = runner.invoke(
        app, ["validate", "--verdicts", str(labels), "--root", str(SAMPLES.parent), "--json"]
    )
    doc = json.loads(r.stdout)
    assert doc["overall"]["failure_recall"] == 0.5 and doc["confusion"]["error"]["none"] == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n")
    r = runner.invoke(app, ["validate", "--verdicts", str(bad)])
    assert r.exit_code == 2 and f"{bad}:1:" in r.stderr
    r = runner.invoke(app, ["validate", str(SAMPLE), "--verdicts", str(labels)])
    assert r.exit_code == 2 and "not both" in r.stderr
    r = runner.invoke(app, ["validate"])
    assert r.exit_code == 2


# --- the figures on the shared labels ---------------------------------------------------------


# The goal (issue 28): failure recall >= 0.9 at precision >= 0.9, macro-F1 >= 0.8 over the
# seven verdicts, is_check agreement >= 0.9, no format below 0.75 failure recall. Every
# figure reaches it on these labels (Claude Code's second failure, a scaffolder stopped at
# an interactive prompt, is read by the rule "unanswered interactive prompt").
GOAL_RECALL = GOAL_PRECISION = GOAL_CHECKS = 0.9
GOAL_MACRO_F1 = 0.8
GOAL_FORMAT_RECALL = 0.75


@pytest.fixture(scope="module")
def shared_eval():
    if not LABELS.is_file():
        pytest.skip("../shared/event-labels is not present")
    return evaluate(LABELS, root=SHARED, extra=TAU_LABELS)


def test_every_labelled_event_is_found(shared_eval) -> None:
    assert len(shared_eval.outcomes) == 331 + sum(len(read_labels(p)) for p in TAU_LABELS)
    assert shared_eval.unmatched == []


def test_the_goal_figures_on_the_labelled_events(shared_eval) -> None:
    f = shared_eval.overall
    assert f.failure_recall is not None and f.failure_recall >= GOAL_RECALL, f.to_dict()
    assert f.failure_precision is not None and f.failure_precision >= GOAL_PRECISION
    assert f.macro_f1 >= GOAL_MACRO_F1, f.per_verdict
    assert f.check_agreement is not None and f.check_agreement >= GOAL_CHECKS
    shared = figures([o for o in shared_eval.outcomes if o.label.source != "tau-bench"])
    assert shared.n == 331 and shared.failure_recall is not None
    assert shared.failure_recall >= GOAL_RECALL and shared.macro_f1 >= GOAL_MACRO_F1


def test_no_format_below_the_failure_recall_goal(shared_eval) -> None:
    low = {
        source: f.failure_recall
        for source, f in shared_eval.by_source.items()
        if f.failure_recall is not None and f.failure_recall < GOAL_FORMAT_RECALL
    }
    assert not low, low
    assert "tau-bench" in shared_eval.by_source
