"""Choosing the adapter's W and ε on calibration runs (SPEC §6: "W and ε are fixed on the
calibration corpus and shipped"; paper appendix "EFC-Adapter", "Stopping and rollback").

The adapter stops at the first event where either stop rule fires: the paper's window rule
(W, ε) or the repetition rule (limit k = ``config.REPEAT_LIMIT``, fixed: it counts events,
so it does not move with θ). Two choosers, both over the grid CALIBRATION_WINDOWS ×
SWEEP_EPSILONS, both taking the setting with the largest raw-cost saving among those that
put few enough successes at risk (success at risk as in ``summary.py``); ties go to the
larger W, then the smaller ε (the more cautious setting); runs without a success label take
no part (their risk is unknown):

- ``choose_stop_rules`` (ours, issue 18): W and ε with the repetition rule on, on one or
  more corpora — the calibration runs (synthetic) and labelled real runs — with at most
  MAX_RISK_SHARE_BOTH of the labelled successes of **each** corpus at risk; the saving is
  the mean of the corpora's saved shares, so a large synthetic corpus does not drown the
  real runs. When even ε = 0 exceeds the limit (the repetition rule alone does), ε = 0 is
  returned with a note naming the corpus.
- ``choose_adapter``: the window rule alone on the calibration runs, at most
  MAX_RISK_SHARE of their successes at risk: how the shipped estimator file's W and ε were
  chosen until ``efc-tui calibrate --adapter-real`` is used (docs/adapter.md).

Both fit the hook ``efc_tui.scoring.calibrate.calibrate(..., adapter=...)``: give them the
newly fitted prefix θ', since ε is in units of the prefix score that θ' produces
(``functools.partial(choose_stop_rules, real_runs=...)`` adds the real runs).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from efc_tui.adapter.config import (
    CALIBRATION_WINDOWS,
    MAX_RISK_SHARE,
    MAX_RISK_SHARE_BOTH,
    REPEAT_LIMIT,
    SWEEP_EPSILONS,
)
from efc_tui.adapter.decide import _window_ratios
from efc_tui.adapter.loops import repeat_stop, repeat_streaks
from efc_tui.adapter.prefix import prefix_demand, prefix_nr
from efc_tui.adapter.summary import first_stop, stop_index, success_at_risk
from efc_tui.model import Run, Status
from efc_tui.scoring.estimator import Estimator, Theta, load_estimator
from efc_tui.scoring.features import compute_features
from efc_tui.scoring.gates import compute_gates
from efc_tui.scoring.raw_cost import raw_cost


@dataclass(frozen=True, slots=True)
class Replay:
    """What the stop rules need of one run: prefix ÊFC_nr, ΔC, D̂_task, the repetition
    streaks, the first passing verdict and the success label."""

    nr: np.ndarray
    dc: np.ndarray
    d_task: float
    streaks: np.ndarray
    first_pass: int | None
    success: bool | None

    def stop(self, window: int, epsilon: float, repeat: int) -> int | None:
        """The first event where either stop rule fires (None: never)."""
        ratios = _window_ratios(self.nr, self.dc, self.d_task, window)
        return first_stop(stop_index(ratios, epsilon), repeat_stop(self.streaks, repeat))[0]


def replay(run: Run, estimator: Estimator | Theta | None = None) -> Replay:
    """A run reduced to what the stop rules read (``estimator``: the prefix θ to score with;
    default the shipped estimator)."""
    theta = estimator if estimator is not None else load_estimator()
    f = compute_features(run)
    g = compute_gates(run.events)
    first_pass = next((t for t, e in enumerate(run.events) if e.status is Status.PASSED), None)
    return Replay(
        prefix_nr(f, g, theta),
        np.asarray(raw_cost(run).delta, dtype=float),
        prefix_demand(run).value,
        repeat_streaks(run),
        first_pass,
        run.success,
    )


@dataclass(frozen=True, slots=True)
class Outcome:
    """Cost saved and successes at risk over a set of replays at one setting."""

    runs: int
    stopped: int
    c_raw: float
    cost_saved: float
    successes: int
    at_risk: int

    @property
    def saved_share(self) -> float:
        return self.cost_saved / self.c_raw if self.c_raw > 0 else 0.0

    @property
    def risk_share(self) -> float:
        return self.at_risk / self.successes if self.successes else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "stopped": self.stopped,
            "c_raw": _r(self.c_raw),
            "cost_saved": _r(self.cost_saved),
            "cost_saved_share": _r(self.saved_share),
            "successes": self.successes,
            "successes_at_risk": self.at_risk,
        }


def _r(x: float) -> float:
    """6 significant digits: stable bytes in the estimator file across BLAS builds."""
    return float(f"{x:.6g}")


def _outcome(replays: Sequence[Replay], stops: Sequence[int | None]) -> Outcome:
    saved = 0.0
    at_risk = stopped = 0
    for r, stop in zip(replays, stops, strict=True):
        if stop is not None:
            stopped += 1
            saved += float(r.dc[stop + 1 :].sum())
        at_risk += success_at_risk(stop, r.first_pass, r.success, len(r.dc))[0] is True
    return Outcome(
        len(replays),
        stopped,
        float(sum(r.dc.sum() for r in replays)),
        saved,
        sum(r.success is True for r in replays),
        at_risk,
    )


def evaluate(
    replays: Sequence[Replay], window: int, epsilon: float, repeat: int = REPEAT_LIMIT
) -> Outcome:
    """Cost saved and successes at risk of ``replays`` at one setting (labelled or not;
    unlabelled runs count in cost, never in risk)."""
    return _outcome(replays, [r.stop(window, epsilon, repeat) for r in replays])


def _grid(
    corpora: dict[str, list[Replay]], windows: Sequence[int], epsilons: Sequence[float], repeat: int
) -> list[tuple[int, float, dict[str, Outcome]]]:
    """Every (W, ε) with each corpus's outcome; window ratios computed once per W."""
    rep = {name: [repeat_stop(r.streaks, repeat) for r in rs] for name, rs in corpora.items()}
    out = []
    for W in sorted(set(windows)):
        ratios = {
            name: [_window_ratios(r.nr, r.dc, r.d_task, W) for r in rs]
            for name, rs in corpora.items()
        }
        for eps in epsilons:
            res = {}
            for name, rs in corpora.items():
                stops = [
                    first_stop(stop_index(ra, eps), rs_)[0]
                    for ra, rs_ in zip(ratios[name], rep[name], strict=True)
                ]
                res[name] = _outcome(rs, stops)
            out.append((W, eps, res))
    return out


