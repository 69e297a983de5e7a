"""Reference ledgers: every figure and every per-event column of every fixture, as scored by
the code when the references were written, so speed work can prove it changed nothing.

``snapshot(scored)`` turns a :class:`~efc_tui.adapter.ScoredRun` into plain JSON data by
walking its dataclasses and Structs: the run's metadata and every event field (texts as SHA-256), the
ledger's features (post-hoc and prefix, auxiliary flags), harness quantities, factors,
oracle factors, gates, EFC variants, raw cost, demand, figures and flags, and the adapter's
decisions and summary. Floats are kept exactly (JSON's shortest round-trip form), NaN and
infinities as strings, and compared within ``tests/tolerance.py``'s tolerance (numpy's
kernels differ in the last bits from one CPU to another).

Inputs (``inputs()``): sample_traces/, every readable file under tests/fixtures/, two
generated traces (``tests/tracegen.py`` and ``bench/score_bench.py``'s generator), and
../shared/fixtures/real when it is present. References live in tests/fixtures/reference/,
one gzipped JSON per input.

Regenerate only when a result is *meant* to change (a scoring or reader definition), in a
commit of its own that names the change:

    .venv/bin/python -m tests.reference_ledgers --write
"""

from __future__ import annotations

import dataclasses
import enum
import gzip
import hashlib
import importlib.util
import math
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import orjson

from tests.conftest import FIXTURES, REAL, REPO, SAMPLES
from tests.tolerance import close
from tests.tracegen import write_trace

REFERENCE = FIXTURES / "reference"
GENERATED = ("tracegen-11", "score-bench-800")


def _float(x: float) -> float | str:
    return x if math.isfinite(x) else repr(x)


def plain(value: Any) -> Any:
    """JSON-ready data for a value found in a scored run (exact floats)."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, bool) or value is None or isinstance(value, int | str):
        return value
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return plain(value.item())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, msgspec.Struct):
        return {name: plain(getattr(value, name)) for name in value.__struct_fields__}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    raise TypeError(f"no plain form for {type(value).__name__}")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def _columns(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Rows of dicts as columns (one list per field): compact and diffable by name."""
    cols: dict[str, list[Any]] = {}
    for row in rows:
        for k, v in row.items():
            cols.setdefault(k, []).append(v)
    return cols


def snapshot(scored: Any) -> dict[str, Any]:
    """Every figure and per-event column of a scored run, as plain data."""
    ledger = scored.ledger
    run = ledger.run
    events = []
    for ev in run.events:
        row = plain(ev)
        row["action_text"] = _digest(ev.action_text)
        row["observation_text"] = _digest(ev.observation_text)
        events.append(row)
    meta = {name: plain(getattr(run, name)) for name in run.__struct_fields__ if name != "events"}
    led = {
        name: plain(getattr(ledger, name))
        for name in ledger.__struct_fields__
        if name not in ("run", "estimator")
    }
    # the paper's trace estimate of D_task, computed on request (scoring.demand.trace_demand)
    led["demand"]["trace"] = ledger.trace_demand()
    return {
        "run": meta,
        "events": _columns(events),
        "estimator_sha256": ledger.estimator.sha256,
        "ledger": led,
        "decisions": _columns([plain(d) for d in scored.decisions]),
        "summary": plain(scored.summary),
    }


def _relative(data: Any, roots: list[tuple[str, str]]) -> Any:
    """Absolute paths in strings replaced by <repo>/<shared>, so references do not depend on
    where the checkout lives."""
    if isinstance(data, str):
        for prefix, name in roots:
            data = data.replace(prefix, name)
        return data
    if isinstance(data, dict):
        return {k: _relative(v, roots) for k, v in data.items()}
    if isinstance(data, list):
        return [_relative(v, roots) for v in data]
    return data


