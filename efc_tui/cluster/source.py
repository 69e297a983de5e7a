"""What the cluster is given and gives back: a run source, and what reading it gave.

Plain data, imported by every module of the package (``remote`` plans sources, ``tasks``
reads them, the CLI reports them), so it imports none of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from efc_tui.pipeline.score import ScoredItem


@dataclass(frozen=True)
class Source:
    """One unit of work: a log file (or, for a URL, what to fetch to read it)."""

    index: int
    #: the path as the local path would name it, or the URL of the log
    path: str
    #: named on the command line (an unreadable one is an error, not a skip)
    named: bool = False
    #: for a URL: what to fetch and read (efc_tui.cluster.remote), else None
    remote: Any = None


@dataclass
class SourceResult:
    """What reading one source gave: its runs in order, or why it could not be read."""

    index: int
    path: str
    items: list[ScoredItem] = field(default_factory=list)
    #: one line naming file (and line) when the source could not be read; its runs are
    #: then left out (a file is read whole or not at all)
    error: str | None = None
    #: "input" (bad input), "unrecognized" (no reader), "internal" (an unexpected failure),
    #: "lost" (the worker died)
    error_kind: str | None = None
    #: for an unrecognized file: "sidecar" (an evaluation report), "trajectory" (looks like
    #: an agent log), "trial" (a trial folder none of whose logs a reader recognizes) or
    #: "other"
    looks_like: str | None = None
    #: indices of the labels file rows a run of this source matched
    labels_used: list[int] = field(default_factory=list)
    #: the warnings of a URL source's fetch (a sidecar too large, ...)
    warnings: list[str] = field(default_factory=list)


__all__ = ["Source", "SourceResult"]
