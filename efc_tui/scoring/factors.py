"""Factor estimates Î V̂ R̂ M̂ on real traces (SPEC §3.3) and Oracle factors (SPEC §3.1).

Run-level harness/task quantities come from metadata when the log has them, else they are
estimated from the trace, and every fallback is named in ``Harness.flags``.
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import pairwise
from operator import attrgetter
from typing import Any

import numpy as np
from msgspec import Struct, field

from efc_tui.model import Event, EventKind, Run
from efc_tui.scoring.constants import KAPPA, N_KINDS
from efc_tui.scoring.event_columns import KIND_CODE, EventColumns, event_columns
from efc_tui.scoring.features import Features

_KIND = attrgetter("kind")
_TOOL = attrgetter("tool")


def tool_counts(events: list[Event]) -> Counter[str]:
    """How many events name each tool (events without a tool left out), in order of first use."""
    return Counter(filter(None, map(_TOOL, events)))


#: a run shorter than this has its run-level shares and counts taken from Python lists:
#: numpy's set-up, a few µs a call, costs more than the arithmetic on a short run (a
#: tau-bench task is 18 events, a file holds a hundred of them). The numbers are the same
#: either way: counts, and counts over the length (exact in both)
SMALL_RUN = 256


def share(col: np.ndarray) -> float:
    """The mean of a non-empty column of 0/1 values or bools: the share of 1s."""
    if len(col) < SMALL_RUN:
        return sum(col.tolist()) / len(col)
    return float(col.mean())


def clip(x: Any) -> Any:
    """clip(x) = min(1, max(0, x)) (SPEC §3), element-wise on arrays."""
    return np.clip(x, 0.0, 1.0)


def entropy_bits(counts: Counter[Any] | list[int]) -> float:
    values = list(counts.values()) if isinstance(counts, Counter) else list(counts)
    total = sum(values)
    if total <= 0:
        return 0.0
    return -sum((v / total) * math.log2(v / total) for v in values if v > 0)


class Harness(Struct):
    """Run-level quantities of SPEC §3.3."""

    B_router: float
    B_verify: float
    H_tool: float
    E_explore: float
    V_ver: float
    flags: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, float]:
        return {
            "B_router": self.B_router,
            "B_verify": self.B_verify,
            "H_tool": self.H_tool,
            "E_explore": self.E_explore,
            "V_ver": self.V_ver,
        }


def harness_quantities(run: Run, f: Features, cols: EventColumns | None = None) -> Harness:
    """B_router, B_verify, H_tool, E_explore, V_ver for a run (SPEC §3.3). ``cols``: the
    run's ``event_columns``, when the caller has them."""
    events = run.events
    flags: list[str] = []
    meta = run.extra.get("harness_quantities") if isinstance(run.extra, dict) else None
    meta = meta if isinstance(meta, dict) else {}

    b_router = float(meta["B_router"]) if "B_router" in meta else None
    b_verify = float(meta["B_verify"]) if "B_verify" in meta else None
    if len(events) < SMALL_RUN:
        router, verify, kind_counts = _kind_shares_short(list(map(_KIND, events)), f.z)
    else:
        codes = (cols if cols is not None else event_columns(events)).kind
        router, verify, kind_counts = _kind_shares(codes, f.z)
    if b_router is None:
        b_router = router
        flags.append("B_router estimated: share of tool events later referenced")
    if b_verify is None:
        b_verify = verify
        flags.append("B_verify estimated: share of generations/repairs checked before the next")

    tools = tool_counts(events)
    h_tool = entropy_bits(tools)
    e_explore = entropy_bits(kind_counts) / math.log2(N_KINDS) if events else 0.0

    if run.task_demand is not None and run.task_demand.V_ver is not None:
        v_ver = float(run.task_demand.V_ver)
    elif "V_ver" in meta:
        v_ver = float(meta["V_ver"])
    else:
        v_ver = min(1.0, share(f.has_verdict)) if len(events) else 0.0
        flags.append("V_ver estimated: share of events with a verdict")
    return Harness(b_router, b_verify, h_tool, e_explore, v_ver, flags)


