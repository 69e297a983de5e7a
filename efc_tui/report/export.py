"""The annotated ledger export, schema ``efc-ledger/1`` (SPEC §10).

One JSON document per run: run metadata, run-level figures, the estimator and constants
used (with hashes), every estimated/fallback flag, and one entry per event. The JSON
Schema is ``efc_tui/schemas/efc-ledger-1.schema.json``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson

from efc_tui import __version__
from efc_tui.adapter.result import ScoredRun
from efc_tui.report.output import dumps as dumps  # the documents written beside the ledgers
from efc_tui.scoring import constants as K
from efc_tui.scoring.columns import LEDGER_COLUMNS
from efc_tui.scoring.ledger import Ledger

LEDGER_SCHEMA = "efc-ledger/1"


def constants_used() -> dict[str, Any]:
    """The scoring constants as exported, with a hash so two exports can be compared."""
    consts = {
        "kappa": K.KAPPA,
        "alpha_A": K.ALPHA_A,
        "Q": {s.value: q for s, q in K.Q_STATUS.items()},
        "G": {
            "first": K.G_FIRST,
            "newly_passed": K.G_NEWLY_PASSED,
            "rose": K.G_ROSE,
            "same_failure": K.G_SAME_FAIL,
            "fell": K.G_FELL,
            "other": K.G_OTHER,
        },
        "Lambda": {
            "repair": K.L_REPAIR,
            "generation_passed": K.L_GEN_PASSED,
            "generation_other": K.L_GEN_OTHER,
            "other": K.L_OTHER,
        },
        "C_raw": {
            "tokens_per_1000": K.W_TOK,
            "tool_call": K.W_TOOL,
            "wall_s": K.W_WALL,
            "op": K.W_OP,
        },
        "eps_D": K.EPS_D,
        "rho_scale": K.RHO_SCALE,
    }
    blob = orjson.dumps(consts, option=orjson.OPT_SORT_KEYS)
    consts["sha256"] = hashlib.sha256(blob).hexdigest()
    return consts


#: one step of an event entry: (key, values, None) for a plain column, or
#: (group, None, [(key, values), ...]) for a sub-object ([] when the run lacks it: null)
_Step = tuple[str, list[Any] | None, list[tuple[str, list[Any]]] | None]


def _event_plan(ledger: Ledger) -> list[_Step]:
    """The event entry's keys in order, each with its values for every event, from the one
    column spec (``efc_tui.scoring.columns``)."""
    has_oracle = ledger.oracle is not None
    plan: list[_Step] = []
    groups: dict[str, list[tuple[str, list[Any]]]] = {}
    for col in LEDGER_COLUMNS:
        present = has_oracle or not col.oracle
        values: list[Any] | None = None
        if present:
            raw = col.values(ledger)
            values = raw.tolist() if hasattr(raw, "tolist") else list(raw)
        if col.group is None:
            plan.append((col.export_name, values, None))
            continue
        if col.group not in groups:
            groups[col.group] = []
            plan.append((col.group, None, groups[col.group]))
        if values is not None:
            groups[col.group].append((col.export_name, values))
    return plan


def ledger_document(scored: ScoredRun | Ledger, *, with_text: bool = False) -> dict[str, Any]:
    """The efc-ledger/1 document of one scored run (``adapter`` is null for a bare ledger)."""
    if isinstance(scored, ScoredRun):
        ledger, decisions, summary = scored.ledger, scored.decisions, scored.summary
    else:
        ledger, decisions, summary = scored, None, None
    run = ledger.run
    est = ledger.estimator
    plan = _event_plan(ledger)
    events = []
    for i, ev in enumerate(run.events):
        entry: dict[str, Any] = {}
        for name, values, group in plan:
            if group is not None:
                entry[name] = {k: v[i] for k, v in group} if group else None
            else:
                entry[name] = None if values is None else values[i]
        entry["adapter"] = decisions[i].as_dict() if decisions is not None else None
        entry["flags"] = list(ev.flags)
        if ev.extra:
            entry["extra"] = ev.extra
        if with_text:
            entry["action"] = ev.action_text
            entry["observation"] = ev.observation_text
        events.append(entry)
    return {
        "schema": LEDGER_SCHEMA,
        "generator": {"name": "efc-tui", "version": __version__},
        "run": {
            "run_id": run.run_id,
            "task_id": run.task_id,
            "task_family": run.task_family,
            "harness": run.harness,
            "model": run.model,
            "budget": run.budget,
            "success": run.success,
            "reward": run.reward,
            "success_from": run.success_from,
            "exit_status": run.exit_status,
            "cost_usd": run.cost_usd,
            "task_demand": run.task_demand.as_dict() if run.task_demand else None,
            "source_format": run.source_format,
            "source_path": run.source_path,
            "extra": run.extra,
        },
        "figures": ledger.figures.as_dict(),
        "harness_quantities": ledger.harness.as_dict(),
        "demand": {
            "components": ledger.demand.components,
            "hand": ledger.demand.hand,
            "fitted": ledger.demand.fitted,
            "trace": ledger.trace_demand(),
        },
        "estimator": {
            "source": est.source,
            "sha256": est.sha256,
            "provenance": est.provenance,
            "full": {"theta0": est.full.theta0, "theta": list(est.full.theta)},
            "prefix": {"theta0": est.prefix.theta0, "theta": list(est.prefix.theta)},
        },
        "constants": constants_used(),
        "adapter": summary.as_dict() if summary is not None else None,
        "flags": ledger.flags,
        "warnings": run.warnings,
        "events": events,
    }


#: what ``export`` writes, by the target's suffix (a folder gets one ``.ledger.json`` per run;
#: a name without a suffix gets JSON)
EXPORT_SUFFIXES: dict[str, str] = {
    ".json": "JSON",
    ".jsonl": "JSON lines",
    ".parquet": "Parquet",
    "": "JSON",
}


def check_export_suffix(target: str | Path, *, parquet: bool = True) -> None:
    """Raise ``InputError`` unless ``target``'s suffix names a format export writes
    (``EXPORT_SUFFIXES``): ``-o events.csv`` is refused instead of silently holding JSON."""
    from efc_tui.errors import InputError

    suffix = Path(target).suffix.lower()
    allowed = {k: v for k, v in EXPORT_SUFFIXES.items() if parquet or k != ".parquet"}
    if suffix not in allowed:
        names = ", ".join(k for k in allowed if k)
        raise InputError(
            f"export writes {names} or a folder, not {suffix}"
            + (" (for run figures as CSV: efc-tui score --csv)" if suffix == ".csv" else ""),
            str(target),
        )
