"""Trace features phi(e_t) and novelty n (SPEC §3.2, paper eq. 6).

One pass over the events, O(total text): shingles, tokens and signatures go through hash
sets and dicts, never an all-pairs comparison. Both the post-hoc features (z, m, p that
look at later events) and their prefix-only versions (for the adapter) come out of the
same pass.

Decisions the SPEC leaves to us (also in docs/equations.md):
- p (plan change), post-hoc: the event carries an explicit plan update, or the next
  action differs in (kind, tool, target) from this event's action. Prefix: an explicit
  plan update, or this action differs from the previous one.
- h (checker scope): checks run / the largest number of checks known so far in the run.
- q and the repeated-action flag compare an observing action only with the same action
  since the last generation/repair event: re-running the tests after an edit is expected
  to give a different observation and is neither inconsistent nor a repeat. An edit
  repeated verbatim is a repeat wherever it stands.
- Δ's severity term compares with the previous status-bearing event; the first one has
  no predecessor and adds nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import accumulate, pairwise, repeat
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np
from msgspec import Struct

from efc_tui import _fast
from efc_tui._lazy_re import last_line_match
from efc_tui.compact import GrowingSet, IntMap, IntSet, stable_digest
from efc_tui.model import SEVERITY, STATUS_VALUE, Event, EventKind, Run, Status
from efc_tui.scoring.constants import RHO_SCALE

#: the first path (``a/b``, ``./x``) or file name (``x.py``) in an action text. Written so
#: the search is linear: a match is only tried where a run of its characters starts (the
#: leftmost match always starts there: one starting inside a run would also match from the
#: run's start) and the runs are never backtracked into ("/" and "." are not in them).
#: The same matches as ``[\w.-]*/[\w./-]+|[\w-]+\.[A-Za-z]\w{0,4}\b``, 2x faster.
_TARGET = re.compile(r"(?<![\w.-])[\w.-]*+/[\w./-]+|(?<![\w-])[\w-]++\.[A-Za-z]\w{0,4}\b")
_SIG_NUM = re.compile(r"0x[0-9a-f]+|\d+")
_EXC_LINE = re.compile(
    r"^\s*(?:E\s+)?[A-Za-z_][\w.]*(?:Error|Exception|Failure)\b.*$", re.MULTILINE
)
_TEXT_SCAN = 16_000  # error-signature search looks at the tail only


class Features(Struct):
    """Per-event feature columns, each a float array of length T."""

    c: np.ndarray
    h: np.ndarray
    z: np.ndarray
    p: np.ndarray
    m: np.ndarray
    a: np.ndarray
    q: np.ndarray
    delta: np.ndarray
    rho: np.ndarray
    n: np.ndarray
    #: prefix-only versions (SPEC §6): p from the past, m = the memory-write signal
    p_prefix: np.ndarray
    m_prefix: np.ndarray
    #: auxiliary columns for gates, factors and the waste split
    has_verdict: np.ndarray  # bool
    repeat_action: np.ndarray  # bool: identical (tool, input) seen before
    repeat_error: np.ndarray  # bool: error signature seen before

    def phi(self, prefix: bool = False) -> tuple[np.ndarray, ...]:
        """phi's nine columns in FEATURES order; prefix mode zeroes z (SPEC §6)."""
        if prefix:
            return (
                self.c,
                self.h,
                np.zeros_like(self.z),
                self.p_prefix,
                self.m_prefix,
                self.a,
                self.q,
                self.delta,
                self.rho,
            )
        return (self.c, self.h, self.z, self.p, self.m, self.a, self.q, self.delta, self.rho)

    def matrix(self, prefix: bool = False) -> np.ndarray:
        """phi as a (T, 9) matrix (``phi``'s columns side by side)."""
        return np.column_stack(self.phi(prefix)) if len(self.c) else np.zeros((0, 9))


# Token characters: letters, digits, _ . / - and any non-ASCII byte (UTF-8 letters). A colon
# separates, so grep's "src/app.py:12:" yields the path "src/app.py".
_KEEP = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-")
_TOKEN_TABLE = bytes(c if (c >= 128 or c in _KEEP) else 32 for c in range(256))
_EDGE = b".-/"
MIN_TOKEN = 8


