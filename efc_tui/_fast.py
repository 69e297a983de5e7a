"""Which implementation of the hot per-event loops runs: compiled or pure Python.

``efc_tui/_speedups.c`` is compiled when the package is installed (``hatch_build.py``, with
the machine's C compiler and Python headers). It keeps only the loops that pure Python
(or Python compiled by Cython or mypyc) cannot run fast enough for ``score`` to stay
within 5x a bare parse: the feature pass, the status pre-filter, the adapter's run
figures, the event columns and the JSON readers' depth check (docs/speed.md, "The
compiled path", has the measurements). Each mirrors a Python
function that stays the reference, and the rules in them are given to the C by the Python
that defines them (hint lists, token characters, kinds, statuses, thresholds) or called
back (error signatures, an action's tokens): tests/compiled/test_speedups.py compares the two on
every fixture. The pure-Python path runs when

- the extension was not built (no compiler at install time, or it warned: -Werror),
- it is stale (built from another version of ``_speedups.c``: reinstall to rebuild),
- ``EFC_TUI_PURE_PYTHON=1`` is set, or code runs inside ``pure_python()``.

``speedups()`` returns the module or None; ``STATUS`` says which and why.
``EFC_TUI_SPEEDUPS=/path/to/_speedups.so`` loads the extension from that file instead (a
build made elsewhere: ``make sanitize`` runs the tests against one built with sanitizers).
"""

from __future__ import annotations

import importlib
import os
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

ENV = "EFC_TUI_PURE_PYTHON"
BUILD_ENV = "EFC_TUI_SPEEDUPS"


class Fallback(Exception):  # a signal between the two paths, never seen by a user
    """Raised by the compiled code for input it does not take; the Python path runs instead."""


def source_hash(path: Path) -> str:
    """The stamp the build puts into the extension (hatch_build.py computes the same): the
    source's CRC-32 and length. It tells a rebuilt source from the one the extension was
    built from (any edit changes it, but with odds of 2**-32); it is no defence against
    tampering, nor needs to be. A CRC, not SHA-256: this runs at every start, and hashlib
    (OpenSSL) and a SHA of the 157 KB source cost ~3 ms of the first screen's time."""
    data = path.read_bytes()
    return f"{zlib.crc32(data):08x}-{len(data)}"


def _import(path: str) -> ModuleType:
    """The extension: the package's own, or the one built at ``path`` (BUILD_ENV)."""
    if not path:
        return importlib.import_module("efc_tui._speedups")
    import sys
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location("efc_tui._speedups", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{BUILD_ENV}={path}: not an extension module")
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["efc_tui._speedups"] = module
    return module


def _load() -> tuple[ModuleType | None, str]:
    if os.environ.get(ENV, "") not in ("", "0"):
        return None, f"pure Python ({ENV} is set)"
    try:
        _speedups = _import(os.environ.get(BUILD_ENV, ""))
    except ImportError:
        return None, "pure Python (the compiled extension is not built)"
    src = Path(__file__).with_name("_speedups.c")
    if src.is_file() and source_hash(src) != _speedups.SOURCE_HASH:
        return None, "pure Python (the compiled extension is stale: reinstall to rebuild it)"
    from msgspec.structs import fields

    from efc_tui.model import SEVERITY, Checks, Event, EventKind, Status

    _speedups.setup(
        EventKind.GENERATION,
        EventKind.REPAIR,
        EventKind.CHECK,
        EventKind.MEMORY,
        EventKind.PLAN,
        Status.NONE,
        Status.PASSED,
        SEVERITY,
        Fallback,
    )
    _speedups.setup_slots(
        Event, tuple(f.name for f in fields(Event)), Checks, tuple(f.name for f in fields(Checks))
    )
    return _speedups, "compiled (efc_tui._speedups)"


_MODULE, STATUS = _load()
_forced_pure = False


def speedups() -> ModuleType | None:
    """The compiled module, or None when the pure-Python path must run."""
    return None if _forced_pure else _MODULE


@contextmanager
def pure_python() -> Iterator[None]:
    """Run the pure-Python path inside this block (tests compare the two)."""
    global _forced_pure
    before = _forced_pure
    _forced_pure = True
    try:
        yield
    finally:
        _forced_pure = before
