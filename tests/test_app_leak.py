"""Screens opened from the picker go when they are closed (issue 34): the same run opened
ten times leaves no replay screen behind, and what the process holds stays bounded."""

from __future__ import annotations

import gc
import weakref

from efc_tui.app.screens.picker import PickerScreen
from efc_tui.app.screens.replay import ReplayScreen
from tests.pilot import pilot_test, settle
from tests.test_app import APP, SIZE, make_app, replay

OPENS = 10


def held() -> tuple[int, int]:
    """After a full collection: the objects of efc_tui's own classes the collector tracks
    (events, rows, scored runs, widgets, screens), and the objects frozen out of its reach
    (``gc.freeze``), which it never frees. Textual's own caches are left out: they are
    bounded (LRUs of rendered lines) but fill up over a few dozen screens."""
    gc.collect()
    ours = sum(type(o).__module__.startswith("efc_tui") for o in gc.get_objects())
    return ours, gc.get_freeze_count()


@pilot_test
async def test_replay_screens_opened_from_the_picker_are_collected() -> None:
    app = make_app(APP / "corpus")
    screens: list[weakref.ref[ReplayScreen]] = []
    counts: list[tuple[int, int]] = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        await pilot.press(*"brav")
        for _ in range(OPENS):
            await pilot.press("enter")
            await settle(pilot)
            screen = replay(app)
            assert screen.data.run.run_id == "run-bravo" and screen.data.n_scored == 13
            screens.append(weakref.ref(screen))
            del screen
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is picker
            counts.append(held())
        # the screen closed last is still referenced by Textual (its finished worker, the
        # context of its last message) until the next one replaces them; none before it
        alive = sum(ref() is not None for ref in screens[:-1])
        assert alive == 0, f"{alive} of {OPENS - 1} closed replay screens are still alive"
    # from the second close on (the first fills the caches the picker and app keep), each
    # open and close leaves as many of our objects and frozen objects as it found
    assert len(set(counts[1:])) == 1, counts
