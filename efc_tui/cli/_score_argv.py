"""``efc-tui score`` with plain options, read and run without importing Typer.

Typer (with the click it vendors) is ~0.05-0.1 s of a ~0.3 s score of a small file, and a
CI job or a script pays it on every call for options it could read off ``argv`` in a few
microseconds. ``parse`` reads the common spellings: trace paths; the flags; ``--opt VALUE``
and ``--opt=VALUE`` for the options whose values are a plain string, a number that
``_coerce`` converts (in range), or a path Typer would take as given. It returns the
keyword arguments of ``_score_run.run``, exactly those Typer would pass (a test compares
the two on many command lines), or None for anything else: ``--help``, a Dask option, a
URL, ``--``, a combined or unknown short option, a value that starts with ``-``, a number
out of range or spelled unusually, a path that exists but cannot be read, a missing value
or path, a repeated flag's ``--no-`` form... Then Typer runs the command as before, with
its own help, checks and error messages. So this is only a shortcut: it never decides
what a command line means where Typer would decide something else.

``run`` ends the process as Typer's standalone mode does (``typer.core._main``): exit 0
after the command, the status of an early exit, 130 on Ctrl-C, 1 with "Aborted!" at end of
input, 1 quietly on a closed pipe.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

from efc_tui.cli._coerce import _Slow, _to_float, _to_int

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

#: flags: option -> (parameter, value it sets)
FLAGS: dict[str, tuple[str, bool]] = {
    "--json": ("json_out", True),
    "--jsonl": ("jsonl_out", True),
    "--csv": ("csv_out", True),
    "--lenient": ("lenient", True),
    "--no-lenient": ("lenient", False),
    "--quiet": ("quiet", True),
    "-q": ("quiet", True),
    "--adapter": ("adapter", True),
    "--adapter-sweep": ("adapter_sweep", True),
    "--github": ("github", True),
    "--fail-on-limit": ("fail_on_limit", True),
}


def _text(value: str) -> str:
    return value


def _path(value: str) -> Path:
    """A path as Typer's ``coerce_cli_path`` returns it for an option with the default
    checks (need not exist; when it exists it must be readable)."""
    if not value or "\x00" in value:
        raise _Slow
    try:
        os.stat(value)
    except (OSError, ValueError):
        return Path(value)
    if not os.access(value, os.R_OK):
        raise _Slow  # Typer says why
    return Path(value)


def _at_least(convert: Callable[[Any], Any], low: float) -> Callable[[str], Any]:
    def ranged(value: str) -> Any:
        v = convert(value)
        if not v >= low:
            raise _Slow  # Typer words the error
        return v

    return ranged


#: options that take a value: option -> (parameter, conversion raising _Slow for Typer)
VALUED: dict[str, tuple[str, Callable[[str], Any]]] = {
    "--format": ("fmt", _text),
    "-f": ("fmt", _text),
    "--min-eta": ("min_eta", _to_float),
    "--min-x": ("min_x", _to_float),
    "--min-nrs": ("min_nrs", _to_float),
    "--max-usd": ("max_usd", _at_least(_to_float, 0.0)),
    "--max-tokens": ("max_tokens", _at_least(_to_int, 0)),
    "--max-steps": ("max_steps", _at_least(_to_int, 0)),
    "--estimator": ("estimator", _text),
    "--labels": ("labels", _path),
    "--success-threshold": ("success_threshold", _to_float),
    "--max-waste": ("max_waste", _at_least(_to_float, 0.0)),
    "--window": ("window", _at_least(_to_int, 1)),
    "--epsilon": ("epsilon", _at_least(_to_float, 0.0)),
    "--repeat": ("repeat", _at_least(_to_int, 0)),
    "--fit": ("fit_file", _path),
    "--junit": ("junit", _path),
    "--parquet": ("parquet_out", _path),
    "--jobs": ("jobs", _at_least(_to_int, 1)),
}


def parse(
    args: list[str],
    flags: dict[str, tuple[str, bool]] | None = None,
    valued: dict[str, tuple[str, Callable[[str], Any]]] | None = None,
) -> dict[str, Any] | None:
    """The keyword arguments of ``_score_run.run`` for ``efc-tui score ARGS``, or None when
    Typer should read ``args`` (see the module's docstring). Another command's tables
    (``flags``, ``valued``) read its plain options the same way (``_open_argv``)."""
    flags = FLAGS if flags is None else flags
    valued = VALUED if valued is None else valued
    paths: list[str] = []
    options: dict[str, Any] = {}
    i = 0
    try:
        while i < len(args):
            arg = args[i]
            i += 1
            if not arg.startswith("-") or arg == "-":
                if "://" in arg or arg == "-":
                    return None  # URLs are read on Dask; "-" is Typer's to judge
                paths.append(arg)
                continue
            name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
            if name in flags and not eq:
                param, flag = flags[name]
                options[param] = flag
                continue
            if name not in valued:
                return None  # --help, Dask options, --, -qf, unknown options...
            if not eq:
                if i >= len(args):
                    return None
                value = args[i]
                i += 1
            if value.startswith("-"):
                return None
            param, convert = valued[name]
            options[param] = convert(value)
    except _Slow:
        return None
    if not paths:
        return None
    return {"paths": paths, **options}


def run(options: dict[str, Any], command: str = "_score_run") -> None:
    """Run ``efc-tui score`` with ``options`` (from ``parse``) and exit as Typer would
    (``command``: the module of ``efc_tui.cli`` whose ``run`` is the command)."""
    import gc
    from importlib import import_module

    gc.set_threshold(100_000, 50, 100)  # as _app.main does (many small acyclic objects)
    try:
        try:
            import_module(f"efc_tui.cli.{command}").run(**options)
        except EOFError:
            sys.stderr.write("\nAborted!\n")
            sys.exit(1)
        except KeyboardInterrupt:
            sys.exit(130)
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise
            from typer._click.utils import PacifyFlushWrapper

            sys.stdout = PacifyFlushWrapper(sys.stdout)
            sys.stderr = PacifyFlushWrapper(sys.stderr)
            sys.exit(1)
    except Exception as exc:
        _typer_exit(exc)
        raise
    sys.exit(0)


def _typer_exit(exc: BaseException) -> None:
    """Exit as Typer's standalone mode does for one of click's exceptions (raised when
    something imported Typer on the way, e.g. to fail); return for any other."""
    click = sys.modules.get("typer._click.exceptions")
    if click is None:
        return
    if isinstance(exc, click.Exit):
        sys.exit(exc.exit_code)
    if isinstance(exc, click.Abort):
        sys.stderr.write("Aborted!\n")
        sys.exit(1)
    if isinstance(exc, click.ClickException):
        exc.show()
        sys.exit(exc.exit_code)
