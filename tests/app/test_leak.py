"""Screens opened from the picker go when they are closed (issue 34): the same run opened
ten times leaves no more behind than the last few screens, and what the process holds
does not grow with the opens."""

from __future__ import annotations

import gc
import weakref

from efc_tui.app.screens.picker import PickerScreen
from efc_tui.app.screens.replay import ReplayScreen
from tests.app.test_pilot import APP, SIZE, make_app, replay
from tests.pilot import pilot_test, settle

OPENS = 10
#: closed screens Textual may still reference for a moment: a screen's last finished
#: worker stays in the context of the messages it posted until those are done with (one or
#: two, more on a busy machine; the screens of every open, before the fix)
LINGER = 3
#: rounds of settling the app before the closed screens are counted
DRAINS = 20


def held() -> tuple[int, int]:
    """After a full collection: the objects of efc_tui's own classes the collector tracks
    (events, rows, scored runs, widgets, screens), and the objects frozen out of its reach
    (``gc.freeze``), which it never frees. Textual's own caches are left out: they are
    bounded (LRUs of rendered lines) but fill up over a few dozen screens."""
    gc.collect()
    ours = sum(
        str(getattr(type(o), "__module__", "")).startswith("efc_tui") for o in gc.get_objects()
    )
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
        before = held()
        one = 0  # our objects one open screen holds
        for _ in range(OPENS):
            await pilot.press("enter")
            await settle(pilot)
            screen = replay(app)
            assert screen.data.run.run_id == "run-bravo" and screen.data.n_scored == 13
            screens.append(weakref.ref(screen))
            del screen
            one = one or held()[0] - before[0]
            await pilot.press("escape")
            await settle(pilot)
            assert app.screen is picker
            counts.append(held())
        # the last screens' messages may still be in flight on a busy machine: let the app
        # drain them (its state, not a timer, says when) before counting what is left
        alive = OPENS
        for _ in range(DRAINS):
            await settle(pilot)
            gc.collect()
            alive = sum(ref() is not None for ref in screens)
            if alive <= LINGER:
                break
        assert alive <= LINGER, f"{alive} of {OPENS} closed replay screens are still alive"
        after = held()
    assert one > 0
    # nothing is frozen at any close, and our objects come back to what the picker holds,
    # give or take the screens that may linger: no growth with the number of opens
    assert {frozen for _, frozen in counts} == {before[1]}, counts
    assert after[1] == before[1], (before, after)
    assert after[0] - before[0] <= LINGER * one, (before, one, after, counts)
