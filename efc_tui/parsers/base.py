"""What every reader shares: the Reader record, sniffing input, opening (gzip) files."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from efc_tui.errors import InputError
from efc_tui.model import Run

SNIFF_BYTES = 64 * 1024
GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = b"PK\x03\x04"


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """How strictly to read: ``lenient`` skips and counts malformed lines instead of failing."""

    lenient: bool = False


@dataclass(slots=True)
class Sniff:
    """The start of a file, as readers see it when deciding whether it is theirs."""

    path: Path
    head: bytes
    #: the file was gzip-compressed (``head`` is already decompressed)
    gzipped: bool = False
    _cache: dict[str, Any] = field(default_factory=dict)

    @property
    def is_zip(self) -> bool:
        return self.head.startswith(ZIP_MAGIC)

    @property
    def text(self) -> str:
        if "text" not in self._cache:
            self._cache["text"] = self.head.decode("utf-8", errors="replace").lstrip("\ufeff")
        return self._cache["text"]

    @property
    def first_char(self) -> str:
        stripped = self.text.lstrip()
        return stripped[:1]

    @property
    def first_line_object(self) -> Any:
        """The first non-blank line parsed as JSON, or None when it does not parse."""
        if "first" not in self._cache:
            value = None
            for raw in self.head.split(b"\n"):
                if raw.strip():
                    try:
                        value = orjson.loads(raw)
                    except orjson.JSONDecodeError:
                        value = None
                    break
            self._cache["first"] = value
        return self._cache["first"]


@dataclass(frozen=True)
class Reader:
    """A log format efc-tui can read.

    ``sniff`` returns a confidence in [0, 1] that the file is this format (0: not mine);
    ``read`` yields the file's runs one at a time, so only one run is in memory.
    """

    name: str
    summary: str
    detects_on: str
    extensions: tuple[str, ...]
    sniff: Callable[[Sniff], float]
    read: Callable[[Path, ReadOptions], Iterator[Run]]


def open_binary(path: Path) -> IO[bytes]:
    """Open a file for reading bytes, decompressing gzip transparently."""
    try:
        f = path.open("rb")
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a trace file", path) from None
    except OSError as exc:
        raise InputError(f"cannot open: {exc.strerror or exc}", path) from None
    magic = f.read(2)
    f.seek(0)
    if magic == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=f, mode="rb")  # type: ignore[return-value]
    return f


def read_head(path: Path, size: int = SNIFF_BYTES) -> Sniff:
    """The first ``size`` bytes of a file (decompressed when gzipped)."""
    with open_binary(path) as f:
        gz = isinstance(f, gzip.GzipFile)
        try:
            head = f.read(size)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"cannot read (corrupt compressed data?): {exc}", path) from None
    return Sniff(path=path, head=head, gzipped=gz)


def read_all(path: Path) -> bytes:
    """The whole file (decompressed when gzipped), for formats that are one JSON document.

    A plain file is read in one allocation (a buffered read of everything would hold a
    second copy at its peak). Under ``preview.preview`` only the first bytes are read and
    handed on cut and closed into a smaller valid document (``preview.close_prefix``)."""
    from efc_tui.parsers.preview import preview_limit

    limit = preview_limit()
    if limit is not None:
        return _read_prefix(path, limit)
    with open_binary(path) as f:
        if not isinstance(f, gzip.GzipFile):
            try:
                return path.read_bytes()
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
        try:
            return f.read()
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"cannot read (corrupt compressed data?): {exc}", path) from None


def _read_prefix(path: Path, limit: Any) -> bytes:
    """The first ``limit.nbytes`` of a file, closed into a document when the file is longer
    (``limit.cut`` set); the whole file when it is not."""
    from efc_tui.parsers.preview import close_prefix

    with open_binary(path) as f:
        try:
            data = f.read(limit.nbytes)
            more = bool(f.read(1)) if len(data) == limit.nbytes else False
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"cannot read (corrupt compressed data?): {exc}", path) from None
    if not more:
        return data
    limit.cut = True
    closed = close_prefix(data)
    return closed if closed is not None else data


def load_json_document(path: Path) -> Any:
    """Parse a whole-file JSON document, raising InputError with line:column on failure."""
    data = read_all(path)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        line = data.count(b"\n", 0, exc.pos) + 1 if exc.pos is not None else None
        raise InputError(f"not valid JSON: {exc.msg}", path, line) from None
