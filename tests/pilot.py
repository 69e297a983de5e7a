"""Pilot helpers for the app tests: wait for workers instead of sleeping."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Callable, Coroutine
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input
from textual.worker import WorkerCancelled, WorkerFailed

from efc_tui.app.screens.compare import CompareScreen
from efc_tui.app.screens.picker import PickerScreen
from efc_tui.app.screens.replay import ReplayScreen


def pilot_test(fn: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async pilot test with asyncio.run (no async plugin needed)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(fn(*args, **kwargs))

    return wrapper


def settled(app: App[Any]) -> bool:
    """The current screen has read and scored what it shows (no worker pending)."""
    screen = app.screen
    if isinstance(screen, ReplayScreen):
        return screen.ready.is_set() and not screen.scoring
    if isinstance(screen, PickerScreen):
        return screen.done
    if isinstance(screen, CompareScreen):
        return screen.diff is not None
    return True


async def settle(pilot: Pilot[Any], timeout: float = 120.0) -> None:
    """Wait until the app's screen is loaded and scored: wait for the workers, let their
    messages be handled, and repeat (loading starts scoring, which may start another)."""
    app = pilot.app
    deadline = time.monotonic() + timeout
    while True:
        # A failed worker is reported by its screen: the app records the failure and exits
        # (the CLI exits 2), which cancels the remaining workers. Either way, stop waiting.
        with contextlib.suppress(WorkerFailed, WorkerCancelled):
            await app.workers.wait_for_complete()
        if getattr(app, "failure", None) is not None:
            return
        await pilot.pause()
        if getattr(app, "failure", None) is not None or settled(app):
            return
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not finish loading in time")
        await asyncio.sleep(0.01)


async def steady(pilot: Pilot[Any]) -> None:
    """Settle, then take out of the picture what a clock decides: a notice (its toast goes
    after a timeout, so under load it is on a snapshot or not) and a text box's blinking
    cursor (shown or hidden by a 0.5 s timer). Snapshots take their picture after this;
    a notice is asserted through the pilot (``tests.app.test_ux.Notes``), not on an SVG.
    The ledger's scroll is set from its state too: scrolled as little as shows the selected
    row at the ledger's final height. (How far it had scrolled depends on the heights it had
    on the way, the read-progress bar's and the footer's, which come and go with the load.)"""
    from efc_tui.app.widgets.ledger import LedgerView

    await settle(pilot)
    app = pilot.app
    for screen in app.screen_stack:
        for box in screen.query(Input):
            box.cursor_blink = False  # the cursor stays shown
        for ledger in screen.query(LedgerView):
            ledger.scroll_to(y=0, animate=False, immediate=True)
            ledger._keep_visible_now()
    app.clear_notifications()
    await pilot.pause()
