"""Regular expressions behind substring pre-filters, for the status classifier's rules
(``status``) and the command reading (``_commands``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from efc_tui._lazy_re import LazyPattern


class _Guarded(LazyPattern[str]):
    """A regular expression behind substring pre-filters: ``search`` answers exactly as the
    pattern's own ``search`` does, but runs it only when the text holds one of ``keys``, one
    of which every match contains (most observations hold none, and a case-insensitive
    alternation tries every alternative at every position: ~0.5 ms on 1 KB of text).

    A case-insensitive pattern has lower-case keys, looked for in the lower-cased text, and
    only in ASCII text: Unicode case folding lets a few other letters (ſ, K, ı, İ) match
    ASCII ones, so a non-ASCII text always runs the pattern.

    The pattern is compiled the first time a text gets past the keys: most runs never need
    some of them, and every start of the app would pay for compiling all of them."""

    __slots__ = ("fold", "keys")

    def __init__(self, pattern: str, flags: int, keys: tuple[str, ...]) -> None:
        super().__init__(pattern, flags)
        self.keys = keys
        self.fold = bool(flags & re.IGNORECASE)
        assert not self.fold or all(k == k.lower() for k in keys)

    def search(self, text: str) -> re.Match[str] | None:
        where = text
        if self.fold:
            if not text.isascii():
                return self.rx.search(text)
            where = text.lower()
        for k in self.keys:  # a plain loop: a generator costs more than the scans
            if k in where:
                return self.rx.search(text)
        return None


class _Plain(LazyPattern[str]):
    """A regular expression with no pre-filter (``search`` as ``_Guarded``'s)."""

    __slots__ = ()

    def search(self, text: str) -> re.Match[str] | None:
        return self.rx.search(text)


class _LineGuarded(_Guarded):
    """A ``_Guarded`` pattern whose matches never span a newline: ``search`` runs it only on
    the lines that hold a key, in order (most texts that hold a key hold it on a few lines
    of many), and answers exactly as the pattern's own ``search`` does. Past
    ``MAX_LINES`` such lines it searches the whole text."""

    __slots__ = ()
    MAX_LINES = 24

    def search(self, text: str) -> re.Match[str] | None:
        where = text
        if self.fold:
            if not text.isascii():
                return self.rx.search(text)
            where = text.lower()
        starts: set[int] = set()
        for k in self.keys:
            at = where.find(k)
            while at >= 0:
                starts.add(where.rfind("\n", 0, at) + 1)
                if len(starts) > self.MAX_LINES:
                    return self.rx.search(text)
                at = where.find(k, at + len(k))
        rx = self.rx
        for start in sorted(starts):
            end = text.find("\n", start)
            m = rx.search(text, start, len(text) if end < 0 else end)
            if m is not None:
                return m
        return None


class _StartGuarded(_Guarded):
    """A case-sensitive ``_Guarded`` pattern every match of which starts with one of
    ``keys`` (each alternative is ``\\b`` or nothing, then a key): ``search`` tries the
    pattern only where a key occurs, in order, and answers exactly as its own ``search``
    does (the leftmost match is at the first of those places where the pattern matches;
    ``\\b`` sees the character before, as in a search). An alternation whose every branch
    starts with ``\\b`` gives the engine no first characters to skip ahead to: its own
    search tries every branch at every position. Past ``MAX_STARTS`` places it searches
    the whole text; under ``SHORT`` characters it runs as a ``_Guarded`` pattern (there the
    engine's own search costs less than finding the places).
    """

    __slots__ = ()
    MAX_STARTS = 32
    SHORT = 160

    def __init__(self, pattern: str, flags: int, keys: tuple[str, ...]) -> None:
        assert not flags & re.IGNORECASE
        super().__init__(pattern, flags, keys)

    def search(self, text: str) -> re.Match[str] | None:
        if len(text) < self.SHORT:
            for k in self.keys:
                if k in text:
                    return self.rx.search(text)
            return None
        starts: list[int] = []
        for k in self.keys:
            at = text.find(k)
            while at >= 0:
                starts.append(at)
                if len(starts) > self.MAX_STARTS:
                    return self.rx.search(text)
                at = text.find(k, at + 1)
        if not starts:
            return None
        starts.sort()
        match = self.rx.match
        for at in starts:
            m = match(text, at)
            if m is not None:
                return m
        return None


class _LineStart(LazyPattern[str]):
    """A multi-line pattern whose every match starts at a line start (``^`` first) with one
    of ``leads``: ``finditer`` finds what the pattern's own ``finditer`` finds, trying the
    pattern only at the lines that start with a lead, in order, each from where the last
    match ended. The engine's own search tries a ``^`` pattern at every position of the
    text (16 us a 3 KB tail of test output, for each summary pattern a summary's parse
    tries); the lines that start with a lead cost a ``find`` per lead: 2-4 us."""

    __slots__ = ("leads",)

    def __init__(self, pattern: str, flags: int, leads: tuple[str, ...]) -> None:
        assert pattern.startswith("^") and leads
        super().__init__(pattern, flags | re.MULTILINE)
        self.leads = leads

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        starts: list[int] = []
        for lead in self.leads:
            if text.startswith(lead):
                starts.append(0)
            key = "\n" + lead
            at = text.find(key)
            while at >= 0:
                starts.append(at + 1)
                at = text.find(key, at + 2)
        if len(self.leads) > 1:
            starts.sort()
        match = self.rx.match
        end = 0
        for at in starts:
            if at < end:
                continue  # inside the last match: the engine's search went on from its end
            m = match(text, at)
            if m is not None:
                yield m
                end = m.end()
