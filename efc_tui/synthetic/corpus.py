"""Generate a synthetic corpus deterministically (SPEC §7) and write it as efc-trace/1.

Layout: every family has ``runs`` task instances (task i uses the family's templates in
turn); every harness runs every task with every model at every budget level, so harnesses,
models and budgets are compared on the same tasks. One JSONL file per family × harness ×
model (``<family>__<harness>__<model>.jsonl``, runs ordered by budget then task) and a
``corpus.manifest`` (JSON; not a trace name, so folder walks skip it) recording what was
generated.

Determinism: each task draws from ``random.Random("<seed>/<family>/<i>")`` and each run from
``random.Random("<seed>/<family>/<i>/<harness>/<model>/<budget>")`` (string seeds hash with
SHA-512, the same on every machine and Python build), so a given seed gives byte-identical
files whatever the number of worker processes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from efc_tui import __version__
from efc_tui.errors import InputError
from efc_tui.io import write_atomic
from efc_tui.model import Run
from efc_tui.parsers.native_writer import dumps_runs
from efc_tui.synthetic.engine import simulate_run
from efc_tui.synthetic.harnesses import HARNESS_NAMES, get_harness, get_model
from efc_tui.synthetic.tasks import (
    DEFAULT_BUDGETS,
    DEFAULT_MODELS,
    DEFAULT_RUNS,
    DEFAULT_SEED,
    Task,
)
from efc_tui.synthetic.templates import FAMILIES, FAMILY_NAMES, templates_of

MANIFEST = "corpus.manifest"
MANIFEST_SCHEMA = "efc-corpus/1"


@dataclass(frozen=True)
class CorpusSpec:
    """What to generate. ``runs`` is tasks per family = runs per family × harness × budget."""

    families: tuple[str, ...] = FAMILY_NAMES
    harnesses: tuple[str, ...] = HARNESS_NAMES
    models: tuple[str, ...] = DEFAULT_MODELS
    budgets: tuple[float, ...] = DEFAULT_BUDGETS
    runs: int = DEFAULT_RUNS
    seed: int = DEFAULT_SEED

    def __post_init__(self) -> None:
        for f in self.families:
            if f not in FAMILIES:
                raise InputError(f"unknown family {f!r}; known: {', '.join(FAMILIES)}")
        for h in self.harnesses:
            get_harness(h)
        for m in self.models:
            get_model(m)
        if self.runs < 1:
            raise InputError("--runs must be at least 1")
        if not self.budgets or any(not (0 < b <= 100) for b in self.budgets):
            raise InputError("budgets must be multipliers in (0, 100]")

    @property
    def total_runs(self) -> int:
        return (
            len(self.families)
            * len(self.harnesses)
            * len(self.models)
            * len(self.budgets)
            * self.runs
        )

    @property
    def cells(self) -> list[tuple[str, str, str]]:
        """(family, harness, model) of every output file, in order."""
        return [(f, h, m) for f in self.families for h in self.harnesses for m in self.models]


def make_task(family: str, i: int, seed: int) -> Task:
    """Task i of a family: templates in turn, hidden state from the seed."""
    templates = templates_of(family)
    template = templates[i % len(templates)]
    rng = random.Random(f"{seed}/{family}/{i}")
    task_id = f"{template.name.replace('/', '-')}-{i:04d}"
    return FAMILIES[family].make_task(template, task_id, rng)


def budget_label(budget: float) -> str:
    return f"b{budget:g}"


def simulate_cell(spec: CorpusSpec, family: str, harness: str, model: str) -> Iterator[Run]:
    """Every run of one family × harness × model: budgets in order, then tasks."""
    fam = FAMILIES[family]
    preset = get_harness(harness)
    mp = get_model(model)
    tasks = [make_task(family, i, spec.seed) for i in range(spec.runs)]
    for budget in spec.budgets:
        for i, task in enumerate(tasks):
            rng = random.Random(f"{spec.seed}/{family}/{i}/{preset.name}/{mp.name}/{budget!r}")
            yield simulate_run(
                fam,
                task,
                preset,
                mp,
                budget,
                rng,
                run_id=f"{task.task_id}-{preset.name}-{mp.name}-{budget_label(budget)}",
                extra={"corpus_seed": spec.seed},
            )


def generate(spec: CorpusSpec) -> Iterator[Run]:
    """The whole corpus in file order (family, harness, model, then budget, task)."""
    for family, harness, model in spec.cells:
        yield from simulate_cell(spec, family, harness, model)


@dataclass
class CellSummary:
    file: str
    runs: int
    events: int
    successes: int


@dataclass
class CorpusSummary:
    spec: CorpusSpec
    files: list[CellSummary] = field(default_factory=list)

    @property
    def runs(self) -> int:
        return sum(c.runs for c in self.files)

    @property
    def events(self) -> int:
        return sum(c.events for c in self.files)

    @property
    def successes(self) -> int:
        return sum(c.successes for c in self.files)


def cell_file(family: str, harness: str, model: str) -> str:
    return f"{family}__{harness}__{model}.jsonl"


def _write_cell(
    spec: CorpusSpec, family: str, harness: str, model: str, out_dir: str
) -> CellSummary:
    runs = list(simulate_cell(spec, family, harness, model))
    name = cell_file(family, harness, model)
    write_atomic(Path(out_dir) / name, dumps_runs(runs))
    return CellSummary(
        name, len(runs), sum(len(r.events) for r in runs), sum(1 for r in runs if r.success)
    )


def manifest(spec: CorpusSpec, summary: CorpusSummary | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "schema": MANIFEST_SCHEMA,
        "generator": f"efc-tui {__version__}",
        "spec": {**asdict(spec), "budgets": list(spec.budgets)},
    }
    if summary is not None:
        out["files"] = [asdict(c) for c in summary.files]
    return out


def read_manifest(folder: Path) -> dict[str, Any] | None:
    p = folder / MANIFEST
    if not p.is_file():
        return None
    try:
        obj = orjson.loads(p.read_bytes())
    except orjson.JSONDecodeError:
        raise InputError("corpus manifest is not valid JSON", p) from None
    return obj if isinstance(obj, dict) and obj.get("schema") == MANIFEST_SCHEMA else None


def write_corpus(
    spec: CorpusSpec,
    out_dir: str | Path,
    *,
    jobs: int = 1,
    on_cell: Callable[[CellSummary], None] | None = None,
) -> CorpusSummary:
    """Write the corpus to ``out_dir`` (created if missing); ``jobs`` worker processes."""
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create output folder: {exc.strerror or exc}", out) from None
    cells = spec.cells
    summary = CorpusSummary(spec)
    results: dict[tuple[str, str, str], CellSummary] = {}
    if jobs > 1 and len(cells) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(_write_cell, spec, *c, str(out)): c for c in cells}
            for fut in futures:  # in submission order: deterministic summary
                results[futures[fut]] = cell = fut.result()
                if on_cell:
                    on_cell(cell)
    else:
        for c in cells:
            results[c] = cell = _write_cell(spec, *c, str(out))
            if on_cell:
                on_cell(cell)
    summary.files = [results[c] for c in cells]
    data = orjson.dumps(
        manifest(spec, summary), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
    )
    write_atomic(out / MANIFEST, data)
    return summary
