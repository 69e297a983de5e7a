"""The paper's controlled experiments on the simulator (paper §4.2, §5.1, appendix "Module
Ablations"), each a function that simulates its own runs and returns a report.

- ``matched_budget``: pairs on the same task and model with the same raw budget, one with
  low-quality feedback (noisy, redundant, weakly retained) and one with high-quality
  feedback (targeted, valid, non-redundant); both spend their whole budget, so raw cost is
  matched. Reports success, the mean oracle factors I, V, R, M, raw cost and its paired gap,
  and an exact McNemar test on the paired outcomes.
- ``ablation``: the closed-loop harness H5 with one module removed at a time (routing,
  verification, memory; and a noisy channel added). Reports success and harness efficiency
  η = Oracle-EFC / C_raw per variant and their change against the full harness.
- ``eta_scan``: one harness or environment factor at a time at a low, middle and high level
  (router quality, verifier strength, memory fidelity, observation noise, tool entropy as
  distractor tools on offer, state pressure), the rest at H5's. Reports η and success per
  level and the signed high − low effect on η.

Success always comes from the tasks' evaluator. Library code: returns data, never prints.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from efc_tui.scoring.factors import oracle_factors
from efc_tui.scoring.features import compute_features
from efc_tui.scoring.raw_cost import raw_cost
from efc_tui.synthetic.corpus import make_task
from efc_tui.synthetic.engine import simulate_run
from efc_tui.synthetic.families import FAMILIES, FAMILY_NAMES
from efc_tui.synthetic.harnesses import MODELS, PRESETS, HarnessPreset
from efc_tui.synthetic.tasks import DISTRACTOR_TOOLS, Task

EXPERIMENTS = ("matched-budget", "ablation", "eta-scan")

#: the low- and high-quality conditions of the matched-budget experiment: the same raw
#: budget (H5's steps, tool calls, tokens and context), different feedback quality
LOW_QUALITY = replace(
    PRESETS["H5"],
    name="low-quality",
    title="Low-quality feedback",
    intent="noisy, redundant, weakly retained feedback at H5's budget",
    route=0.35,
    verify=0.05,
    memory=0.10,
    noise=0.15,
    pressure=0.50,
    redundancy=0.35,
    reflect=0.20,
)
HIGH_QUALITY = replace(
    PRESETS["H5"],
    name="high-quality",
    title="High-quality feedback",
    intent="targeted, valid, non-redundant feedback at H5's budget",
    route=0.97,
    verify=0.90,
    memory=0.95,
    noise=0.01,
    pressure=0.05,
    redundancy=0.02,
    reflect=0.02,
)


@dataclass(slots=True)
class RunStats:
    """What an experiment keeps of one run."""

    success: bool
    c_raw: float
    oracle_efc: float
    #: mean oracle factors over the run's events
    I: float
    V: float
    R: float
    M: float


def run_stats(run: Any) -> RunStats:
    f = compute_features(run)
    o = oracle_factors(run, f)
    assert o is not None, "simulated runs carry oracle blocks"
    mean = lambda a: float(np.mean(a)) if len(a) else 0.0  # noqa: E731
    return RunStats(
        bool(run.success),
        raw_cost(run).total,
        float(o.efc.sum()),
        mean(o.I),
        mean(o.V),
        mean(o.R),
        mean(o.M),
    )


def _with(h: HarnessPreset, change: dict[str, float]) -> HarnessPreset:
    """A preset with some of its float fields changed."""
    out = h
    for k, v in change.items():
        out = replace(out, **{k: float(v)})  # type: ignore[arg-type]
    return out


def _tasks(runs: int, seed: int) -> Iterator[tuple[str, int, Task]]:
    for family in FAMILY_NAMES:
        for i in range(runs):
            yield family, i, make_task(family, i, seed)


def _simulate(
    task: Task,
    family: str,
    harness: HarnessPreset,
    budget: float,
    key: str,
    *,
    matched: bool = False,
) -> RunStats:
    run = simulate_run(
        FAMILIES[family],
        task,
        harness,
        MODELS["sim-base"],
        budget,
        random.Random(key),
        run_id=key,
        matched=matched,
    )
    return run_stats(run)


@dataclass(slots=True)
class Condition:
    """Aggregates of one experimental condition."""

    name: str
    runs: int
    success: float
    c_raw: float
    eta: float  # Σ Oracle-EFC / Σ C_raw
    factors: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "runs": self.runs,
            "success": self.success,
            "c_raw": self.c_raw,
            "eta": self.eta,
            "factors": dict(self.factors),
        }


def _condition(name: str, stats: list[RunStats]) -> Condition:
    c = sum(s.c_raw for s in stats)
    return Condition(
        name,
        len(stats),
        float(np.mean([s.success for s in stats])),
        c / len(stats),
        sum(s.oracle_efc for s in stats) / c if c > 0 else 0.0,
        {k: float(np.mean([getattr(s, k) for s in stats])) for k in ("I", "V", "R", "M")},
    )


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pair counts b and c."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


def matched_budget(*, runs: int = 24, seed: int = 7, budget: float = 1.0) -> dict[str, Any]:
    """Matched-budget pairs (paper §4.2): same task, model and raw budget; both conditions
    spend the whole budget."""
    low: list[RunStats] = []
    high: list[RunStats] = []
    for family, i, task in _tasks(runs, seed):
        key = f"{seed}/matched/{family}/{i}"
        low.append(_simulate(task, family, LOW_QUALITY, budget, key + "/low", matched=True))
        high.append(_simulate(task, family, HIGH_QUALITY, budget, key + "/high", matched=True))
    gaps = [abs(h.c_raw - lo.c_raw) / max(lo.c_raw, 1e-9) for lo, h in zip(low, high, strict=True)]
    b = sum(1 for lo, h in zip(low, high, strict=True) if h.success and not lo.success)
    c = sum(1 for lo, h in zip(low, high, strict=True) if lo.success and not h.success)
    return {
        "experiment": "matched-budget",
        "pairs": len(low),
        "budget": budget,
        "conditions": [
            _condition("low-quality", low).as_dict(),
            _condition("high-quality", high).as_dict(),
        ],
        "raw_cost_gap_mean_pct": 100.0 * float(np.mean(gaps)),
        "tool_call_budget": LOW_QUALITY.tools * budget,
        "discordant": {"high_only": b, "low_only": c},
        "p_value_mcnemar": mcnemar_exact(b, c),
    }


#: H5 with one module removed (or noise added): name -> changed fields
ABLATIONS: dict[str, dict[str, float]] = {
    "full H5": {},
    "- routing": {"route": 0.35},
    "- verification": {"verify": 0.0},
    "- memory": {"memory": 0.10},
    "+ noise": {"noise": 0.18},
}


def ablation(
    *, runs: int = 24, seed: int = 7, budgets: tuple[float, ...] = (0.5, 1.0, 2.0)
) -> dict[str, Any]:
    """Module ablations of H5 (paper appendix "Module Ablations Localize Raw-to-EFC
    Conversion Gains"): success and η per variant and their change against the full H5."""
    out = []
    for name, change in ABLATIONS.items():
        h = _with(replace(PRESETS["H5"], name=name), change)
        stats = [
            _simulate(task, family, h, b, f"{seed}/ablation/{family}/{i}/{b!r}")
            for family, i, task in _tasks(runs, seed)
            for b in budgets
        ]
        out.append(_condition(name, stats))
    full = out[0]
    return {
        "experiment": "ablation",
        "budgets": list(budgets),
        "variants": [
            {**c.as_dict(), "d_success": c.success - full.success, "d_eta": c.eta - full.eta}
            for c in out
        ],
    }


#: factor -> (field, low, middle, high); "distractors" sets the distractor tools on offer
SCAN: dict[str, tuple[str, float, float, float]] = {
    "router quality": ("route", 0.35, 0.65, 0.95),
    "verifier strength": ("verify", 0.0, 0.45, 0.90),
    "memory fidelity": ("memory", 0.10, 0.50, 0.95),
    "observation noise": ("noise", 0.00, 0.10, 0.20),
    "tool entropy": ("distractors", 0, 2, 4),
    "state pressure": ("pressure", 0.05, 0.35, 0.70),
}


def eta_scan(*, runs: int = 16, seed: int = 7, budget: float = 1.0) -> dict[str, Any]:
    """One factor at a time at three levels, the rest at H5's (paper §5.1)."""
    rows = []
    for factor, (fld, *levels) in SCAN.items():
        conds = []
        for level in levels:
            h = PRESETS["H5"] if fld == "distractors" else _with(PRESETS["H5"], {fld: level})
            stats = []
            for family, i, task in _tasks(runs, seed):
                if fld == "distractors":
                    task = replace(task, distractors=DISTRACTOR_TOOLS[: int(level)])
                stats.append(
                    _simulate(task, family, h, budget, f"{seed}/scan/{family}/{i}/{fld}/{level!r}")
                )
            conds.append(_condition(f"{factor}={level:g}", stats))
        rows.append(
            {
                "factor": factor,
                "field": fld,
                "levels": [float(v) for v in levels],
                "eta": [c.eta for c in conds],
                "success": [c.success for c in conds],
                "effect_eta": conds[-1].eta - conds[0].eta,
                "effect_success": conds[-1].success - conds[0].success,
            }
        )
    return {"experiment": "eta-scan", "budget": budget, "factors": rows}


def run_experiment(name: str, **kwargs: Any) -> dict[str, Any]:
    from efc_tui.errors import InputError

    if name == "matched-budget":
        return matched_budget(**kwargs)
    if name == "ablation":
        return ablation(**kwargs)
    if name == "eta-scan":
        return eta_scan(**kwargs)
    raise InputError(f"unknown experiment {name!r}; choose from {', '.join(EXPERIMENTS)}")
