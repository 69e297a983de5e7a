"""Where results go and what they are called: one policy for the CLI and the app.

- **Names.** A run's ledger file is ``<run id>.ledger.json`` with the id made safe
  (:func:`ledger_filename`); two runs of one export that share an id get ``-2``, ``-3``, ...
  instead of overwriting each other.
- **Targets.** ``-o DIR/`` (a trailing slash) or an existing folder means one file per run
  in that folder (created when missing); ``-o X.jsonl`` one document per line; any other
  ``-o X`` one document, or a JSON array when there are several (:func:`open_ledgers`).
- **Inputs are never overwritten.** Every target is checked against the input files
  (:func:`refuse_input`), in the CLI and in the app.
- **Streaming and atomic.** Documents are written one at a time as runs are scored: a file
  target grows in a temporary file beside it and is renamed into place when complete; a
  folder gets each ledger atomically as it is ready. ``score --json`` streams its
  ``efc-score/1`` envelope the same way (:class:`ScoreDocuments`).
- **One row per run.** :func:`run_row` is the row of run figures that ``score`` prints as
  a table, JSONL or CSV, and that the app's picker shows.

Library code: nothing here prints; problems raise :class:`~efc_tui.errors.InputError`.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from efc_tui.errors import InputError
from efc_tui.io import AtomicFile, write_atomic

if TYPE_CHECKING:
    from efc_tui.adapter import ScoredRun
    from efc_tui.scoring import Ledger

LEDGER_SUFFIX = ".ledger.json"
SCORE_SCHEMA = "efc-score/1"
#: longest file-name stem made from a run id, in characters and in UTF-8 bytes (file
#: systems allow 255 bytes per name; room is left for "-2" and the suffix)
NAME_LIMIT = 120
NAME_BYTES = 200

#: the per-run row: run metadata, the run's tokens, then its figures (keys of
#: ``efc_tui.scoring.figures``: what each is, and its title)
RUN_COLUMNS: tuple[str, ...] = (
    "run_id", "source_format", "source_path", "task_id", "harness", "model", "events", "success",
    "reward", "success_from", "exit_status", "cost_usd", "tokens_in", "tokens_cached", "tokens_out",
    "efc", "est_efc", "nrs_efc", "oracle_efc", "c_raw", "eta", "eta_nrs", "d_task", "x", "x_nrs",
)  # fmt: skip
_META = (
    "run_id",
    "source_format",
    "source_path",
    "task_id",
    "harness",
    "model",
    "reward",
    "success_from",
    "exit_status",
    "cost_usd",
)


# -- names and targets ----------------------------------------------------------------------


def ledger_filename(run_id: str) -> str:
    """``<run id>.ledger.json`` as a safe file name (run ids come from logs: untrusted).

    Letters and digits of any script, ``-``, ``_`` and ``.`` are kept; anything else (path
    separators, control and format characters, spaces) becomes ``_``; leading dots are
    dropped so the file is never hidden; at most NAME_LIMIT characters and NAME_BYTES bytes;
    ``run`` when nothing is left.
    """
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in run_id)
    stem = safe[:NAME_LIMIT].lstrip(".")
    while len(stem.encode()) > NAME_BYTES:  # letters of other scripts take several bytes
        stem = stem[:-1]
    return (stem or "run") + LEDGER_SUFFIX


def is_folder_target(output: str | Path) -> bool:
    """A trailing slash or an existing folder means "one file per run in this folder"."""
    text = os.fspath(output)
    return text.endswith(("/", os.sep)) or Path(text).is_dir()


def refuse_input(target: Path, inputs: Iterable[Path]) -> None:
    """Raise when ``target`` is one of the input files (never overwrite an input)."""
    try:
        resolved = target.resolve()
    except OSError:
        return
    for p in inputs:
        try:
            same = resolved == Path(p).resolve()
        except OSError:
            continue
        if same:
            raise InputError(f"refusing to overwrite an input file: {target}")


# -- ledger documents -----------------------------------------------------------------------


class LedgerSink:
    """Receives ledger documents one at a time; ``close()`` completes the output.

    Use as a context manager: leaving it on an exception discards a half-written file
    target (the old file, if any, stays as it was).
    """

    #: what was written, for the user ("3 ledgers to runs/")
    where: Path
    count: int = 0

    def add(self, run_id: str, document: bytes) -> Path:
        """Write one run's document (serialized); returns the file it went to."""
        raise NotImplementedError

    def close(self) -> None:
        """Complete the output (a file target appears only now)."""

    def discard(self) -> None:
        """Give up: a file target leaves nothing behind."""

    def __enter__(self) -> LedgerSink:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.discard()


