"""Success labels from a file the user gives (``--labels FILE``): CSV, JSON or JSONL.

A labels file names runs by ``run_id``, ``task_id`` (or ``instance_id``) or ``path`` (or
``trajectory_file``, ``file``, ``source_path``; relative paths are taken from the labels
file's folder, then from the current folder) and gives ``success`` (true/false, 1/0,
yes/no, pass/fail, resolved/unresolved; blank = not given) and/or ``reward`` (a number:
success when it reaches the threshold). Other columns are ignored.

- **CSV** (``.csv``, or ``.tsv`` with tabs): a header row, then one row per label.
- **JSONL** (``.jsonl``, ``.ndjson``): one object per line with the same keys.
- **JSON**: a list of such objects, or one object mapping a key (run id, task id or path)
  to ``true`` / ``false``, a reward number, or ``{"success": ..., "reward": ...}``.

A row matches a run when every key it gives matches (a row with ``path`` and ``task_id``
labels the one task of a many-run file); the most specific matching row wins, and rows
equally specific that disagree label nothing (a warning on the run says so). A malformed
file is an ``InputError`` naming file and line; ``Labels.unmatched()`` lists the rows no
run matched, for the caller to warn about.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from efc_tui.errors import InputError
from efc_tui.model import Run
from efc_tui.parsers._reward import reward_success
from efc_tui.parsers.sidecars import Verdict, set_outcome

_PATH_KEYS = ("path", "trajectory_file", "file", "source_path")
_TASK_KEYS = ("task_id", "instance_id")
_RUN_KEYS = ("run_id",)
_TRUE = {"1", "true", "yes", "y", "pass", "passed", "resolved", "success", "ok"}
_FALSE = {"0", "false", "no", "n", "fail", "failed", "unresolved", "failure"}
_BLANK = {"", "null", "none", "na", "n/a", "?", "unknown"}
_MAX_BYTES = 256 * 1024 * 1024


@dataclass(slots=True)
class LabelRow:
    """One label: where it is in the file, which run(s) it names, what it says."""

    line: int
    run_id: str | None = None
    task_id: str | None = None
    paths: tuple[str, ...] = ()
    #: a key of the mapping form: matches a run id, a task id or a path
    any_key: str | None = None
    success: bool | None = None
    reward: float | None = None
    used: bool = False

    @property
    def specificity(self) -> int:
        return sum(
            x is not None for x in (self.run_id, self.task_id, self.paths or None, self.any_key)
        )

    def describe(self) -> str:
        parts = [
            f"{k} {v}"
            for k, v in (
                ("run_id", self.run_id),
                ("task_id", self.task_id),
                ("path", self.paths[0] if self.paths else None),
                ("key", self.any_key),
            )
            if v is not None
        ]
        return ", ".join(parts)


def _success(value: Any, where: Path, line: int) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if text in _BLANK:
        return None
    raise InputError(
        f"success {str(value)[:40]!r} is not true/false, 1/0, yes/no or blank", where, line
    )


def _reward(value: Any, where: Path, line: int) -> float | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in _BLANK):
        return None
    if isinstance(value, bool):
        raise InputError("reward must be a number, not true/false", where, line)
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise InputError(f"reward {str(value)[:40]!r} is not a number", where, line) from None
    if not math.isfinite(f):
        raise InputError(f"reward {value!r} is not a finite number", where, line)
    return f


def _key(value: Any) -> str | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return str(int(value)) if float(value).is_integer() else str(value)
    text = str(value).strip()
    return text or None


def _resolve_paths(value: str, base: Path) -> tuple[str, ...]:
    """The absolute forms a path in the labels file may mean (its folder, the cwd)."""
    p = Path(value)
    if p.is_absolute():
        return (os.path.normpath(p),)
    out = dict.fromkeys((os.path.normpath(base / p), os.path.normpath(Path.cwd() / p)))
    return tuple(out)


def _row(obj: dict[str, Any], where: Path, line: int) -> LabelRow:
    low = {str(k).strip().lower(): v for k, v in obj.items()}
    row = LabelRow(line=line)
    row.run_id = next((k for k in (_key(low.get(n)) for n in _RUN_KEYS) if k), None)
    row.task_id = next((k for k in (_key(low.get(n)) for n in _TASK_KEYS) if k), None)
    path = next((k for k in (_key(low.get(n)) for n in _PATH_KEYS) if k), None)
    if path is not None:
        row.paths = _resolve_paths(path, where.absolute().parent)
    if row.run_id is None and row.task_id is None and not row.paths:
        raise InputError("this label names no run: give run_id, task_id or path", where, line)
    row.success = _success(low.get("success"), where, line)
    row.reward = _reward(low.get("reward"), where, line)
    return row


def _csv_rows(text: str, where: Path) -> Iterator[LabelRow]:
    delimiter = "\t" if where.suffix.lower() == ".tsv" else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        raise InputError(f"not valid CSV: {exc}", where, 1) from None
    names = [h.strip().lower().lstrip("\ufeff") for h in header]
    if not any(n in names for n in (*_RUN_KEYS, *_TASK_KEYS, *_PATH_KEYS)):
        raise InputError(
            "the header names no key column: expected run_id, task_id (instance_id) or path "
            "(trajectory_file)",
            where,
            1,
        )
    if not any(n in names for n in ("success", "reward")):
        raise InputError("the header names no success or reward column", where, 1)
    try:
        for values in reader:
            line = reader.line_num
            if not any(v.strip() for v in values):
                continue
            if len(values) > len(names):
                raise InputError(
                    f"{len(values)} fields where the header has {len(names)}", where, line
                )
            yield _row(dict(zip(names, values, strict=False)), where, line)
    except csv.Error as exc:
        raise InputError(f"not valid CSV: {exc}", where, reader.line_num) from None


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _json_error(exc: json.JSONDecodeError, where: Path) -> InputError:
    return InputError(f"not valid JSON: {exc.msg}", where, exc.lineno)


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _json_items(text: str, where: Path) -> Iterator[tuple[int, str | None, Any]]:
    """(line, key, value) of each element of a top-level JSON array (key None) or object,
    with the line each element starts on."""
    dec = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if pos >= len(text) or text[pos] not in "[{":
        raise InputError(
            "a JSON labels file is a list of objects or one object", where, _line_of(text, pos)
        )
    is_list = text[pos] == "["
    close = "]" if is_list else "}"
    pos = _skip_ws(text, pos + 1)
    if pos < len(text) and text[pos] == close:
        return
    while True:
        key = None
        try:
            if not is_list:
                key_obj, pos = dec.raw_decode(text, pos)
                if not isinstance(key_obj, str):
                    raise InputError("object keys must be strings", where, _line_of(text, pos))
                key = key_obj
                pos = _skip_ws(text, pos)
                if pos >= len(text) or text[pos] != ":":
                    raise InputError("expected ':' after a key", where, _line_of(text, pos))
                pos = _skip_ws(text, pos + 1)
            line = _line_of(text, pos)
            value, pos = dec.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise _json_error(exc, where) from None
        yield line, key, value
        pos = _skip_ws(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
            continue
        if pos < len(text) and text[pos] == close:
            rest = _skip_ws(text, pos + 1)
            if rest < len(text):
                raise InputError("extra data after the JSON document", where, _line_of(text, rest))
            return
        raise InputError(f"expected ',' or '{close}'", where, _line_of(text, pos))


def _json_rows(text: str, where: Path) -> Iterator[LabelRow]:
    for line, key, value in _json_items(text, where):
        if key is None:
            if not isinstance(value, dict):
                raise InputError("each label in the list must be an object", where, line)
            yield _row(value, where, line)
            continue
        row = LabelRow(line=line, any_key=key)
        if isinstance(value, dict):
            low = {str(k).lower(): v for k, v in value.items()}
            row.success = _success(low.get("success"), where, line)
            row.reward = _reward(low.get("reward"), where, line)
        elif isinstance(value, bool) or value is None:
            row.success = value
        elif isinstance(value, int | float):
            row.reward = _reward(value, where, line)
        else:
            row.success = _success(value, where, line)
        row.paths = _resolve_paths(key, where.absolute().parent)
        yield row


def _jsonl_rows(text: str, where: Path) -> Iterator[LabelRow]:
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg}", where, n) from None
        if not isinstance(obj, dict):
            raise InputError("each line must be a JSON object", where, n)
        yield _row(obj, where, n)


@dataclass
class Labels:
    """The labels of one file, matched against runs as they are read."""

    path: Path
    rows: list[LabelRow]
    _by: dict[str, list[LabelRow]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for row in self.rows:
            keys = [
                f"r:{row.run_id}" if row.run_id else None,
                f"t:{row.task_id}" if row.task_id else None,
            ]
            keys += [f"p:{p}" for p in row.paths]
            if row.any_key is not None:
                keys += [f"r:{row.any_key}", f"t:{row.any_key}"]
            for k in dict.fromkeys(k for k in keys if k):
                self._by.setdefault(k, []).append(row)

    def _matches(self, row: LabelRow, run: Run, paths: set[str]) -> bool:
        if row.any_key is not None:
            return row.any_key in (run.run_id, run.task_id) or any(p in paths for p in row.paths)
        return (
            (row.run_id is None or row.run_id == run.run_id)
            and (row.task_id is None or row.task_id == run.task_id)
            and (not row.paths or any(p in paths for p in row.paths))
        )

    def lookup(self, run: Run, path: str | Path | None = None) -> LabelRow | None:
        """The label for this run (marking the rows it matched as used), or None."""
        paths: set[str] = set()
        for p in (path, run.source_path):
            if p:
                paths.add(os.path.normpath(Path(p).absolute()))
        keys = [f"r:{run.run_id}", *(f"p:{p}" for p in paths)]
        if run.task_id:
            keys.append(f"t:{run.task_id}")
        found: dict[int, LabelRow] = {}
        for k in keys:
            for row in self._by.get(k, ()):
                if self._matches(row, run, paths):
                    found[id(row)] = row
        if not found:
            return None
        for row in found.values():
            row.used = True
        best = max(r.specificity for r in found.values())
        top = [r for r in found.values() if r.specificity == best]
        if len({(r.success, r.reward) for r in top}) > 1:
            lines = ", ".join(str(r.line) for r in sorted(top, key=lambda r: r.line))
            run.warnings.append(
                f"labels {self.path}: lines {lines} disagree about this run; none applied"
            )
            return None
        return min(top, key=lambda r: r.line)

    def apply(self, run: Run, path: str | Path | None = None, threshold: float = 1.0) -> bool:
        """Put this file's label on the run (it wins over any other source)."""
        row = self.lookup(run, path)
        if row is None:
            return False
        success = row.success if row.success is not None else reward_success(row.reward, threshold)
        if success is None and row.reward is None:
            return False
        verdict = Verdict(success, row.reward, f"labels {self.path}:{row.line}")
        if row.reward is None and run.reward is not None:
            run.reward = None  # the sidecar's reward belongs to the label being replaced
        return set_outcome(run, verdict, override=True)

    def unmatched(self) -> list[LabelRow]:
        """Rows that named no run read so far."""
        return [r for r in self.rows if not r.used]


