"""The replay screen's keys: every binding with its id and tooltip, in one list.

Kept apart from ``replay.py`` so the screen module holds behaviour, not the key table;
``ReplayScreen.BINDINGS`` is this list.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

#: show=True: the footer (it must fit 80 columns with ? and q); every binding with a
#: description is in ? and the command palette
BINDINGS: list[BindingType] = [
    Binding(
        "j",
        "step(1)",
        "Next",
        key_display="j/↓",
        id="replay.next",
        tooltip="Select the next event",
    ),
    Binding(
        "k",
        "step(-1)",
        "Prev",
        key_display="k/↑",
        id="replay.previous",
        tooltip="Select the previous event",
    ),
    Binding(
        "g",
        "first",
        "First event",
        show=False,
        id="replay.first",
        tooltip="Select the first event",
    ),
    Binding(
        "G", "last", "Last event", show=False, id="replay.last", tooltip="Select the last event"
    ),
    Binding(
        "space",
        "toggle_play",
        "Play",
        key_display="space",
        id="replay.play",
        tooltip="Play or pause the automatic replay",
    ),
    Binding(
        "plus,equals_sign",
        "speed(1)",
        "Faster",
        key_display="+",
        show=False,
        id="replay.faster",
        tooltip="Replay faster",
    ),
    Binding(
        "minus,underscore",
        "speed(-1)",
        "Slower",
        key_display="-",
        show=False,
        id="replay.slower",
        tooltip="Replay slower",
    ),
    Binding(
        "n",
        "decision(1)",
        "Next decision",
        show=False,
        id="replay.next_decision",
        tooltip="Jump to the next adapter decision (promote, discard, stop, roll back)",
    ),
    Binding(
        "N",
        "decision(-1)",
        "Previous decision",
        show=False,
        id="replay.previous_decision",
        tooltip="Jump to the previous adapter decision",
    ),
    Binding(
        "slash",
        "search",
        "Search",
        key_display="/",
        id="replay.search",
        tooltip="Search actions, tools and observations (enter again: next match)",
    ),
    Binding(
        "f",
        "filter",
        "Filter",
        show=False,
        id="replay.filter",
        tooltip="Show only events of one kind or status",
    ),
    Binding(
        "e",
        "export",
        "Export",
        id="replay.export",
        tooltip="Write the annotated ledger (efc-ledger/1 JSON) and say where",
    ),
    Binding(
        "p",
        "predictor",
        "Predictor",
        show=False,
        id="replay.predictor",
        tooltip="Switch the fit panel to the next predictor",
    ),
    Binding(
        "v",
        "view_text('observation')",
        "Full observation",
        show=False,
        id="replay.view_observation",
        tooltip="Show the whole observation text",
    ),
    Binding(
        "a",
        "view_text('action')",
        "Full action",
        show=False,
        id="replay.view_action",
        tooltip="Show the whole action text",
    ),
    Binding(
        "y",
        "copy('observation')",
        "Copy observation",
        show=False,
        id="replay.copy",
        tooltip="Copy the observation text to the clipboard (OSC 52)",
    ),
    Binding(
        "Y",
        "copy('action')",
        "Copy action",
        show=False,
        id="replay.copy_action",
        tooltip="Copy the action text to the clipboard (OSC 52)",
    ),
    Binding(
        "tab",
        "app.focus_next",
        "Next pane",
        show=False,
        id="replay.next_pane",
        tooltip="Move the focus between the ledger and the event pane",
    ),
    Binding(
        "shift+tab",
        "app.focus_previous",
        "Previous pane",
        show=False,
        id="replay.previous_pane",
        tooltip="Move the focus back",
    ),
    Binding(
        "escape",
        "back",
        "Back",
        show=False,
        id="replay.back",
        tooltip="Close the search box, or go back to the run picker",
    ),
]
