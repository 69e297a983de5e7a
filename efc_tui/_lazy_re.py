"""Regular expressions compiled the first time they are used.

Compiling a pattern is not free; a module that compiles its patterns at import makes every
start of the app and of ``score`` pay for patterns the run at hand may never reach (a
sidecar's, a folder walk's). ``LazyPattern`` defers that to first use.
"""

from __future__ import annotations

import re
from typing import AnyStr, Generic


class LazyPattern(Generic[AnyStr]):
    """A regular expression compiled the first time it is used (``rx``)."""

    __slots__ = ("_rx", "flags", "pattern")

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self.pattern: AnyStr = pattern
        self.flags = flags
        self._rx: re.Pattern[AnyStr] | None = None

    @property
    def rx(self) -> re.Pattern[AnyStr]:
        """The compiled pattern (compiled now if it was not yet)."""
        rx = self._rx
        if rx is None:
            rx = self._rx = re.compile(self.pattern, self.flags)
        return rx
