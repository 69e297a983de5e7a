"""Step-aligned comparison of two scored runs (``efc-tui diff A B``, issue 15 item 1).

The two event sequences are aligned on their actions: each event gets a key (kind, tool,
the action's first word) and a longest-matching-blocks alignment (``difflib``) pairs the
events whose keys agree, in order; events in between are paired position by position as
"different", and what is left over is one run's alone. A pair whose whole action text (white
space collapsed) is equal is "same".

For each aligned step the comparison carries both events' kind, tool, action and verdict,
the raw cost and NRS-EFC each run had spent / earned up to that step (cumulative), and
their gaps (B - A). Run-level: each run's figures, the adapter's stop, the first passing
check, where the runs first diverge, and a summary in words. Nothing here prints.

Data flow: scoring and adapter results in (``ScoredRun``), plain data out; the CLI renders
it as a table or JSON.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any

import numpy as np

from efc_tui.model import Event, Status
from efc_tui.report.display import VERDICT_SHOWN

if TYPE_CHECKING:
    from efc_tui.adapter import ScoredRun

DIFF_SCHEMA = "efc-diff/1"
#: characters of an action kept in a step (the JSON and the table; the key uses all)
ACTION_SHOWN = 120
_SPACE = re.compile(r"\s+")
#: how each kind of aligned step is shown (``efc-tui diff`` and the app's compare view)
MATCH_SHOWN = {"same": "=", "similar": "≈", "different": "≠", "a only": "A", "b only": "B"}


def action_key(text: str) -> str:
    """The whole action with white space collapsed (what "same" compares)."""
    return _SPACE.sub(" ", text).strip()


def _align_key(e: Event) -> tuple[str, str, str]:
    words = action_key(e.action_text).split(" ", 1)
    return (e.kind.value, e.tool or "", words[0][:40] if words else "")


@dataclass(frozen=True, slots=True)
class Side:
    """One run's event at an aligned step, with what the run had spent and earned so far."""

    event: int
    kind: str
    tool: str | None
    status: str
    action: str
    c_raw: float  # cumulative raw cost up to and including this event
    nrs_efc: float  # cumulative ÊFC_nr (NRS-EFC so far)


@dataclass(frozen=True, slots=True)
class Step:
    """One aligned step: ``match`` is "same" (equal actions), "similar" (same kind, tool and
    command word), "different" (paired by position between matches), "a only" or "b only"."""

    step: int
    match: str
    a: Side | None
    b: Side | None
    #: B - A at this step (the last value each run had when one side is missing)
    c_raw_gap: float
    nrs_efc_gap: float
    #: one run got a verdict (passed, an error, ...) here that the other did not get
    feedback_differs: bool


@dataclass(frozen=True, slots=True)
class RunSide:
    run_id: str
    source_path: str | None
    #: how a person tells the run apart (``display.run_title``), its task and model
    title: str
    task_id: str | None
    model: str | None
    events: int
    success: bool | None
    c_raw: float
    nrs_efc: float
    efc: float
    cost_usd: float | None
    #: the adapter's stop (None: it would not stop the run) and the raw cost it would save
    stop_event: int | None
    cost_saved: float
    #: the first event whose verdict is "passed", and the raw cost spent up to it
    first_pass: int | None
    c_raw_at_first_pass: float | None


