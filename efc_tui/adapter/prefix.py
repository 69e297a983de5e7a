"""The adapter's causal prefix score (SPEC §6, paper §6 and appendix "EFC-Adapter").

Everything here for event t reads events 0..t only:

    ÊFC_t^pre    = max(0, exp(θ0' + θ'·phi_prefix(e_t)) − 1)      (prefix θ', SPEC §3.4)
    ÊFC_nr_t     = ÊFC_t^pre · Q_t · G_nr_t · Λ_nr_t / (1 + α_A A_t)  (SPEC §3.5)
    X̂_nr_t       = Σ_{i≤t} ÊFC_nr_i / D̂_task                       (SPEC §6)

phi_prefix has z = 0 and m = the memory-write signal (``Features.phi(prefix=True)``);
the features n, a, q, c, h, Δ, ρ and the gates are causal by construction.

D̂_task is fixed before the run: the hand form of SPEC §4 over the run's ``task_demand``
metadata, with the prior of ``config.D_PRIOR`` for any component the metadata lacks. The
whole-trace estimate of ``scoring.demand`` looks at every event, so it is never used here.
"""

from __future__ import annotations

import numpy as np
from msgspec import Struct

from efc_tui.adapter.config import D_PRIOR
from efc_tui.model import Run
from efc_tui.scoring.demand import COMPONENTS, d_task_hand
from efc_tui.scoring.estimator import Estimator, Theta
from efc_tui.scoring.features import Features
from efc_tui.scoring.gates import Gates


class PrefixDemand(Struct, frozen=True):
    """D̂_task for the adapter and where each component came from."""

    value: float
    components: dict[str, float]
    #: "metadata" (all five from the run header), "prior" (none), "metadata+prior"
    source: str


def prefix_demand(run: Run) -> PrefixDemand:
    """D̂_task from task metadata, filling gaps with the documented prior (never the trace)."""
    td = run.task_demand.as_dict() if run.task_demand is not None else {}
    comps: dict[str, float] = {}
    known = 0
    for name in COMPONENTS:
        v = td.get(name)
        if v is None:
            comps[name] = D_PRIOR[name]
        else:
            comps[name] = float(v)
            known += 1
    source = "metadata" if known == len(COMPONENTS) else "prior" if known == 0 else "metadata+prior"
    return PrefixDemand(d_task_hand(**comps), comps, source)


def prefix_est(features: Features, estimator: Estimator | Theta) -> np.ndarray:
    """ÊFC_t with the prefix θ (no z; m = memory-write signal), one value per event.

    ``Theta.predict`` (SPEC §3.4): element-wise column sums, so each row's arithmetic is
    the same however many rows follow it (a truncated trace gets bit-identical values).
    """
    th = estimator.prefix if isinstance(estimator, Estimator) else estimator
    return th.predict_columns(features.phi(prefix=True))


def prefix_nr(features: Features, gates: Gates, estimator: Estimator | Theta) -> np.ndarray:
    """ÊFC_nr_t = ÊFC_t^pre · Q · G_nr · Λ_nr / (1 + α_A A_t) (SPEC §3.5, §6)."""
    return prefix_est(features, estimator) * gates.Q * gates.G_nr * gates.L_nr * gates.ambiguity
