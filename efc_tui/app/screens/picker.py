"""The run picker: every run of several files or a folder, scored, in a sortable table.

Type to filter (run id, task, harness, model, file); ↑/↓ choose; enter opens the run in
replay; click a column header (or ctrl+s / ctrl+r) to sort. Runs are read and scored in a
worker and appear as they are ready. Only each run's figures are kept, not its events: the
replay screen reads the chosen run again.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from msgspec import Struct
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Input, Static
from textual.worker import Worker, get_current_worker

from efc_tui.app.messages import OpenRun, PickerDone, PickerRow, ScreenReady
from efc_tui.app.widgets.ledger import fmt_num
from efc_tui.app.widgets.runs_table import RunsTable
from efc_tui.errors import EfcError
from efc_tui.model import Run
from efc_tui.report.display import (
    common_folder,
    corpus_line,
    ended_label,
    middle_ellipsis,
    run_title,
    short_path,
    start_ellipsis,
    success_label,
)
from efc_tui.report.text import sanitize_label
from efc_tui.scoring.figures import BY_KEY as FIGURE

if TYPE_CHECKING:
    from efc_tui.adapter import ScoredRun


class PickerColumn(Struct, frozen=True):
    key: str
    title: str
    numeric: bool
    #: cells: fixed, so the columns never collapse while rows arrive
    width: int
    #: how its cells are written: "name" or "path" (cut in the middle / at the start), or
    #: a run figure's kind ("count", "number", "usd", "bool": ``efc_tui.scoring.figures``)
    kind: str = "name"


def _figure(key: str, width: int) -> PickerColumn:
    """A run figure's column: its title and kind from ``efc_tui.scoring.figures``."""
    figure = FIGURE[key]
    return PickerColumn(key, figure.title, figure.kind != "bool", width, figure.kind)


#: the picker's columns, in order: what a person asks first (which run, did it succeed, how
#: it ended, what it cost, how long it was) fits 80 columns; the EFC figures follow
#: ("ended": exit status or reward, when the log says; "file": relative to the inputs)
PICKER_COLUMNS: tuple[PickerColumn, ...] = (
    PickerColumn("title", "run", False, 22),
    _figure("success", 7),
    PickerColumn("ended", "ended", False, 22),
    _figure("c_raw", 8),
    _figure("events", 6),
    _figure("cost_usd", 7),
    _figure("nrs_efc", 8),
    _figure("saved", 8),
    _figure("eta_nrs", 7),
    _figure("x_nrs", 7),
    _figure("efc", 7),
    PickerColumn("file", "file", False, 30, "path"),
)
BY_KEY = {c.key: c for c in PICKER_COLUMNS}


def picker_row(
    scored: ScoredRun, path: Path, ordinal: int, shown_path: str | None = None
) -> dict[str, Any]:
    """The picker's figures for one scored run (``saves``: the raw cost the adapter's stop
    would have saved)."""
    from efc_tui.report.output import run_row

    run, summary = scored.run, scored.summary
    return {
        **run_row(scored),
        "path": str(path),
        "file": shown_path or str(path),
        "ordinal": ordinal,
        "saved": summary.cost_saved,
        "stop": summary.stop_event,
        "ended": ended_label(run),
        "title": run_title(run),
        "search": " ".join(
            str(v)
            for v in (
                run.run_id,
                run_title(run),
                run.task_id,
                run.task_family,
                run.harness,
                run.model,
                path.name,
                run.exit_status,
                ended_label(run),
                success_label(run.success),
                "resolved" if run.success else None,
            )
            if v
        ).lower(),
    }


#: one file's picker rows and the one-line error that stopped its reading (None: read whole)
FileResult = tuple[list[dict[str, Any]], str | None]
FileRows = Callable[..., FileResult]


class _Cancelled(Exception):
    """The picker's loading was cancelled (the screen closed)."""


def _check(worker: Worker[None]) -> None:
    if worker.is_cancelled:
        raise _Cancelled


def file_rows(
    index: int,
    path: Path,
    *,
    read: Callable[[Path], Iterator[Run]],
    score: Callable[[Run], ScoredRun],
    base: Path | None,
    cancelled: Callable[[], None] | None = None,
) -> FileResult:
    """The picker rows of one file's runs, and why its reading stopped (the runs before a
    bad line are kept). What the picker's loading does per file, in its thread or on a
    worker process (``index``: the file's place in the list, unused here)."""
    rows: list[dict[str, Any]] = []
    try:
        for k, run in enumerate(read(path)):
            if cancelled is not None:
                cancelled()
            rows.append(picker_row(score(run), path, k, short_path(path, base)))
    except EfcError as exc:
        return rows, str(exc)
    return rows, None


