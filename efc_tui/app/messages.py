"""Messages of the app (plain ``Message`` subclasses with an ``__init__`` each, as Textual's
own are: a dataclass message would have its ``__init__`` generated and compiled at every
start, before the first frame).

Two kinds:

- from a screen's workers to the screen (``LoadUpdate``, ``ScoreReady``, ...): results
  computed off the UI thread; they do not bubble (``bubble=False``): nothing above the
  screen handles them;
- from a screen up to the app (``OpenRun``, ``OpenPicker``, ``LoadFailed``,
  ``ScreenReady``): the screens never call the app; they say what happened and the app
  decides (push a screen, exit with code 2, mark the app ready for a screenshot).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from efc_tui.adapter import ScoredRun
    from efc_tui.app.loading import Update
    from efc_tui.report.compare import RunDiff

# -- workers to their screen ----------------------------------------------------------------


class LoadUpdate(Message, bubble=False):
    """One step of reading the run (``efc_tui.app.loading``: header, events, done, ...)."""

    def __init__(self, update: Update) -> None:
        self.update = update
        super().__init__()


class ScoreReady(Message, bubble=False):
    """A scoring pass finished: ``scored`` covers the first ``len(scored)`` events."""

    def __init__(self, scored: ScoredRun, seconds: float) -> None:
        self.scored = scored
        self.seconds = seconds
        super().__init__()


class SearchDone(Message, bubble=False):
    """A search's matches were found."""

    def __init__(self, query: str, matches: list[int]) -> None:
        self.query = query
        #: every matching event, in order (the screen goes to the next after the selection)
        self.matches = matches
        super().__init__()


class Exported(Message, bubble=False):
    """An export was written (``path``) or failed (``error``)."""

    def __init__(self, path: str | None, error: str | None = None) -> None:
        self.path = path
        self.error = error
        super().__init__()


class PickerRow(Message, bubble=False):
    """Scored runs for the picker (a batch), and how many files are done."""

    def __init__(self, rows: list[dict[str, Any]], done: int, total_files: int) -> None:
        self.rows = rows
        self.done = done
        self.total_files = total_files
        super().__init__()


class PickerDone(Message, bubble=False):
    """The picker read and scored every file (``errors``: why some could not be read)."""

    def __init__(self, errors: list[str] | None = None) -> None:
        self.errors = [] if errors is None else errors
        super().__init__()


class CompareReady(Message, bubble=False):
    """Both runs of the compare view are read, scored and aligned."""

    def __init__(self, diff: RunDiff) -> None:
        self.diff = diff
        super().__init__()


# -- screens to the app ---------------------------------------------------------------------


class OpenEvent(Message):
    """The compare view: replay the run of ``path`` with ``event`` selected (esc: back)."""

    def __init__(self, path: Path, event: int) -> None:
        self.path = path
        self.event = event
        super().__init__()


class OpenRun(Message):
    """The picker chose run ``ordinal`` of ``path``: replay it."""

    def __init__(self, path: Path, ordinal: int) -> None:
        self.path = path
        self.ordinal = ordinal
        super().__init__()


class FitWanted(Message):
    """A replay screen drew its first rows (or read a run with none) and has no fit yet:
    the app reads the package's fit now, off the path to the first frame."""


class OpenPicker(Message):
    """The one file given holds several runs: show them in the picker instead."""


class LoadFailed(Message):
    """Reading or scoring failed with ``error`` (one line naming file and line).

    ``recoverable``: the run was opened from the picker, which can take the user back.
    """

    def __init__(self, error: str, recoverable: bool = False) -> None:
        self.error = error
        self.recoverable = recoverable
        super().__init__()


class ScreenReady(Message):
    """The screen has read and scored what it shows (a screenshot can be taken)."""
