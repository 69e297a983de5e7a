"""What ``score_and_decide`` returns: a scored run and the adapter's would-be decisions.

The scoring ledger (SPEC §3-4) knows nothing of the adapter; the adapter (SPEC §6) reads a
ledger and adds one decision per event and a run summary. :class:`ScoredRun` holds the
three side by side, typed, so the export, the CLI and the app read ``scored.summary.
stop_event`` instead of guessing attribute names on an untyped field.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from efc_tui.adapter.decide import Decision
from efc_tui.adapter.summary import AdapterSummary
from efc_tui.model import Run
from efc_tui.scoring.ledger import Ledger, RunFigures

if TYPE_CHECKING:
    import pandas as pd


class ScoredRun(Struct, frozen=True):
    """A scored run with the EFC-Adapter's decisions (one per event) and its summary."""

    ledger: Ledger
    decisions: Sequence[Decision]  # a list, or LazyDecisions (built when first read)
    summary: AdapterSummary

    def __len__(self) -> int:
        return len(self.ledger)

    @property
    def run(self) -> Run:
        return self.ledger.run

    @property
    def figures(self) -> RunFigures:
        return self.ledger.figures

    def columns(self) -> dict[str, Any]:
        """The ledger's columns plus the adapter's ``memory`` and ``control`` decisions."""
        cols = self.ledger.columns()
        cols["memory"] = [d.memory for d in self.decisions]
        cols["control"] = [d.control for d in self.decisions]
        return cols

    def to_pandas(self) -> pd.DataFrame:
        """One row per event: every ledger column and the adapter's decisions."""
        import pandas as pd

        return pd.DataFrame(self.columns())
