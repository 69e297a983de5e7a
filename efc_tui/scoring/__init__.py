"""Scoring: features, factors, gates, EFC variants, raw cost and task demand (SPEC §3-4).

The names below are imported on first use, so ``efc_tui.scoring.constants`` (plain numbers)
can be read without loading numpy.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from efc_tui.scoring.estimator import Estimator, load_estimator
    from efc_tui.scoring.ledger import Ledger, RunFigures, score_run

_WHERE = {
    "Estimator": "estimator",
    "load_estimator": "estimator",
    "Ledger": "ledger",
    "RunFigures": "ledger",
    "score_run": "ledger",
}

__all__ = ["Estimator", "Ledger", "RunFigures", "load_estimator", "score_run"]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
