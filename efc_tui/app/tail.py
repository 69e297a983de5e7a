"""Reading an efc-trace/1 JSONL file a batch of whole lines at a time (no Textual here).

The replay app uses this for two jobs:

- the first load of a native trace, so the ledger shows rows while the rest of the file is
  still being parsed (a 100k-event run is interactive before it is fully read);
- ``--follow``: it remembers the byte offset after the last complete line and, when the
  file grows, reads only the appended bytes. Before each read it checks that the file is
  still the one it read: the same file (``st_dev``/``st_ino``), not shorter than the offset,
  and with the same bytes at its start and just before the offset (up to ``MARK`` bytes
  each). A log rotated, truncated or rewritten between two polls, even one already longer
  again, stops the follow instead of being read on from the old offset.

Lines go through the same functions the headless reader uses (``native.step_to_event`` and
its header parser, with the same ``prev_failed`` bookkeeping), so a run read here has the
same events as ``efc_tui.parsers.load`` gives (``tests/app/test_tail.py`` checks it) and
scores the same. Gzipped files and other formats are read whole by ``parsers.load``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

import orjson

from efc_tui.errors import InputError
from efc_tui.model import Event, Run
from efc_tui.parsers import native
from efc_tui.parsers.base import read_head
from efc_tui.parsers.status import is_failure

# The native reader's header parser and its malformed-line signal. They are private there;
# using them (rather than a copy) keeps one parse path for the same bytes.
_header = native.parse_header
_Bad = native.MalformedLine

#: bytes read per call; a batch is always cut at the last complete line
CHUNK = 4 * 1024 * 1024
#: bytes compared at the file's start and before the offset to see it was not rewritten
MARK = 256


def can_tail(path: str | Path) -> bool:
    """True when the file is an uncompressed efc-trace/1 JSONL file (what this module reads)."""
    p = Path(path)
    try:
        head = read_head(p)
    except InputError:
        return False
    return not head.gzipped and native.sniff(head) > 0


class TailBatch:
    """What one read produced (a plain class: a dataclass generates and compiles its
    code when its module is imported, at every start of the app)."""

    __slots__ = ("another_run", "events", "rotated", "shrank", "warnings")

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.warnings: list[str] = []
        #: a second run header was met: the file holds more than one run (reading stopped there)
        self.another_run = False
        #: the file is now shorter than what was read (rotated or truncated): reading stopped
        self.shrank = False
        #: the path is now another file, or its bytes already read changed: reading stopped
        self.rotated = False


class NativeTail:
    """Incremental reader of one run in an efc-trace/1 file.

    Call ``read()`` until ``at_end``; then, for a log still being written, call ``read()``
    again whenever the file may have grown. ``finish()`` treats an unterminated last line
    the way the headless reader does (parse it if whole, otherwise warn).
    """

    def __init__(self, path: str | Path, *, lenient: bool = False) -> None:
        self.path = Path(path)
        self.lenient = lenient
        self.offset = 0  # bytes consumed (always just after a newline, or at a whole line)
        self.lineno = 0
        self.run: Run | None = None
        self.prev_failed = False
        self.skipped = 0
        self.stopped = False  # a second run or a shrunk file: nothing more will be read
        self.size = 0
        self._skip_newline = False  # the last line was consumed before its "\n" arrived
        self._ident: tuple[int, int] | None = None  # (st_dev, st_ino) of the file read
        self._head = b""  # its first bytes read (up to MARK)
        self._tail = b""  # the bytes just before ``offset`` (up to MARK)

    @property
    def n_events(self) -> int:
        return 0 if self.run is None else len(self.run.events)

    @property
    def at_end(self) -> bool:
        return self.stopped or self.offset >= self.size

    def stat_size(self) -> int:
        try:
            self.size = os.stat(self.path).st_size
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", self.path) from None
        return self.size

    def _open(self) -> BinaryIO:
        try:
            return self.path.open("rb")
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", self.path) from None

    def _same_file(self, f: BinaryIO, batch: TailBatch) -> bool:
        """Is the open file still the one read so far? Sets ``size``; False (and the
        batch says why, reading stops) when it shrank, was replaced or rewritten."""
        st = os.fstat(f.fileno())
        self.size = st.st_size
        ident = (st.st_dev, st.st_ino)
        if self._ident is None:
            self._ident = ident
        if self.size < self.offset:
            batch.shrank = True
        elif ident != self._ident or not self._marks_hold(f):
            batch.rotated = True
        else:
            return True
        self.stopped = True
        return False

    def _marks_hold(self, f: BinaryIO) -> bool:
        if self._head:
            f.seek(0)
            if f.read(len(self._head)) != self._head:
                return False
        if self._tail:
            f.seek(self.offset - len(self._tail))
            if f.read(len(self._tail)) != self._tail:
                return False
        return True

    def _consumed(self, data: bytes) -> None:
        """Remember the bytes just read past the old offset (``data``) as the marks."""
        if len(self._head) < MARK:
            self._head = (self._head + data[:MARK])[:MARK]
        self._tail = (self._tail + data[-MARK:])[-MARK:]

    def read(self, max_bytes: int = CHUNK) -> TailBatch:
        """Parse the complete lines after ``offset`` (at most about ``max_bytes``)."""
        batch = TailBatch()
        if self.stopped:
            return batch
        with self._open() as f:
            if not self._same_file(f, batch) or self.size == self.offset:
                return batch
            start = self.offset
            f.seek(start)
            data = f.read(min(max_bytes, self.size - start))
        raw = data
        if self._skip_newline and data[:1] == b"\n":
            data = data[1:]
            self.offset += 1
        self._skip_newline = False
        end = data.rfind(b"\n")
        if end < 0:
            if self.offset + len(data) < self.size:  # one line longer than the chunk: read it whole
                self._consumed(raw[: self.offset - start])
                return self.read(max_bytes * 2)
            self._consumed(raw[: self.offset - start])
            return batch  # only an unterminated line so far
        self._lines(data[: end + 1], batch)
        self._consumed(raw[: self.offset - start])
        return batch

    def finish(self) -> TailBatch:
        """Handle an unterminated last line as ``parsers.load`` does: whole JSON is a line;
        anything else is a truncated line, reported as a warning."""
        batch = TailBatch()
        if self.stopped:
            return batch
        with self._open() as f:
            if not self._same_file(f, batch) or self.size <= self.offset:
                return batch
            start = self.offset
            f.seek(start)
            rest = f.read()
        if not rest.strip():
            return batch
        try:
            orjson.loads(rest)
        except orjson.JSONDecodeError:
            if self.run is not None:
                warning = (
                    f"{self.path}:{self.lineno + 1}: truncated last line ignored "
                    "(a log still being written?)"
                )
                self.run.warnings.append(warning)
                batch.warnings.append(warning)
            return batch
        self._lines(rest, batch)
        self._consumed(rest[: self.offset - start])
        self._skip_newline = True
        return batch

    def _lines(self, data: bytes, batch: TailBatch) -> None:
        start = 0
        n = len(data)
        while start < n:
            nl = data.find(b"\n", start)
            stop = n if nl < 0 else nl + 1
            raw = data[start:stop]
            if not self._line(raw, batch):
                return  # stopped at a second run header; offset stays before it
            start = stop
            self.offset += len(raw)

    def _line(self, raw: bytes, batch: TailBatch) -> bool:
        self.lineno += 1
        if not raw.strip():
            return True
        try:
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                raise _Bad(f"not valid JSON ({exc.msg})") from None
            if not isinstance(obj, dict):
                raise _Bad(f"expected a JSON object, got {type(obj).__name__}")
            native.check_depth(raw, obj)
            typ = obj.get("type")
            if typ == "run":
                if self.run is not None:
                    self.lineno -= 1
                    self.stopped = True
                    batch.another_run = True
                    return False
                self.run = _header(obj, self.path, 0)
                return True
            if self.run is None:
                raise _Bad('the first line must be the run header {"type": "run", ...}')
            if typ != "step":
                raise _Bad(f'unknown line type {typ!r} (expected "run" or "step")')
            event = native.step_to_event(obj, len(self.run.events), self.prev_failed)
            if event.status.has_verdict:
                self.prev_failed = is_failure(event.status)
            self.run.events.append(event)
            batch.events.append(event)
        except _Bad as bad:
            if not self.lenient:
                raise InputError(str(bad), self.path, self.lineno) from None
            self.skipped += 1
            warning = f"{self.path}:{self.lineno}: skipped: {bad}"
            if self.run is not None:
                self.run.warnings.append(warning)
            batch.warnings.append(warning)
        return True

    def finished_run(self) -> Run:
        """The run as read so far (with the lenient flag ``parsers.load`` would add)."""
        if self.run is None:
            if self.skipped:
                raise InputError(
                    f"no valid run header; {self.skipped} malformed line(s) skipped", self.path
                )
            raise InputError("empty trace: no run header line", self.path)
        flag = f"lenient: {self.skipped} malformed line(s) skipped"
        self.run.flags = [f for f in self.run.flags if not f.startswith("lenient: ")]
        if self.skipped:
            self.run.flags.append(flag)
        return self.run