def choose_setting(
    corpora: dict[str, list[Replay]],
    *,
    windows: Sequence[int] = CALIBRATION_WINDOWS,
    epsilons: Sequence[float] = SWEEP_EPSILONS,
    repeat: int = REPEAT_LIMIT,
    max_risk: float = MAX_RISK_SHARE_BOTH,
) -> dict[str, Any] | None:
    """W and ε by the objective of ``choose_stop_rules`` over labelled replays grouped by
    corpus, or None when no corpus has a labelled success."""
    corpora = {k: [r for r in rs if r.success is not None] for k, rs in corpora.items()}
    corpora = {k: rs for k, rs in corpora.items() if rs}
    successes = {k: sum(r.success is True for r in rs) for k, rs in corpora.items()}
    if not corpora or not any(successes.values()):
        return None
    eps_grid = sorted(set(float(e) for e in epsilons) | {0.0})
    best: tuple[tuple[float, int, float], int, float, dict[str, Outcome]] | None = None
    floor: tuple[int, float, dict[str, Outcome]] | None = None
    for W, eps, res in _grid(corpora, windows, eps_grid, repeat):
        if eps == 0.0 and (floor is None or floor[0] < W):
            floor = (W, eps, res)
        if any(o.at_risk > max_risk * o.successes for o in res.values()):
            continue
        key = (float(np.mean([o.saved_share for o in res.values()])), W, -eps)
        if best is None or key > best[0]:
            best = (key, W, eps, res)
    names = ", ".join(corpora)
    if best is None:
        assert floor is not None
        W, eps, res = floor
        over = [k for k, o in res.items() if o.at_risk > max_risk * o.successes]
        status = (
            f"no setting keeps successes at risk within {max_risk:.0%} on every corpus "
            f"({', '.join(over)}: the repetition rule alone exceeds it): window rule off (ε = 0)"
        )
    else:
        _, W, eps, res = best
        status = (
            f"calibrated on {sum(o.runs for o in res.values())} labelled runs ({names}): the "
            f"largest raw-cost saving with at most {max_risk:.0%} of each corpus's successes at risk"
        )
        if eps == 0.0:
            status += " (no ε > 0 met the limit: window rule off)"
    total = _sum(res.values())
    return {
        "window": W,
        "epsilon": eps,
        "status": status,
        "repeat": repeat,
        "runs": total.runs,
        "successes": total.successes,
        "cost_saved_share": float(np.mean([o.saved_share for o in res.values()])),
        "successes_at_risk": total.at_risk,
        "max_risk_share": max_risk,
        "corpora": {k: o.as_dict() for k, o in res.items()},
    }


