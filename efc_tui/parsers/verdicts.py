"""How well efc-tui's event statuses agree with hand-labelled verdicts (``efc-tui validate
--verdicts FILE.jsonl``).

A labels file is JSONL in the event-labels format (``../shared/event-labels/README.md``):
one object per event with ``path``, ``run_index``, ``event_index``, ``action`` (the first
300 characters of the event's action text), ``observation`` (the first 600 of its
observation text), ``verdict`` (one of ``VERDICTS``), ``is_check``, and optionally ``id``,
``source`` (the format the figures are grouped by), ``note``.

``path`` is relative to a root folder: by default the labels file's parent's parent (the
labels sit in ``shared/event-labels/`` and name logs as ``real-runs/...`` under
``shared/``); ``root=`` gives another.

Each labelled event is found in the runs the readers make of its log: at ``run_index`` /
``event_index`` when that event's action and observation still start as labelled; else, in
the same run, the event whose texts do (the nearest to ``event_index`` when several do),
then the one whose observation alone does, then the one whose action alone does. An event
found nowhere counts as ``none`` (a lost event is no better than a missed verdict) and is
listed in ``Evaluation.unmatched``.

Statuses map onto verdicts as ``STATUS_TO_VERDICT`` says (README's table); a failure is any
verdict in ``FAILURES``.

Usage::

    from efc_tui.parsers.verdicts import evaluate
    ev = evaluate("../shared/event-labels/events.jsonl")
    ev.accuracy, ev.macro_f1, ev.failure_recall, ev.failure_precision, ev.check_agreement
    ev.by_source["swe-agent"].failure_recall
    ev.confusion[("rejected", "none")]   # labelled rejected, efc-tui says none
    ev.disagreements()                   # most telling first
    ev.to_dict()                         # all of it, for --json
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from efc_tui.errors import EfcError, InputError
from efc_tui.model import Event, EventKind, Run, Status

#: the seven verdicts of the labels, in the order the confusion matrix lists them
VERDICTS = ("passed", "test_failed", "error", "timeout", "rejected", "api_error", "none")
FAILURES = frozenset({"test_failed", "error", "timeout", "rejected", "api_error"})
STATUS_TO_VERDICT = {
    Status.PASSED: "passed",
    Status.ASSERTION_ERROR: "test_failed",
    Status.RUNTIME_ERROR: "error",
    Status.TIMEOUT: "timeout",
    Status.STATIC_REJECT: "rejected",
    Status.API_ERROR: "api_error",
    Status.OTHER: "none",
    Status.NONE: "none",
}
_ACTION_CHARS = 300
_OBSERVATION_CHARS = 600
_REQUIRED = ("path", "run_index", "event_index", "verdict")


@dataclass(frozen=True, slots=True)
class Label:
    """One labelled event (a line of the labels file)."""

    id: str
    source: str
    path: str
    run_index: int
    event_index: int
    action: str
    observation: str
    verdict: str
    is_check: bool | None
    note: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class Outcome:
    """A label beside what efc-tui says about its event (``event_index`` None: not found)."""

    label: Label
    predicted: str
    status: str | None
    kind: str | None
    event_index: int | None
    how: str  # "index", "text", "observation", "action", or why it was not found


@dataclass(slots=True)
class Figures:
    """Agreement figures over a set of outcomes."""

    n: int = 0
    accuracy: float = 0.0
    macro_f1: float = 0.0
    failures: int = 0
    failures_found: int = 0
    flagged: int = 0
    failure_recall: float | None = None
    failure_precision: float | None = None
    check_labels: int = 0
    check_agreement: float | None = None
    per_verdict: dict[str, dict[str, float | int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "accuracy": self.accuracy,
            "macro_f1": self.macro_f1,
            "failures": self.failures,
            "failures_found": self.failures_found,
            "flagged_failures": self.flagged,
            "failure_recall": self.failure_recall,
            "failure_precision": self.failure_precision,
            "check_agreement": self.check_agreement,
            "per_verdict": self.per_verdict,
        }


def figures(outcomes: Sequence[Outcome]) -> Figures:
    """Accuracy; macro-F1 over the verdicts that occur (labelled or predicted: a verdict
    neither labelled nor given has no F1 and is left out of the mean); failure recall and
    precision (failure vs not); ``is_check`` against ``kind == check``."""
    f = Figures(n=len(outcomes))
    if not outcomes:
        return f
    f.accuracy = sum(o.label.verdict == o.predicted for o in outcomes) / len(outcomes)
    f1s = []
    for v in VERDICTS:
        tp = sum(o.label.verdict == v and o.predicted == v for o in outcomes)
        support = sum(o.label.verdict == v for o in outcomes)
        given = sum(o.predicted == v for o in outcomes)
        if support == 0 and given == 0:
            continue
        p = tp / given if given else 0.0
        r = tp / support if support else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        f1s.append(f1)
        f.per_verdict[v] = {"support": support, "given": given, "precision": p, "recall": r}
        f.per_verdict[v]["f1"] = f1
    f.macro_f1 = sum(f1s) / len(f1s)
    f.failures = sum(o.label.verdict in FAILURES for o in outcomes)
    f.flagged = sum(o.predicted in FAILURES for o in outcomes)
    f.failures_found = sum(
        o.label.verdict in FAILURES and o.predicted in FAILURES for o in outcomes
    )
    if f.failures:
        f.failure_recall = f.failures_found / f.failures
    if f.flagged:
        f.failure_precision = f.failures_found / f.flagged
    checked = [o for o in outcomes if o.label.is_check is not None]
    f.check_labels = len(checked)
    if checked:
        agree = sum(o.label.is_check == (o.kind == EventKind.CHECK.value) for o in checked)
        f.check_agreement = agree / len(checked)
    return f


@dataclass(slots=True)
class Evaluation:
    """The outcomes of a labels file and the figures over them (module docstring)."""

    labels_file: str
    root: str
    outcomes: list[Outcome]
    overall: Figures
    by_source: dict[str, Figures]
    confusion: Counter[tuple[str, str]]

    @property
    def unmatched(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.event_index is None]

    # the figures of the whole set, as attributes
    @property
    def accuracy(self) -> float:
        return self.overall.accuracy

    @property
    def macro_f1(self) -> float:
        return self.overall.macro_f1

    @property
    def failure_recall(self) -> float | None:
        return self.overall.failure_recall

    @property
    def failure_precision(self) -> float | None:
        return self.overall.failure_precision

    @property
    def check_agreement(self) -> float | None:
        return self.overall.check_agreement

    def disagreements(self, limit: int | None = None) -> list[Outcome]:
        """Outcomes whose verdict differs from the label's, most telling first: missed
        failures, then false alarms, then a failure of the wrong type, then passed vs none;
        within each, by format and id."""

        def rank(o: Outcome) -> tuple[int, str, str]:
            want, got = o.label.verdict, o.predicted
            if want in FAILURES and got not in FAILURES:
                r = 0
            elif got in FAILURES and want not in FAILURES:
                r = 1
            elif want in FAILURES:
                r = 2
            else:
                r = 3
            return r, o.label.source, o.label.id

        wrong = sorted((o for o in self.outcomes if o.predicted != o.label.verdict), key=rank)
        return wrong if limit is None else wrong[:limit]

    def check_disagreements(self) -> list[Outcome]:
        """Outcomes whose ``kind == check`` differs from the label's ``is_check``."""
        return [
            o
            for o in self.outcomes
            if o.label.is_check is not None and o.label.is_check != (o.kind == "check")
        ]

    def to_dict(self, limit: int = 30) -> dict[str, Any]:
        return {
            "labels": self.labels_file,
            "root": self.root,
            "overall": self.overall.to_dict(),
            "by_source": {s: f.to_dict() for s, f in sorted(self.by_source.items())},
            "confusion": {
                want: {got: self.confusion[(want, got)] for got in VERDICTS} for want in VERDICTS
            },
            "unmatched": [_outcome_dict(o) for o in self.unmatched],
            "disagreements": [_outcome_dict(o) for o in self.disagreements(limit)],
        }