class FolderSink(LedgerSink):
    """One ``<run id>.ledger.json`` per run in a folder, each written atomically."""

    def __init__(self, folder: Path, inputs: Iterable[Path] = (), *, create: bool = True) -> None:
        if not folder.is_dir():
            if not create:
                raise InputError("no such folder", folder)
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise InputError(
                    f"cannot create the folder: {exc.strerror or exc}", folder
                ) from None
        self.where = folder
        self.inputs = list(inputs)
        self.count = 0
        self._used: set[str] = set()

    def path_for(self, run_id: str) -> Path:
        """The file this run's ledger goes to (a repeated id in one export gets -2, -3, ...)."""
        name = ledger_filename(run_id)
        stem = name[: -len(LEDGER_SUFFIX)]
        k = 1
        while name in self._used:
            k += 1
            name = f"{stem}-{k}{LEDGER_SUFFIX}"
        return self.where / name

    def add(self, run_id: str, document: bytes) -> Path:
        target = self.path_for(run_id)
        refuse_input(target, self.inputs)
        write_atomic(target, document + b"\n")
        self._used.add(target.name)
        self.count += 1
        return target


class FileSink(LedgerSink):
    """Every document in one file: one per line (``.jsonl``), else one document, or a JSON
    array when there are several. Streams into a temporary file renamed on ``close``."""

    def __init__(self, path: Path, inputs: Iterable[Path] = ()) -> None:
        refuse_input(path, inputs)
        self.where = path
        self.count = 0
        self.lines = path.suffix == ".jsonl"
        self._file = AtomicFile(path)
        self._first: bytes | None = None  # held until a second document makes it an array

    def add(self, run_id: str, document: bytes) -> Path:
        f = self._file
        if self.lines:
            f.write(document + b"\n")
        elif self.count == 0:
            self._first = document
        else:
            if self._first is not None:
                f.write(b"[" + self._first)
                self._first = None
            f.write(b",\n" + document)
        self.count += 1
        return self.where

    def close(self) -> None:
        if not self.lines:
            if self._first is not None:
                self._file.write(self._first + b"\n")
            elif self.count > 1:
                self._file.write(b"]\n")
            elif self.count == 0:
                self._file.write(b"[]\n")
        self._file.commit()

    def discard(self) -> None:
        self._file.abort()


def open_ledgers(output: str | Path, inputs: Iterable[Path] = ()) -> LedgerSink:
    """The sink for ``-o OUTPUT`` (see the module docstring for what each form means)."""
    if is_folder_target(output):
        return FolderSink(Path(output), inputs)
    return FileSink(Path(output), inputs)


# -- score output ---------------------------------------------------------------------------


def dumps(doc: Any, *, pretty: bool = False) -> bytes:
    """The JSON of an output document or row (numpy values as numbers, non-str keys as
    text), indented when ``pretty``."""
    opt = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS
    if pretty:
        opt |= orjson.OPT_INDENT_2
    return orjson.dumps(doc, option=opt)


def run_row(scored: ScoredRun | Ledger) -> dict[str, Any]:
    """The row of one scored run: metadata, then figures, keyed by RUN_COLUMNS."""
    from efc_tui.model import TokenTotals
    from efc_tui.scoring.ledger import Ledger

    ledger = scored if isinstance(scored, Ledger) else scored.ledger
    run, figures = ledger.run, ledger.figures.as_dict()
    tok = TokenTotals.of(run.events)
    # as the app's cost line: input with its cached reads included, cached reads, output
    figures.update(tokens_in=tok.tokens_in, tokens_cached=tok.cache_read, tokens_out=tok.tokens_out)
    return {k: getattr(run, k) if k in _META else figures[k] for k in RUN_COLUMNS}


class ScoreDocuments:
    """``score --json``: ``{"schema": "efc-score/1", "runs": [ledger, ...]}`` streamed, one
    serialized ledger at a time, to ``write`` (only one run's ledger is ever in memory)."""

    def __init__(self, write: Callable[[str], object]) -> None:
        self._write = write
        self.count = 0

    def add(self, document: bytes) -> None:
        head = '{"schema":"' + SCORE_SCHEMA + '","runs":[' if self.count == 0 else ","
        self._write(head + document.decode())
        self.count += 1

    def close(self) -> None:
        self._write(("]}" if self.count else '{"schema":"' + SCORE_SCHEMA + '","runs":[]}') + "\n")


class CsvRows:
    """``score --csv``: a header, then one row per run as it is scored. Cells that a
    spreadsheet would run as a formula are escaped (``efc_tui.report.text.csv_safe``)."""

    def __init__(self, write: Callable[[str], object], columns: Iterable[str]) -> None:
        self._write = write
        self.columns = list(columns)
        self._emit(None)

    def _emit(self, row: dict[str, Any] | None) -> None:
        import csv  # here: only --csv writes it

        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=self.columns, lineterminator="\n")
        if row is None:
            w.writeheader()
        else:
            w.writerow(row)
        self._write(buf.getvalue())

    def add(self, row: dict[str, Any]) -> None:
        from efc_tui.report.text import csv_safe

        self._emit({k: csv_safe(v) for k, v in row.items()})


__all__ = [
    "LEDGER_SUFFIX",
    "RUN_COLUMNS",
    "SCORE_SCHEMA",
    "CsvRows",
    "FileSink",
    "FolderSink",
    "LedgerSink",
    "ScoreDocuments",
    "is_folder_target",
    "ledger_filename",
    "open_ledgers",
    "refuse_input",
    "run_row",
]