@dataclass
class RunDiff:
    a: RunSide
    b: RunSide
    steps: list[Step] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        out = {m: 0 for m in ("same", "similar", "different", "a only", "b only")}
        for s in self.steps:
            out[s.match] += 1
        return out

    @property
    def first_divergence(self) -> Step | None:
        """The first aligned step whose actions are not the same (None: none differ)."""
        return next((s for s in self.steps if s.match != "same"), None)

    @property
    def feedback_differences(self) -> list[Step]:
        return [s for s in self.steps if s.feedback_differs]

    def summary(self) -> list[str]:
        """What a person would say about the two runs, in sentences."""
        a, b = self.a, self.b
        lines: list[str] = [*self.warnings()]
        lines.append(_outcomes(a, b))
        div = self.first_divergence
        if div is None and a.events == b.events:
            lines.append(f"the runs take the same {a.events} actions: no divergence")
        elif div is not None:
            where = _where(div)
            lines.append(
                f"the runs diverge at step {div.step} ({where}); "
                f"{self.counts['same']} of {len(self.steps)} aligned steps are the same"
            )
        if a.first_pass is not None and b.first_pass is not None:
            d = a.first_pass - b.first_pass
            if d:
                who, n = ("B", d) if d > 0 else ("A", -d)
                lines.append(
                    f"{who} reached the first passing check {n} event{'s' * (n != 1)} "
                    f"earlier (A at event {a.first_pass}, B at event {b.first_pass})"
                )
            else:
                lines.append(f"both reached the first passing check at event {a.first_pass}")
        elif a.first_pass is not None or b.first_pass is not None:
            who, side = ("A", a) if a.first_pass is not None else ("B", b)
            lines.append(f"only {who} reached a passing check (event {side.first_pass})")
        else:
            lines.append("neither run reached a passing check")
        lines.append(_spent(a, b))
        lines.append(
            f"NRS-EFC: A {a.nrs_efc:.4g}, B {b.nrs_efc:.4g} (B - A {b.nrs_efc - a.nrs_efc:+.4g})"
        )
        for name, side in (("A", a), ("B", b)):
            if side.stop_event is not None:
                lines.append(
                    f"the adapter would stop {name} at event {side.stop_event}, "
                    f"saving {side.cost_saved:.4g} raw cost"
                )
        if self.feedback_differences:
            lines.append(
                f"{len(self.feedback_differences)} aligned step(s) got feedback in "
                "one run that the other did not"
            )
        return lines

    def warnings(self) -> list[str]:
        """What makes the two runs hard to compare: different tasks, different models."""
        a, b = self.a, self.b
        out = []
        if a.task_id and b.task_id and a.task_id != b.task_id:
            out.append(
                f"warning: A and B are different tasks (A {a.task_id}, B {b.task_id}): "
                "their steps and costs do not compare"
            )
        if a.model and b.model and a.model != b.model:
            out.append(f"note: different models (A {a.model}, B {b.model})")
        return out

    def to_dict(self) -> dict[str, Any]:
        div = self.first_divergence
        return {
            "schema": DIFF_SCHEMA,
            "a": asdict(self.a),
            "b": asdict(self.b),
            "counts": self.counts,
            "first_divergence": None if div is None else div.step,
            "summary": self.summary(),
            "warnings": self.warnings(),
            "steps": [asdict(s) for s in self.steps],
        }


def _where(s: Step) -> str:
    parts = []
    for name, side in (("A", s.a), ("B", s.b)):
        if side is None:
            parts.append(f"{name}: nothing")
        else:
            parts.append(
                f"{name} event {side.event} {side.kind}{' ' + side.tool if side.tool else ''}"
            )
    return ", ".join(parts)


def _outcome(success: bool | None) -> str:
    return "succeeded" if success else ("failed" if success is False else "has no outcome label")


def _outcomes(a: RunSide, b: RunSide) -> str:
    """How each run ended, first: a cheaper run that failed is not a saving."""
    if a.success == b.success:
        return f"both runs {_outcome(a.success).replace('has', 'have')}"
    return f"A {_outcome(a.success)}, B {_outcome(b.success)}"


def _spent(a: RunSide, b: RunSide) -> str:
    if a.c_raw > 0 and b.c_raw != a.c_raw:
        pct = abs(b.c_raw - a.c_raw) / a.c_raw * 100
        word = "less" if b.c_raw < a.c_raw else "more"
        text = f"B spent {pct:.0f}% {word} raw cost than A (C_raw {b.c_raw:.4g} vs {a.c_raw:.4g})"
        if word == "less" and b.success is False and a.success is not False:
            text += f", but B failed and A {_outcome(a.success)}"
    else:
        text = f"both spent C_raw {a.c_raw:.4g}"
    if a.cost_usd is not None and b.cost_usd is not None:
        text += f"; ${a.cost_usd:.4g} vs ${b.cost_usd:.4g} as the logs record"
    return text


