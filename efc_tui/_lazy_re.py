"""Regular expressions compiled the first time they are used, and the last match of an
exception-line pattern found from the end.

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


def last_line_match(rx: re.Pattern[str], text: str, words: tuple[str, ...]) -> re.Match[str] | None:
    """The last match ``rx.finditer(text)`` finds, without scanning every line, for a
    multi-line pattern (an exception line: the status rules' and the error signature's)
    whose every match holds one of ``words`` (none holds a newline) and crosses lines
    only before its word, over blank lines and a lone ``E`` (``^\\s*(?:E\\s+)?``, pytest's
    ``E   ValueError`` lines).

    From the line of the last occurrence of a word, step back over the lines a match
    could start on without ending there (blank lines and a lone ``E``): no match starting
    before that point ends after it, so the matches ``finditer`` finds from there on are
    the whole scan's, and the last of them is its last. When there is none, the same is
    done before that point. (A word is looked for only after the last place of those
    before it: the searches that find nothing read the whole text.) The engine's own scan
    tries the pattern at every position: 12 us an 8 KB tail of a failed command's output
    that is not ASCII, for the status rules; 2 of the 2.3 us a failing event took for the
    error signature."""
    end = len(text)
    rfind = text.rfind
    while end > 0:
        at = -1
        for word in words:
            at = max(at, rfind(word, at + 1, end))
        if at < 0:
            return None
        start = rfind("\n", 0, at) + 1
        while start > 0:
            last = text[start - 2 : start - 1]  # the line before's last character, if any
            if last and last != "E" and not last.isspace():
                break  # the line before is neither blank nor a lone E (most are not)
            prev = rfind("\n", 0, start - 1) + 1
            if text[prev : start - 1].strip() not in ("", "E"):
                break
            start = prev
        found = None
        for m in rx.finditer(text, start, end):
            found = m
        if found is not None:
            return found
        end = start
    return None
