"""The Python API for notebooks and scripts.

>>> import efc_tui
>>> run = efc_tui.load("sample_traces/repair_loop.jsonl")
>>> scored = efc_tui.score(run)
>>> scored.figures.nrs_efc, scored.summary.stop_event, scored.to_pandas().head()
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

from efc_tui.errors import InputError
from efc_tui.model import Run
from efc_tui.parsers import Outcomes, expand_paths
from efc_tui.parsers import load as _load_file
from efc_tui.scoring import Estimator, Ledger, load_estimator, score_run

if TYPE_CHECKING:
    from efc_tui.adapter import ScoredRun


def load(
    path: str | Path,
    fmt: str | None = None,
    *,
    lenient: bool = False,
    labels: str | Path | None = None,
    success_threshold: float = 1.0,
) -> Run:
    """The first run in a trace file (most files hold one), with its outcome from the
    benchmark's files beside it, or from a ``labels`` file (CSV, JSON or JSONL). See
    ``load_all`` for more."""
    for run in _load_file(
        path, fmt, lenient=lenient, outcomes=Outcomes.from_options(labels, success_threshold)
    ):
        return run
    raise InputError("no run in file", path)


def load_all(
    *paths: str | Path,
    fmt: str | None = None,
    lenient: bool = False,
    labels: str | Path | None = None,
    success_threshold: float = 1.0,
) -> Iterator[Run]:
    """Every run in the given files, folders or globs, one at a time: one per trial of a
    benchmark's output folder, each with its outcome (see ``load``)."""
    outcomes = Outcomes.from_options(labels, success_threshold)
    for p in expand_paths(paths):
        yield from _load_file(p, fmt, lenient=lenient, outcomes=outcomes)


@overload
def score(
    run: Run,
    estimator: Estimator | str | Path | None = None,
    *,
    adapter: Literal[True] = True,
    window: int | None = None,
    epsilon: float | None = None,
    repeat: int | None = None,
) -> ScoredRun: ...


@overload
def score(
    run: Run,
    estimator: Estimator | str | Path | None = None,
    *,
    adapter: Literal[False],
    window: int | None = None,
    epsilon: float | None = None,
    repeat: int | None = None,
) -> Ledger: ...


def score(
    run: Run,
    estimator: Estimator | str | Path | None = None,
    *,
    adapter: bool = True,
    window: int | None = None,
    epsilon: float | None = None,
    repeat: int | None = None,
) -> ScoredRun | Ledger:
    """Score a run: the ledger (one row per event) and run-level figures.

    With ``adapter`` (the default) the result is a :class:`~efc_tui.adapter.ScoredRun`:
    the ledger (``.ledger``), the EFC-Adapter's would-be decisions (``.decisions``) and its
    run summary (``.summary``); ``window`` and ``epsilon`` override the estimator file's W
    and ε (SPEC §6), ``repeat`` the repetition rule's limit (0: off). ``adapter=False``
    returns the scoring :class:`Ledger` alone. ``estimator`` None: the package's that
    matches the run (``estimator_for``: synthetic for a simulated trace, else the real-runs
    one), as ``efc-tui score`` does.
    """
    est = (
        estimator
        if isinstance(estimator, Estimator) or estimator is None
        else load_estimator(estimator)
    )
    if not adapter:
        return score_run(run, est)
    from efc_tui.adapter import score_and_decide

    return score_and_decide(run, est, window=window, epsilon=epsilon, repeat=repeat)
