"""Readers for agent log formats, and detection (SPEC §2, §9).

``load(path)`` detects a file's format from its content (``fmt`` overrides) and yields
its runs one at a time, each with its outcome and metadata from the sidecars around the
file (``sidecars.py``) and a labels file when given (``outcomes.Outcomes``).
``discover`` / ``expand_paths`` turn files, folders and globs into the logs to read, one
per trial (``discover.py``). To add a format, write a module with a ``read`` and describe
it in ``registry.py``, its sniff in ``sniffs.py``. Detection asks the sniffs, all in that one
light module, and imports only the winning reader's module: an efc-trace/1 file loads the
native reader alone, a mini-swe-agent trajectory the mini-swe-agent reader alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from efc_tui.errors import InputError, UnrecognizedFormat
from efc_tui.model import Run
from efc_tui.parsers.base import Reader, ReadOptions, Sniff, read_head
from efc_tui.parsers.discover import TRACE_SUFFIXES, Discovery, discover
from efc_tui.parsers.outcomes import DEFAULT_OUTCOMES, Outcomes
from efc_tui.parsers.registry import FORMATS, reader

if TYPE_CHECKING:
    from efc_tui.parsers.preview import PreviewLimit
    from efc_tui.parsers.registry import READERS

#: a file name ending in one of a reader's extensions adds this to its sniff (ties only)
EXTENSION_BONUS = 0.05
#: no reader can score above this (a sniff is a confidence in [0, 1]): detection stops at a
#: reader that reaches it, since an earlier reader wins a tie
BEST_SCORE = 1.0 + EXTENSION_BONUS

__all__ = [
    "READERS",
    "TRACE_SUFFIXES",
    "Discovery",
    "Outcomes",
    "ReadOptions",
    "Reader",
    "detect",
    "detect_format",
    "discover",
    "expand_paths",
    "get_reader",
    "load",
]


def __getattr__(name: str) -> Any:
    if name == "READERS":  # every reader, in detection order (imports them all)
        from efc_tui.parsers import registry

        return registry.READERS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_reader(name: str) -> Reader:
    if name in FORMATS:
        return reader(name)
    raise InputError(f"unknown format {name!r}; known formats: {', '.join(FORMATS)}")


def detect(path: Path, head: Sniff | None = None) -> Reader:
    """The reader whose sniff is most confident about this file's content
    (``detect_format``), its module imported now."""
    return reader(detect_format(path, head))


def detect_format(path: Path, head: Sniff | None = None) -> str:
    """The name of the format whose sniff is most confident about this file's content.

    Every sniff is in ``sniffs`` (one light module, each named after its reader's module),
    so detection imports no reader: ``detect`` imports the winner's alone, and discovery,
    which only asks whether a trial's log is readable, none (the command's process then
    forks its workers without them: each imports what it reads, side by side). A format
    that cannot beat the best score so far (its ``FORMATS`` ceiling, plus the extension
    bonus if the name fits) is not even asked: it could at most tie, and an earlier one
    wins a tie."""
    from efc_tui.parsers import sniffs

    s = head or read_head(path)
    if not s.head.strip():
        raise UnrecognizedFormat("empty file", path)
    best: tuple[float, int, str] | None = None
    name = path.name.lower()
    for order, (fmt, f) in enumerate(FORMATS.items()):
        bonus = EXTENSION_BONUS if name.endswith(f.extensions) else 0.0  # they only break ties
        if best is not None and f.ceiling + bonus <= best[0]:
            continue
        try:  # the reader's sniff, without importing the reader; never above its ceiling
            score = min(getattr(sniffs, f.module)(s), f.ceiling)
        except Exception:  # a sniffer must never take detection down
            score = 0.0
        if score <= 0:
            continue
        score += bonus
        key = (score, -order, fmt)
        if best is None or key[:2] > best[:2]:
            best = key
        if score >= BEST_SCORE:  # no later reader can beat it (nor tie: earlier wins)
            break
    if best is None:
        raise UnrecognizedFormat(
            "unrecognized format (run `efc-tui formats` to see what is read; "
            "`--format NAME` forces a reader)",
            path,
        )
    return best[2]


def load(
    path: str | Path,
    fmt: str | None = None,
    *,
    lenient: bool = False,
    outcomes: Outcomes | None = None,
    preview: PreviewLimit | None = None,
) -> Iterator[Run]:
    """Yield the runs in one file, each with its outcome from the sidecars around the file
    and ``outcomes.labels`` (default: sidecars, threshold 1); ``preview``: read only the
    file's first bytes (``preview.preview``). Raises InputError on unreadable input."""
    p = Path(path)
    reader = get_reader(fmt) if fmt else detect(p)
    how = outcomes or DEFAULT_OUTCOMES
    for run in reader.read(p, ReadOptions(lenient=lenient, preview=preview)):
        yield how.apply(run, p)
        del run  # not held while the next run is read


def expand_paths(args: Iterable[str | Path]) -> list[Path]:
    """Files, folders (walked recursively, sorted) and globs to the logs to read: one per
    trial, sidecars left out (``discover``)."""
    return discover(args).sources
