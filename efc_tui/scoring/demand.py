"""Task demand D_task (SPEC §4, paper eq. 12): a property of the task, never of the run.

Hand-designed form:

    D_task = max(ε_D, L · H_tool · S_state · (1 + N_obs) · (1 − V_ver)),  ε_D = 0.05

Fitted form (frozen in the estimator file after calibration):

    D = exp(β0) · L^β1 · H_tool^β2 · S_state^β3 · (1 + N_obs)^β4 · (1 − V_ver)^β5

with each component first divided by its calibration median.

**Decision (where D comes from; docs/equations.md).** The paper takes D_task from task
metadata. A trace that has none used to be given components estimated from the trace
itself (distinct actions, tool entropy, ...), which grow with the length of the run being
scored: a long failing run then looked like a hard task and X = EFC / D stayed flat. Now D is
taken, in this order, from

1. **metadata**: the run header's five ``task_demand`` components (the hand and fitted
   forms above);
2. **task**: the estimator's task table: the demand calibrated for this task id on other
   runs of the same task (``efc-tui calibrate`` on labeled real runs, see docs/calibration.md);
3. **benchmark**: the estimator's median demand of the task's family or benchmark;
4. **prior**: metadata components where present, the documented prior (``D_PRIOR``) for
   the rest, through the hand and fitted forms.

``Demand.source`` and the ledger's flags say which. The trace estimates of the earlier
version (``estimate_components``, SPEC §4's "estimated from the trace") are kept for
comparison, computed when asked (``trace_demand``: ``Ledger.trace_demand``, the ledger
document's ``demand.trace``) and used for nothing else; ``score``'s rows do not ask:

- L: distinct (tool, target) actions among tool/check/generation/repair events, at least 1;
- H_tool: 1 + Shannon entropy (bits) of the tool-name distribution;
- S_state: 1 + share of events whose observation is cited later (z);
- N_obs: share of events with an inconsistent, empty or truncated observation (q < 1);
- V_ver: share of events with a verdict, capped at 0.95.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import compress
from operator import attrgetter
from typing import Any

import numpy as np
from msgspec import Struct, field

from efc_tui.model import EventKind, Run
from efc_tui.scoring.constants import D_PRIOR, EPS_D
from efc_tui.scoring.event_columns import KIND_CODE, KINDS, EventColumns, event_columns
from efc_tui.scoring.factors import Harness, entropy_bits, share, tool_counts
from efc_tui.scoring.features import Features, target

COMPONENTS = ("L", "H_tool", "S_state", "N_obs", "V_ver")
V_VER_CAP = 0.95
SOURCES = ("metadata", "task", "benchmark", "prior")
_ACTING = (EventKind.TOOL, EventKind.CHECK, EventKind.GENERATION, EventKind.REPAIR)
#: whether a kind's code (``event_columns``) is one of ``_ACTING``
_IS_ACTING = np.isin(np.arange(len(KINDS)), [KIND_CODE[k] for k in _ACTING])
_TOOL, _ACT = attrgetter("tool"), attrgetter("action_text")


class Demand(Struct):
    """D_task of a run: ``hand`` is the D that X divides by, ``fitted`` the fitted form."""

    components: dict[str, float]
    hand: float
    fitted: float | None
    flags: list[str] = field(default_factory=list)
    #: where D came from: metadata, task, benchmark or prior (module docstring)
    source: str = "metadata"


def d_task_hand(L: float, H_tool: float, S_state: float, N_obs: float, V_ver: float) -> float:
    """D_task, hand-designed form (SPEC §4)."""
    return max(EPS_D, L * H_tool * S_state * (1.0 + N_obs) * (1.0 - V_ver))


def d_task_fitted(components: Mapping[str, float], spec: Mapping[str, Any]) -> float:
    """D_task, fitted form: exp(β0)·Π (component / median)^β (SPEC §4)."""
    beta = spec["beta"]
    med = spec.get("medians", {})
    terms = {
        "L": components["L"],
        "H_tool": components["H_tool"],
        "S_state": components["S_state"],
        "N_obs": 1.0 + components["N_obs"],
        "V_ver": 1.0 - min(components["V_ver"], V_VER_CAP),
    }
    log_d = float(beta[0])
    for b, name in zip(beta[1:], COMPONENTS, strict=True):
        v = max(terms[name], 1e-9) / max(float(med.get(name, 1.0)), 1e-9)
        log_d += float(b) * math.log(v)
    return max(EPS_D, math.exp(log_d))


def estimate_components(
    run: Run, f: Features, harness: Harness | None = None, cols: EventColumns | None = None
) -> dict[str, float]:
    """The five components estimated from the trace (SPEC §4's fallback; comparison only).
    ``harness``: the run's harness quantities, whose H_tool is this one's entropy (not
    counted again); ``cols``: the run's ``event_columns``, when the caller has them."""
    events = run.events
    T = len(events)
    # agents repeat the same commands: the target is found once per distinct (tool, input)
    # (C-level map and compress: no Python loop per event)
    kinds = (cols if cols is not None else event_columns(events)).kind
    pairs = zip(map(_TOOL, events), map(_ACT, events), strict=True)
    acting = set(compress(pairs, _IS_ACTING[kinds].tolist()))
    targets = {(tool, target(act)) for tool, act in acting}
    return {
        "L": float(max(1, len(targets))),
        "H_tool": 1.0
        + (harness.H_tool if harness is not None else entropy_bits(tool_counts(events))),
        "S_state": 1.0 + (share(f.z) if T else 0.0),
        "N_obs": share(f.q < 1.0) if T else 0.0,
        "V_ver": min(V_VER_CAP, share(f.has_verdict) if T else 0.0),
    }


def run_key(run: Run) -> str:
    """A short, stable key of a run: its id, agent and model (a run id alone repeats across
    models of one benchmark): what a task table's ``run_keys`` list (``calibrate_real``)."""
    import hashlib

    text = f"{run.run_id}|{run.harness or ''}|{run.model or ''}"
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def task_key(run: Run) -> str | None:
    """The key of a run's task in a task table: ``<benchmark>/<task id>`` when the run names
    its benchmark (a tau-bench task id is unique within its domain only), else the task id."""
    if run.task_id is None:
        return None
    b = run.extra.get("benchmark") if isinstance(run.extra, dict) else None
    return f"{b}/{run.task_id}" if isinstance(b, str) and b else run.task_id


def _lookup(table: Any, key: str | None) -> Mapping[str, Any] | None:
    if not key or not isinstance(table, Mapping):
        return None
    hit = table.get(key)
    return hit if isinstance(hit, Mapping) and isinstance(hit.get("D"), int | float) else None


def task_level_demand(run: Run, spec: Mapping[str, Any] | None) -> Demand:
    """D_task from what is known about the task before any event (module docstring): the
    run's metadata, the estimator's task and benchmark tables, the prior. Never the trace."""
    td = run.task_demand.as_dict() if run.task_demand is not None else {}
    known = {k: float(v) for k, v in td.items() if v is not None}
    if len(known) == len(COMPONENTS):
        fitted = d_task_fitted(known, spec) if spec and spec.get("beta") else None
        return Demand(known, d_task_hand(**known), fitted, [], "metadata")
    spec = spec or {}
    key = task_key(run)
    task = _lookup(spec.get("tasks"), key) or (
        _lookup(spec.get("tasks"), run.task_id) if key != run.task_id else None
    )
    if task is not None and task.get("run_keys") and run_key(run) in task["run_keys"]:
        prior = _lookup(spec, "prior")
        if prior is not None:
            d = max(EPS_D, float(prior["D"]))
            return Demand(
                known,
                d,
                d,
                [
                    "D_task: the prior (this run helped calibrate its task's demand, "
                    "so that demand is not used on it)"
                ],
                "prior",
            )
        task = None
    if task is not None:
        d = max(EPS_D, float(task["D"]))
        n = task.get("runs")
        note = (
            f"D_task from other runs of this task ({n} calibration runs)"
            if n
            else "D_task from the task table"
        )
        return Demand(known, d, d, [note], "task")
    fam = _lookup(spec.get("families"), run.task_family)
    if fam is not None:
        d = max(EPS_D, float(fam["D"]))
        return Demand(
            known,
            d,
            d,
            [f"D_task: the median of benchmark {run.task_family!r} (task not calibrated)"],
            "benchmark",
        )
    comps = {k: known.get(k, D_PRIOR[k]) for k in COMPONENTS}
    prior = _lookup(spec, "prior")
    flags = [
        "D_task: "
        + ("metadata where given, " if known else "")
        + "the documented prior for "
        + ", ".join(k for k in COMPONENTS if k not in known)
    ]
    if prior is not None and not known:
        d = max(EPS_D, float(prior["D"]))
        return Demand(comps, d, d, flags, "prior")
    fitted = d_task_fitted(comps, spec) if spec.get("beta") else None
    return Demand(comps, d_task_hand(**comps), fitted, flags, "prior")


def task_demand(run: Run, spec: Mapping[str, Any] | None) -> Demand:
    """The run's D_task (``task_level_demand``), flagged when the fitted form is missing
    for want of the estimator's demand exponents."""
    dem = task_level_demand(run, spec)
    if dem.fitted is None and dem.source in ("metadata", "prior") and not (spec or {}).get("beta"):
        dem.flags.append("fitted D_task unavailable: the estimator has no demand exponents yet")
    return dem


def trace_demand(
    run: Run, f: Features, harness: Harness | None = None, cols: EventColumns | None = None
) -> float:
    """The hand form over the components estimated from the run's own trace
    (``estimate_components``): SPEC §4's fallback, for comparison only. Computed when
    asked, not for every scored run (it was 1.4% of `score`'s instructions on ../shared's
    real runs, for a number no row shows)."""
    return d_task_hand(**estimate_components(run, f, harness, cols))
