"""Parquet output (issue 15 item 3): ``score --parquet FILE`` (one row per run) and
``export -o FILE.parquet`` (one row per event), for pandas, DuckDB and Polars.

The rows are the JSON outputs' own values, so a Parquet file reads back to the same
figures as ``score --jsonl`` / ``--json`` and ``export``: a run row is ``run_row`` as is; an
event row is the event of the efc-ledger/1 document with its groups flattened one level
(``factors.I_hat``), its adapter decision flattened the same way (``adapter.memory``),
``flags`` a list of strings and ``extra`` a JSON string, plus the run's ``run_id`` and
``source_path`` in front.

pyarrow is an optional dependency (``pip install 'efc-tui[parquet]'``); without it the
commands say so and exit 2. The file is built in memory and written atomically (the
schema is the union of every row's columns, so all runs must be read first).

Library code: nothing here prints; problems raise :class:`~efc_tui.errors.InputError`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from efc_tui.errors import InputError

PARQUET_SUFFIX = ".parquet"
INSTALL_HINT = "Parquet output needs pyarrow: pip install 'efc-tui[parquet]'"


def available() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def require() -> None:
    """Raise InputError (exit 2 in the CLI) when pyarrow is not installed."""
    if not available():
        raise InputError(INSTALL_HINT)


def is_parquet_target(output: str | Path) -> bool:
    return str(output).lower().endswith(PARQUET_SUFFIX)


def _cell(value: Any) -> Any:
    """A value as one Parquet cell: numbers, strings, booleans and None as they are; lists
    of strings as lists; anything else (a dict, a mixed list) as its JSON text."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value
    if hasattr(value, "item") and not isinstance(value, list | dict):  # numpy scalars
        return _cell(value.item())
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return list(value)
    from efc_tui.report.output import dumps

    return dumps(value).decode()


def flatten(entry: dict[str, Any]) -> dict[str, Any]:
    """One event of an efc-ledger/1 document as a flat row: groups one level deep."""
    row: dict[str, Any] = {}
    for key, value in entry.items():
        if isinstance(value, dict) and key != "extra":
            for k, v in value.items():
                row[f"{key}.{k}"] = _cell(v)
        elif key == "extra":
            row[key] = _cell(value) if value else None
        else:
            row[key] = _cell(value)
    return row


def event_rows(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The rows of one ledger document: the run's id and file, then the flat event."""
    run = document["run"]
    for entry in document["events"]:
        yield {"run_id": run["run_id"], "source_path": run["source_path"], **flatten(entry)}


def table_bytes(rows: Iterable[dict[str, Any]], columns: Iterable[str] = ()) -> bytes:
    """A Parquet file of ``rows`` (``columns`` first, in that order, then any other column
    in the order met). A column whose values are numbers of mixed int/float is float64;
    a missing value is null."""
    require()
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = list(rows)
    names: dict[str, None] = dict.fromkeys(columns)
    for r in rows:
        names.update(dict.fromkeys(r))
    arrays = []
    for name in names:
        values = [_cell(r.get(name)) for r in rows]
        if any(isinstance(v, float) for v in values) and all(
            v is None or (isinstance(v, int | float) and not isinstance(v, bool)) for v in values
        ):
            values = [None if v is None else float(v) for v in values]
        try:
            arrays.append(pa.array(values))
        except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed kinds: keep each as text
            arrays.append(pa.array([None if v is None else str(v) for v in values]))
    table = pa.Table.from_arrays(arrays, names=list(names)) if names else pa.table({})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return bytes(sink.getvalue().to_pybytes())


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """A Parquet file's rows as dicts (what the tests and a user's script compare)."""
    require()
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = pq.read_table(str(path)).to_pylist()
    return rows


def same_value(a: Any, b: Any) -> bool:
    """Equal as the JSON output and the Parquet file hold them (NaN equals NaN)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


__all__ = [
    "INSTALL_HINT",
    "PARQUET_SUFFIX",
    "available",
    "event_rows",
    "flatten",
    "is_parquet_target",
    "read_rows",
    "require",
    "same_value",
    "table_bytes",
]
