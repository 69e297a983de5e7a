"""Reading log files under SPEC §9's error rules, for every reader.

- :func:`load_document`: a whole-file JSON document; empty or invalid JSON is an
  InputError naming the file and line;
- :class:`JsonlSource`: the objects of a JSONL file, one line at a time (a malformed line
  is an InputError naming file:line unless ``--lenient``, which skips and counts it; a
  cut-short last line is a warning);
- invalid UTF-8 bytes and lone surrogate escapes are replaced by U+FFFD with a warning,
  never fatal;
- sniffing helpers (the whole document when it fits in the head, JSONL layout, a first
  line longer than the head) and :func:`guarded`, the net that turns a surprising
  structure into an InputError.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from efc_tui.errors import InputError
from efc_tui.model import Run
from efc_tui.parsers._values import MAX_DEPTH, deep_position, too_deep
from efc_tui.parsers.base import SNIFF_BYTES, ReadOptions, Sniff, open_binary, read_all
from efc_tui.parsers.held import release

#: at most this many per-line warnings are listed; the rest are only counted
MAX_LINE_WARNINGS = 20
#: what :meth:`JsonlSource.value` returns for a line that holds no value
NO_VALUE: Any = object()
_BOM = b"\xef\xbb\xbf"

# --------------------------------------------------------------------------- decoding

# A \\uD800-\\uDFFF escape that is not half of a surrogate pair (orjson rejects them; Python's
# json.dumps writes them for lone surrogates in tool output). Preceded by an even number of
# backslashes, so it is an escape and not literal text. Compiled by ``re`` on first use:
# compiling it costs more than the rest of this module's import, and only a broken file needs it.
_LONE_SURROGATE = (
    rb"(?<!\\)((?:\\\\)*)\\u(?:([dD][89abAB][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})?"
    rb"|[dD][c-fC-F][0-9a-fA-F]{2})"
)


def _fix_surrogates(data: bytes) -> bytes:
    def repl(m: re.Match[bytes]) -> bytes:
        if m.group(2) and m.group(3):
            return m.group(0)  # a proper pair
        return m.group(1) + b"\\ufffd"

    return re.sub(_LONE_SURROGATE, repl, data)


def loads_repairing(data: bytes) -> tuple[Any, bool]:
    """Parse JSON bytes (a leading BOM skipped). When that fails on invalid UTF-8 bytes or
    lone surrogate escapes, they are replaced by U+FFFD and the text parsed again; the flag
    says a repair happened. Raises ``orjson.JSONDecodeError`` when the JSON itself is bad."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    try:
        return _not_too_deep(data, orjson.loads(data)), False
    except orjson.JSONDecodeError as exc:
        if exc.msg.startswith("nested deeper"):
            raise
        try:
            data.decode("utf-8")
            bad_utf8 = False
        except UnicodeDecodeError:
            bad_utf8 = True
        fixed = _fix_surrogates(data) if b"\\u" in data else data
        if not bad_utf8 and fixed == data:
            raise
    return _not_too_deep(
        fixed, orjson.loads(fixed.decode("utf-8", errors="replace") if bad_utf8 else fixed)
    ), True


def _not_too_deep(data: bytes, value: Any) -> Any:
    """``value``, unless its JSON text nests deeper than any reader takes
    (``_values.MAX_DEPTH``): then a JSONDecodeError at the place, which the callers report
    as any invalid JSON, with its line."""
    if too_deep(data, value):
        pos = deep_position(data)
        doc = data[:pos].decode("utf-8", errors="replace")
        raise orjson.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels", doc, len(doc))
    return value


def decode_json(data: bytes) -> Any:
    """:func:`loads_repairing` without the flag (sidecar files, sniffing)."""
    return loads_repairing(data)[0]


def load_document(
    path: Path, options: ReadOptions | None = None, *, data: bytes | None = None
) -> tuple[Any, list[str]]:
    """A whole-file JSON document (``data`` when given, else the file as ``options`` read
    it) and any warnings (invalid UTF-8 replaced). A file that is empty or not JSON is an
    InputError naming the file and line."""
    if data is None:
        data = read_all(path, options)
    if not data.strip():
        raise InputError("empty file", path)
    try:
        value, repaired = loads_repairing(data)
    except orjson.JSONDecodeError as exc:
        cut = " (the file is cut short?)" if exc.msg.startswith("unexpected end") else ""
        raise InputError(f"not valid JSON: {exc.msg}{cut}", path, exc.lineno) from None
    except RecursionError:
        raise InputError("not valid JSON: nested too deeply", path) from None
    warnings = [f"{path}: invalid UTF-8 bytes replaced by U+FFFD"] if repaired else []
    return value, warnings


# --------------------------------------------------------------------------- JSONL


