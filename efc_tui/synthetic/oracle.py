"""Oracle terms of synthetic events: Δlatent and the B_* multipliers (SPEC §3.1).

Paper appendix "EFC Factor Measurement / Synthetic Controllable Tasks" normalizes Δlatent by
the task's size:

    Needle Lookup   Δlatent = clip((|C_{t-1}| - |C_t|) / max(1, |C_{t-1}|) + b_t)
    State Tracking  Δlatent = clip((d_t - d_{t-1}) / max(1, L) + r_fix_t)
    Rule Filter     Δlatent = clip((E_t - E_{t-1} + P_t - P_{t-1}) / max(1, N_items))

and also divides EFC by a D_task that contains L; together they count the task's size
twice. **Decision (absolute progress, L in D).** We read Δlatent as *absolute* progress (the
same formulas without the size denominators: one shard hypothesis ruled out, one value
recovered, one transition committed or fixed, one item eliminated or condition confirmed is
one unit, clipped at 1 per event) and keep L in D_task, where the paper puts it. In this
simulator every credited lookup is then exactly one unit of the work ``tasks.required_work``
counts, so Oracle-EFC / κ is the work done and Oracle-EFC / D_task the share of the need met.
The paper's normalized forms are kept below (``*_normalized``) for comparison.

The paper names the B_* terms but leaves their values open. Ours are *realized* per event,
read from the hidden state (what actually happened at that event, not a task constant), so
task difficulty is counted once, in D_task, and harness quality shows up in how many events
are relevant, faithful and retained:

| term     | value here |
|----------|------------|
| B_route  | 1 when the call went to one of the task's plausible tools or its checker (or was no tool call); 0.25 for an irrelevant distractor tool |
| B_noise  | 1 when the reading was faithful; 0 when the channel corrupted it into the other candidate |
| B_verify | 1: a faithful reading is valid whether or not a verifier looked at it (verification acts through what the agent keeps: a corrupted reading a verified call catches never enters its belief) |
| V_er     | 1: the checker is deterministic |
| B_tool   | 1: tool ambiguity is the task's (H_tool in D_task), paid for by credited misses |
| B_mem    | hindsight: 1 when the event's information was kept (in memory or in context) until it was used; 0 when a context compaction lost it or the agent discarded it in a conflict |
| B_state  | 1: a later state change that invalidates an established fact is the task's demand (S_state in D_task), not a retention failure |
| n        | 1 when the event told the agent something new; 0.5 for a distractor's irrelevant output; 0 for a repeated query |
"""

from __future__ import annotations


def clip(x: float) -> float:
    """clip(x) = min(1, max(0, x)) (SPEC §3)."""
    return 1.0 if x > 1.0 else 0.0 if x < 0.0 else x


def needle_delta(c_prev: int, c_cur: int, recovered: bool) -> float:
    """Needle Lookup, absolute: clip((|C_{t-1}| - |C_t|) + b_t)."""
    return clip((c_prev - c_cur) + (1.0 if recovered else 0.0))


def state_delta(d_prev: int, d_cur: int, fixed: bool) -> float:
    """State Tracking, absolute: clip((d_t - d_{t-1}) + r_fix_t)."""
    return clip((d_cur - d_prev) + (1.0 if fixed else 0.0))


def rule_delta(e_prev: int, e_cur: int, p_prev: int, p_cur: int) -> float:
    """Rule Filter, absolute: clip(E_t - E_{t-1} + P_t - P_{t-1})."""
    return clip(e_cur - e_prev + p_cur - p_prev)


def needle_delta_normalized(c_prev: int, c_cur: int, recovered: bool) -> float:
    """The paper's form: clip((|C_{t-1}| - |C_t|) / max(1, |C_{t-1}|) + b_t)."""
    return clip((c_prev - c_cur) / max(1, c_prev) + (1.0 if recovered else 0.0))


def state_delta_normalized(d_prev: int, d_cur: int, L: int, fixed: bool) -> float:
    """The paper's form: clip((d_t - d_{t-1}) / max(1, L) + r_fix_t)."""
    return clip((d_cur - d_prev) / max(1, L) + (1.0 if fixed else 0.0))


def rule_delta_normalized(e_prev: int, e_cur: int, p_prev: int, p_cur: int, n_items: int) -> float:
    """The paper's form: clip((E_t - E_{t-1} + P_t - P_{t-1}) / max(1, N_items))."""
    return clip((e_cur - e_prev + p_cur - p_prev) / max(1, n_items))


#: B_route of an action sent to an irrelevant distractor tool
B_ROUTE_DISTRACTOR = 0.25
#: oracle novelty of a distractor's output (new text, nothing relevant)
N_DISTRACTOR = 0.5


def oracle_block(
    *, delta_latent: float, distractor: bool, faithful: bool, kept: bool, n: float
) -> dict[str, float]:
    """One event's oracle block (the keys ``efc_tui.scoring.factors.oracle_factors`` reads)."""
    return {
        "delta_latent": clip(delta_latent),
        "B_route": B_ROUTE_DISTRACTOR if distractor else 1.0,
        "B_noise": 1.0 if faithful else 0.0,
        "B_verify": 1.0,
        "V_er": 1.0,
        "B_tool": 1.0,
        "B_mem": 1.0 if kept else 0.0,
        "B_state": 1.0,
        "n": n,
    }
