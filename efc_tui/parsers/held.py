"""The run a command is done with, freed when reading resumes rather than at once.

Freeing a large run costs time: the 100k events of ``bench/score_bench.py`` take 0.037 s
to free and 0.015 s more to give the heap's free memory back to the system, 5% of
``score``. After the last run that time is spent on memory the process is about to give
back whole (the command line ends without the interpreter's teardown: ``cli._hard_exit``),
and only the next read can tell whether a run follows. So ``pipeline.score.run_by_run``
hands each run here once its caller is done with it (``hold``), and whatever reads more
input frees it first (``release``): a file opened (``base._open``, which sniffing and
every reader go through), the native reader's next block, a JSONL file's next line, an
Inspect log's next member, or the next run held. Memory still holds one run at a time,
plus what a reader builds of the next from input it read before (a block, a line, a
member, or a whole document a reader reads at once). A run still held when the command
ends is never freed; a library caller that reads nothing more can ``release`` it.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from efc_tui.model import Run

#: a run of at least this many events leaves enough free memory behind to give it back
#: (a trim costs about a millisecond; small runs reuse what they free anyway)
TRIM_EVENTS = 2_000

_held: list[Run] = []


def hold(run: Run) -> None:
    """Keep ``run`` until reading resumes; a run held before is freed now."""
    release()
    _held.append(run)


def release() -> None:
    """Free the held run, if any. After a large one, give the C heap's free memory back to
    the system (glibc's ``malloc_trim``; elsewhere nothing): without it the freed pages of a
    run's buffers stay in the process, and the next large file's reading, which cannot
    reuse them all, adds its own on top (a 40k-event trace, then a 25 MB Inspect log:
    182 MB against 144 MB for the larger alone; trimmed, 147 MB). Called before every
    line a JSONL reader reads: with nothing held it returns at the first test. The run is
    taken with one ``pop``: readers on other threads may call this at the same time."""
    if not _held:
        return
    try:
        run = _held.pop()
    except IndexError:  # another thread took it
        return
    large = len(run.events) >= TRIM_EVENTS
    del run  # freed here, unless a caller still holds it
    if large:
        trim = _malloc_trim()
        if trim is not None:
            trim(0)


@cache
def _malloc_trim() -> Any:
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS, Windows)
        return None
