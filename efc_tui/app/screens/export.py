"""``e``: ask where the annotated ledger goes, then say where it went.

The box starts with the default target: ``<export dir>/<run id>.ledger.json``, where the
export dir is ``--export-dir`` or else the folder of the trace (never the current folder,
which after ``make run`` is the repository). Enter writes there; the path can be edited
(a folder, or a path ending in ``/``, gets the usual ``<run id>.ledger.json`` inside);
esc cancels. File names follow the one output policy (``efc_tui.report.output``).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from efc_tui.report.output import is_folder_target, ledger_filename


def default_target(run_id: str, trace: Path | None, export_dir: Path | None) -> Path:
    """Where ``e`` proposes to write: the export dir, else beside the trace."""
    folder = export_dir or (trace.parent if trace is not None else Path.cwd())
    return folder / ledger_filename(run_id)


def resolve_target(text: str, run_id: str) -> Path:
    """What the user typed, as the file to write (a folder gets the run's file name)."""
    text = text.strip()
    path = Path(text).expanduser()
    if is_folder_target(text):
        return path / ledger_filename(run_id)
    return path


class ExportScreen(ModalScreen[Path | None]):
    """Dismisses with the file to write, or None (cancelled)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    ExportScreen { align: center middle; }
    ExportScreen > Vertical {
        width: 90%; max-width: 110; height: auto;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, run_id: str, proposed: Path) -> None:
        super().__init__()
        self.run_id = run_id
        self.proposed = proposed

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Write the annotated ledger (efc-ledger/1) to:", markup=False)
            yield Input(value=str(self.proposed), id="export-path")
            yield Label(
                "enter: write   esc: cancel   a folder or a path ending in / gets "
                f"{ledger_filename(self.run_id)}",
                markup=False,
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        if message.value.strip():
            self.dismiss(resolve_target(message.value, self.run_id))

    def action_cancel(self) -> None:
        self.dismiss(None)
