"""The process's garbage-collection policy: the one place efc-tui changes the collector.

A run is hundreds of thousands of small acyclic objects (events, their tuples and dicts):
at Python's default thresholds (700, 10, 10) the cyclic collector walks them over and over
while a run is read and scored (10-30% of ``score`` on a 100k-event trace), and the replay
app's full collections over a loaded run paused it between key presses. Collecting after
100,000 allocations instead of 700 keeps every collection of the youngest objects short and
makes full ones rare; reference counting frees the rest as before.

``apply`` is called once, by the command line's entry point (``efc_tui.cli.main``) before
any command runs, and by each worker process ``score --jobs`` starts (``pipeline.pool``),
which is a process of its own. Nothing else turns the collector off, freezes objects or
changes the thresholds (tests/unit/test_boundaries.py scans the package for it): a thread
that turns the collector off turns it off for every thread, and objects frozen by one
screen stay alive for the life of the process.
"""

from __future__ import annotations

import gc

#: the cyclic collector's thresholds (generation 0, 1, 2)
THRESHOLDS = (100_000, 50, 100)


def apply() -> None:
    """Set this process's collector policy (``THRESHOLDS``)."""
    gc.set_threshold(*THRESHOLDS)