def _install_tokens() -> None:
    """Give the compiled loop the distinctive tokens' characters and sizes
    (``_TOKEN_TABLE``, ``MIN_TOKEN``, ``_EDGE``, defined once here)."""
    fast = _fast._MODULE
    if fast is not None:
        fast.set_tokens(_TOKEN_TABLE, MIN_TOKEN, _EDGE)


def word_list(text: str) -> list[bytes]:
    """Every maximal run of token characters in a text, in order (C-speed: translate+split)."""
    return text.encode("utf-8", "surrogatepass").translate(_TOKEN_TABLE).split()


def distinctive_tokens(text: str) -> set[bytes]:
    """Tokens of >= 8 chars that look like paths, identifiers, numbers or error fragments
    (SPEC §3.2, z). Plain lower-case words ("function", "directory") are not distinctive.
    Each token is kept as written and also without leading/trailing ``. - /``."""
    out = {w for w in word_list(text) if len(w) >= MIN_TOKEN and not (w.isalpha() and w.islower())}
    # a token stripped of nothing is itself, already in the set
    out.update([s for s in map(bytes.strip, out, repeat(_EDGE)) if len(s) >= MIN_TOKEN])
    return out


def shingles(text: str, digest: Callable[[Any], int] = hash) -> set[int]:
    """Hashed shingles of an observation: its normalized non-empty lines, or word 3-grams
    when it has fewer than 3 lines (SPEC §3.2, n). ``digest``: see ``PrefixState``."""
    lines = list(filter(None, map(str.strip, text.splitlines())))
    if len(lines) >= 3:
        return set(map(digest, lines))
    words = text.split()
    if len(words) < 3:
        return {digest(tuple(words))} if words else set()
    return set(map(digest, zip(words, words[1:], words[2:], strict=False)))


_EXC_WORDS = ("Error", "Exception", "Failure")


def last_exception_line(tail: str) -> str:
    """The last match of ``_EXC_LINE`` in ``tail`` (as ``finditer`` over the whole text
    finds it: ``last_line_match``), or "" when there is none."""
    found = last_line_match(_EXC_LINE, tail, _EXC_WORDS)
    return found.group() if found is not None else ""


def error_signature(ev: Event) -> tuple[str, str]:
    """(status, normalized error message) of a failing event."""
    tail = ev.observation_text[-_TEXT_SCAN:]
    line = last_exception_line(tail)
    if not line:
        stripped = tail.rstrip()
        line = stripped.rsplit("\n", 1)[-1] if stripped else ""
    if len(line) > _CACHED_LINE:
        return STATUS_VALUE[ev.status], normalize_error_text(line)[:200]
    return STATUS_VALUE[ev.status], _normalized(line)


def normalize_error_text(text: str) -> str:
    """Error text as two failures that differ only in numbers compare it: lower case,
    numbers and hex addresses as "#", whitespace collapsed (error signatures here, the
    repetition streaks' observations in adapter/loops.py)."""
    return " ".join(_SIG_NUM.sub("#", text.lower()).split())


_CACHED_LINE = 1000  # longer lines are not kept: the cache stays under ~4 MB


@lru_cache(maxsize=4096)
def _normalized(line: str) -> str:
    """``normalize_error_text`` of an error line, at most 200 characters (cached: a
    repeated error repeats its line)."""
    return normalize_error_text(line)[:200]


def action_target(ev: Event) -> str:
    return target(ev.action_text)


def target(action_text: str) -> str:
    """The target of an action text: the first path or file name in it, else its first word."""
    return _target(action_text[:500])


@lru_cache(maxsize=2048)
def _target(text: str) -> str:
    """``target`` of at most 500 characters (features and demand ask for the same texts,
    and agents repeat their commands)."""
    start = _target_from(text)
    m = _TARGET.search(text, start) if start >= 0 else None
    if m:
        return m.group(0)
    parts = text.split(None, 1)
    return parts[0] if parts else ""


