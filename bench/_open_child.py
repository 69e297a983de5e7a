"""The measured process of ``bench/open_bench.py`` (not run by hand).

    python bench/_open_child.py efc PATH [--scored]   # `efc-tui open PATH`
    python bench/_open_child.py viewer PATH|-          # a minimal Textual viewer (``-``: the floor)
    ... [--until-first] [--slow]

``--until-first``: print the stamps and end the process (``os._exit``) at the first frame
with rows, so that nothing after it is counted (``bench/open_instructions.py``, under
valgrind). ``--slow``: the app's waits for the first rows and the first frame
(``FIRST_ROWS_WAIT``, ``FIRST_PAINT_WAIT``), tuned for a normal speed, are raised to
10 minutes, for a run ~50x slower under valgrind that would otherwise time them out and
count a path users do not take.

It imports nothing before the code it measures: ``efc`` runs ``efc_tui.cli.main`` as the
console script does (the CLI sets the garbage collector's threshold and BLAS threads before
it imports Textual; importing the app here first would time something else), and patches
the app from an import hook once the CLI has imported it. Prints one JSON line of stamps:
``time.perf_counter()`` (the parent subtracts its own start: one clock for every process)
and, for ``*_cpu``, this process's CPU seconds.

"first" is when the first frame that shows ledger rows is handed to the terminal
(``App._display``, outside an update batch: what Textual writes; headless, it writes
nothing, so this is the moment it would). Not ``pilot.pause()``: it waits for the process
to go idle, up to a second, and a load still reading never is.
"""

from __future__ import annotations

import json
import os
import sys
import time
from importlib.machinery import ModuleSpec
from importlib.util import find_spec
from typing import Any

STAMPS: dict[str, float] = {}
#: --until-first: end the process at the first frame with rows
UNTIL_FIRST = "--until-first" in sys.argv[3:]
#: --slow: a run under valgrind; the app's waits are raised to this (seconds)
SLOW_WAIT = 600.0 if "--slow" in sys.argv[3:] else None


def _stamp(name: str) -> None:
    STAMPS.setdefault(name, time.perf_counter())
    STAMPS.setdefault(f"{name}_cpu", time.process_time())
    if name == "first" and UNTIL_FIRST:
        print(json.dumps(STAMPS), flush=True)
        os._exit(0)


def _watch_frames(shows_rows: Any) -> None:
    """Stamp "first" at the first frame Textual would write while ``shows_rows(screen)``."""
    from textual.app import App

    display = App._display

    def display_stamped(self: App[Any], screen: Any, renderable: Any) -> None:
        if (
            renderable is not None
            and "first" not in STAMPS
            and not self._batch_count
            and shows_rows(screen)
        ):
            _stamp("first")
        display(self, screen, renderable)

    App._display = display_stamped  # type: ignore[method-assign]


class _AfterImport:
    """An import hook that calls ``then(module)`` once module ``name`` has been executed."""

    def __init__(self, name: str, then: Any) -> None:
        self.name, self.then = name, then

    def find_spec(self, fullname: str, path: object, target: object = None) -> ModuleSpec | None:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = find_spec(fullname)
        assert spec is not None and spec.loader is not None
        execute = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            execute(module)
            self.then(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


async def _drive(app: Any, scored: bool) -> None:
    """Run ``app`` headless at 120x40 until every event is read (``scored``: and scored)."""
    import asyncio

    from efc_tui.app.screens.replay import ReplayScreen

    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        while "first" not in STAMPS or not isinstance(screen, ReplayScreen):
            if app.failure:
                raise SystemExit(app.failure)
            await asyncio.sleep(0.002)
            screen = app.screen
        STAMPS["rows_first"] = float(screen.data.n_rows)
        while not screen.loaded:
            await asyncio.sleep(0.005)
        _stamp("read")
        STAMPS["events"] = float(len(screen.data))
        if scored:
            await asyncio.wait_for(app.ready.wait(), 900)
            await pilot.pause()
            _stamp("scored")


def efc(path: str, scored: bool) -> None:
    """`efc-tui open PATH` as the console script runs it, the app headless."""
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

    def patch(module: Any) -> None:  # efc_tui.app.app, imported by the CLI
        import asyncio

        _stamp("imported")
        if SLOW_WAIT is not None:
            from efc_tui.app import loading
            from efc_tui.app.screens import replay

            replay.FIRST_ROWS_WAIT = replay.FIRST_PAINT_WAIT = SLOW_WAIT
            loading.FIRST_PAINT_WAIT = SLOW_WAIT
        _watch_frames(lambda screen: getattr(getattr(screen, "data", None), "n_rows", 0) > 0)
        module.EfcApp.run = lambda app, *a, **k: asyncio.run(_drive(app, scored))

    sys.meta_path.insert(0, _AfterImport("efc_tui.app.app", patch))
    from efc_tui.cli import main

    sys.argv = ["efc-tui", "open", path]
    try:
        main()
    except SystemExit as exc:  # the CLI exits when the app returns
        if exc.code not in (0, None):
            raise


def viewer(path: str | None) -> None:
    """A minimal Textual viewer of a trajectory, the same-run stand-in for a peer's: it
    parses the whole file and shows its first messages in a DataTable. With ``path`` None
    it shows one row without reading anything: the least a Textual app pays for its first
    frame here (the floor under every figure of the bench)."""
    import asyncio

    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    import orjson
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable

    _stamp("imported")
    _watch_frames(lambda screen: any(t.row_count for t in screen.query(DataTable)))

    class Viewer(App[None]):
        def compose(self) -> ComposeResult:
            yield DataTable()

        def on_mount(self) -> None:
            table = self.query_one(DataTable)
            table.add_columns("#", "role", "content")
            if path is None:
                table.add_row("0", "-", "-")
                return
            with open(path, "rb") as f:
                doc = orjson.loads(f.read())
            messages = doc["messages"] if isinstance(doc, dict) else doc
            for i, m in enumerate(messages[:200]):
                text = str(m.get("content", "")) if isinstance(m, dict) else str(m)
                table.add_row(
                    str(i),
                    str(m.get("role", "-")) if isinstance(m, dict) else "-",
                    (text.splitlines() or [""])[0][:80],
                )

    async def run() -> None:
        app = Viewer()
        async with app.run_test(size=(120, 40)):
            while "first" not in STAMPS:
                await asyncio.sleep(0.002)
        STAMPS["read"] = STAMPS["first"]

    asyncio.run(run())


if __name__ == "__main__":
    mode, target = sys.argv[1], sys.argv[2]
    if mode == "efc":
        efc(target, "--scored" in sys.argv[3:])
    else:
        viewer(None if target == "-" else target)
    print(json.dumps(STAMPS), flush=True)
