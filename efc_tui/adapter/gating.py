"""Memory gating: promote / scratch / discard, each with its reason (SPEC §6).

Rules, checked top to bottom (the first that matches decides; prefix features only):

1. discard: repeated error (a = 0: the error signature occurred earlier);
2. discard: invalid (status api_error or static_reject, or an ``error`` event);
3. discard: redundant (a non-empty observation with novelty n < 0.2);
4. scratch: unverified (no verdict: plausible but not grounded in a check or tool status);
5. promote: verified (a valid verdict), non-redundant (n ≥ 0.5), a = 1, and used
   (p = 1, i.e. it changed the plan or action, or the harness wrote it to memory);
6. scratch: verified but not promotable (novelty in [0.2, 0.5), or not used).

Row 6 is ours: SPEC §6 names three outcomes, and a verified event that is neither
redundant nor novel and used enough fits "keep temporarily" best.
"""

from __future__ import annotations

from efc_tui.adapter.config import DISCARD_NOVELTY, INVALID_STATUSES, PROMOTE_NOVELTY
from efc_tui.model import STATUS_VALUE, Event, EventKind, Status

# kind names for the reasons (as model.STATUS_VALUE: a dict lookup, cheaper than .value)
_KIND_NAME = {k: k.value for k in EventKind}

PROMOTE = "promote"
SCRATCH = "scratch"
DISCARD = "discard"


def gate_memory(ev: Event, *, n: float, a: float, p: float, memory_write: float) -> tuple[str, str]:
    """(decision, reason) for one event from its prefix features n, a, p and m_prefix."""
    status = ev.status
    if a < 1.0:
        return (
            DISCARD,
            f"repeated error: {STATUS_VALUE[status]} with an error signature seen earlier",
        )
    if status in INVALID_STATUSES or ev.kind is EventKind.ERROR:
        what = STATUS_VALUE[status] if status in INVALID_STATUSES else "error event"
        return DISCARD, f"invalid: {what}"
    obs = ev.observation_text
    has_obs = bool(obs) and not obs.isspace()  # non-blank, without a stripped copy
    if has_obs and n < DISCARD_NOVELTY:
        return DISCARD, f"redundant: novelty {n:.2f} < {DISCARD_NOVELTY:g}"
    if status is Status.NONE:
        return SCRATCH, f"unverified: no verdict ({_KIND_NAME[ev.kind]} event)"
    used = []
    if p >= 1.0:
        used.append("plan/action change")
    if memory_write >= 1.0:
        used.append("memory write")
    if n >= PROMOTE_NOVELTY and used:
        return (
            PROMOTE,
            f"verified {STATUS_VALUE[status]}, novel (n={n:.2f}), used ({', '.join(used)})",
        )
    if n < PROMOTE_NOVELTY:
        return SCRATCH, f"verified {STATUS_VALUE[status]} but novelty {n:.2f} < {PROMOTE_NOVELTY:g}"
    return SCRATCH, f"verified {STATUS_VALUE[status]} but not used (no plan change or memory write)"
