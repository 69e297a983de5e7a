"""``efc-tui open`` with plain options, read and run without importing Typer.

Typer and the click it vendors cost ~0.08 G instructions (~30 ms) of the ~0.6 s before the
first frame of ``efc-tui open``. This reads the command's plain options the way
``_score_argv`` reads ``score``'s (the same parser, with this command's tables) and hands
everything else to Typer: ``--help``, an unknown or combined short option, a value that
starts with ``-``, a number out of range or spelled unusually, a path that exists but
cannot be read. A test keeps the tables in step with ``open.py`` and checks that every
command line read here gives the keyword arguments Typer gives.
"""

from __future__ import annotations

from efc_tui.cli._coerce import _to_float, _to_int
from efc_tui.cli._score_argv import _at_least, _path, _text
from efc_tui.cli._score_argv import parse as _parse
from efc_tui.cli._score_argv import run as _run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

#: flags: option -> (parameter, value it sets)
FLAGS: dict[str, tuple[str, bool]] = {
    "--follow": ("follow", True),
    "--lenient": ("lenient", True),
    "--no-lenient": ("lenient", False),
}

#: options that take a value: option -> (parameter, conversion raising _Slow for Typer)
VALUED: dict[str, tuple[str, Callable[[str], Any]]] = {
    "--format": ("fmt", _text),
    "-f": ("fmt", _text),
    "--fit": ("fit", _path),
    "--screenshot": ("screenshot", _path),
    "--select": ("select", _at_least(_to_int, 0)),
    "--size": ("size", _text),
    "--export-dir": ("export_dir", _path),
    "--estimator": ("estimator", _text),
    "--compare": ("compare", _path),
    "--labels": ("labels", _path),
    "--success-threshold": ("success_threshold", _to_float),
}


def parse(args: list[str]) -> dict[str, Any] | None:
    """The keyword arguments of ``_open_run.run`` for ``efc-tui open ARGS``, or None when
    Typer should read ``args``."""
    return _parse(args, FLAGS, VALUED)


def run(options: dict[str, Any]) -> None:
    """Run ``efc-tui open`` with ``options`` (from ``parse``) and exit as Typer would."""
    _run(options, "_open_run")