def _cell(col: PickerColumn, value: Any) -> Text:
    """One cell, cut to its column (names in the middle, files at the start; numbers are
    sized to fit the column by ``fmt_num``). Log text is sanitized: never markup."""
    width = col.width
    if col.kind == "bool":
        if value is None:
            return Text("unknown", style="dim")
        return Text("✓ yes", style="green") if value else Text("✗ no", style="red")
    if col.kind == "usd":
        if value is None:
            return Text("–", justify="right", style="dim")
        return Text(f"{value:.2f}" if value < 1000 else f"{value:.0f}", justify="right")
    if col.kind == "count":
        return Text(f"{value:,}", justify="right")
    if col.kind == "path":
        return Text(start_ellipsis(sanitize_label(str(value), 400), width))
    if col.kind == "name":
        return Text(middle_ellipsis(sanitize_label(str(value or "–"), 200), width))
    if isinstance(value, float | int) and not isinstance(value, bool):
        return Text(fmt_num(float(value), width), justify="right")
    return Text("–", justify="right", style="dim")


def _cells(row: dict[str, Any]) -> list[Text]:
    """A row's cells, made once per run (sorting and filtering reuse them)."""
    cells = row.get("cells")
    if cells is None:
        cells = row["cells"] = [_cell(c, row.get(c.key)) for c in PICKER_COLUMNS]
        title = row.get("title")
        if title and title != row.get("run_id"):  # a prompt or a task: its start tells it
            col = BY_KEY["title"]
            text = sanitize_label(str(title), 200)
            if len(text) > col.width:
                text = text[: col.width - 1] + "…"
            cells[PICKER_COLUMNS.index(col)] = Text(text)
    return cells


def _sort_key(key: str, numeric: bool) -> Callable[[dict[str, Any]], Any]:
    def k(row: dict[str, Any]) -> Any:
        v = row.get(key)
        if key == "success":
            return (v is None, 0 if v is None else (0 if v else 1))
        if numeric:
            if v is None or (isinstance(v, float) and math.isnan(v)):
                return (True, 0.0)
            return (False, float(v))
        return (v is None, str(v or "").lower())

    return k


