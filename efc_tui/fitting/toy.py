"""Run-table rows drawn from the scaling model itself, for tests, benchmarks and examples.

Not the synthetic corpus (``efc-tui simulate`` writes traces from hidden-state tasks):
these are figure rows only, with a known law, so a fit can be checked against the truth.

Each group (task_family × harness × model × budget) gets a true coordinate z_g spread
log-uniformly over ``z_range``; each run's success is Bernoulli(1 − E(z_g)) with
E(z) = E_inf + A·(z / median z)^(−α); each run's figures are z_g times log-normal noise
(tighter for the EFC coordinates, loose for the raw ones).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from efc_tui.fitting.powerlaw import PowerLaw


def toy_rows(
    law: PowerLaw = PowerLaw(0.1, 0.3, 0.7),
    *,
    families: int = 3,
    harnesses: int = 7,
    models: int = 3,
    budgets: int = 2,
    runs_per_group: int = 25,
    tasks_per_family: int = 40,
    z_range: tuple[float, float] = (0.25, 4.0),
    noise: float = 0.15,
    seed: int = 0,
) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    combos = [
        (f, h, m, b)
        for f in range(families)
        for h in range(harnesses)
        for m in range(models)
        for b in range(budgets)
    ]
    zg = np.exp(rng.uniform(np.log(z_range[0]), np.log(z_range[1]), len(combos)))
    med = float(np.median(zg))
    rows: list[dict[str, Any]] = []
    for gi, (f, h, m, b) in enumerate(combos):
        e = float(law.failure(zg[gi] / med))
        d_task = 1.0 + f  # families differ in demand; X = EFC / D_task carries z
        for r in range(runs_per_group):
            t = int(rng.integers(tasks_per_family))
            x = zg[gi] * float(np.exp(rng.normal(0.0, noise)))
            raw = float(
                np.exp(rng.normal(0.5 * np.log(zg[gi]), 1.0))
            )  # raw spend: loosely tied to z
            efc = x * d_task
            tokens = 1000.0 * (1.0 + raw)
            tools = float(rng.poisson(3 + 2 * raw))
            wall = float(rng.gamma(2.0, 5.0))
            ops = tools + float(rng.poisson(4))
            c_raw = tokens / 1000.0 + 0.35 * tools + 0.1 * wall + 0.04 * ops
            rows.append(
                {
                    "run_id": f"g{gi}-r{r}",
                    "task_id": f"F{f}-t{t}",
                    "task_family": f"F{f}",
                    "harness": f"H{h}",
                    "model": f"M{m}",
                    "budget": {"tokens": 1000 * (b + 1)},
                    "success": float(rng.random() >= e),
                    "events": 10.0,
                    "efc": efc,
                    "est_efc": efc * float(np.exp(rng.normal(0.0, noise))),
                    "stable_efc": efc,
                    "nrs_efc": efc * float(np.exp(rng.normal(0.0, noise))),
                    "oracle_efc": efc,
                    "c_raw": c_raw,
                    "tokens": tokens,
                    "tool_calls": tools,
                    "wall_s": wall,
                    "ops": ops,
                    "d_task": d_task,
                    "d_task_fitted": d_task,
                    "turns": 3.0 + tools,
                    "tools_used": float(min(5, 1 + h % 4)),
                    "overhead_tokens": float(rng.gamma(2.0, 50.0 * (1 + h % 3))),
                    "error_events": float(rng.poisson(2)),
                    "retries": float(rng.poisson(1)),
                }
            )
    return rows