def _target_from(text: str) -> int:
    """Where ``_TARGET``'s first match in ``text`` can start; -1 when it cannot match.

    Every match holds an anchor: a "/" that is not the last character, or a "." before an
    ASCII letter; its characters before its anchor are all ``[\\w.-]``. So no match starts
    before the run of ``[\\w.-]`` characters that ends at the first anchor, and the search
    starts there: searching a 500-character text from its start cost 16 us (the pattern is
    tried at every place), mostly in a chat agent's prose or JSON arguments that name a
    path or a file late (tests/unit/test_target_pattern.py compares the two searches)."""
    slash = text.find("/")
    end = slash if 0 <= slash < len(text) - 1 else len(text)
    at = -1 if end == len(text) else end
    dot = text.find(".", 0, end)  # a dot first, when one comes before the slash
    while dot >= 0:
        after = text[dot + 1 : dot + 2]
        if after.isascii() and after.isalpha():
            at = dot
            break
        dot = text.find(".", dot + 1, end)
    while at > 0 and (text[at - 1].isalnum() or text[at - 1] in "_.-"):  # (\w is alnum or _)
        at -= 1
    return at


class _Pass(NamedTuple):
    """What the per-event loop yields: columns of length T, and the compaction events."""

    c: np.ndarray
    h: np.ndarray
    a: np.ndarray
    q: np.ndarray
    delta: np.ndarray
    n: np.ndarray
    mem: np.ndarray  # bool
    plan: np.ndarray  # bool
    has_verdict: np.ndarray  # bool
    repeat_action: np.ndarray  # bool
    repeat_error: np.ndarray  # bool
    first_ref: np.ndarray  # int64: the first later event citing this one, -1 if none
    sig_ids: np.ndarray  # int64: id of the (kind, tool, target) signature
    compaction: list[int]


def _action_info(act: str) -> tuple[frozenset[bytes], str]:
    """The distinctive tokens and the target of an action text, which the Python pass asks
    once per text and run (the compiled pass finds the tokens itself and asks ``target``)."""
    return frozenset(distinctive_tokens(act)), target(act)


_install_tokens()


def _compiled_pass(fast: ModuleType, events: list[Event]) -> _Pass | None:
    """The loop in C (efc_tui/_speedups.c, ``feature_pass``): the same columns as
    ``_python_pass``, bit for bit; None when the run holds something it does not take.
    It finds an action's distinctive tokens itself and asks ``target`` for its target."""
    try:
        out = fast.feature_pass(events, target, error_signature)
    except _fast.Fallback:
        return None
    c, h, a, q, delta, n = (np.frombuffer(b, dtype=np.float64) for b in out[:6])
    mem, plan, verdict, rep_act, rep_err = (np.frombuffer(b, dtype=np.bool_) for b in out[6:11])
    ref, sids = (np.frombuffer(b, dtype=np.int64) for b in out[11:13])
    return _Pass(c, h, a, q, delta, n, mem, plan, verdict, rep_act, rep_err, ref, sids, out[13])


