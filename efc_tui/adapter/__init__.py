"""EFC-Adapter, as would-be decisions on replayed traces (SPEC §6, paper §6).

The product does not drive agents: it replays a finished or live trace and shows, event by
event, what the adapter would have decided from the prefix alone (no z, the memory-write
signal in place of m, no success label, no oracle) and what that would have saved.

    >>> from efc_tui.adapter import score_and_decide
    >>> scored = score_and_decide(run)     # ScoredRun: the ledger, decisions, summary
    >>> scored.summary.stop_event, scored.summary.cost_saved

Two stop rules: the paper's window rule (W, ε) and a repetition rule for identical failure
loops (``loops.py``). ``decide`` works on an already scored ledger; ``corpus_summary`` and ``sweep`` aggregate
the per-run summaries (cost saved vs successes at risk, per budget cap, over ε);
``choose_stop_rules`` / ``choose_adapter`` pick W and ε on calibration runs (hooks of
``efc-tui calibrate``).
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np

    from efc_tui.adapter.calibrate import choose_adapter, choose_stop_rules
    from efc_tui.adapter.config import AdapterConfig
    from efc_tui.adapter.decide import Decision, decide
    from efc_tui.adapter.loops import repeat_stop, repeat_streaks
    from efc_tui.adapter.prefix import PrefixDemand, prefix_demand, prefix_nr
    from efc_tui.adapter.result import ScoredRun
    from efc_tui.adapter.summary import (
        AdapterSummary,
        CorpusSummary,
        SweepPoint,
        Totals,
        WasteSplit,
        corpus_summary,
        sweep,
    )
    from efc_tui.model import Run
    from efc_tui.scoring.estimator import Estimator
    from efc_tui.scoring.ledger import Ledger

#: every exported name and its module: imported on first use, so that a module of this
#: package that needs none of them (``integrations.hook`` on a call with nothing new to
#: decide) does not load numpy and the scoring core
_LAZY = {
    "choose_adapter": "calibrate",
    "choose_stop_rules": "calibrate",
    "AdapterConfig": "config",
    "Decision": "decide",
    "decide": "decide",
    "repeat_stop": "loops",
    "repeat_streaks": "loops",
    "PrefixDemand": "prefix",
    "prefix_demand": "prefix",
    "prefix_nr": "prefix",
    "ScoredRun": "result",
    **dict.fromkeys(
        (
            "AdapterSummary",
            "CorpusSummary",
            "SweepPoint",
            "Totals",
            "WasteSplit",
            "corpus_summary",
            "sweep",
        ),
        "summary",
    ),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{module}"), name)
    if name != "decide":  # the submodule of that name is bound there on import (below)
        globals()[name] = value
    return value


class _Package(ModuleType):
    """This package, where ``decide`` stays the function: importing the submodule
    ``efc_tui.adapter.decide`` binds the module to the package's ``decide`` attribute, which
    the eager imports this package had before rebound to the function right after."""

    @property
    def decide(self) -> Any:
        from efc_tui.adapter.decide import decide

        return decide

    @decide.setter
    def decide(self, value: Any) -> None:
        pass  # the submodule binding itself: ``decide`` stays the function


sys.modules[__name__].__class__ = _Package


def apply(
    ledger: Ledger,
    config: AdapterConfig | None = None,
    *,
    lazy: bool = False,
    nr: np.ndarray | None = None,
) -> ScoredRun:
    """The adapter's decisions and summary for an already scored run (the ledger is not
    changed). ``lazy``: the decisions are built when first read; ``nr``: the run's prefix
    ÊFC_nr when already computed (``decide``)."""
    from efc_tui.adapter.config import AdapterConfig
    from efc_tui.adapter.decide import decide
    from efc_tui.adapter.result import ScoredRun

    cfg = config or AdapterConfig.from_estimator(ledger.estimator)
    decisions, summary = decide(ledger, cfg, lazy=lazy, nr=nr)
    return ScoredRun(ledger, decisions, summary)


def score_and_decide(
    run: Run,
    estimator: Estimator | None = None,
    *,
    window: int | None = None,
    epsilon: float | None = None,
    repeat: int | None = None,
    lazy: bool = False,
) -> ScoredRun:
    """Score a run (SPEC §3-4) and add the adapter's decisions and summary (SPEC §6).

    W and ε default to the estimator file's ``adapter`` block and the repetition limit to
    ``config.REPEAT_LIMIT``; ``window`` / ``epsilon`` / ``repeat`` override them
    (``repeat=0``: the paper's window rule alone). ``lazy``: the decisions are built when
    first read, for a caller that may only need the summary (``decide``).
    """
    return score_and_decide_runs(
        [run], estimator, window=window, epsilon=epsilon, repeat=repeat, lazy=lazy
    )[0]


def score_and_decide_runs(
    runs: Sequence[Run],
    estimator: Estimator | None = None,
    *,
    window: int | None = None,
    epsilon: float | None = None,
    repeat: int | None = None,
    lazy: bool = False,
) -> list[ScoredRun]:
    """``score_and_decide`` of each run, the runs scored together (``scoring.score_runs``:
    the same ledgers as one by one)."""
    from efc_tui.adapter.config import AdapterConfig
    from efc_tui.adapter.decide import prefix_nrs
    from efc_tui.scoring.ledger import score_runs

    ledgers = score_runs(runs, estimator)
    out = []
    for ledger, nr in zip(ledgers, prefix_nrs(ledgers), strict=True):
        cfg = AdapterConfig.from_estimator(
            ledger.estimator, window=window, epsilon=epsilon, repeat=repeat
        )
        out.append(apply(ledger, cfg, lazy=lazy, nr=nr))
    return out


__all__ = [
    "AdapterConfig",
    "AdapterSummary",
    "CorpusSummary",
    "Decision",
    "PrefixDemand",
    "ScoredRun",
    "SweepPoint",
    "Totals",
    "WasteSplit",
    "apply",
    "choose_adapter",
    "choose_stop_rules",
    "corpus_summary",
    "decide",
    "prefix_demand",
    "prefix_nr",
    "repeat_stop",
    "repeat_streaks",
    "score_and_decide",
    "score_and_decide_runs",
    "sweep",
]
