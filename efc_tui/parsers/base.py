"""What every reader shares: the Reader record, sniffing input, opening (gzip) files."""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import orjson
from msgspec import Struct, field

from efc_tui.errors import InputError
from efc_tui.model import Run
from efc_tui.parsers.held import release
from efc_tui.parsers.preview import PreviewLimit, close_prefix

SNIFF_BYTES = 64 * 1024
GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = b"PK\x03\x04"
#: the last character of a JSON object or array, by its first (``Sniff.first_line_object``)
_CLOSER = {b"{": b"}", b"[": b"]"}
_BOM = b"\xef\xbb\xbf"
#: the ASCII characters ``str.isspace`` holds white space (``first_char``)
_ASCII_SPACE = frozenset(c for c in range(128) if chr(c).isspace())


class ReadOptions(Struct, frozen=True):
    """How to read: ``lenient`` skips and counts malformed lines instead of failing;
    ``preview``, when set, reads only the first bytes of the file it names
    (``preview.preview``: ``open_binary`` and ``read_all`` given these options honour it)."""

    lenient: bool = False
    preview: PreviewLimit | None = None

    def limit(self, path: Path) -> PreviewLimit | None:
        """The preview in force for ``path`` (None: read it whole, as any other file a
        reader opens, such as a sidecar or a sub-agent's log)."""
        p = self.preview
        return p if p is not None and p.path == path else None


class Sniff(Struct):
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

    def has(self, needle: bytes) -> bool:
        """``needle in self.head``, and for an ASCII needle ``needle.decode() in
        self.text`` (a decoding's replacement characters are not ASCII), by the C
        library's memmem when the extension is built: CPython's own search takes 14-35 us
        a 64 KB head for the short, quote-led JSON keys the sniffs look for, memmem 5-11."""
        from efc_tui import _fast

        fast = _fast.speedups()
        return fast.contains(self.head, needle) if fast is not None else needle in self.head

    @property
    def first_char(self) -> str:
        """The text's first character that is not white space ("" when there is none),
        read off the head's bytes when it is ASCII: the text (its leading BOMs stripped)
        is then not decoded for it, which costs 0.1 ms a 64 KB head that is not ASCII."""
        head = self.head
        i = 0
        while head.startswith(_BOM, i):
            i += 3
        n = len(head)
        while i < n and head[i] in _ASCII_SPACE:
            i += 1
        if i == n:
            return ""
        if head[i] < 0x80:
            return chr(head[i])
        return self.text.lstrip()[:1]

    @property
    def first_line_object(self) -> Any:
        """The first non-blank line parsed as JSON, or None when it does not parse."""
        if "first" not in self._cache:
            value = None
            head, pos = self.head, 0
            while pos <= len(head):  # line by line, not a split of the whole head
                end = head.find(b"\n", pos)
                end = len(head) if end < 0 else end
                line = head[pos:end]
                raw = line.strip()
                pos = end + 1
                if not raw:
                    continue
                # an object or array must close where its line ends (a pretty-printed
                # document's "{", a long line cut off at the head's end): no parse then
                if _CLOSER.get(raw[:1], raw[-1:]) == raw[-1:]:
                    try:
                        value = orjson.loads(line)
                    except orjson.JSONDecodeError:
                        value = None
                break
            self._cache["first"] = value
        return self._cache["first"]


class Reader(Struct, frozen=True):
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


def open_binary(path: Path, options: ReadOptions | None = None) -> IO[bytes]:
    """Open a file for reading bytes, decompressing gzip transparently. Under a preview of
    this file (``options.preview``): its first bytes, up to the end of the last whole line."""
    f = _open(path)
    limit = options.limit(path) if options is not None else None
    return f if limit is None else _line_prefix(f, path, limit)


def _open(path: Path) -> IO[bytes]:
    release()  # the run a command is done with, before reading more (parsers.held)
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


def _first_bytes(f: IO[bytes], path: Path, limit: PreviewLimit) -> bytes:
    """Up to ``limit.nbytes`` of an open file; ``limit.cut`` set when there is more."""
    with f:
        try:
            data = f.read(limit.nbytes)
            if len(data) == limit.nbytes and f.read(1):
                limit.cut = True
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"cannot read (corrupt compressed data?): {exc}", path) from None
    return data


def _line_prefix(f: IO[bytes], path: Path, limit: PreviewLimit) -> IO[bytes]:
    data = _first_bytes(f, path, limit)
    if limit.cut:
        data = data[: data.rfind(b"\n") + 1]  # whole lines only
    return io.BytesIO(data)


def read_head(path: Path, size: int = SNIFF_BYTES) -> Sniff:
    """The first ``size`` bytes of a file (decompressed when gzipped), for sniffing: the
    file's true start, under a preview too."""
    with _open(path) as f:
        gz = isinstance(f, gzip.GzipFile)
        try:
            head = f.read(size)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"cannot read (corrupt compressed data?): {exc}", path) from None
    return Sniff(path=path, head=head, gzipped=gz)


def read_all(path: Path, options: ReadOptions | None = None) -> bytes:
    """The whole file (decompressed when gzipped), for formats that are one JSON document.

    A plain file is read in one allocation (a buffered read of everything would hold a
    second copy at its peak). Under a preview of this file (``options.preview``) only its
    first bytes are read, cut and closed into a smaller valid document
    (``preview.close_prefix``)."""
    limit = options.limit(path) if options is not None else None
    if limit is not None:
        return _read_prefix(path, limit)
    with _open(path) as f:
        if not isinstance(f, gzip.GzipFile):
            try:
                return path.read_bytes()
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
        try:
            return f.read()
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"cannot read (corrupt compressed data?): {exc}", path) from None


def _read_prefix(path: Path, limit: PreviewLimit) -> bytes:
    """The first ``limit.nbytes`` of a file, closed into a document when the file is longer;
    the whole file when it is not."""
    data = _first_bytes(_open(path), path, limit)
    if not limit.cut:
        return data
    closed = close_prefix(data)
    return closed if closed is not None else data