class PrefixState:
    """What the feature pass carries from one event to the next: ``step`` gives the columns
    of event t from events 0..t alone (all but z, whose citations look ahead), so a run's
    events fed in any number of pieces get the columns of one pass over the whole run.

    ``digest`` hashes the shingles, actions and observations kept in the sets below:
    ``hash`` within one process (``_python_pass``); ``stable_digest`` for a state pickled
    between processes (the live hook, ``adapter/live.py``). Either compares values as
    equality does (two values with the same 64-bit digest are taken as equal)."""

    __slots__ = (
        "action_obs",
        "action_variety",
        "digest",
        "epoch",
        "error_sigs",
        "known_checks",
        "prev_frac",
        "prev_sev",
        "seen_shingles",
        "signature_ids",
    )

    def __init__(self, digest: Callable[[Any], int] = hash) -> None:
        self.digest = digest
        stable = digest is stable_digest
        # a stable state is pickled on every hook call: its large sets pickle as arrays
        self.seen_shingles: GrowingSet = IntSet() if stable else set()
        # action key -> digest of its first observation
        self.action_obs: dict[int, int] | IntMap = IntMap() if stable else {}
        self.action_variety: set[int] = set()  # action keys that already gave two observations
        self.error_sigs: set[tuple[str, str]] = set()
        # (kind, tool, target) -> id in order of first use; a stable state compares digests
        # instead (only whether two events' signatures are equal is read: p)
        self.signature_ids: dict[tuple[EventKind, str | None, str], int] | None = (
            None if stable else {}
        )
        self.known_checks = 0
        self.epoch = 0
        self.prev_frac = 0.0
        self.prev_sev: int | None = None

    def __getstate__(self) -> dict[str, Any]:
        if self.digest is not stable_digest:
            raise TypeError("only a PrefixState with stable_digest is kept between processes")
        return {k: getattr(self, k) for k in self.__slots__ if k != "digest"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.digest = stable_digest
        for k, v in state.items():
            setattr(self, k, v)

    def step(
        self, ev: Event, tgt: str
    ) -> tuple[float, float, float, float, float, float, bool, bool, bool, bool, bool, int]:
        """Event t's (c, h, a, q, Δ, n, memory write, plan, has verdict, repeated action,
        repeated error, signature id: equal ids, equal (kind, tool, target)); ``tgt``:
        ``target(ev.action_text)``."""
        obs = ev.observation_text
        act = ev.action_text
        kind = ev.kind
        c = h = delta = n = 0.0
        a = q = 1.0
        repeat_action = repeat_error = has_verdict = False
        # n: novelty of the observation's shingles against all earlier observations
        if obs:
            sh = shingles(obs, self.digest)
            if sh:
                seen = self.seen_shingles
                seen_before = len(seen)
                seen |= sh
                n = (len(seen) - seen_before) / len(sh)  # share of new shingles
            if ev.truncated or obs.isspace():
                q = 0.5
        else:
            q = 0.5  # empty output
        # q and repeats: an edit changes the state, so observing actions are compared
        # within an epoch; the same edit made again is a repeat wherever it stands (-1).
        if kind is EventKind.GENERATION or kind is EventKind.REPAIR:
            self.epoch += 1
            action_epoch = -1
        else:
            action_epoch = self.epoch
        tool = ev.tool
        if act or tool:
            key = self.digest((action_epoch, tool, act.strip()))
            oh = self.digest(obs)
            first = self.action_obs.get(key)
            if first is None:
                self.action_obs[key] = oh
            else:
                repeat_action = True
                if first != oh or key in self.action_variety:
                    q = 0.5
                    self.action_variety.add(key)
        # c, h: checker fired and its scope; Δ: increase in passing fraction (+0.5 below)
        checks = ev.checks
        d = 0.0
        if checks is not None:
            c = 1.0
            ran = checks.passed + checks.failed
            if ran > 0:
                self.known_checks = max(self.known_checks, checks.total or 0, ran)
                h = min(1.0, ran / self.known_checks)
                frac = checks.passed / max(checks.total or 0, ran)
                if frac > self.prev_frac:
                    d = frac - self.prev_frac
                self.prev_frac = frac
            else:
                h = 0.5
        elif kind is EventKind.CHECK:
            c = 1.0
            h = 0.5
        status = ev.status
        if status is not Status.NONE:
            has_verdict = True
            sev = SEVERITY[status]
            if self.prev_sev is not None and sev > self.prev_sev:
                d += 0.5
            self.prev_sev = sev
            # a: repeated-error avoidance
            if status is not Status.PASSED:
                sig = error_signature(ev)
                if sig in self.error_sigs:
                    a = 0.0
                    repeat_error = True
                else:
                    self.error_sigs.add(sig)
        if d:
            delta = d if d < 1.0 else 1.0
        # m / p inputs
        mem = bool(ev.memory_write) or kind is EventKind.MEMORY
        plan = bool(ev.plan) or kind is EventKind.PLAN
        ids = self.signature_ids
        if ids is None:  # a stable state: the signature's digest stands for its id
            sid = self.digest((kind.value, tool, tgt))
        else:
            sig_key = (kind, tool, tgt)
            known = ids.get(sig_key)
            if known is None:
                known = ids[sig_key] = len(ids)
            sid = known
        return c, h, a, q, delta, n, mem, plan, has_verdict, repeat_action, repeat_error, sid


def _python_pass(events: list[Event]) -> _Pass:
    """The per-event loop, pure Python (the reference the compiled loop mirrors): z's
    citations here, every other column from ``PrefixState``."""
    T = len(events)
    cols: list[tuple[Any, ...]] = []
    compaction: list[int] = []
    first_ref = [-1] * T
    cited: dict[bytes, list[int]] = {}  # token -> events whose action cites it (ascending)
    # agents repeat the same commands: tokens and target are computed once per action text
    action_info: dict[str, tuple[frozenset[bytes], str]] = {}
    state = PrefixState()
    step = state.step
    for t, ev in enumerate(events):
        act = ev.action_text
        # z, pass 1: remember which distinctive tokens each action cites
        for r in ev.refs:
            if 0 <= r < t and first_ref[r] < 0:
                first_ref[r] = t
        info = action_info.get(act)
        if info is None:
            info = action_info[act] = _action_info(act)
        for tok in info[0]:
            lst = cited.get(tok)
            if lst is None:
                cited[tok] = [t]
            else:
                lst.append(t)
        cols.append(step(ev, info[1]))
        if ev.extra and ev.extra.get("compaction"):
            compaction.append(t)

    # z, pass 2: an observation is referenced when a later action cites one of its words
    if cited:
        # intersect from the (small) set of cited tokens: no set of every word is built
        cited_tokens = frozenset(cited)
        for t, ev in enumerate(events):
            obs = ev.observation_text
            if not obs:
                continue
            for tok in cited_tokens.intersection(word_list(obs)):
                citers = cited[tok]
                k = bisect_right(citers, t)
                if k < len(citers) and (first_ref[t] < 0 or citers[k] < first_ref[t]):
                    first_ref[t] = citers[k]
    c, h, a, q, delta, n, mem, plan, verdict, rep_act, rep_err, sids = (
        (list(col) for col in zip(*cols, strict=True)) if cols else ([] for _ in range(12))
    )
    f64 = np.float64
    return _Pass(
        np.asarray(c, dtype=f64),
        np.asarray(h, dtype=f64),
        np.asarray(a, dtype=f64),
        np.asarray(q, dtype=f64),
        np.asarray(delta, dtype=f64),
        np.asarray(n, dtype=f64),
        np.asarray(mem, dtype=bool),
        np.asarray(plan, dtype=bool),
        np.asarray(verdict, dtype=bool),
        np.asarray(rep_act, dtype=bool),
        np.asarray(rep_err, dtype=bool),
        np.asarray(first_ref, dtype=np.int64),
        np.asarray(sids, dtype=np.int64),
        compaction,
    )


def position_rho(first: int, count: int) -> np.ndarray:
    """ρ of events ``first .. first + count - 1``: t / (t + RHO_SCALE) (SPEC §3.2)."""
    return _rho(np.arange(first, first + count, dtype=np.int64))


def _rho(t: np.ndarray) -> np.ndarray:
    """ρ of events at positions ``t`` (int64) in their runs (SPEC §3.2)."""
    idx = t.astype(float)
    return idx / (idx + RHO_SCALE)


def prefix_plan_change(
    plan: np.ndarray,
    sids: np.ndarray,
    prev: int | None = None,
    starts: np.ndarray | None = None,
) -> np.ndarray:
    """p from the past (SPEC §6): an explicit plan update, or this action's signature
    (kind, tool, target) differs from the previous event's. ``prev``: the signature id of
    the event before ``sids[0]`` (None: ``sids[0]`` is the run's first event). ``starts``:
    the events are several runs end to end, these their first events (no previous one)."""
    changed = np.zeros(len(sids), dtype=bool)
    if len(sids):
        changed[1:] = sids[1:] != sids[:-1]
        if prev is not None:
            changed[0] = sids[0] != prev
        if starts is not None:
            changed[starts] = False
    return (plan | changed).astype(float)


def compute_features(run: Run) -> Features:
    """All phi columns of a run, post-hoc and prefix, in one O(total text) pass
    (compiled when the extension is built, else pure Python: the same values)."""
    return _finish(_loop(run.events))


def compute_features_runs(runs: Sequence[Run]) -> tuple[Features, list[Features]]:
    """``compute_features`` of each run, and the runs' columns end to end: the per-event
    pass run by run, the columns derived from it (z, m, p, ρ, ...) once over the runs
    together, each run's plan changes and positions counted from its own first event (the
    same values, element by element). Each run's features are its slices of the joined."""
    loops = [_loop(r.events) for r in runs]
    if len(loops) <= 1:
        f = _finish(loops[0] if loops else _python_pass([]))
        return f, [f] if loops else []
    lengths = [len(loop.c) for loop in loops]
    bounds = [0, *accumulate(lengths)]
    if any(loop.compaction for loop in loops):  # its retention is the run's own: rare
        each = [_finish(loop) for loop in loops]
        joined = Features(*(np.concatenate([getattr(f, k) for f in each]) for k in _FIELDS))
        return joined, each
    columns = [np.concatenate([getattr(x, k) for x in loops]) for k in _Pass._fields[:-1]]
    joined = _finish(_Pass._make([*columns, []]), bounds)
    cols = [getattr(joined, k) for k in _FIELDS]
    return joined, [Features(*(c[a:b] for c in cols)) for a, b in pairwise(bounds)]


def _loop(events: list[Event]) -> _Pass:
    fast = _fast.speedups()
    loop = _compiled_pass(fast, events) if fast is not None and type(events) is list else None
    return loop if loop is not None else _python_pass(events)


def _finish(loop: _Pass, bounds: list[int] | None = None) -> Features:
    """The feature columns from the per-event pass; ``bounds``: the pass is several runs'
    end to end, run ``i`` being events ``bounds[i]`` to ``bounds[i + 1]`` (none compacts)."""
    T = len(loop.c)
    ref = loop.first_ref
    compaction = loop.compaction
    cited = ref >= 0
    z = cited.astype(float)
    # m, post-hoc: written to memory, or referenced before the next compaction wiped it
    # (without a compaction, every cited observation is retained)
    retained = cited
    if compaction:
        comp = np.asarray(compaction, dtype=np.int64)
        pos = np.searchsorted(comp, np.arange(T, dtype=np.int64), side="right")
        big = np.iinfo(np.int64).max
        next_comp = np.where(pos < len(comp), comp[np.minimum(pos, len(comp) - 1)], big)
        retained = cited & (ref < next_comp)
    mem_a = loop.mem
    m = np.where(mem_a | retained, 1.0, 0.3)
    # p: plan change (next action differs; prefix: this action differs from the last)
    sids = loop.sig_ids
    changed_next = np.zeros(T, dtype=bool)
    if T > 1:
        changed_next[:-1] = sids[1:] != sids[:-1]
    plan_a = loop.plan
    if bounds is None:
        starts = None
        rho = position_rho(0, T)
    else:  # each run's last event has no next one, its first no previous one
        edges = np.asarray(bounds, dtype=np.int64)
        lengths = np.diff(edges)
        starts = edges[:-1][lengths > 0]
        changed_next[edges[1:][lengths > 0] - 1] = False
        rho = _rho(np.arange(T, dtype=np.int64) - np.repeat(edges[:-1], lengths))
    p = (plan_a | changed_next).astype(float)
    p_prefix = prefix_plan_change(plan_a, sids, starts=starts)
    return Features(
        c=loop.c,
        h=loop.h,
        z=z,
        p=p,
        m=m,
        a=loop.a,
        q=loop.q,
        delta=loop.delta,
        rho=rho,
        n=loop.n,
        p_prefix=p_prefix,
        m_prefix=mem_a.astype(float),
        has_verdict=loop.has_verdict,
        repeat_action=loop.repeat_action,
        repeat_error=loop.repeat_error,
    )


#: the Features fields, in order
_FIELDS = tuple(Features.__struct_fields__)
