"""The run table: one row of figures and metadata per run, nothing per event.

``efc-tui fit`` streams runs through scoring and keeps only :func:`run_row` of each, so a
corpus of thousands of runs costs a few hundred bytes a run. Columns are numpy arrays
(floats, NaN for unknown) and lists of labels; :meth:`RunTable.to_pandas` gives a
DataFrame for notebooks (pandas is imported only there).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from efc_tui.errors import InputError
from efc_tui.fitting.predictors import derived
from efc_tui.model import EventKind, Run, Status

if TYPE_CHECKING:
    import pandas as pd

    from efc_tui.scoring import Estimator, Ledger

#: run metadata used for grouping, held-out splits and the task-level bootstrap
LABEL_COLUMNS: tuple[str, ...] = (
    "run_id",
    "task_id",
    "task_family",
    "benchmark",
    "harness",
    "model",
    "budget",
    "source",
)
#: the axes runs can be grouped by and held out along
AXES: tuple[str, ...] = ("task_family", "benchmark", "harness", "model", "budget", "source")

#: RunFigures fields kept per run (SPEC §4)
FIGURE_COLUMNS: tuple[str, ...] = (
    "events",
    "efc",
    "est_efc",
    "stable_efc",
    "nrs_efc",
    "oracle_efc",
    "c_raw",
    "tokens",
    "tool_calls",
    "wall_s",
    "ops",
    "d_task",
    "d_task_fitted",
)
#: run-level quantities the SAS baseline maps onto its variables (see fitting/sas.py)
SAS_COLUMNS: tuple[str, ...] = (
    "turns",
    "tools_used",
    "tools_available",
    "n_agents",
    "agent_messages",
    "redundancy",
    "overhead_tokens",
    "error_events",
    "retries",
)
#: figures computed from the others (``predictors.DERIVED``): RF rate = NRS-EFC per event
DERIVED_COLUMNS: tuple[str, ...] = ("rf_rate",)
FLOAT_COLUMNS: tuple[str, ...] = ("success", *FIGURE_COLUMNS, *DERIVED_COLUMNS, *SAS_COLUMNS)

#: the label of a missing metadata value (its own group, never silently merged)
MISSING = "?"

_FAILING = frozenset(s for s in Status if s not in (Status.PASSED, Status.NONE))


def budget_label(budget: Mapping[str, Any] | None) -> str:
    """A canonical, order-free label of a budget dict (``tokens=2000 tools=10``)."""
    if not budget:
        return MISSING
    parts = []
    for k in sorted(budget):
        v = budget[k]
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        parts.append(f"{k}={v}")
    return " ".join(parts)


def _meta_number(extra: Mapping[str, Any], *keys: str) -> float | None:
    """A count or number from the run header's extra fields; None when absent."""
    for k in keys:
        v = extra.get(k)
        if isinstance(v, list | tuple | dict):
            return float(len(v))
        if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v):
            return float(v)
    return None


def sas_quantities(
    run: Run, repeat_action: Sequence[bool] | np.ndarray | None = None
) -> dict[str, float | None]:
    """The run-level quantities SAS needs, from the trace (and header metadata when given).

    - turns: model turns = distinct step indices (one model call per step);
    - tools_used: distinct tool names; tools_available: header ``tools_available`` (a
      count or a list), else None;
    - n_agents / agent_messages / redundancy: header ``n_agents`` / ``agent_messages`` /
      ``redundancy``, else None (SAS then treats the run as single-agent: 1, 0, 0);
    - overhead_tokens: tokens of turns that follow a failing verdict, repeat an earlier
      identical action, re-plan, or are harness/API errors (SAS v3 trace-level A_e);
    - error_events: events with a failing verdict or of kind error; retries: repeated
      identical actions.
    """
    events = run.events
    extra = run.extra if isinstance(run.extra, dict) else {}
    steps = {e.step for e in events}
    tools = {e.tool for e in events if e.tool}
    overhead = 0.0
    errors = 0
    retries = 0
    prev_failed = False
    for t, e in enumerate(events):
        repeated = bool(repeat_action[t]) if repeat_action is not None else False
        retries += repeated
        if prev_failed or repeated or e.kind is EventKind.PLAN or e.kind is EventKind.ERROR:
            overhead += e.tokens_in + e.tokens_out
        failing = e.status in _FAILING
        if failing or e.kind is EventKind.ERROR:
            errors += 1
        if e.status is not Status.NONE:
            prev_failed = failing
    return {
        "turns": float(len(steps)),
        "tools_used": float(len(tools)),
        "tools_available": _meta_number(extra, "tools_available", "tools"),
        "n_agents": _meta_number(extra, "n_agents", "agents"),
        "agent_messages": _meta_number(extra, "agent_messages"),
        "redundancy": _meta_number(extra, "redundancy"),
        "overhead_tokens": overhead,
        "error_events": float(errors),
        "retries": float(retries),
    }