def _outcome_dict(o: Outcome) -> dict[str, Any]:
    return {
        "id": o.label.id,
        "source": o.label.source,
        "path": o.label.path,
        "run_index": o.label.run_index,
        "event_index": o.event_index,
        "found_by": o.how,
        "verdict": o.label.verdict,
        "predicted": o.predicted,
        "status": o.status,
        "kind": o.kind,
        "is_check": o.label.is_check,
        "action": o.label.action[:160],
        "observation": o.label.observation[:240],
        "note": o.label.note,
    }


def read_labels(path: str | Path) -> list[Label]:
    """The labels of a JSONL file; a malformed line is an ``InputError`` naming it."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read labels: {exc}", p) from None
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise InputError(f"not a JSON line: {exc}", p, n) from None
        if not isinstance(row, dict):
            raise InputError("a label must be a JSON object", p, n)
        missing = [k for k in _REQUIRED if k not in row]
        if missing:
            raise InputError(f"label lacks {', '.join(missing)}", p, n)
        verdict = row["verdict"]
        if verdict not in VERDICTS:
            raise InputError(f"verdict {verdict!r} is not one of {', '.join(VERDICTS)}", p, n)
        try:
            run_index, event_index = int(row["run_index"]), int(row["event_index"])
        except (TypeError, ValueError):
            raise InputError("run_index and event_index must be integers", p, n) from None
        is_check = row.get("is_check")
        if is_check is not None and not isinstance(is_check, bool):
            raise InputError("is_check must be true, false or absent", p, n)
        out.append(
            Label(
                id=str(row.get("id") or f"line{n}"),
                source=str(row.get("source") or "unknown"),
                path=str(row["path"]),
                run_index=run_index,
                event_index=event_index,
                action=str(row.get("action") or ""),
                observation=str(row.get("observation") or ""),
                verdict=verdict,
                is_check=is_check,
                note=str(row.get("note") or ""),
                line=n,
            )
        )
    return out


def default_root(labels_file: str | Path) -> Path:
    """Where a labels file's ``path`` values start: its parent's parent (module docstring)."""
    return Path(labels_file).resolve().parent.parent


def _norm(text: str) -> str:
    return " ".join(text.split())


def _same_start(labelled: str, text: str, chars: int) -> bool:
    """``text`` starts as the label's excerpt of it (whitespace-insensitive)."""
    return _norm(text[:chars]) == _norm(labelled) if labelled else not text.strip()


