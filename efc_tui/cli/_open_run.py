"""``efc-tui open``, the command itself: what Typer runs (``open.py`` declares the
options). Textual is imported only when the app runs."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from efc_tui._lazy import lazy_module
from efc_tui.cli._common import collect_paths, fail, outcomes_from
from efc_tui.errors import EfcError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from textual.pilot import Pilot

# the app and the library, imported when the command runs (efc_tui._lazy): not for its
# --help, and the estimator and the fit only when named (the app reads the defaults after
# its first frame)
tui_app = lazy_module("efc_tui.app.app")
loading = lazy_module("efc_tui.app.loading")
fitview = lazy_module("efc_tui.app.fitview")
io = lazy_module("efc_tui.io")
parsers = lazy_module("efc_tui.parsers")
scoring = lazy_module("efc_tui.scoring")

DEFAULT_SIZE = (120, 40)


def _size(value: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", value)
    if not m:
        fail(f"--size must look like 120x40, not {value!r}")
    w, h = int(m.group(1)), int(m.group(2))
    if not (40 <= w <= 1000 and 12 <= h <= 500):
        fail(f"--size {w}x{h} is out of range (40x12 to 1000x500)")
    return w, h


def run(
    paths: list[str],
    fmt: str | None = None,
    fit: Path | None = None,
    follow: bool = False,
    screenshot: Path | None = None,
    select: int | None = None,
    size: str = "120x40",
    export_dir: Path | None = None,
    estimator: str | None = None,
    lenient: bool = False,
    compare: Path | None = None,
    labels: Path | None = None,
    success_threshold: float = 1.0,
) -> None:
    """Replay one run, or pick one from several (see ``open.py`` for the options)."""
    outcomes = outcomes_from(labels, success_threshold)
    files = collect_paths(paths)
    single = len(files) == 1 and not Path(paths[0]).is_dir()
    if follow:
        if not single:
            fail("--follow tails one file, not several or a folder")
        problem = loading.follow_problem(files[0], fmt)
        if problem is not None:
            fail(problem)
    if compare is not None:
        if not single or follow:
            fail("--compare compares one run with another: give one PATH, without --follow")
        if not compare.is_file():
            fail(f"--compare {compare}: no such file")
    if export_dir is not None and not export_dir.is_dir():
        fail(f"--export-dir {export_dir}: no such folder")
    if screenshot is not None and not screenshot.parent.is_dir() and str(screenshot.parent):
        fail(f"--screenshot {screenshot}: the folder does not exist")
    term_size = _size(size)
    try:
        est = None  # None: the app picks the one that matches each run, after its first frame
        if estimator:
            est = scoring.load_estimator(estimator)
        fit_view = None  # the app reads the package's fit after its first frame (numpy with it)
        if fit is not None:
            fit_view = fitview.load_fit_view(fit)
        if single:
            if fmt:
                parsers.get_reader(fmt)
            else:
                parsers.detect(files[0])
    except EfcError as exc:
        fail(exc)

    tui = tui_app.EfcApp(
        files,
        fmt=fmt,
        lenient=lenient,
        estimator=est,
        fit=fit_view,
        follow=follow,
        select=select,
        export_dir=export_dir,
        picker=not single,
        outcomes=outcomes,
        compare=compare,
    )
    if screenshot is None:
        tui.run()
    else:
        out = screenshot

        async def shoot(pilot: Pilot[object]) -> None:
            await tui.ready.wait()
            if tui.failure is None:
                await pilot.pause()
                io.write_atomic(
                    out, tui.export_screenshot(title=f"efc-tui open {files[0].name}").encode()
                )
            tui.exit(0 if tui.failure is None else 2)

        tui.run(headless=True, size=term_size, auto_pilot=shoot)
    if tui.failure:
        fail(tui.failure)
    if screenshot is not None:
        sys.stderr.write(f"wrote {screenshot}\n")