def source_label(
    source_format: str, source_path: str | None, roots: Sequence[str | Path] = ()
) -> str:
    """Where a run came from: ``<reader's source_format>:<top-level input folder>``.

    The top-level input folder is, for a run found under a folder given as input, the first
    folder below it (``real-runs/<source>/...`` gives ``<source>``), or that input folder's
    own name when the file sits directly in it; otherwise (a file given as input, a glob,
    no input known) the name of the folder holding the file. ``?`` when the run has no path.
    """
    if not source_path:
        return f"{source_format}:{MISSING}"
    path = Path(source_path).resolve()
    for root in roots:
        r = Path(root).resolve()
        if r.is_dir() and path.is_relative_to(r):
            rel = path.relative_to(r).parts
            return f"{source_format}:{rel[0] if len(rel) >= 2 else r.name}"
    return f"{source_format}:{path.parent.name or MISSING}"


def run_benchmark(run: Run) -> str | None:
    """The benchmark a run is a run of, as its reader or its sidecars name it
    (``extra["benchmark"]``: ``tau-bench airline``, ``SWE-bench``), else its task family
    (a run that names no benchmark keeps its family's groups), else None."""
    b = run.extra.get("benchmark") if isinstance(run.extra, dict) else None
    return b if isinstance(b, str) and b.strip() else run.task_family


def run_row(ledger: Ledger, source: str | None = None) -> dict[str, Any]:
    """One run-table row from a scored run: labels, figures and SAS quantities. ``source``
    labels where the run came from (default: ``source_label`` without input roots)."""
    run, fig = ledger.run, ledger.figures
    row: dict[str, Any] = {
        "run_id": run.run_id,
        "task_id": run.task_id if run.task_id is not None else f"run:{run.run_id}",
        "task_family": run.task_family,
        "benchmark": run_benchmark(run),
        "harness": run.harness,
        "model": run.model,
        "budget": budget_label(run.budget),
        "source": source
        if source is not None
        else source_label(run.source_format, run.source_path),
        "success": None if run.success is None else float(run.success),
    }
    for k in FIGURE_COLUMNS:
        row[k] = getattr(fig, k)
    for k in DERIVED_COLUMNS:
        row[k] = derived(k, row.get)
    row.update(sas_quantities(run, ledger.features.repeat_action))
    return row


def _to_float(v: Any) -> float:
    if v is None or isinstance(v, str):
        return math.nan
    try:
        f = float(v)
    except (TypeError, ValueError):
        return math.nan
    return f if math.isfinite(f) else math.nan