def _kind_shares(codes: np.ndarray, z: np.ndarray) -> tuple[float, float, list[int]]:
    """B_router and B_verify as estimated from the events' kinds (SPEC §3.3), and how many
    events are of each kind, in order of first occurrence (as a Counter holds them, so
    the entropy sums in its order), from the kinds' codes (``event_columns``) by numpy."""
    # B_router: the share of tool and check events whose observation is cited later
    toolish = (codes == KIND_CODE[EventKind.TOOL]) | (codes == KIND_CODE[EventKind.CHECK])
    b_router = float(z[toolish].mean()) if toolish.any() else 0.0
    # B_verify: share of generation/repair events followed by a check before the next one:
    # in the sequence of generation, repair and check events, a generation/repair right
    # before a check
    check = KIND_CODE[EventKind.CHECK]
    edit = (codes == KIND_CODE[EventKind.GENERATION]) | (codes == KIND_CODE[EventKind.REPAIR])
    seq = codes[edit | (codes == check)]
    total = int(edit.sum())
    verified = int(((seq[:-1] != check) & (seq[1:] == check)).sum()) if len(seq) > 1 else 0
    _, first, counts = np.unique(codes, return_index=True, return_counts=True)
    return b_router, verified / total if total else 0.0, counts[np.argsort(first)].tolist()


def _kind_shares_short(kinds: list[EventKind], z: np.ndarray) -> tuple[float, float, list[int]]:
    """``_kind_shares`` of a short run (``SMALL_RUN``), from Python lists: the same numbers."""
    tool, check = EventKind.TOOL, EventKind.CHECK
    gen, repair = EventKind.GENERATION, EventKind.REPAIR
    zs = z.tolist()
    cited = [zs[i] for i, k in enumerate(kinds) if k is tool or k is check]
    b_router = sum(cited) / len(cited) if cited else 0.0
    seq = [k is check for k in kinds if k is gen or k is repair or k is check]
    total = seq.count(False)
    verified = sum(1 for a, b in pairwise(seq) if not a and b)
    return b_router, verified / total if total else 0.0, list(Counter(kinds).values())


class Factors(Struct):
    I: np.ndarray
    V: np.ndarray
    R: np.ndarray
    M: np.ndarray

    @property
    def efc(self) -> np.ndarray:
        """EFC_t = kappa · I·V·R·M (SPEC §3)."""
        return KAPPA * self.I * self.V * self.R * self.M


def estimate_factors(f: Features, hq: Harness) -> Factors:
    """Î V̂ R̂ M̂ (SPEC §3.3)."""
    tool_div = 1.0 + 0.12 * hq.H_tool
    I = clip(f.delta * (0.70 + 0.30 * hq.B_router) / (tool_div + 0.20 * hq.E_explore))
    V = clip(f.q * (0.70 + 0.30 * hq.B_verify) * (0.72 + 0.28 * hq.V_ver))
    R = clip((0.28 + 0.72 * f.n) * (0.48 + 0.52 * f.a) / tool_div)
    M = clip(f.m * (0.80 + 0.20 * f.p))
    return Factors(I, V, R, M)


_ORACLE_KEYS = (
    "delta_latent",
    "B_route",
    "B_noise",
    "B_verify",
    "V_er",
    "B_tool",
    "B_mem",
    "B_state",
)


def oracle_factors(run: Run, f: Features) -> Factors | None:
    """Oracle I V R M from per-event oracle blocks (SPEC §3.1), or None when any is missing.

        I = clip(B_route · B_noise · Δlatent)
        V = clip(B_verify · B_noise · V_er)
        R = clip(n · B_route · B_tool)
        M = clip(B_mem · B_state · (0.82 + 0.18 V))

    n is the oracle block's own ``n`` when present, else the trace novelty.
    """
    events = run.events
    if not events or any(e.oracle is None for e in events):
        return None
    T = len(events)
    cols = {k: np.empty(T) for k in _ORACLE_KEYS}
    n = np.array(f.n, copy=True)
    for t, e in enumerate(events):
        o = e.oracle or {}
        for k in _ORACLE_KEYS:
            v = o.get(k, 1.0 if k != "delta_latent" else 0.0)
            cols[k][t] = float(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0.0
        if isinstance(o.get("n"), int | float):
            n[t] = float(o["n"])
    I = clip(cols["B_route"] * cols["B_noise"] * cols["delta_latent"])
    V = clip(cols["B_verify"] * cols["B_noise"] * cols["V_er"])
    R = clip(n * cols["B_route"] * cols["B_tool"])
    M = clip(cols["B_mem"] * cols["B_state"] * (0.82 + 0.18 * V))
    return Factors(I, V, R, M)