def load_labels(path: str | Path) -> Labels:
    """Read a labels file (format by extension, else by its first character). Raises
    InputError naming file and line when it is malformed."""
    p = Path(path)
    try:
        if p.stat().st_size > _MAX_BYTES:
            raise InputError(f"labels file larger than {_MAX_BYTES >> 20} MB", p)
        text = p.read_bytes().decode("utf-8-sig", errors="strict")
    except FileNotFoundError:
        raise InputError("no such labels file", p) from None
    except IsADirectoryError:
        raise InputError("is a folder, not a labels file", p) from None
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not UTF-8 text (byte {exc.start})",
            p,
            _line_of(exc.object[: exc.start].decode("utf-8", "replace"), exc.start),
        ) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", p) from None
    suffix = p.suffix.lower()
    first = text.lstrip()[:1]
    if suffix in (".jsonl", ".ndjson"):
        rows = list(_jsonl_rows(text, p))
    elif suffix == ".json" or (suffix not in (".csv", ".tsv") and first in "[{" and first):
        if suffix != ".json" and first == "{" and "\n{" in text.strip():
            rows = list(_jsonl_rows(text, p))
        else:
            rows = list(_json_rows(text, p))
    else:
        rows = list(_csv_rows(text, p))
    if not rows:
        raise InputError("the labels file holds no label", p)
    return Labels(p, rows)


__all__ = ["LabelRow", "Labels", "load_labels"]