def _first_pass(events: list[Event]) -> int | None:
    return next((e.index for e in events if e.status is Status.PASSED), None)


def _run_side(scored: ScoredRun, c_cum: np.ndarray) -> RunSide:
    led, run, summ = scored.ledger, scored.ledger.run, scored.summary
    fp = _first_pass(run.events)
    from efc_tui.report.display import run_title

    return RunSide(
        run_id=run.run_id,
        source_path=run.source_path,
        title=run_title(run),
        task_id=run.task_id,
        model=run.model,
        events=len(run.events),
        success=run.success,
        c_raw=float(led.figures.c_raw),
        nrs_efc=float(led.figures.nrs_efc),
        efc=float(led.figures.efc),
        cost_usd=run.cost_usd,
        stop_event=summ.stop_event,
        cost_saved=float(summ.cost_saved),
        first_pass=fp,
        c_raw_at_first_pass=None if fp is None else float(c_cum[fp]),
    )


def _side(e: Event, c_cum: np.ndarray, nr_cum: np.ndarray) -> Side:
    return Side(
        e.index,
        e.kind.value,
        e.tool,
        e.status.value,
        action_key(e.action_text)[:ACTION_SHOWN],
        float(c_cum[e.index]),
        float(nr_cum[e.index]),
    )


def align(a: list[Event], b: list[Event]) -> list[tuple[str, int | None, int | None]]:
    """(match, index in a, index in b) for every aligned step, in order."""
    ka, kb = [_align_key(e) for e in a], [_align_key(e) for e in b]
    out: list[tuple[str, int | None, int | None]] = []
    sm = SequenceMatcher(None, ka, kb, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                same = action_key(a[i].action_text) == action_key(b[j].action_text)
                out.append(("same" if same else "similar", i, j))
            continue
        n = min(i2 - i1, j2 - j1)
        out += [("different", i1 + k, j1 + k) for k in range(n)]
        out += [("a only", i, None) for i in range(i1 + n, i2)]
        out += [("b only", None, j) for j in range(j1 + n, j2)]
    return out


def compare(a: ScoredRun, b: ScoredRun) -> RunDiff:
    """Align two scored runs on their actions and compare them step by step."""
    ea, eb = a.ledger.run.events, b.ledger.run.events
    ca, cb = a.ledger.c_cum, b.ledger.c_cum
    na, nb = np.cumsum(a.ledger.nr), np.cumsum(b.ledger.nr)
    diff = RunDiff(_run_side(a, ca), _run_side(b, cb))
    last_a = last_b = (0.0, 0.0)  # (C_raw, NRS-EFC) so far, for one-sided steps
    for k, (match, i, j) in enumerate(align(ea, eb)):
        sa = None if i is None else _side(ea[i], ca, na)
        sb = None if j is None else _side(eb[j], cb, nb)
        if sa is not None:
            last_a = (sa.c_raw, sa.nrs_efc)
        if sb is not None:
            last_b = (sb.c_raw, sb.nrs_efc)
        va = sa.status if sa is not None else Status.NONE.value
        vb = sb.status if sb is not None else Status.NONE.value
        diff.steps.append(
            Step(
                step=k,
                match=match,
                a=sa,
                b=sb,
                c_raw_gap=last_b[0] - last_a[0],
                nrs_efc_gap=last_b[1] - last_a[1],
                feedback_differs=va != vb,
            )
        )
    return diff


__all__ = [
    "DIFF_SCHEMA",
    "MATCH_SHOWN",
    "VERDICT_SHOWN",
    "RunDiff",
    "RunSide",
    "Side",
    "Step",
    "action_key",
    "align",
    "compare",
]
