"""A module imported when it is first used: the one lazy boundary of the command line and
the app, declared at the top of the module that uses it instead of imports inside functions.

The first frame of ``efc-tui open`` needs Textual and the reader, not numpy or the scoring
code: those are imported by the first scoring pass (in a worker, after the first frame is
drawn) or by whatever first needs them. ``efc-tui COMMAND --help`` needs the command's
options, not the library that runs it. ``np = lazy_module("numpy")`` behind an
``if TYPE_CHECKING: import numpy as np`` keeps the types.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands for a module; the first attribute asked for imports it."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}{' (imported)' if self._module is not None else ''}>"


def lazy_module(name: str) -> Any:
    return LazyModule(name)