def raw_lines(path: Path, options: ReadOptions | None = None) -> Iterator[tuple[int, bytes]]:
    """``(line number, raw bytes)`` of every line of a (maybe gzipped) file; corrupt or
    truncated compressed data is an InputError naming the file."""
    lineno = 0
    with open_binary(path, options) as f:
        it = iter(f)
        while True:
            release()  # the run the command is done with (parsers.held)
            try:
                raw = next(it)
            except StopIteration:
                return
            except (EOFError, OSError, zlib.error) as exc:
                raise InputError(
                    f"cannot read further (corrupt or truncated compressed data: {exc})", path
                ) from None
            lineno += 1
            yield lineno, raw


#: the first byte of a JSON line (a console capture's other lines are text)
_JSON_START = (b"{", b"[")


class JsonlSource:
    """The JSON objects of a JSONL file, one line at a time (SPEC §9 error rules).

    A malformed line (not JSON, or not an object) is an InputError naming file and line,
    unless ``options.lenient``: then it is skipped, counted (``skipped``) and warned about.
    A last line without a newline that does not parse is a log still being written: a
    warning, not an error. Invalid UTF-8 is replaced, counted in ``repaired`` and warned
    about. At most :data:`MAX_LINE_WARNINGS` per-line warnings are kept.
    """

    def __init__(self, path: Path, options: ReadOptions, *, text_lines_ok: bool = False) -> None:
        self.path = path
        self.options = options
        #: a console capture (``claude -p ... > log.txt``): lines that are not JSON at all
        #: (do not start with ``{`` or ``[``) are counted in ``text_lines``, not errors
        self.text_lines_ok = text_lines_ok
        self.text_lines = 0
        self.lines = 0
        self.skipped = 0
        self.repaired = 0
        self.truncated_last = False
        self.warnings: list[str] = []

    def _warn(self, message: str) -> None:
        if len(self.warnings) < MAX_LINE_WARNINGS:
            self.warnings.append(message)

    def bad(self, reason: str, lineno: int) -> None:
        """A malformed line: raise, or (lenient) count and warn."""
        if not self.options.lenient:
            raise InputError(reason, self.path, lineno)
        self.skipped += 1
        self._warn(f"{self.path}:{lineno}: skipped: {reason}")

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        for lineno, raw in raw_lines(self.path, self.options):
            obj = self.object(lineno, raw)
            if obj is not None:
                yield lineno, obj
            elif self.truncated_last:
                break

    def values(self) -> Iterator[tuple[int, Any]]:
        """Every line's JSON value, whatever its type (formats whose lines are arrays,
        like asciinema recordings)."""
        for lineno, raw in raw_lines(self.path, self.options):
            obj = self.value(lineno, raw)
            if obj is not NO_VALUE:
                yield lineno, obj
            elif self.truncated_last:
                break

    def object(self, lineno: int, raw: bytes) -> dict[str, Any] | None:
        """One line's JSON object (None: the line holds none; see :meth:`value`)."""
        obj = self.value(lineno, raw)
        if obj is NO_VALUE:
            return None
        if not isinstance(obj, dict):
            self.bad(f"expected a JSON object, got {type(obj).__name__}", lineno)
            return None
        return obj

    def value(self, lineno: int, raw: bytes) -> Any:
        """One line's JSON value; ``NO_VALUE`` for a blank line, console text, a malformed
        line under ``--lenient`` (else an InputError) and a cut-short last line (no newline:
        ``truncated_last`` is set)."""
        if not raw or raw.isspace():  # blank (isspace: no stripped copy of a long line)
            return NO_VALUE
        if (
            self.text_lines_ok
            and raw[:1] not in _JSON_START
            and not raw.lstrip().startswith(_JSON_START)
        ):
            self.text_lines += 1
            return NO_VALUE
        self.lines += 1
        try:
            obj, repaired = loads_repairing(raw)
        except (orjson.JSONDecodeError, RecursionError) as exc:
            if not raw.endswith(b"\n"):
                self.truncated_last = True
                self.warnings.append(
                    f"{self.path}:{lineno}: truncated last line ignored (a log still being written?)"
                )
                return NO_VALUE
            self.bad(f"not valid JSON ({getattr(exc, 'msg', 'nested too deeply')})", lineno)
            return NO_VALUE
        if repaired:
            self.repaired += 1
            self._warn(f"{self.path}:{lineno}: invalid UTF-8 bytes replaced by U+FFFD")
        return obj

    def require(self, known: int, noun: str, not_this: str) -> None:
        """After reading: an InputError when the file gave the reader nothing (empty, only
        a cut-short line, only malformed lines, or ``known == 0`` lines of its format)."""
        if self.lines == 0:
            raise InputError("empty file", self.path)
        if known == 0:
            if self.truncated_last and self.lines == 1:
                raise InputError("the only line is cut short: nothing to read", self.path)
            if self.skipped:
                raise InputError(
                    f"no readable {noun} line ({self.skipped} malformed line(s) skipped)", self.path
                )
            raise InputError(not_this, self.path)

    def run_notes(self) -> tuple[list[str], list[str]]:
        """(flags, warnings) to add to the run after reading; the source starts afresh (a
        file of several runs gives each its own)."""
        flags: list[str] = []
        warnings = self.warnings
        if self.skipped:
            flags.append(f"lenient: {self.skipped} malformed line(s) skipped")
            if self.skipped > MAX_LINE_WARNINGS:
                warnings.append(f"{self.path}: {self.skipped} malformed lines skipped in all")
        if self.repaired > MAX_LINE_WARNINGS:
            warnings.append(f"{self.path}: invalid UTF-8 replaced on {self.repaired} lines in all")
        self.warnings, self.skipped, self.repaired = [], 0, 0
        return flags, warnings

    def settle(self, run: Run) -> Run:
        """Move the notes gathered so far onto a run."""
        flags, warnings = self.run_notes()
        run.flags.extend(flags)
        run.warnings.extend(warnings)
        return run