def _bench_generate() -> Any:
    spec = importlib.util.spec_from_file_location("score_bench", REPO / "bench" / "score_bench.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.generate


def generated(tmp: Path) -> list[tuple[str, Path]]:
    """The generated traces, written to ``tmp``."""
    out = [("tracegen-11", write_trace(tmp / "tracegen-11.jsonl", 1500, seed=11))]
    bench = tmp / "score-bench-800.jsonl"
    _bench_generate()(bench, 800, seed=3)
    out.append(("score-bench-800", bench))
    return out


def fixture_files() -> Iterator[tuple[str, Path]]:
    """(reference name, path) of every trace file in sample_traces/, tests/fixtures/ and
    ../shared/fixtures/real (when present); unreadable ones are left to ``score_file``."""
    from efc_tui.parsers import expand_paths

    for root, label in ((SAMPLES, "samples"), (FIXTURES, "fixtures"), (REAL, "real")):
        if not root.is_dir():
            continue
        for path in expand_paths([root]):
            rel = path.relative_to(root)
            if rel.parts[0] == "reference":
                continue
            yield f"{label}/{rel.as_posix()}", path


def score_file(path: Path, generated_in: Path | None = None) -> list[dict[str, Any]] | None:
    """Snapshots of every run in a file; None when no reader reads it (error fixtures).
    ``generated_in``: the temporary folder of a generated trace (named <generated>)."""
    from efc_tui.adapter import score_and_decide
    from efc_tui.errors import EfcError
    from efc_tui.parsers import load
    from efc_tui.scoring import load_estimator

    est = load_estimator()
    roots = [
        (str(REAL.parent.parent.resolve()), "<shared>"),
        (str(REAL.parent.parent), "<shared>"),
        (str(REPO), "<repo>"),
    ]
    if generated_in is not None:
        roots.insert(0, (str(generated_in), "<generated>"))
    try:
        runs = list(load(path))
    except EfcError:
        return None
    return [_relative(snapshot(score_and_decide(run, est)), roots) for run in runs]


def reference_path(name: str) -> Path:
    safe = name.replace("/", "__")
    return REFERENCE / f"{safe}.json.gz"


def encode(runs: list[dict[str, Any]]) -> bytes:
    return gzip.compress(orjson.dumps(runs, option=orjson.OPT_SORT_KEYS), mtime=0)


def decode(data: bytes) -> Any:
    return orjson.loads(gzip.decompress(data))


#: keys compared first, in the order values are computed, so the reported difference is
#: the cause (a feature column) rather than a consequence (an adapter reason)
CAUSAL_ORDER = (
    "run",
    "events",
    "estimator_sha256",
    "ledger",
    "features",
    "harness",
    "factors",
    "oracle",
    "gates",
    "efc",
    "est",
    "stable",
    "nr",
    "cost",
    "demand",
    "figures",
    "decisions",
    "summary",
)


def _order(key: str) -> tuple[int, str]:
    return (CAUSAL_ORDER.index(key) if key in CAUSAL_ORDER else len(CAUSAL_ORDER), key)


def first_difference(a: Any, b: Any, where: str = "") -> str | None:
    """Where two snapshots first differ (a path like ``[0].ledger.features.n[17]``), or None."""
    if type(a) is not type(b) and not (isinstance(a, int | float) and isinstance(b, int | float)):
        return f"{where}: {a!r:.80} != {b!r:.80}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b), key=_order):
            if k not in a or k not in b:
                return f"{where}.{k}: only in {'reference' if k in a else 'current'}"
            d = first_difference(a[k], b[k], f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            d = first_difference(x, y, f"{where}[{i}]")
            if d:
                return d
        return None
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        # numbers within the one tolerance (tests/tolerance.py says why: CPU-dependent kernels)
        return None if close(a, b) else f"{where}: {a!r:.80} != {b!r:.80}"
    if a != b:
        return f"{where}: {a!r:.80} != {b!r:.80}"
    return None


def write_all() -> list[Path]:
    REFERENCE.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        items = [*fixture_files(), *generated(Path(tmp))]
        for name, path in items:
            snap = score_file(path, Path(tmp) if name in GENERATED else None)
            if snap is None:
                continue
            out = reference_path(name)
            out.write_bytes(encode(snap))
            written.append(out)
    return written


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    for p in write_all():
        print(p.relative_to(REPO))
