"""Raw cost C_raw (SPEC §4, paper eq. 11; appendix "Raw-Cost Accounting").

    C_raw = 1.0 · N_tok / 1000 + 0.35 · N_tool + 0.10 · T_wall + 0.04 · N_op

Per event, ΔC_t is the same sum over what that event consumed; C_raw is Σ ΔC_t.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import pairwise
from operator import attrgetter

import numpy as np
from msgspec import Struct, field

from efc_tui.model import Event, Run
from efc_tui.scoring.constants import W_OP, W_TOK, W_TOOL, W_WALL
from efc_tui.scoring.event_columns import EventColumns, event_columns


def c_raw(tokens: float, tool_calls: float, wall_s: float, ops: float) -> float:
    """C_raw for totals (SPEC §4)."""
    return W_TOK * tokens / 1000.0 + W_TOOL * tool_calls + W_WALL * wall_s + W_OP * ops


class RawCost(Struct):
    tokens: np.ndarray
    tool_calls: np.ndarray
    wall_s: np.ndarray
    ops: np.ndarray
    delta: np.ndarray  # ΔC_t
    flags: list[str] = field(default_factory=list)

    @property
    def total(self) -> float:
        return float(self.delta.sum())

    def parts(self, i: int | None = None) -> dict[str, float]:
        """ΔC of event ``i`` (C_raw when None) split into its four terms, in raw-cost units:
        tokens, tool calls, wall time, operations (they add up to it)."""
        pick = (lambda a: float(a.sum())) if i is None else (lambda a: float(a[i]))
        return {
            "tokens": W_TOK * pick(self.tokens) / 1000.0,
            "tool calls": W_TOOL * pick(self.tool_calls),
            "wall time": W_WALL * pick(self.wall_s),
            "operations": W_OP * pick(self.ops),
        }

    def totals(self) -> dict[str, float]:
        return {
            "tokens": float(self.tokens.sum()),
            "tool_calls": float(self.tool_calls.sum()),
            "wall_s": float(self.wall_s.sum()),
            "ops": float(self.ops.sum()),
        }


_flags = attrgetter("flags")


def raw_cost(run: Run) -> RawCost:
    """ΔC_t of every event of a run and its flags (SPEC §4)."""
    return raw_costs(run.events, [0, len(run.events)])[0]


def raw_costs(
    events: list[Event], bounds: Sequence[int], cols: EventColumns | None = None
) -> list[RawCost]:
    """``raw_cost`` of each run of a batch whose events are ``events`` end to end, run
    ``i`` being ``events[bounds[i]:bounds[i + 1]]``: the columns once for all of them, each
    run's its slice of them (the same values: ΔC_t is element-wise). ``cols``: the events'
    ``event_columns``, when the caller has them."""
    if cols is None:
        cols = event_columns(events)
    tokens, tools, wall, ops = cols.tokens, cols.tool_calls, cols.wall_s, cols.ops
    event_flags = list(map(_flags, events))
    delta = W_TOK * tokens / 1000.0 + W_TOOL * tools + W_WALL * wall + W_OP * ops
    flagged = any(event_flags)  # most logs flag no event
    out = []
    for a, b in pairwise(bounds):
        est_tok = no_wall = 0
        if flagged and any(run_flags := event_flags[a:b]):
            for names, n in Counter(run_flags).items():  # a few distinct tuples (native._FLAGS)
                est_tok += n if "tokens" in names else 0
                no_wall += n if "wall_s" in names else 0
        flags = []
        n = b - a
        if est_tok:
            flags.append(
                f"tokens estimated from text length (4 chars/token) for {est_tok} of {n} events"
            )
        if no_wall:
            flags.append(f"wall time unknown for {no_wall} of {n} events: counted as 0 s")
        cut = slice(a, b)
        out.append(RawCost(tokens[cut], tools[cut], wall[cut], ops[cut], delta[cut], flags))
    return out
