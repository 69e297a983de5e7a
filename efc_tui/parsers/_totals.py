"""Totals a source declares for a whole run, and the check of the events against them.

Many logs state their own totals beside the per-call records (ATIF ``final_metrics``,
mini-swe-agent / SWE-agent ``info.model_stats``, the ``result`` line of Claude Code's
``stream-json``, an OpenHands record's ``metrics``, Harbor's trial ``result.json``). They
are kept in one structure, ``run.extra["source_totals"]``::

    {"tokens_in": int | None,     # every input token, cached ones included (as events count)
     "tokens_out": int | None,    # every output token
     "cache_tokens": int | None,  # cached input tokens (reads), part of tokens_in
     "cost_usd": float | None,    # money spent
     "from": "<file or field>"}   # where the totals were read

and :func:`check_source_totals` compares the events' sums with it (tokens, cache reads, and
the calls' recorded cost where they record one).
A mismatch is never resolved silently: the run gets a flag that names each quantity, both
values and the likely cause. Whoever fills the structure from another file (Harbor
``result.json``: see :func:`totals_from_counts`) calls the check again; it replaces its
earlier flags.
"""

from __future__ import annotations

from typing import Any

from efc_tui.model import Run
from efc_tui.parsers._values import as_dict, as_float, opt_count

KEY = "source_totals"
FLAG_PREFIX = "source totals"
#: relative tolerance for money (sums of floats); token counts must match exactly
COST_RTOL = 1e-6


def totals_from_counts(
    *,
    input_tokens: Any = None,
    output_tokens: Any = None,
    cache_tokens: Any = None,
    cost_usd: Any = None,
    source: str,
    cache_separate: bool | None = None,
) -> dict[str, Any]:
    """The structure from a source's counts. ``input_tokens`` may or may not include the
    cached tokens: ``cache_separate`` says which; None decides from the numbers (cached
    tokens larger than the input cannot be part of it, as OpenClaw on Harbor reports)."""
    tin, tout, cache = opt_count(input_tokens), opt_count(output_tokens), opt_count(cache_tokens)
    if cache_separate is None:
        cache_separate = tin is not None and cache is not None and cache > tin
    if tin is not None and cache_separate and cache:
        tin += cache
    return {
        "tokens_in": tin,
        "tokens_out": tout,
        "cache_tokens": cache,
        "cost_usd": as_float(cost_usd),
        "from": source,
    }


def set_source_totals(run: Run, totals: dict[str, Any]) -> None:
    """Keep a source's totals on the run (only the quantities it gives) and check them."""
    kept = {k: v for k, v in totals.items() if v is not None}
    if any(k in kept for k in ("tokens_in", "tokens_out", "cache_tokens", "cost_usd")):
        run.extra[KEY] = kept
        check_source_totals(run)


def check_source_totals(run: Run) -> list[str]:
    """Compare the events' token sums, their cache reads and their calls' cost with
    ``run.extra["source_totals"]``; add one flag per mismatch (earlier flags of this check
    are replaced) and return the mismatches."""
    run.flags[:] = [f for f in run.flags if not f.startswith(FLAG_PREFIX)]
    totals = as_dict(run.extra.get(KEY))
    if not totals:
        return []
    src = totals.get("from") or "the source"
    estimated = sum(1 for e in run.events if "tokens" in e.flags)
    ours = {
        "tokens_in": sum(e.tokens_in for e in run.events),
        "tokens_out": sum(e.tokens_out for e in run.events),
        "cache_tokens": sum(int(e.extra.get("cache_read_tokens") or 0) for e in run.events),
    }
    found: list[str] = []
    for key, mine in ours.items():
        theirs = opt_count(totals.get(key))
        if theirs is None or theirs == mine:
            continue
        rel = (mine - theirs) / theirs if theirs else float("inf")
        why = f" ({estimated} event(s) estimated from text)" if estimated else ""
        found.append(
            f"{FLAG_PREFIX}: {key} {mine} from the events, {theirs} in {src} ({rel:+.1%}){why}"
        )
    cost = as_float(totals.get("cost_usd"))
    costs = [c for c in (as_float(e.extra.get("cost_usd")) for e in run.events) if c is not None]
    if cost is not None and costs:
        mine_cost = sum(costs)
        if abs(mine_cost - cost) > COST_RTOL * abs(cost) + 1e-9:
            found.append(
                f"{FLAG_PREFIX}: cost_usd {mine_cost:.6g} from the calls, {cost:.6g} in {src}"
            )
    run.flags.extend(found)
    return found