# --------------------------------------------------------------------------- sniffing


def whole_doc(s: Sniff) -> Any:
    """The parsed document when the whole file fits in the sniffed head, else None."""
    if "doc" in s._cache:
        return s._cache["doc"]
    value = None
    if len(s.head) < SNIFF_BYTES:
        try:
            value = decode_json(s.head)
        except (orjson.JSONDecodeError, RecursionError):
            value = None
    s._cache["doc"] = value
    return value


def is_jsonl(s: Sniff) -> bool:
    """The head holds one complete JSON object on its first line and more after it."""
    first = s.first_line_object
    if not isinstance(first, dict):
        return False
    text = s.head.lstrip()
    nl = text.find(b"\n")
    return nl >= 0 and bool(text[nl + 1 :].strip())


def first_line_cut(head: bytes) -> bytes | None:
    """The start of the first non-blank line when that line does not end inside ``head``
    (a line too long for the sniffed head, e.g. a 10 MB prompt); else None. Lets a JSONL
    sniffer recognise such a file from the line's first keys."""
    start = len(head) - len(head.lstrip())
    if b"\n" in head[start:]:
        return None
    return head[start:] or None


def jsonl_layout(path: Path, s: Sniff, options: ReadOptions | None = None) -> bool:
    """Whether a file is JSON Lines: :func:`is_jsonl` on the head, or, when the first line
    is longer than the head, that line parsed on its own with more lines after it."""
    if is_jsonl(s):
        return True
    if len(s.head) < SNIFF_BYTES or not s.head.lstrip().startswith((b"{", b"[")):
        return False
    if b"\n" in s.head.strip():
        return False  # the first line ended inside the head and is not a JSON value
    with open_binary(path, options) as f:  # under a preview: whole lines of its first bytes
        try:
            first = f.readline()
            if not first.endswith(b"\n"):
                return False  # one line: a document (a preview's first line may be longer)
            # a line after the first one, before parsing it: a one-line document (a large
            # JSON file written without newlines) is not parsed twice
            if not any(line.strip() for line in f):
                return False
            try:
                decode_json(first)
            except (orjson.JSONDecodeError, RecursionError):
                return False
            return True
        except (EOFError, OSError, zlib.error):
            return False


def trim_note(doc: Any, kept: int) -> str | None:
    """A run flag when whoever collected the file trimmed it and says so
    (``_corpus_trim_applied`` / ``_corpus_original_step_count`` beside the steps); its
    totals then cover steps that are not in the file."""
    if not isinstance(doc, dict) or not (
        doc.get("_corpus_trim_applied") or "_corpus_original_step_count" in doc
    ):
        return None
    original = doc.get("_corpus_original_step_count")
    of = f" of {original}" if isinstance(original, int) and not isinstance(original, bool) else ""
    return f"the file was trimmed by whoever collected it: {kept}{of} steps kept"


# --------------------------------------------------------------------------- safety


def guarded(fmt: str, path: Path, runs: Iterator[Run]) -> Iterator[Run]:
    """A safety net: a document whose structure surprises a reader is an InputError, not a
    crash (readers also check shapes as they go)."""
    try:
        yield from runs
    except InputError:
        raise
    except (
        KeyError,
        TypeError,
        AttributeError,
        ValueError,
        IndexError,
        RecursionError,
        OverflowError,
        UnicodeError,
        NotImplementedError,
    ) as exc:
        raise InputError(
            f"unexpected {fmt} structure ({type(exc).__name__}: {exc})", path
        ) from None


def stem(path: Path) -> str:
    """A file name without its trace suffixes (``a.response.sse.txt`` -> ``a.response``)."""
    name = path.name
    for suffix in (".gz", ".txt", ".sse", ".jsonl", ".ndjson", ".json", ".eval", ".traj"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name or path.name
