"""Reading one run for the replay screen, as a stream of updates (no Textual here).

The replay screen's load worker iterates :meth:`RunLoader.updates` and posts each update
to the UI thread as it comes; with ``--follow`` a timer calls :meth:`RunLoader.poll` from
a worker. Scoring is separate: :class:`ScorePasses` keeps at most one scoring pass in
flight over a snapshot of the events the screen has.

The seam (what a loader produces, in order):

- ``Header(run)``: the run's metadata, without events;
- ``Events(events, fraction, warnings)``, any number of times: events in order, each batch
  continuing the last; ``fraction`` is how far through the input (a progress bar), or
  None. ``start`` set to k means "these replace every event from index k on" (a reader
  that re-reads a growing document may revise its last events);
- ``SeveralRuns()``: the file holds more than one run (the caller opens the picker);
- ``Loaded(flags)``: reading is done; the run's flags.

Events may arrive before any score, and a score (a ``ScoredRun`` covering the first n
events) may arrive while more events are still being read: ``ReplayData`` shows the rows
past the scored prefix as pending. So a reader that streams the events of a whole
document (instead of returning the run at the end) plugs in by yielding more ``Events``
batches from ``updates``, and background scoring plugs in by delivering a scored prefix at
any time; neither needs a change in the screen.

How each input is read:

- an uncompressed efc-trace/1 file, progressively (``efc_tui.app.tail.NativeTail``): a
  batch of whole lines at a time, so rows are on screen while the rest is parsed; followed
  by reading only the bytes appended since;
- any other file, whole, by its reader (``efc_tui.parsers.load``); followed (Claude Code
  and Codex sessions, JSONL written line by line) by reading it again when it grows and
  sending the events that are new or changed;
- a large log read this way (a whole-document trajectory, a Claude Code session, a
  compressed trace) is previewed first: the events of its first 64 KB, then of its first
  4 MB (``efc_tui.parsers.preview``), are sent as ``Events(preview=True)`` while the rest
  is read; the whole read then sends the events from the first one that differs (and the
  header again when the rest of the log changed it).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from copy import deepcopy
from pathlib import Path

from msgspec.structs import replace

from efc_tui._lazy import lazy_module
from efc_tui.app.tail import NativeTail, can_tail
from efc_tui.errors import EfcError, InputError
from efc_tui.model import Event, Run
from efc_tui.parsers.outcomes import DEFAULT_OUTCOMES, NO_OUTCOMES, Outcomes

# the readers are imported when a log is first read (efc_tui._lazy): not for a native
# trace, which ``NativeTail`` reads
parsers = lazy_module("efc_tui.parsers")
previews = lazy_module("efc_tui.parsers.preview")

#: how often the first load hands a batch of rows to the screen (seconds)
BATCH_SECONDS = 0.25
#: readers whose logs are appended to line by line while the agent runs (followable)
FOLLOWABLE_FORMATS = ("claude-code", "codex")


# The updates (and ``_Preview``, ``_Final`` below) are plain classes, not dataclasses: a
# dataclass generates and compiles its code at import, and this module is imported on the
# way to the first frame. They are compared by identity.


class Header:
    """The run's metadata (no events: they follow)."""

    __slots__ = ("run",)

    def __init__(self, run: Run) -> None:
        self.run = run


class Events:
    """A batch of events, continuing the ones sent before (or replacing from ``start``)."""

    __slots__ = ("events", "followed", "fraction", "preview", "start", "warnings")

    def __init__(
        self,
        events: list[Event],
        fraction: float | None = None,
        warnings: list[str] | None = None,
        *,
        followed: bool = False,
        start: int | None = None,
        preview: bool = False,
    ) -> None:
        self.events = events
        #: how far through the input (a progress bar), or None
        self.fraction = fraction
        self.warnings: list[str] = [] if warnings is None else warnings
        #: these came from following the file after the first load
        self.followed = followed
        #: replace every event from this index on (None: append)
        self.start = start
        #: read from the first bytes of a document still being read (the rest follows)
        self.preview = preview


