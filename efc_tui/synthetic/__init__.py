"""Synthetic controllable tasks with hidden state (SPEC §7; paper appendix "Synthetic
Controllable Tasks" and "Harness Details").

Three task families (Needle Lookup, State Tracking, Rule Filter) over one mechanism whose
task-demand components are causal knobs (``tasks.py``), twelve templates in a factorial
design (``templates.py``), the seven harness presets H0–H6 and three simulated models
(``harnesses.py``), a step-by-step simulator whose events carry oracle blocks (SPEC §3.1;
``engine.py``, ``oracle.py``), and a deterministic corpus writer. Success always comes from
each task's evaluator applied to the final answer, never from an EFC formula.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from efc_tui.synthetic.corpus import CorpusSpec, generate, make_task, write_corpus
    from efc_tui.synthetic.engine import simulate_run
    from efc_tui.synthetic.families import FAMILIES, FAMILY_NAMES
    from efc_tui.synthetic.harnesses import (
        HARNESS_NAMES,
        MODEL_NAMES,
        MODELS,
        PRESETS,
        get_harness,
        get_model,
    )
    from efc_tui.synthetic.tasks import DEFAULT_BUDGETS, DEFAULT_MODELS, DEFAULT_RUNS, DEFAULT_SEED
    from efc_tui.synthetic.templates import DEFAULT_HOLDOUT, TEMPLATES, get_template

#: where each name lives; imported on first use, so importing one submodule (the CLI
#: reads a few constants for --help) does not load the simulator
_WHERE = {
    "CorpusSpec": "corpus",
    "generate": "corpus",
    "make_task": "corpus",
    "write_corpus": "corpus",
    "simulate_run": "engine",
    "FAMILIES": "families",
    "FAMILY_NAMES": "families",
    "HARNESS_NAMES": "harnesses",
    "PRESETS": "harnesses",
    "get_harness": "harnesses",
    "MODEL_NAMES": "harnesses",
    "MODELS": "harnesses",
    "get_model": "harnesses",
    "DEFAULT_BUDGETS": "tasks",
    "DEFAULT_RUNS": "tasks",
    "DEFAULT_SEED": "tasks",
    "DEFAULT_MODELS": "tasks",
    "DEFAULT_HOLDOUT": "templates",
    "TEMPLATES": "templates",
    "get_template": "templates",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))


__all__ = [
    "DEFAULT_BUDGETS",
    "DEFAULT_HOLDOUT",
    "DEFAULT_MODELS",
    "DEFAULT_RUNS",
    "DEFAULT_SEED",
    "FAMILIES",
    "FAMILY_NAMES",
    "HARNESS_NAMES",
    "MODELS",
    "MODEL_NAMES",
    "PRESETS",
    "TEMPLATES",
    "CorpusSpec",
    "generate",
    "get_harness",
    "get_model",
    "get_template",
    "make_task",
    "simulate_run",
    "write_corpus",
]