@dataclass(slots=True)
class RunTable:
    """Columns of a corpus: ``floats`` (NaN = unknown) and ``labels`` (MISSING = unknown)."""

    floats: dict[str, np.ndarray]
    labels: dict[str, list[str]]
    #: how many rows had a non-finite value in a figure (name -> count), for the notes
    nonfinite: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.labels["run_id"])

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]]) -> RunTable:
        """A table from row mappings (``run_row`` output, or hand-made rows in tests).

        Missing float columns are NaN; a missing ``task_id`` makes each run its own task.
        """
        floats: dict[str, list[float]] = {k: [] for k in FLOAT_COLUMNS}
        labels: dict[str, list[str]] = {k: [] for k in LABEL_COLUMNS}
        nonfinite: dict[str, int] = {}
        for i, row in enumerate(rows):
            for k in FLOAT_COLUMNS:
                raw = row.get(k)
                if raw is None and k in DERIVED_COLUMNS:  # hand-made rows: from their figures
                    raw = derived(k, row.get)
                v = _to_float(raw)
                if math.isnan(v) and raw is not None and not isinstance(raw, str):
                    nonfinite[k] = nonfinite.get(k, 0) + 1
                floats[k].append(v)
            run_id = row.get("run_id")
            run_id = str(run_id) if run_id is not None else f"row{i}"
            for k in LABEL_COLUMNS:
                lv = row.get(k)
                if k == "run_id":
                    labels[k].append(run_id)
                elif k == "task_id" and lv is None:
                    labels[k].append(f"run:{run_id}")
                elif k == "benchmark" and (lv is None or lv == ""):
                    # a row that names no benchmark: its task family (as ``run_benchmark``)
                    tf = row.get("task_family")
                    labels[k].append(MISSING if tf is None or tf == "" else str(tf))
                elif k == "budget" and isinstance(lv, Mapping):
                    labels[k].append(budget_label(lv))
                else:
                    labels[k].append(MISSING if lv is None or lv == "" else str(lv))
        return cls({k: np.asarray(v, dtype=float) for k, v in floats.items()}, labels, nonfinite)

    @classmethod
    def from_runs(
        cls,
        runs: Iterable[Run],
        estimator: Estimator | None = None,
        roots: Sequence[str | Path] = (),
    ) -> RunTable:
        """Score each run and keep its row (the events are dropped as soon as it is scored).
        ``roots``: the inputs the runs were read from, for their ``source`` label."""
        from efc_tui.scoring import score_run

        return cls.from_rows(
            run_row(score_run(r, estimator), source_label(r.source_format, r.source_path, roots))
            for r in runs
        )

    def subset(self, mask: np.ndarray) -> RunTable:
        idx = np.flatnonzero(mask)
        return RunTable(
            {k: v[idx] for k, v in self.floats.items()},
            {k: [v[i] for i in idx] for k, v in self.labels.items()},
            dict(self.nonfinite),
        )

    def codes(self, column: str) -> tuple[np.ndarray, list[str]]:
        """Integer codes of a label column and the sorted distinct values."""
        values, inverse = np.unique(
            np.asarray(self.labels[column], dtype=object).astype(str), return_inverse=True
        )
        return inverse.astype(np.int64), [str(v) for v in values]

    def to_pandas(self) -> pd.DataFrame:
        import pandas as pd

        data: dict[str, Any] = dict(self.labels)
        data.update(self.floats)
        return pd.DataFrame(data)

    def to_rows(self) -> list[dict[str, Any]]:
        out = []
        for i in range(len(self)):
            row: dict[str, Any] = {k: v[i] for k, v in self.labels.items()}
            row.update(
                {k: (None if math.isnan(v[i]) else float(v[i])) for k, v in self.floats.items()}
            )
            out.append(row)
        return out


def require_outcomes(table: RunTable) -> None:
    """Fits need success labels: raise a clear input error when none is known."""
    if len(table) == 0:
        raise InputError("no runs to fit")
    if not np.isfinite(table.floats["success"]).any():
        raise InputError(
            'no run has a success label (the run header\'s "success"); a scaling fit '
            "regresses failure rate on the predictor and needs the outcome of each run"
        )


def check_axes(names: Iterable[str]) -> tuple[str, ...]:
    out = []
    for n in names:
        n = n.strip()
        if n not in AXES:
            raise InputError(f"unknown grouping axis {n!r}; choose from {', '.join(AXES)}")
        if n in out:
            raise InputError(f"axis {n!r} named twice")
        out.append(n)
    if not out:
        raise InputError("name at least one grouping axis")
    return tuple(out)
