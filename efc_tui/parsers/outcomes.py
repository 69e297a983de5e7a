"""How runs get their outcome: the sidecars around each log, then a labels file.

``Outcomes`` is the one setting every command passes down: ``parsers.load`` applies it to
each run it yields, so a run read headless, in the app or from Python gets the same label.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct

from efc_tui.errors import InputError
from efc_tui.parsers._reward import DEFAULT_SUCCESS_THRESHOLD

if TYPE_CHECKING:  # the labels reader (csv, json) loads when a labels file is given
    from efc_tui.model import Run
    from efc_tui.parsers.labels import Labels


class Outcomes(Struct, frozen=True):
    """Where outcomes come from: ``sidecars`` (on by default), then ``labels`` (which win,
    and say so in ``run.success_from``); numeric rewards are a success when they reach
    ``success_threshold``."""

    success_threshold: float = DEFAULT_SUCCESS_THRESHOLD
    sidecars: bool = True
    labels: Labels | None = None

    def __post_init__(self) -> None:
        if not math.isfinite(self.success_threshold):
            raise InputError(
                f"--success-threshold must be a finite number, not {self.success_threshold}"
            )

    def apply(self, run: Run, path: str | Path) -> Run:
        if self.sidecars:  # imported here: the sidecars machinery loads when first applied
            from efc_tui.parsers.sidecars import apply_sidecars

            apply_sidecars(run, path, self.success_threshold)
        if self.labels is not None:
            self.labels.apply(run, path, self.success_threshold)
        return run

    @classmethod
    def from_options(
        cls, labels: str | Path | None = None, success_threshold: float = DEFAULT_SUCCESS_THRESHOLD
    ) -> Outcomes:
        """The setting of a command line: reads the labels file (InputError when malformed)."""
        if labels is None:
            return cls(success_threshold, True, None)
        from efc_tui.parsers.labels import load_labels

        return cls(success_threshold, True, load_labels(labels))


#: sidecars on, no labels file, threshold 1
DEFAULT_OUTCOMES = Outcomes()
#: no outcome at all: runs as their reader made them
NO_OUTCOMES = Outcomes(sidecars=False)

__all__ = ["DEFAULT_OUTCOMES", "DEFAULT_SUCCESS_THRESHOLD", "NO_OUTCOMES", "Outcomes"]