class FilterInput(Input):
    """The picker's filter box: types everything but ``?``, which opens the keys (the
    footer says so; run ids and paths do not contain it)."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character != "?" and super().check_consume_key(key, character)

    async def _on_key(self, event: events.Key) -> None:
        if event.character == "?":
            # not typed (Input's own handler is skipped); the key goes on to the bindings
            event.prevent_default()


#: how often the worker hands a batch of scored runs to the screen (seconds)
BATCH_SECONDS = 0.25


class PickerScreen(Screen[None]):
    TITLE = "Run picker"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open run", priority=True, id="picker.open"),
        Binding("down", "move(1)", "Down", show=False),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("pagedown", "move(10)", "Page down", show=False),
        Binding("pageup", "move(-10)", "Page up", show=False),
        Binding(
            "ctrl+s",
            "sort_next",
            "Sort",
            id="picker.sort",
            tooltip="Sort by the next column (or click a column header)",
        ),
        Binding(
            "ctrl+r",
            "sort_reverse",
            "Reverse",
            id="picker.reverse",
            tooltip="Reverse the sort order",
        ),
        Binding(
            "escape",
            "clear_or_quit",
            "Clear filter / quit",
            id="picker.escape",
            tooltip="Clear the filter; with no filter, quit",
        ),
    ]

    DEFAULT_CSS = """
    PickerScreen { layout: vertical; }
    PickerScreen #picker-status {
        height: 2; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis;
    }
    PickerScreen #picker-filter { margin: 0 0; }
    PickerScreen RunsTable { height: 1fr; }
    """

    def __init__(
        self,
        paths: list[Path],
        *,
        read: Callable[[Path], Iterator[Run]],
        score: Callable[[Run], ScoredRun],
        jobs: int = 1,
    ) -> None:
        super().__init__()
        self.paths = paths
        #: processes that read and score the files (``pipeline.score.pool_jobs``); 1: the
        #: screen's worker thread alone
        self.jobs = jobs
        self._read = read
        self._score = score
        self.rows: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.sort_column = "title"
        self.sort_reverse = False
        self.filter_text = ""
        self.done = False
        self.files_done = 0
        self._shown: list[dict[str, Any]] = []

    def compose(self) -> ComposeResult:
        yield Static(id="picker-status", markup=False)
        yield FilterInput(
            placeholder="type to filter runs (id, task, harness, model, file, how it ended, yes/no)",
            id="picker-filter",
        )
        yield RunsTable([(c.key, c.title, c.width, c.numeric) for c in PICKER_COLUMNS], id="runs")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._update_status()
        self._load()

    @work(thread=True, exclusive=True, group="picker", exit_on_error=False)
    def _load(self) -> None:
        """Read and score every run (on ``jobs`` processes, a file each, when there are
        several); hand them over in batches (one message per run made the UI thread the
        bottleneck: 4x the headless time on 600 runs)."""
        worker = get_current_worker()
        errors: list[str] = []
        base = common_folder(self.paths)
        rows = partial(file_rows, read=self._read, score=self._score, base=base)
        batch: list[dict[str, Any]] = []
        last = time.perf_counter()
        try:
            for n, (got, error) in enumerate(self._files(rows, worker), start=1):
                batch.extend(got)
                if error is not None:
                    errors.append(error)
                now = time.perf_counter()
                if now - last >= BATCH_SECONDS or n == len(self.paths):
                    self.post_message(PickerRow(batch, n, len(self.paths)))
                    batch, last = [], now
        except _Cancelled:
            return
        except EfcError as exc:  # a worker process died: the files read so far stay
            errors.append(str(exc))
        self.post_message(PickerDone(errors))

    def _files(self, rows: FileRows, worker: Worker[None]) -> Iterator[FileResult]:
        """Each file's rows and error, in order: on the pool when there are ``jobs``
        (its workers stop when this stops, cancelled), else in this thread."""
        cancelled = partial(_check, worker)
        if self.jobs > 1 and len(self.paths) > 1:
            from efc_tui.pipeline.pool import can_fork, map_files

            if can_fork():  # (the task holds the app's readers: it is inherited, not sent)
                with closing(map_files(self.paths, rows, self.jobs)) as results:
                    for result in results:
                        cancelled()
                        yield result
                return
        for index, path in enumerate(self.paths):
            cancelled()
            yield rows(index, path, cancelled=cancelled)

    def on_picker_row(self, message: PickerRow) -> None:
        self.files_done = message.done
        if message.rows:
            self.rows.extend(message.rows)
            fresh = [r for r in message.rows if self._matches(r)]
            self._shown.extend(fresh)
            self.query_one(RunsTable).add_rows([_cells(r) for r in fresh])
        self._update_status()

    def on_picker_done(self, message: PickerDone) -> None:
        self.done = True
        self.errors = message.errors
        for e in message.errors[:3]:
            self.notify(sanitize_label(e, 300), severity="error", markup=False)
        self._refill()
        self.post_message(ScreenReady())

    def _update_status(self) -> None:
        t = Text(no_wrap=True, overflow="ellipsis", end="")
        t.append("efc-tui", style="bold")
        t.append(f"  {len(self._shown):,} of {len(self.rows):,} runs")
        if not self.done:
            t.append(
                f"  reading and scoring… {self.files_done}/{len(self.paths)} files", style="italic"
            )
        if self.errors:
            t.append(f"  {len(self.errors)} file(s) could not be read", style="red")
        title = BY_KEY[self.sort_column].title
        t.append(f"  sorted by {title}{' ↓' if self.sort_reverse else ' ↑'}", style="dim")
        if self._shown:  # the runs shown, in one line: outcomes, how they ended, dollars
            t.append("\n")
            t.append(sanitize_label(corpus_line(self._shown), 400))
        self.query_one("#picker-status", Static).update(t)

    # -- table ------------------------------------------------------------------------------

    def _matches(self, row: dict[str, Any]) -> bool:
        words = self.filter_text.lower().split()
        return all(w in row["search"] for w in words)

    def _refill(self) -> None:
        """Filter and sort the rows again (the selection stays on its run when shown)."""
        selected = self.selected_row
        col = BY_KEY[self.sort_column]
        shown = [r for r in self.rows if self._matches(r)]
        shown.sort(key=_sort_key(col.key, col.numeric), reverse=self.sort_reverse)
        self._shown = shown
        cursor = 0
        if selected is not None:
            cursor = next((i for i, r in enumerate(shown) if r is selected), 0)
        self.query_one(RunsTable).set_rows([_cells(r) for r in shown], cursor)
        self._update_status()

    @property
    def selected_row(self) -> dict[str, Any] | None:
        row = self.query_one(RunsTable).cursor_row
        return self._shown[row] if 0 <= row < len(self._shown) else None

    @on(Input.Changed, "#picker-filter")
    def _filter_changed(self, message: Input.Changed) -> None:
        self.filter_text = message.value
        self._refill()

    @on(RunsTable.HeaderClicked)
    def _header_clicked(self, message: RunsTable.HeaderClicked) -> None:
        key = message.key
        if key == self.sort_column:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = key, False
        self._refill()

    @on(RunsTable.RowChosen)
    def _row_clicked(self, message: RunsTable.RowChosen) -> None:
        self.action_open()

    def sort_by(self, column: str, reverse: bool = False) -> None:
        self.sort_column, self.sort_reverse = column, reverse
        self._refill()

    def action_sort_next(self) -> None:
        keys = [c.key for c in PICKER_COLUMNS]
        self.sort_column = keys[(keys.index(self.sort_column) + 1) % len(keys)]
        self._refill()

    def action_sort_reverse(self) -> None:
        self.sort_reverse = not self.sort_reverse
        self._refill()

    def action_move(self, delta: int) -> None:
        self.query_one(RunsTable).move(delta)

    def action_open(self) -> None:
        row = self.selected_row
        if row is None:
            return
        self.post_message(OpenRun(Path(row["path"]), row["ordinal"]))

    def action_clear_or_quit(self) -> None:
        box = self.query_one(Input)
        if box.value:
            box.value = ""
        else:
            self.app.exit()