def _find(label: Label, events: Sequence[Event]) -> tuple[Event | None, str]:
    """The labelled event among a run's events (module docstring), and how it was found."""

    def acts(e: Event) -> bool:
        return _same_start(label.action, e.action_text or "", _ACTION_CHARS)

    def obs(e: Event) -> bool:
        return _same_start(label.observation, e.observation_text or "", _OBSERVATION_CHARS)

    if 0 <= label.event_index < len(events):
        e = events[label.event_index]
        if acts(e) and obs(e):
            return e, "index"
    for how, test in (
        ("text", lambda e: acts(e) and obs(e)),
        ("observation", obs if label.observation.strip() else None),
        ("action", acts if label.action.strip() else None),
    ):
        if test is None:
            continue
        hits = [e for e in events if test(e)]
        if hits:
            return min(hits, key=lambda e: abs(e.index - label.event_index)), how
    return None, "not found in the run"


def _runs(path: Path) -> list[Run]:
    from efc_tui.parsers import load

    return list(load(path))


def match(labels: Iterable[Label], root: Path) -> list[Outcome]:
    """Each label beside efc-tui's verdict for its event; every log is read once."""
    by_path: dict[str, list[tuple[int, Label]]] = {}
    for i, lab in enumerate(labels):
        by_path.setdefault(lab.path, []).append((i, lab))
    out: list[tuple[int, Outcome]] = []
    for rel, labs in by_path.items():
        runs: list[Run] = []
        problem = ""
        try:
            runs = _runs(root / rel)
        except EfcError as exc:
            problem = f"cannot read the log: {exc}"
        except OSError as exc:
            problem = f"cannot read the log: {exc}"
        for i, lab in labs:
            if problem or not 0 <= lab.run_index < len(runs):
                why = problem or f"the log has {len(runs)} run(s), no run {lab.run_index}"
                out.append((i, Outcome(lab, "none", None, None, None, why)))
                continue
            ev, how = _find(lab, runs[lab.run_index].events)
            if ev is None:
                out.append((i, Outcome(lab, "none", None, None, None, how)))
                continue
            status = Status(ev.status)
            verdict = STATUS_TO_VERDICT[status]
            kind = EventKind(ev.kind).value
            out.append((i, Outcome(lab, verdict, status.value, kind, ev.index, how)))
    out.sort(key=lambda pair: pair[0])
    return [o for _, o in out]


def evaluate(
    labels_file: str | Path,
    *,
    root: str | Path | None = None,
    extra: Iterable[str | Path] = (),
) -> Evaluation:
    """Read a labels file (and ``extra`` ones, paths under the same ``root``), find every
    labelled event in efc-tui's runs and measure the agreement (module docstring)."""
    base = Path(root) if root is not None else default_root(labels_file)
    labels = read_labels(labels_file)
    for more in extra:
        labels.extend(read_labels(more))
    outcomes = match(labels, base)
    by_source: dict[str, list[Outcome]] = {}
    confusion: Counter[tuple[str, str]] = Counter()
    for o in outcomes:
        by_source.setdefault(o.label.source, []).append(o)
        confusion[(o.label.verdict, o.predicted)] += 1
    return Evaluation(
        labels_file=str(labels_file),
        root=str(base),
        outcomes=outcomes,
        overall=figures(outcomes),
        by_source={s: figures(os) for s, os in by_source.items()},
        confusion=confusion,
    )