def _sum(outcomes: Iterable[Outcome]) -> Outcome:
    os_ = list(outcomes)
    return Outcome(
        sum(o.runs for o in os_),
        sum(o.stopped for o in os_),
        sum(o.c_raw for o in os_),
        sum(o.cost_saved for o in os_),
        sum(o.successes for o in os_),
        sum(o.at_risk for o in os_),
    )


def choose_stop_rules(
    runs: Iterable[Run],
    estimator: Estimator | Theta | None = None,
    *,
    real_runs: Iterable[Run] = (),
    windows: Sequence[int] = CALIBRATION_WINDOWS,
    epsilons: Sequence[float] = SWEEP_EPSILONS,
    repeat: int = REPEAT_LIMIT,
    max_risk: float = MAX_RISK_SHARE_BOTH,
) -> dict[str, Any] | None:
    """W and ε for the estimator file's ``adapter`` block with the repetition rule on, or
    None without labelled successes (module docstring).

    ``runs`` are the calibration runs, ``real_runs`` optional labelled real runs (a second
    corpus with its own risk limit). Returns ``{"window", "epsilon", "status", ...}``: the
    extra keys (the objective, figures at the chosen setting per corpus) go to the file's
    ``adapter.calibration``.
    """
    theta = estimator if estimator is not None else load_estimator()
    corpora = {"calibration": [replay(r, theta) for r in runs]}
    real = [replay(r, theta) for r in real_runs]
    if real:
        corpora["real"] = real
    return choose_setting(
        corpora, windows=windows, epsilons=epsilons, repeat=repeat, max_risk=max_risk
    )


def choose_adapter(
    runs: Iterable[Run],
    estimator: Estimator | Theta | None = None,
    *,
    windows: Sequence[int] = CALIBRATION_WINDOWS,
    epsilons: Sequence[float] = SWEEP_EPSILONS,
    max_risk: float = MAX_RISK_SHARE,
) -> dict[str, Any] | None:
    """W and ε for the window rule alone on the calibration runs, or None without labelled
    successes: the largest raw-cost saving with at most ``max_risk`` of the successes at
    risk. Returns ``{"window", "epsilon", "status", ...}``: the extra keys go to the file's
    ``adapter.calibration``."""
    theta = estimator if estimator is not None else load_estimator()
    got = choose_setting(
        {"calibration": [replay(r, theta) for r in runs]},
        windows=windows,
        epsilons=epsilons,
        repeat=0,
        max_risk=max_risk,
    )
    if got is None:
        return None
    o = got["corpora"]["calibration"]
    status = (
        f"calibrated on {o['runs']} runs: the largest raw-cost saving with at most "
        f"{max_risk:.0%} of successes at risk"
    )
    if got["epsilon"] == 0.0:
        status += " (no ε > 0 met the limit: stopping disabled)"
    return {
        "window": got["window"],
        "epsilon": got["epsilon"],
        "status": status,
        "runs": o["runs"],
        "successes": o["successes"],
        "cost_saved_share": got["cost_saved_share"],
        "successes_at_risk": o["successes_at_risk"],
        "max_risk_share": max_risk,
    }