class SeveralRuns:
    """The file holds more than one run: open the picker instead."""

    __slots__ = ()


class Loaded:
    """Reading is done (the first load; following may add more)."""

    __slots__ = ("flags",)

    def __init__(self, flags: list[str] | None = None) -> None:
        self.flags: list[str] = [] if flags is None else flags


Update = Header | Events | SeveralRuns | Loaded

#: a log read whole and larger than PREVIEW_MIN_RATIO times the first of these is shown from
#: its first bytes while it is read (the first preview fills the first screen; the second
#: gives a few thousand rows to scroll and score while the whole is read)
PREVIEW_BYTES = (64 << 10, 4 << 20)
PREVIEW_MIN_RATIO = 2
#: how long reading waits for the screen to paint the first rows (seconds)
FIRST_PAINT_WAIT = 1.0
#: how long the screen waits for the first rows before drawing its first frame (seconds): a
#: preview's first bytes are read well within it; a slower read is not waited for, its rows
#: come as they are read
FIRST_ROWS_WAIT = 0.15


class FirstUpdates:
    """Hands a load's first updates to the screen before its first frame.

    The load (a thread) ``put``s each update here until the first rows are in (an ``Events``
    with events, or the end: ``SeveralRuns``, ``Loaded``); the screen ``take``s them,
    waiting a bounded time, and applies them before it is first drawn, so that frame shows
    rows rather than an empty ledger redrawn a moment later. After ``take`` (or ``close``),
    ``put`` refuses and the load posts its updates as messages, which come after these.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._updates: list[Update] = []
        self._open = True
        self._ready = threading.Event()

    def put(self, update: Update) -> bool:
        """Keep ``update`` for ``take`` (False: taken or closed already; send it yourself)."""
        with self._lock:
            if not self._open:
                return False
            self._updates.append(update)
            if (isinstance(update, Events) and update.events) or isinstance(
                update, (SeveralRuns, Loaded)
            ):
                self._ready.set()
            return True

    def close(self) -> None:
        """The load ended (or failed): ``take`` waits no longer."""
        self._ready.set()

    def wait(self, timeout: float) -> bool:
        """Block until the first rows are in or the load closed (True), or ``timeout``
        seconds passed (False). For a thread: the screen awaits it in one."""
        return self._ready.wait(timeout)

    def take(self, timeout: float) -> list[Update]:
        """The updates put so far, once the first rows are in, the load closed, or after
        ``timeout`` seconds; ``put`` refuses from now on."""
        self.wait(timeout)
        with self._lock:
            self._open = False
            taken, self._updates = self._updates, []
        return taken


class _Preview:
    """The chosen run as a preview read it, and the part of the file it read."""

    __slots__ = ("fraction", "run")

    def __init__(self, run: Run, fraction: float) -> None:
        self.run = run
        self.fraction = fraction


class _Final:
    """The chosen run of a preview that turned out to be the whole read."""

    __slots__ = ("run",)

    def __init__(self, run: Run) -> None:
        self.run = run


def _revision(shown: list[Event], events: list[Event]) -> Events | None:
    """The events that differ from the ones on screen, from the first that differs (None:
    nothing does); ``shown`` becomes ``events``."""
    start = next(
        (i for i, (a, b) in enumerate(zip(shown, events, strict=False)) if a != b),
        min(len(shown), len(events)),
    )
    if start == len(shown) == len(events):
        return None
    replaced = start < len(shown)
    shown[:] = events
    return Events(list(events[start:]), None, [], start=start if replaced else None)


def _header(run: Run) -> Header:
    return Header(replace(run, events=[], warnings=list(run.warnings), flags=[]))


def follow_problem(path: Path, fmt: str | None) -> str | None:
    """Why ``--follow`` cannot follow this file (None: it can)."""
    if fmt in (None, "native") and can_tail(path):
        return None
    name = fmt
    if name is None:
        try:
            name = parsers.detect_format(path)
        except EfcError as exc:
            return str(exc)
    if name in FOLLOWABLE_FORMATS and not path.name.endswith(".gz"):
        return None
    return (
        f"{path}: --follow reads uncompressed efc-trace/1, Claude Code or Codex JSONL "
        f"(this is {name})"
    )


class RunLoader:
    """Reads run number ``ordinal`` of one file, then (``follow``) what is appended.

    ``from_picker``: the file was chosen in the picker, which knows it may hold several
    runs; otherwise a second run in the file ends the load with ``SeveralRuns``.
    """

    def __init__(
        self,
        path: Path,
        *,
        fmt: str | None = None,
        lenient: bool = False,
        ordinal: int = 0,
        from_picker: bool = False,
        follow: bool = False,
        batch_seconds: float = BATCH_SECONDS,
        outcomes: Outcomes | None = None,
    ) -> None:
        self.path = path
        #: where the run's outcome comes from (sidecars; a labels file), as in ``parsers.load``
        self.outcomes = outcomes or DEFAULT_OUTCOMES
        self.fmt = fmt
        self.lenient = lenient
        self.ordinal = ordinal
        self.from_picker = from_picker
        self.follow = follow
        self.batch_seconds = batch_seconds
        self.tail: NativeTail | None = None
        #: following stopped for good (a new run header, a shrunk file, a read error)
        self.stopped = False
        # whole-file following: what was read last time
        self._size = -1
        self._ident: tuple[int, int] | None = None  # (st_dev, st_ino) of the file read
        self._events: list[Event] = []
        self._warnings: set[str] = set()
        #: set by the screen once the first rows are painted: reading on before that would
        #: hold the interpreter lock the UI thread needs to paint them (a parse of a large
        #: document holds it for a second at a time)
        self.painted = threading.Event()

    def _first_paint(self) -> None:
        """Wait (a bounded time) for the screen to paint the rows just sent."""
        self.painted.wait(FIRST_PAINT_WAIT)

    @property
    def progressive(self) -> bool:
        """Read a batch of lines at a time (uncompressed efc-trace/1, the first run)."""
        return self.fmt in (None, "native") and self.ordinal == 0 and can_tail(self.path)

    # -- the first load ---------------------------------------------------------------------

    def updates(self, cancelled: Callable[[], bool] = lambda: False) -> Iterator[Update]:
        """The first load, as updates. Raises ``EfcError`` on bad input."""
        if self.progressive:
            yield from self._native(cancelled)
        else:
            yield from self._whole(cancelled)

    def _native(self, cancelled: Callable[[], bool]) -> Iterator[Update]:
        tail = NativeTail(self.path, lenient=self.lenient)
        self.tail = tail
        size = max(1, tail.stat_size())
        pending: list[Event] = []
        warnings: list[str] = []
        last = 0.0  # the first batch goes at once: rows on screen as early as possible
        header: Header | None = None  # sent without the run's outcome (``_outcome``)
        # the first read is small (a screenful of rows and more: on screen at once), the rest 1 MB
        chunk = PREVIEW_BYTES[0]
        while not tail.at_end:
            if cancelled():
                return
            before = tail.offset
            batch = tail.read(chunk)
            chunk = 1 << 20
            if tail.run is not None and header is None:
                header = _header(replace(tail.run, warnings=[]))  # its outcome: once painted
                yield header
            pending.extend(batch.events)
            warnings.extend(batch.warnings)
            if batch.another_run:
                yield SeveralRuns()
                return
            if batch.shrank or batch.rotated:
                warnings.append(_changed(batch.shrank, "reading"))
            if tail.offset == before:
                break  # only an unterminated line is left
            now = time.perf_counter()
            if now - last >= self.batch_seconds and pending:
                yield Events(pending, tail.offset / size, warnings)
                if not last:
                    self._first_paint()
                    if header is not None:
                        yield from self._outcome(header)
                pending, warnings, last = [], [], now
        if not self.follow:
            fin = tail.finish()
            pending.extend(fin.events)
            warnings.extend(fin.warnings)
        run = tail.finished_run()
        if header is None:
            yield _header(self.outcomes.apply(replace(run, warnings=[]), self.path))
        elif not last:  # no batch went out on its own: read at once
            yield from self._outcome(header)
        if pending or warnings:
            yield Events(pending, 1.0, warnings)
        yield Loaded(list(run.flags))

    def _read_runs(self) -> Iterator[Run]:
        return parsers.load(self.path, self.fmt, lenient=self.lenient, outcomes=self.outcomes)

    def _whole(self, cancelled: Callable[[], bool]) -> Iterator[Update]:
        """Read the file whole with its reader. A large log is previewed first
        (``parsers.preview``): the runs of its first bytes are on screen while the rest is
        read, and the whole read then sends only what differs."""
        shown: list[Event] | None = None  # events on screen from a preview
        shown_header: Header | None = None
        chosen: Run | None = None
        for found in self._previews():
            if isinstance(found, SeveralRuns):
                yield found
                return
            if isinstance(found, _Final):
                chosen = self.outcomes.apply(found.run, self.path)
                break
            if shown is None or shown_header is None:
                shown_header = _header(found.run)
                yield shown_header
                shown = list(found.run.events)
                yield Events(list(shown), found.fraction, [], preview=True)
                self._first_paint()
                shown_header = yield from self._outcome(shown_header)
            else:
                batch = _revision(shown, found.run.events)
                if batch is not None:
                    batch.fraction, batch.preview = found.fraction, True
                    yield batch
            if cancelled():
                return
        if chosen is None:
            chosen = self._chosen(self._read_runs())
            if chosen is None:
                yield SeveralRuns()
                return
        if self.follow:
            st = _stat(self.path)
            self._size, self._ident = st.st_size, (st.st_dev, st.st_ino)
            self._events = list(chosen.events)
            self._warnings = set(chosen.warnings)
        header = _header(chosen)
        if shown is None or shown_header is None:
            yield header
            yield Events(list(chosen.events), 1.0, [])
        else:
            if header.run != shown_header.run:
                yield header  # what the rest of the document says about the run
            batch = _revision(shown, chosen.events)
            if batch is not None:
                batch.fraction = 1.0
                yield batch
        yield Loaded(list(chosen.flags))

    def _chosen(self, runs: Iterable[Run]) -> Run | None:
        """Run number ``ordinal`` of ``runs``; None when a second run shows up and the
        file was not chosen in the picker (the caller opens the picker)."""
        chosen: Run | None = None
        for k, run in enumerate(runs):
            if k == self.ordinal:
                chosen = run
            if not self.from_picker and k >= 1:
                return None
            if self.from_picker and chosen is not None:
                break
        if chosen is None:
            raise InputError(f"no run #{self.ordinal} in this file", self.path)
        return chosen

    def _previews(self) -> Iterator[_Preview | _Final | SeveralRuns]:
        """The chosen run as read from the first ``PREVIEW_BYTES`` of a large log, growing;
        ``_Final`` when a preview turned out to be the whole read."""
        try:
            size = os.stat(self.path).st_size
            reader = parsers.get_reader(self.fmt) if self.fmt else parsers.detect(self.path)
        except (OSError, EfcError):
            return  # the whole read reports it
        for nbytes in PREVIEW_BYTES:
            if size <= nbytes * PREVIEW_MIN_RATIO:
                return  # small enough that reading it whole is about as quick
            # no outcome: finding the sidecars waits for the first frame (``_outcome``)
            pv = previews.preview(
                self.path,
                nbytes,
                reader.name,
                lenient=self.lenient,
                outcomes=NO_OUTCOMES,
                max_runs=self.ordinal + 2,
            )
            if pv is None:
                continue  # its start makes no document: the whole read says why
            if not self.from_picker and len(pv.runs) >= 2:
                yield SeveralRuns()
                return
            if pv.complete:
                chosen = self._chosen(pv.runs)
                yield _Final(chosen) if chosen is not None else SeveralRuns()
                return
            if len(pv.runs) > self.ordinal and pv.runs[self.ordinal].events:
                yield _Preview(pv.runs[self.ordinal], nbytes / size)

    def _outcome(self, header: Header) -> Generator[Update, None, Header]:
        """The run's outcome (the sidecars around the log, a labels file) for a header sent
        without it, before the first frame: finding and reading the sidecars waits until
        the first rows are painted. Yields the header again when the outcome changed it;
        returns the header now on screen."""
        decided = _header(self.outcomes.apply(deepcopy(header.run), self.path))  # no events
        if decided.run == header.run:
            return header
        yield decided
        return decided

    # -- following --------------------------------------------------------------------------

    def poll(self) -> Events | None:
        """What was appended since the last read (None: nothing new). Problems become
        warnings of the returned batch and stop following."""
        if not self.follow or self.stopped:
            return None
        try:
            return self._poll_tail() if self.tail is not None else self._poll_whole()
        except EfcError as exc:
            self.stopped = True
            if self.tail is not None:
                self.tail.stopped = True
            return Events([], None, [f"{exc} (follow stopped)"], followed=True)

    def _poll_tail(self) -> Events | None:
        tail = self.tail
        assert tail is not None
        events: list[Event] = []
        warnings: list[str] = []
        for _ in range(64):  # at most ~64 MB per poll; the next poll reads on
            batch = tail.read(1 << 20)
            events.extend(batch.events)
            warnings.extend(batch.warnings)
            if batch.another_run:
                warnings.append(
                    "a new run header was appended: follow stopped "
                    "(open the file again to see the next run)"
                )
            if batch.shrank or batch.rotated:
                warnings.append(_changed(batch.shrank, "follow"))
            if tail.at_end or not batch.events:
                break
        self.stopped = tail.stopped
        if not (events or warnings):
            return None
        return Events(events, None, warnings, followed=True)

    def _poll_whole(self) -> Events | None:
        st = _stat(self.path)
        ident = (st.st_dev, st.st_ino)
        if self._ident is None:
            self._ident = ident
        size = st.st_size
        if ident == self._ident and size == self._size:
            return None
        if size < self._size or ident != self._ident:
            self.stopped = True
            return Events([], None, [_changed(size < self._size, "follow")], followed=True)
        self._size = size
        run = next(iter(self._read_runs()), None)
        if run is None:
            return None
        warnings = [
            w for w in run.warnings if w not in self._warnings and "truncated last line" not in w
        ]  # a line still being written
        self._warnings.update(run.warnings)
        batch = _revision(self._events, run.events)
        if batch is None and not warnings:
            return None
        batch = batch or Events([], None, [])
        batch.warnings, batch.followed = warnings, True
        return batch


def _stat(path: Path) -> os.stat_result:
    try:
        return os.stat(path)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from None


def _changed(shrank: bool, what: str) -> str:
    """The notice when the file read is no longer the one read so far (app/tail.py)."""
    if shrank:
        return f"the file shrank (rotated or truncated): {what} stopped"
    return f"the file was replaced or rewritten (rotated): {what} stopped"


class ScorePasses:
    """At most one scoring pass at a time: a request while one runs asks for one more.

    ``request()`` is True when the caller should start a pass now; ``finished(more)`` is
    True when another pass should start at once (requested meanwhile, or ``more`` events
    than the pass covered).
    """

    def __init__(self) -> None:
        self.running = False
        self._again = False

    def request(self) -> bool:
        if self.running:
            self._again = True
            return False
        self.running, self._again = True, False
        return True

    def finished(self, more: bool) -> bool:
        again = self._again or more
        self.running, self._again = again, False
        return again


def snapshot(run: Run, events: list[Event]) -> Run:
    """A copy of the run holding ``events`` for a scoring pass (the screen keeps appending
    to its own list meanwhile)."""
    return replace(run, events=list(events), warnings=list(run.warnings), flags=list(run.flags))
