"""Messages of the app (dataclass messages: Textual's ``Message.__post_init__`` initializes
them; no generated ``__repr__``/``__eq__``: nothing compares or prints them, and each
generated method is compiled when the app starts).

Two kinds:

- from a screen's workers to the screen (``LoadUpdate``, ``ScoreReady``, ...): results
  computed off the UI thread;
- from a screen up to the app (``OpenRun``, ``OpenPicker``, ``LoadFailed``,
  ``ScreenReady``): the screens never call the app; they say what happened and the app
  decides (push a screen, exit with code 2, mark the app ready for a screenshot).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.message import Message

from efc_tui.app.loading import Update

if TYPE_CHECKING:
    from efc_tui.adapter import ScoredRun
    from efc_tui.compare import RunDiff

# -- workers to their screen ----------------------------------------------------------------


@dataclass(repr=False, eq=False)
class LoadUpdate(Message):
    """One step of reading the run (``efc_tui.app.loading``: header, events, done, ...)."""

    bubble: ClassVar[bool] = False
    update: Update


@dataclass(repr=False, eq=False)
class ScoreReady(Message):
    """A scoring pass finished: ``scored`` covers the first ``len(scored)`` events."""

    bubble: ClassVar[bool] = False
    scored: ScoredRun
    seconds: float


@dataclass(repr=False, eq=False)
class SearchDone(Message):
    """A search's matches were found."""

    bubble: ClassVar[bool] = False
    query: str
    #: every matching event, in order (the screen goes to the next after the selection)
    matches: list[int]


@dataclass(repr=False, eq=False)
class Exported(Message):
    """An export was written (``path``) or failed (``error``)."""

    bubble: ClassVar[bool] = False
    path: str | None
    error: str | None = None


@dataclass(repr=False, eq=False)
class PickerRow(Message):
    """Scored runs for the picker (a batch), and how many files are done."""

    bubble: ClassVar[bool] = False
    rows: list[dict[str, Any]]
    done: int
    total_files: int


@dataclass(repr=False, eq=False)
class PickerDone(Message):
    """The picker read and scored every file (``errors``: why some could not be read)."""

    bubble: ClassVar[bool] = False
    errors: list[str] = field(default_factory=list)


@dataclass(repr=False, eq=False)
class CompareReady(Message):
    """Both runs of the compare view are read, scored and aligned."""

    bubble: ClassVar[bool] = False
    diff: RunDiff


# -- screens to the app ---------------------------------------------------------------------


@dataclass(repr=False, eq=False)
class OpenEvent(Message):
    """The compare view: replay the run of ``path`` with ``event`` selected (esc: back)."""

    path: Path
    event: int


@dataclass(repr=False, eq=False)
class OpenRun(Message):
    """The picker chose run ``ordinal`` of ``path``: replay it."""

    path: Path
    ordinal: int


@dataclass(repr=False, eq=False)
class FitWanted(Message):
    """A replay screen drew its first rows (or read a run with none) and has no fit yet:
    the app reads the package's fit now, off the path to the first frame."""


@dataclass(repr=False, eq=False)
class OpenPicker(Message):
    """The one file given holds several runs: show them in the picker instead."""


@dataclass(repr=False, eq=False)
class LoadFailed(Message):
    """Reading or scoring failed with ``error`` (one line naming file and line).

    ``recoverable``: the run was opened from the picker, which can take the user back.
    """

    error: str
    recoverable: bool = False


@dataclass(repr=False, eq=False)
class ScreenReady(Message):
    """The screen has read and scored what it shows (a screenshot can be taken)."""
