"""The compare view (``efc-tui open A --compare B``): two runs aligned step by step.

The same comparison as ``efc-tui diff A B`` (``efc_tui.report.compare``): both runs are read and
scored in a worker with the app's functions, then aligned on their actions. The screen
shows the two runs' figures and the summary in words above a table of aligned steps;
``n`` / ``N`` jump between the steps where the runs differ (actions or feedback), and
``a`` / ``b`` open run A or B in the replay screen at that step's event (``esc`` comes
back).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from efc_tui.adapter import ScoredRun
from efc_tui.app.messages import CompareReady, LoadFailed, OpenEvent, ScreenReady
from efc_tui.errors import EfcError
from efc_tui.model import Run
from efc_tui.report.compare import MATCH_SHOWN, VERDICT_SHOWN, RunDiff, RunSide, Side, Step, compare
from efc_tui.report.text import sanitize_label

#: (title, width) of the steps table's columns; widths are fixed so nothing collapses
COLUMNS: tuple[tuple[str, int], ...] = (
    ("step", 4), ("", 1), ("A", 4), ("A action", 24), ("A got", 8),
    ("B", 4), ("B action", 24), ("B got", 8), ("C_raw gap", 9), ("NRS gap", 8),
)  # fmt: skip


def _is_difference(step: Step) -> bool:
    return step.match != "same" or step.feedback_differs


def _num(v: float) -> str:
    return f"{v:+.4g}"


def _side_cells(s: Side | None, stop: int | None, width: int) -> tuple[Text, Text, Text]:
    if s is None:
        return Text(""), Text("–", style="dim"), Text("")
    label = sanitize_label(" ".join(x for x in (s.kind, s.tool or "", s.action) if x), width)
    got = VERDICT_SHOWN.get(s.status, s.status)
    style = "green" if s.status == "passed" else ("yellow" if got else "")
    if stop == s.event:
        got = (got + " ■").strip()
        style = "bold red"
    return Text(str(s.event), justify="right"), Text(label), Text(got, style=style)


def _run_line(name: str, r: RunSide) -> Text:
    t = Text(no_wrap=True, overflow="ellipsis", end="")
    # how it ended and what it cost first: at 80 columns the line is cut at the right edge
    t.append(f"{name} ", style="bold")
    if r.success is None:
        t.append("outcome unknown", style="dim")
    else:
        t.append(
            "✓ success" if r.success else "✗ failed", style="green" if r.success else "bold red"
        )
    t.append(f"  C_raw {r.c_raw:.4g}")
    if r.cost_usd is not None:
        t.append(f"  ${r.cost_usd:.4g} logged")
    t.append(f"  {r.events:,} events  ")
    t.append(sanitize_label(r.title, 60), style="bold")
    t.append(f"  NRS-EFC {r.nrs_efc:.4g}")
    t.append("  first pass " + ("–" if r.first_pass is None else str(r.first_pass)))
    t.append(
        "  stop " + ("–" if r.stop_event is None else f"@{r.stop_event}"),
        style="red" if r.stop_event is not None else "",
    )
    return t


class CompareScreen(Screen[None]):
    """Two runs aligned on their actions."""

    TITLE = "Compare"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "n",
            "difference(1)",
            "Next difference",
            key_display="n/N",
            id="compare.next_difference",
            tooltip="Go to the next step where the actions or the feedback differ",
        ),
        Binding(
            "N",
            "difference(-1)",
            "Previous difference",
            show=False,
            id="compare.previous_difference",
            tooltip="Go to the previous step where the actions or the feedback differ",
        ),
        Binding(
            "a",
            "open('a')",
            "Open A here",
            id="compare.open_a",
            tooltip="Replay run A at this step's event (esc comes back)",
        ),
        Binding(
            "b",
            "open('b')",
            "Open B here",
            id="compare.open_b",
            tooltip="Replay run B at this step's event (esc comes back)",
        ),
    ]

    DEFAULT_CSS = """
    CompareScreen #compare-runs {
        height: 2; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis;
    }
    CompareScreen #compare-summary { height: auto; max-height: 6; padding: 0 1; }
    CompareScreen #compare-steps { height: 1fr; }
    """

    def __init__(
        self,
        a: Path,
        b: Path,
        *,
        read: Callable[[Path], Iterator[Run]],
        score: Callable[[Run], ScoredRun],
    ) -> None:
        super().__init__()
        self.paths = (a, b)
        self._read = read
        self._score = score
        self.diff: RunDiff | None = None

    def compose(self) -> ComposeResult:
        yield Static(
            f"reading {self.paths[0].name} and {self.paths[1].name}…",
            id="compare-runs",
            markup=False,
        )
        yield Static("", id="compare-summary", markup=False)
        table: DataTable[Text] = DataTable(
            id="compare-steps", cursor_type="row", zebra_stripes=True
        )
        for title, width in COLUMNS:
            table.add_column(title, width=width, key=title or "match")
        yield table
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._load()

    def _one(self, path: Path) -> Run:
        runs = list(self._read(path))
        if len(runs) != 1:
            raise EfcError(f"{path}: holds {len(runs)} runs; --compare takes one run per file")
        return runs[0]

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _load(self) -> None:
        try:
            a, b = (self._one(p) for p in self.paths)
            result = compare(self._score(a), self._score(b))
        except (EfcError, OSError) as exc:
            self.post_message(LoadFailed(str(exc)))
            return
        self.post_message(CompareReady(result))

    def on_compare_ready(self, message: CompareReady) -> None:
        d = self.diff = message.diff
        runs = _run_line("A", d.a)
        runs.append("\n")
        runs.append_text(_run_line("B", d.b))
        self.query_one("#compare-runs", Static).update(runs)
        summary = Text("\n".join(f"· {line}" for line in d.summary()), no_wrap=False)
        self.query_one("#compare-summary", Static).update(summary)
        table = self.query_one("#compare-steps", DataTable)
        width = dict(COLUMNS)
        for st in d.steps:
            ea, aa, va = _side_cells(st.a, d.a.stop_event, width["A action"])
            eb, ab, vb = _side_cells(st.b, d.b.stop_event, width["B action"])
            match = Text(MATCH_SHOWN[st.match], style="bold" if _is_difference(st) else "dim")
            table.add_row(
                Text(str(st.step), justify="right"),
                match,
                ea,
                aa,
                va,
                eb,
                ab,
                vb,
                Text(_num(st.c_raw_gap), justify="right"),
                Text(_num(st.nrs_efc_gap), justify="right"),
                key=str(st.step),
            )
        table.border_title = f"{len(d.steps)} aligned steps (gaps: B - A so far)"
        table.focus()
        self.post_message(ScreenReady())

    @property
    def step(self) -> Step | None:
        if self.diff is None or not self.diff.steps:
            return None
        row = self.query_one("#compare-steps", DataTable).cursor_row
        return self.diff.steps[min(max(row, 0), len(self.diff.steps) - 1)]

    def action_difference(self, direction: int) -> None:
        d, cur = self.diff, self.step
        if d is None or cur is None:
            return
        order = d.steps[cur.step + 1 :] if direction > 0 else reversed(d.steps[: cur.step])
        target = next((s for s in order if _is_difference(s)), None)
        if target is None:
            self.notify("no more differences that way", timeout=2, markup=False)
            return
        self.query_one("#compare-steps", DataTable).move_cursor(row=target.step)

    def action_open(self, which: str) -> None:
        st = self.step
        if st is None:
            return
        side = st.a if which == "a" else st.b
        if side is None:
            self.notify(
                f"run {which.upper()} has no event at this step", severity="warning", markup=False
            )
            return
        self.post_message(OpenEvent(self.paths[0 if which == "a" else 1], side.event))


__all__ = ["COLUMNS", "CompareScreen"]
