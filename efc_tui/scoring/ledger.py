"""Score a run: every event's features, factors, gates and EFC variants, and the run figures.

The columns follow SPEC §3-4; the export (SPEC §10) and the app read them from here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import accumulate, chain, pairwise
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from msgspec import Struct, field

from efc_tui.model import Run
from efc_tui.scoring.columns import LEDGER_COLUMNS
from efc_tui.scoring.demand import Demand, task_demand, trace_demand
from efc_tui.scoring.estimator import Estimator, estimator_for
from efc_tui.scoring.event_columns import event_columns
from efc_tui.scoring.factors import (
    Factors,
    Harness,
    estimate_factors,
    harness_quantities,
    oracle_factors,
)
from efc_tui.scoring.features import Features, compute_features_runs
from efc_tui.scoring.figures import LEDGER_FIGURES
from efc_tui.scoring.gates import Gates, compute_gates
from efc_tui.scoring.raw_cost import RawCost, raw_costs

if TYPE_CHECKING:
    import pandas as pd


def _ratio(num: float | None, den: float | None) -> float | None:
    """A ratio figure: None without a numerator, or without a positive denominator."""
    if num is None or den is None or den <= 0:
        return None
    return num / den


class RunFigures(Struct):
    """Run-level figures (SPEC §1, §4): one field per ``scoring.figures.LEDGER_FIGURES``,
    in its order (what each is: ``efc_tui.scoring.figures``; tests/unit/test_figures.py checks)."""

    events: int
    efc: float
    est_efc: float
    stable_efc: float
    nrs_efc: float
    oracle_efc: float | None
    c_raw: float
    tokens: float
    tool_calls: float
    wall_s: float
    ops: float
    d_task: float
    d_task_fitted: float | None
    eta: float | None
    eta_est: float | None
    eta_nrs: float | None
    x: float  # D_task is floored above 0: the X ratios are never None
    x_est: float
    x_nrs: float
    x_nrs_fitted: float | None
    success: bool | None

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__struct_fields__}

    def non_finite(self) -> str | None:
        """The ledger's flag when a figure is infinite or NaN (a number in the input too
        large for a float, e.g. ``task_demand.L`` = 1.8e308 makes D_task inf): tables print
        it as it is and JSON as null, so the run says why. None when all are finite."""
        bad = [
            f"{name} = {v}"
            for name in self.__struct_fields__
            if isinstance(v := getattr(self, name), float) and not math.isfinite(v)
        ]
        if not bad:
            return None
        return (
            f"non-finite figures: {', '.join(bad)} (a number in the input too large for a "
            "float); the figures computed from them are not meaningful"
        )


class Ledger(Struct):
    """A scored run. Columns are numpy arrays of length T (one entry per event)."""

    run: Run
    estimator: Estimator
    features: Features
    harness: Harness
    factors: Factors
    oracle: Factors | None
    gates: Gates
    efc: np.ndarray  # EFC_t = κ Î V̂ R̂ M̂ (y_t)
    est: np.ndarray  # ÊFC_t (full θ)
    stable: np.ndarray  # ÊFC_stable_t
    nr: np.ndarray  # ÊFC_nr_t
    cost: RawCost
    demand: Demand
    figures: RunFigures
    flags: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.run.events)

    @property
    def c_cum(self) -> np.ndarray:
        return np.cumsum(self.cost.delta)

    @property
    def x_nr_cum(self) -> np.ndarray:
        """X̂_nr_t = Σ_{i≤t} ÊFC_nr_i / D_task."""
        return np.cumsum(self.nr) / self.demand.hand

    def trace_demand(self) -> float:
        """D_task's hand form over components estimated from this run's trace, for
        comparison with ``demand`` (``scoring.demand.trace_demand``)."""
        return trace_demand(self.run, self.features, self.harness)

    @property
    def oracle_efc(self) -> np.ndarray | None:
        return None if self.oracle is None else self.oracle.efc

    def to_pandas(self) -> pd.DataFrame:
        """One row per event with every ledger column (imports pandas on first use)."""
        import pandas as pd

        return pd.DataFrame(self.columns())

    def columns(self) -> dict[str, Any]:
        """Ledger columns as plain lists/arrays keyed by their names in
        ``efc_tui.scoring.columns`` (the oracle columns last, when the run has oracles)."""
        cols: dict[str, Any] = {c.key: c.values(self) for c in LEDGER_COLUMNS if not c.oracle}
        if self.oracle is not None:
            cols.update({c.key: c.values(self) for c in LEDGER_COLUMNS if c.oracle})
        return cols


#: a batch's harness quantities, each repeated over its run's events (what
#: ``estimate_factors`` reads of a ``Harness``: the same arithmetic, element by element)
class _Repeated(NamedTuple):
    B_router: np.ndarray
    B_verify: np.ndarray
    H_tool: np.ndarray
    E_explore: np.ndarray
    V_ver: np.ndarray


def score_run(run: Run, estimator: Estimator | None = None) -> Ledger:
    """Score every event of a run and its run-level figures (SPEC §3-4): ``score_runs``
    of a batch of one."""
    return score_runs([run], estimator)[0]


def score_runs(runs: Sequence[Run], estimator: Estimator | None = None) -> list[Ledger]:
    """Score runs together (SPEC §3-4), each with ``estimator`` or the one that matches it.

    What is per event and element-wise (the feature columns after the per-event pass,
    factors, gates, the prediction, the EFC variants, raw cost) is computed once over the
    runs' columns end to end (``compute_features_runs``), so a file of short runs pays
    numpy's per-call set-up once a batch, not once a run; the per-event pass, the harness
    quantities and the demand are each run's own. Every run's ledger holds its own slices
    of those columns, and each run figure is the sum of its own slice: the same numbers,
    bit for bit, as the run scored alone (tests/unit/test_score_batch.py).
    """
    if not runs:
        return []
    ests = [estimator if estimator is not None else estimator_for(r) for r in runs]
    joined, feats = compute_features_runs(runs)
    lengths = [len(f.c) for f in feats]
    bounds = [0, *accumulate(lengths)]
    events = list(chain.from_iterable(r.events for r in runs))
    cols = event_columns(events)
    run_cols = [cols[a:b] for a, b in pairwise(bounds)]
    hqs = [harness_quantities(r, f, c) for r, f, c in zip(runs, feats, run_cols, strict=True)]
    per_event = _Repeated(
        *(np.repeat([getattr(h, k) for h in hqs], lengths) for k in _Repeated._fields)
    )
    fa_all = estimate_factors(joined, per_event)  # type: ignore[arg-type]
    efc_all = fa_all.efc
    g_all = compute_gates(events, bounds, cols)
    if all(e is ests[0] for e in ests):
        est_all = ests[0].full.predict_columns(joined.phi())
    else:  # runs of both kinds (simulated and real) in one batch: each its own θ
        est_all = np.concatenate(
            [e.full.predict_columns(f.phi()) for e, f in zip(ests, feats, strict=True)]
        )
    stable_all, nr_all = _variants(est_all, g_all)
    costs = raw_costs(events, bounds, cols)
    ledgers = []
    for i, run in enumerate(runs):
        a, b = bounds[i], bounds[i + 1]
        cut = slice(a, b)
        fa = Factors(fa_all.I[cut], fa_all.V[cut], fa_all.R[cut], fa_all.M[cut])
        g = Gates(
            g_all.Q[cut], g_all.G[cut], g_all.G_nr[cut], g_all.L[cut], g_all.L_nr[cut], g_all.A[cut]
        )
        ledgers.append(
            _ledger(
                run,
                ests[i],
                feats[i],
                hqs[i],
                fa,
                efc_all[cut],
                g,
                est_all[cut],
                stable_all[cut],
                nr_all[cut],
                costs[i],
            )
        )
    return ledgers


def _variants(est: np.ndarray, g: Gates) -> tuple[np.ndarray, np.ndarray]:
    """ÊFC_stable_t and ÊFC_nr_t (SPEC §3.5) from ÊFC_t and the gates."""
    return est * g.Q * g.G * g.L, est * g.Q * g.G_nr * g.L_nr * g.ambiguity


def _ledger(
    run: Run,
    est_file: Estimator,
    f: Features,
    hq: Harness,
    fa: Factors,
    efc_t: np.ndarray,
    g: Gates,
    est: np.ndarray,
    stable: np.ndarray,
    nr: np.ndarray,
    cost: RawCost,
) -> Ledger:
    """One run's ledger from its columns: the oracle, the demand and the run figures (each
    a sum over this run's own columns)."""
    ofa = oracle_factors(run, f)
    dem = task_demand(run, est_file.demand)

    efc = float(ofa.efc.sum()) if ofa is not None else float(efc_t.sum())
    totals = cost.totals()
    values: dict[str, Any] = {
        "events": len(run.events),
        "efc": efc,
        "est_efc": float(est.sum()),
        "stable_efc": float(stable.sum()),
        "nrs_efc": float(nr.sum()),
        "oracle_efc": None if ofa is None else float(ofa.efc.sum()),
        "c_raw": cost.total,
        "tokens": totals["tokens"],
        "tool_calls": totals["tool_calls"],
        "wall_s": totals["wall_s"],
        "ops": totals["ops"],
        "d_task": dem.hand,
        "d_task_fitted": dem.fitted,
        "success": run.success,
    }
    for figure in LEDGER_FIGURES:  # η, X, ...: as scoring/figures.py declares them
        if figure.ratio is not None:
            values[figure.key] = _ratio(values[figure.ratio[0]], values[figure.ratio[1]])
    fig = RunFigures(**values)
    flags = list(run.flags) + hq.flags + cost.flags + dem.flags
    if (overflow := fig.non_finite()) is not None:
        flags.append(overflow)
    if est_file.provisional:
        flags.append("estimator θ is provisional (not yet calibrated)")
    if ofa is None and list(map(attrgetter("oracle"), run.events)).count(None) < len(run.events):
        flags.append("oracle blocks on only some events: Oracle-EFC not computed")
    return Ledger(
        run=run,
        estimator=est_file,
        features=f,
        harness=hq,
        factors=fa,
        oracle=ofa,
        gates=g,
        efc=efc_t,
        est=est,
        stable=stable,
        nr=nr,
        cost=cost,
        demand=dem,
        figures=fig,
        flags=flags,
    )
