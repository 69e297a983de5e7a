"""How much of a tau-bench run's outcome is in *what* it did, not in its feedback (issue 29;
docs/fitting.md, "Grouped real runs"). A diagnostic, not a coordinate: it is not feedback
and it memorizes the tasks it has seen.

    python bench/reference_agreement.py [DIR]      # default ../shared/real-runs-grouped

For each labeled tau-bench run, held out by harness and by model: among the *other*
harnesses' (models') runs of the same task whose calls match this run's, the share that
succeeded (a Laplace-smoothed rate; ½ when none match). Two call signatures: every valid
call (tool and canonical JSON arguments, ``scoring/api_features.py``'s validity), and the
state-changing calls only (tau-bench's read tools, named ``get_* find_* list_* search_*
calculate think transfer_to_human_agents``, left out). Prints per-run AUC pooled and within
task. tau-bench's reward compares the final database with the reference actions', so a run
that made the same writes as other configurations' successes succeeds: the write-signature
row is close to the outcome itself. A few seconds.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import orjson

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from efc_tui.api import load_all  # noqa: E402
from efc_tui.fitting.crossfit import within_auc  # noqa: E402
from efc_tui.fitting.validity import auc  # noqa: E402
from efc_tui.model import Run  # noqa: E402
from efc_tui.scoring.api_features import api_feedback  # noqa: E402
from efc_tui.scoring.demand import task_key  # noqa: E402

_READ = re.compile(r"(get_|find_|list_|search_|calculate|think|transfer_to_human)")


def _canon(args: str) -> str:
    try:
        return orjson.dumps(orjson.loads(args or "{}"), option=orjson.OPT_SORT_KEYS).decode()
    except orjson.JSONDecodeError:
        return args


def calls(run: Run, writes_only: bool) -> frozenset[tuple[str | None, str]]:
    fb = api_feedback(run)
    return frozenset(
        (e.tool, _canon(e.action_text))
        for i, e in enumerate(run.events)
        if fb.call[i] and fb.valid[i] and not (writes_only and _READ.match(e.tool or ""))
    )


def agreement(runs: list[Run], sig: Callable[[Run], object], axis: list[str]) -> np.ndarray:
    by: dict[tuple[str, object], list[int]] = defaultdict(list)
    sigs = [sig(r) for r in runs]
    tasks = [task_key(r) or r.run_id for r in runs]
    for i, s in enumerate(sigs):
        by[(tasks[i], s)].append(i)
    p = np.empty(len(runs))
    for i, s in enumerate(sigs):
        other = [j for j in by[(tasks[i], s)] if axis[j] != axis[i]]
        wins = sum(bool(runs[j].success) for j in other)
        p[i] = (wins + 0.5) / (len(other) + 1)
    return p


def main() -> int:
    folder = (
        Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "real-runs-grouped"
    )
    if not folder.is_dir():
        print(f"no {folder}: nothing to report", file=sys.stderr)
        return 2
    runs = [
        r for r in load_all(str(folder)) if r.source_format == "tau-bench" and r.success is not None
    ]
    y = np.array([float(bool(r.success)) for r in runs])
    tasks = [task_key(r) or r.run_id for r in runs]
    print(f"{len(runs)} labeled tau-bench runs, {len(set(tasks))} tasks")
    for label, writes in (("every valid call", False), ("state-changing calls", True)):
        for name, axis in (
            ("harness", [r.harness or "?" for r in runs]),
            ("model", [r.model or "?" for r in runs]),
        ):
            p = agreement(runs, partial(calls, writes_only=writes), axis)
            print(
                f"{label:22s} held out by {name:8s} AUC {auc(y, p):.2f}  "
                f"within task {within_auc(y, p, tasks):.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
