"""``efc-tui open``: the Textual replay app.

One trace file holding one run opens straight into :class:`ReplayScreen`; several files,
a folder, or a file holding several runs open :class:`PickerScreen`. The app owns what
the screens share (how to read and score a run: the library's functions, never a copy;
the fit curves; where exports go) and hands it to each screen it makes. Screens never
call the app: they post messages (``efc_tui.app.messages``) and the app decides.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from efc_tui._lazy import lazy_module
from efc_tui.app.loading import RunLoader
from efc_tui.app.messages import FitWanted, LoadFailed, OpenEvent, OpenPicker, OpenRun, ScreenReady
from efc_tui.app.screens.replay import ReplayScreen
from efc_tui.model import Run
from efc_tui.parsers import Outcomes, expand_paths
from efc_tui.parsers import load as load_file

if TYPE_CHECKING:
    from efc_tui.adapter import ScoredRun
    from efc_tui.app.fitview import FitView
    from efc_tui.app.screens.picker import PickerScreen
    from efc_tui.scoring import Estimator

# the first frame needs none of these: each is imported when first used (efc_tui._lazy)
api = lazy_module("efc_tui.api")
fitview = lazy_module("efc_tui.app.fitview")
glossary = lazy_module("efc_tui.app.glossary")
help_screen = lazy_module("efc_tui.app.screens.help")
picker = lazy_module("efc_tui.app.screens.picker")
pipeline_score = lazy_module("efc_tui.pipeline.score")
compare_screen = lazy_module("efc_tui.app.screens.compare")


class EfcApp(App[int]):
    """Replay one run, or pick one from many."""

    TITLE = "efc-tui"
    CSS_PATH = "app.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Quit efc-tui"),
        Binding(
            "question_mark,f1",
            "help",
            "Keys",
            key_display="?",
            id="app.help",
            tooltip="Show every key",
        ),
    ]

    def __init__(
        self,
        paths: list[Path],
        *,
        fmt: str | None = None,
        lenient: bool = False,
        estimator: Estimator | None = None,
        fit: FitView | None = None,
        follow: bool = False,
        select: int | None = None,
        export_dir: Path | None = None,
        picker: bool | None = None,
        outcomes: Outcomes | None = None,
        compare: Path | None = None,
        jobs: int | None = None,
    ) -> None:
        super().__init__()
        #: trace files (folders and globs expanded, as ``efc-tui score`` expands them)
        self.paths = expand_paths(paths)
        self.fmt = fmt
        self.lenient = lenient
        #: where run outcomes come from (sidecars; a labels file), as for ``efc-tui score``
        self.outcomes = outcomes
        #: None: each run is scored with the package estimator that matches it, as `score` does
        self.estimator = estimator
        #: the fit curves; None: the package's, read in the background once the first
        #: screen is drawn (``FitWanted``), so that reading them does not delay it
        self.fit_view = fit
        self.follow = follow
        self.select = select
        #: where ``e`` proposes to write ledgers (None: beside each trace)
        self.export_dir = export_dir
        #: ``--compare B``: open the compare view of the one run given and B's run
        self.compare = compare
        #: processes the picker reads and scores files on (None: as ``efc-tui score``
        #: decides, ``pipeline.score.pool_jobs``)
        self.jobs = jobs
        self.use_picker = (
            picker
            if picker is not None
            else len(self.paths) != 1 or any(Path(p).is_dir() for p in paths)
        )
        #: the message printed when the app exits on bad input (the CLI exits 2)
        self.failure: str | None = None
        #: set when the first screen has read and scored what it shows, or failed
        #: (``--screenshot`` and the bench wait on it)
        self.ready = asyncio.Event()
        self._fit_reading = False

    # -- what the screens are given ---------------------------------------------------------

    def read_runs(self, path: Path) -> Iterator[Run]:
        return load_file(path, self.fmt, lenient=self.lenient, outcomes=self.outcomes)

    def score(self, run: Run) -> ScoredRun:
        """Score a run the way ``efc-tui score`` does: ``efc_tui.api.score``, with the
        adapter's would-be decisions and summary."""
        return api.score(run, self.estimator)

    def _replay(self, path: Path, *, ordinal: int = 0, from_picker: bool = False) -> ReplayScreen:
        loader = RunLoader(
            path,
            fmt=self.fmt,
            lenient=self.lenient,
            ordinal=ordinal,
            from_picker=from_picker,
            follow=self.follow and not from_picker,
            outcomes=self.outcomes,
        )
        return ReplayScreen(
            loader,
            score=self.score,
            fit=self.fit_view,
            export_dir=self.export_dir,
            select=None if from_picker else self.select,
        )

    def _picker(self) -> PickerScreen:
        jobs = pipeline_score.pool_jobs(self.paths, self.jobs)
        return picker.PickerScreen(self.paths, read=self.read_runs, score=self.score, jobs=jobs)

    def on_fit_wanted(self, message: FitWanted) -> None:
        """Read the package's fit in a worker thread (once) and hand it to every replay
        screen; a screen asks when its first rows are drawn."""
        if self.fit_view is None and not self._fit_reading:
            self._fit_reading = True
            self.run_worker(self._read_fit, thread=True, group="fit", exit_on_error=False)

    def _read_fit(self) -> None:
        try:
            view = fitview.load_fit_view(None)  # the package's fit: a problem is a view saying why
        except Exception as exc:  # a bug: the replay still works, and the panel says why
            view = fitview.FitView(
                [], None, problem=f"no fit available ({type(exc).__name__}: {exc})"
            )
        self.call_from_thread(self._fit_read, view)

    def _fit_read(self, view: FitView) -> None:
        self.fit_view = view
        for screen in self.screen_stack:
            if isinstance(screen, ReplayScreen) and screen.fit is None:
                screen.set_fit(view)

    # -- screens ----------------------------------------------------------------------------

    def get_default_screen(self) -> Screen[Any]:
        """The replay screen itself when there is one run to replay: no empty screen is
        composed and drawn before it (~5% of the first frame's cost)."""
        if self.compare is None and not self.use_picker:
            return self._replay(self.paths[0])
        return super().get_default_screen()

    def on_mount(self) -> None:
        if self.compare is not None:
            self.push_screen(
                compare_screen.CompareScreen(
                    self.paths[0], self.compare, read=self.read_runs, score=self.score
                )
            )
        elif self.use_picker:
            self.push_screen(self._picker())

    def on_open_event(self, message: OpenEvent) -> None:
        """The compare view asks for one of its runs at an event: replay it (esc: back)."""
        loader = RunLoader(
            message.path,
            fmt=self.fmt,
            lenient=self.lenient,
            from_picker=True,
            outcomes=self.outcomes,
        )
        self.push_screen(
            ReplayScreen(
                loader,
                score=self.score,
                fit=self.fit_view,
                export_dir=self.export_dir,
                select=message.event,
            )
        )

    def on_open_run(self, message: OpenRun) -> None:
        self.push_screen(self._replay(message.path, ordinal=message.ordinal, from_picker=True))

    def on_open_picker(self, message: OpenPicker) -> None:
        """The single file holds several runs: show them in the picker."""
        self.use_picker = True
        if self.follow:
            self.notify(
                "this file holds several runs: --follow is off", severity="warning", markup=False
            )
        if len(self.screen_stack) > 1:
            self.switch_screen(self._picker())
        else:  # the app's first screen, which Textual cannot switch out: the picker goes on
            self.push_screen(self._picker())  # top, and its esc quits: it is never seen again

    def on_load_failed(self, message: LoadFailed) -> None:
        """Reading or scoring failed. From the picker: say so and go back. Otherwise exit
        with the one-line reason (the CLI exits 2)."""
        if message.recoverable and isinstance(self.screen, ReplayScreen):
            self.notify(message.error, severity="error", markup=False)
            self.pop_screen()
            return
        self.failure = message.error
        self.ready.set()
        self.exit(return_code=2, message=None)

    def on_screen_ready(self, message: ScreenReady) -> None:
        self.ready.set()

    # -- help and command palette ------------------------------------------------------------

    def action_help(self) -> None:
        screen = self.screen
        if isinstance(screen, help_screen.HelpScreen):
            return
        words = glossary.glossary() if isinstance(screen, ReplayScreen) else None
        self.push_screen(
            help_screen.HelpScreen(
                help_screen.key_rows(screen), help_screen.screen_title(screen), words
            )
        )

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Every described key binding of the current screen as a command, once, by its
        name and with its keys (STYLE.md: the palette is built from BINDINGS); then
        Textual's own commands that are not already there (theme, screenshot, ...)."""
        key_name = help_screen.key_name
        actions: dict[str, tuple[str, object, list[str]]] = {}
        words: dict[str, str] = {}
        for key, active in screen.active_bindings.items():
            b = active.binding
            if not b.description or b.system or b.action in ("quit", "command_palette"):
                continue
            entry = actions.setdefault(b.description, (b.action, active.node, []))
            if key_name(key) not in entry[2]:
                entry[2].append(key_name(key))
            if b.tooltip:
                words.setdefault(b.description, b.tooltip)
        for title, (action, node, keys) in actions.items():
            yield SystemCommand(
                title,
                f"{words.get(title, title)}  (key: {' '.join(keys)})",
                partial(self._run_bound, action, node),
            )
        for command in super().get_system_commands(screen):
            if command.title not in actions:
                yield command

    async def _run_bound(self, action: str, node: object) -> None:
        await self.run_action(action, node)  # type: ignore[arg-type]
