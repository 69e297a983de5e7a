"""The ``owner__repo`` family of a SWE-bench instance id (mini-swe-agent, SWE-agent).

Whether an instance was resolved comes from the evaluation reports beside a trajectory:
``sidecars.py`` reads them for every reader's runs; the parsers of sb-cli's files
(``results_summary.json`` and ``logs/<instance>/report.json`` in the run folder) are here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

_SWEBENCH_ID = re.compile(r"^(?P<family>[A-Za-z0-9_.-]+__[A-Za-z0-9_.-]+)-\d+$")


def swebench_family(task_id: str | None) -> str | None:
    """``owner__repo`` for a SWE-bench instance id like ``owner__repo-1234``, else None."""
    if not task_id:
        return None
    m = _SWEBENCH_ID.match(task_id)
    return m.group("family") if m else None


#: how far above a trajectory an sb-cli run folder can be
#: (``<run>/trajs/<id>/<id>.traj.json``: three levels)
SBCLI_LEVELS = 3
#: sb-cli's run summary: ``{"instances": [{"instance_id", "resolved"}, ...]}``
SBCLI_SUMMARY = "results_summary.json"
#: what a run graded by a SWE-bench evaluation is a run of (``extra["benchmark"]``)
BENCHMARK = "SWE-bench"


def summary_labels(doc: Any) -> dict[str, bool]:
    """instance id -> resolved, from an sb-cli ``results_summary.json``."""
    out: dict[str, bool] = {}
    if not isinstance(doc, dict) or not isinstance(doc.get("instances"), list):
        return out
    for item in doc["instances"]:
        if isinstance(item, dict) and isinstance(item.get("resolved"), bool):
            iid = item.get("instance_id")
            if isinstance(iid, str) and iid:
                out[iid] = item["resolved"]
    return out


def instance_report_label(doc: Any, instance_id: str) -> bool | None:
    """``resolved`` of one instance's ``logs/<id>/report.json``: flat (sb-cli:
    ``{"resolved": true, "tests_status": ...}``) or keyed by the id (the harness's)."""
    if not isinstance(doc, dict):
        return None
    if isinstance(doc.get("resolved"), bool):
        return bool(doc["resolved"])
    inner = doc.get(instance_id)
    if isinstance(inner, dict) and isinstance(inner.get("resolved"), bool):
        return bool(inner["resolved"])
    return None


def sbcli_outcome(
    ids: list[str], folders: list[Path], load: Callable[[Path], tuple[Any, str | None]]
) -> tuple[str, bool, Path] | None:
    """(instance id, resolved, file) from an sb-cli run folder among ``folders`` (the
    trajectory's ancestors, nearest first): ``logs/<id>/report.json`` first (one
    instance's own report), then ``results_summary.json``. ``load`` reads a JSON sidecar
    (cached) as ``(document, problem)``."""
    for folder in folders[:SBCLI_LEVELS]:
        logs = folder / "logs"
        for iid in ids if logs.is_dir() else ():  # most folders have no logs/
            report = logs / iid / "report.json"
            label = instance_report_label(load(report)[0], iid)
            if label is not None:
                return iid, label, report
        summary = folder / SBCLI_SUMMARY
        labels = summary_labels(load(summary)[0])
        for iid in ids:
            if iid in labels:
                return iid, labels[iid], summary
    return None
