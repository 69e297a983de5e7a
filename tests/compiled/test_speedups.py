"""The compiled fast path (efc_tui/_speedups.c) and the pure-Python path give identical
results: the same full ledger (every figure, every per-event column, the adapter's
decisions) for every fixture, and the same answer from each compiled function on
generated and hostile input.

Skipped when the extension is not built (no C compiler at install time); `make test` on
such a machine runs the pure-Python path everywhere else.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from efc_tui import _fast
from efc_tui.model import Checks, Event, EventKind, Run, Status
from tests.conftest import SHARED
from tests.reference_ledgers import first_difference, fixture_files, generated, snapshot

fast: Any = _fast.speedups()
pytestmark = pytest.mark.skipif(fast is None, reason=f"compiled fast path: {_fast.STATUS}")


def _snapshots(path: Path) -> list[dict[str, Any]] | None:
    from efc_tui.adapter import score_and_decide
    from efc_tui.errors import EfcError
    from efc_tui.parsers import load

    try:
        # lazy: the adapter's run figures from the compiled loop (the decisions are Python's)
        return [snapshot(score_and_decide(run, lazy=True)) for run in load(path)]
    except EfcError as exc:
        return [{"error": str(exc)}]


def _both(path: Path) -> tuple[Any, Any]:
    compiled = _snapshots(path)
    with _fast.pure_python():
        pure = _snapshots(path)
    return compiled, pure


def test_pure_python_switch() -> None:
    assert _fast.speedups() is fast
    with _fast.pure_python():
        assert _fast.speedups() is None
    assert _fast.speedups() is fast


@pytest.fixture(scope="module")
def generated_traces() -> Iterator[list[tuple[str, Path]]]:
    with tempfile.TemporaryDirectory() as tmp:
        yield generated(Path(tmp))


@pytest.mark.parametrize("name,path", [pytest.param(n, p, id=n) for n, p in fixture_files()])
def test_fixture_ledgers_identical(name: str, path: Path) -> None:
    compiled, pure = _both(path)
    assert first_difference(pure, compiled) is None


def test_generated_ledgers_identical(generated_traces: list[tuple[str, Path]]) -> None:
    for name, path in generated_traces:
        compiled, pure = _both(path)
        assert first_difference(pure, compiled) is None, name


def test_real_runs_identical() -> None:
    """Every labelled real run in ../shared/real-runs (skipped when absent): long real
    observations through the classifier, the feature pass and the adapter both ways."""
    from efc_tui.parsers import expand_paths

    root = SHARED / "real-runs"
    if not root.is_dir():
        pytest.skip("../shared/real-runs is not present")
    bad = []
    for path in expand_paths([root]):
        compiled, pure = _both(path)
        diff = first_difference(pure, compiled)
        if diff:
            bad.append(f"{path.relative_to(root)}: {diff}")
    assert not bad, "\n".join(bad[:20])


# --------------------------------------------------------------------- text kernels

SEPARATORS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029 \t\x1f\xa0\u3000\u2003\u200b"
texts = st.text(
    alphabet=st.one_of(
        st.sampled_from(list(SEPARATORS) + list("ab_./-=:'ÉéR") + ["\ud800", "😀", "日"]),
        st.characters(),
    ),
    max_size=60,
)


def _hints() -> list[str]:
    """status.py's hint lists (the compiled pre-filter receives the same ones)."""
    from efc_tui.parsers import status

    return [*status._SUMMARY_HINTS, *status._SUMMARY_PAIR, *status._HINTS, "FAILED "]


HINTS = _hints()


def _python_no_hints(text: str) -> bool:
    """The substring pre-filters of status.parse_checks and status._has_failure_hint."""
    from efc_tui.parsers.status import _SUMMARY_HINTS, _SUMMARY_PAIR, _has_failure_hint

    tail = text[-8000:]
    if any(h in tail for h in _SUMMARY_HINTS) or all(h in tail for h in _SUMMARY_PAIR):
        return False
    return not _has_failure_hint(text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts, st.sampled_from([*HINTS, ""]), st.integers(0, 3))
def test_no_hints_matches_python(text: str, hint: str, where: int) -> None:
    t = [text + hint, hint + text, text[: len(text) // 2] + hint + text[len(text) // 2 :], text][
        where
    ]
    assert fast.no_hints(t) == _python_no_hints(t)


@pytest.mark.parametrize("hint", HINTS)
@pytest.mark.parametrize("at", [0, 3990, 3997, 4000, 5000, 11990, 12000, 19990])
@pytest.mark.parametrize("wide", ["", "─", "😀"])
def test_no_hints_at_the_head_and_tail_cuts(hint: str, at: int, wide: str) -> None:
    """Hints straddling the 4,000-char head and the 8,000-char tail, in 1-, 2- and 4-byte
    strings, in texts of 12,000 chars (one part) and 20,000 (head + tail)."""
    for size in (12_000, 20_000):
        filler = ("x" * 99 + "\n") * (size // 100)
        t = wide + filler[:at] + hint + filler[at + len(hint) :]
        t = t[:size]
        assert fast.no_hints(t) == _python_no_hints(t), (hint, at, size)


@pytest.mark.parametrize("size", [64, 65, 97, 130, 200])
def test_no_hints_every_offset(size: int) -> None:
    """Each hint at every offset of 1-byte texts, beside near misses of the hints' first
    four characters (the Bloom filter's key): the same answers as the Python pre-filters."""
    near = "ab erro Ran pas fai Trac comm: no Syn Ind Tab not nva nkn too Ass tim Tim can had Mis É\n  "
    filler = (near * 3)[:size]
    assert fast.no_hints(filler) == _python_no_hints(filler)
    for hint in [*HINTS, "error ... ==", "Ran", "passe", "faile"]:
        for at in range(0, size - len(hint) + 1):
            t = filler[:at] + hint + filler[at + len(hint) :]
            assert fast.no_hints(t) == _python_no_hints(t), (hint, at, size)


@pytest.mark.parametrize("wide", ["→", "😀"])
def test_no_hints_every_offset_among_wide_characters(wide: str) -> None:
    """A text with a wide character every few (a Claude Code file read has an arrow on each
    line): each hint at every offset, so that it starts and ends next to one, and cut by
    one (no hint then): the same answers as the Python pre-filters."""
    filler = "".join(f"{i:3d}{wide}ab " for i in range(18))
    assert fast.no_hints(filler) == _python_no_hints(filler) is True
    for hint in HINTS:
        for at in range(0, len(filler) - len(hint) + 1):
            t = filler[:at] + hint + filler[at + len(hint) :]
            cut = t[: at + 1] + wide + t[at + 1 :]
            for text in (t, cut):
                assert fast.no_hints(text) == _python_no_hints(text), (hint, at, text)


@pytest.mark.parametrize("wide", ["", "─", "😀"])
def test_no_hints_finds_the_pairs_second_only_whole_and_in_the_tail(wide: str) -> None:
    """The pair's second ("==") is looked for by its first character, then matched in
    place: lone first characters (many, one at the very end, one just before the second)
    are no match, a whole second anywhere in the tail is, one straddling the tail's cut is
    not, as in Python; in 1-, 2- and 4-byte strings."""
    from efc_tui.parsers.status import _SUMMARY_PAIR

    first, second = _SUMMARY_PAIR
    lone = second[0]
    body = f"{wide}x {first} " + f"a {lone} b " * 40
    texts = [body, body + lone, body + second, second + body, body + lone + " " + second]
    texts += [body[:k] + second + body[k:] for k in range(0, len(body), 7)]
    tail = ("y" * 99 + "\n") * 80  # the 8,000-character tail of a 12,000-character text
    long = f"{wide}{first} " + "z" * (12_000 - 8_000 - len(wide) - len(first) - 2)
    texts += [long + tail, long[:-1] + second + tail[1:], long + second + tail[2:]]
    texts += [long + tail[:-2] + second, f"{first} {lone}{wide}{lone}"]
    for t in texts:
        assert fast.no_hints(t) == _python_no_hints(t), t[-40:]
    assert fast.no_hints(body) is True and fast.no_hints(body + second) is False


def _python_found_hints(text: str) -> frozenset[str]:
    """The rules' hints (status._HINTS) in the parts of a text the rules read."""
    from efc_tui.parsers.status import _HEAD, _HINTS, _TAIL

    parts = (text,) if len(text) <= _HEAD + _TAIL else (text[:_HEAD], text[-_TAIL:])
    return frozenset(h for h in _HINTS if any(h in p for p in parts))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts, st.lists(st.sampled_from(HINTS), max_size=3), st.integers(0, 2))
def test_found_hints_matches_python(text: str, hints: list[str], where: int) -> None:
    """found_hints (status._Obs.may_hold's scan) finds exactly the rules' hints that are
    there: a rule it reports none of the keys of cannot match."""
    for hint in hints:
        text = [text + hint, hint + text, text[: len(text) // 2] + hint + text[len(text) // 2 :]][
            where
        ]
    assert fast.found_hints(text) == _python_found_hints(text)


@pytest.mark.parametrize("wide", ["", "─", "😀"])
def test_found_hints_at_the_head_and_tail_cuts_and_every_offset(wide: str) -> None:
    """Each hint straddling the head and tail cuts (texts of one part and of two), and at
    every offset of a short text of near misses, in 1-, 2- and 4-byte strings."""
    from efc_tui.parsers.status import _HINTS

    for size in (12_000, 20_000):
        filler = ("x" * 99 + "\n") * (size // 100)
        for hint in _HINTS:
            for at in (0, 3997, 4000, 5000, 11990, 12000, 19990):
                t = (wide + filler[:at] + hint + filler[at + len(hint) :])[:size]
                assert fast.found_hints(t) == _python_found_hints(t), (hint, at, size)
    near = wide + "ab erro Ran pas fai Trac comm: no Syn Ind Tab not nva nkn too Ass tim Tim É\n "
    for hint in _HINTS:
        for at in range(0, len(near) - len(hint) + 1):
            t = near[:at] + hint + near[at + len(hint) :]
            assert fast.found_hints(t) == _python_found_hints(t), (hint, at)


# long 1-byte texts of pieces the pre-filters react to: hints, their prefixes, near misses
pieces = st.sampled_from(
    [h for h in HINTS if h]
    + [h[:k] for h in HINTS for k in (1, 2, 3) if len(h) > k]
    + ["x" * 31, "y" * 7, " ", "\n", "=", "É", "é", "ÿ", "\x00", "pAssed", "Error", "FAILED"]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(pieces, max_size=60))
def test_no_hints_long_texts_match_python(parts: list[str]) -> None:
    t = "".join(parts)
    assert fast.no_hints(t) == _python_no_hints(t)


def test_no_hints_reads_the_head_and_tail_sizes_of_status() -> None:
    """The parts of a text the pre-filter searches are status.py's ``_HEAD`` and ``_TAIL``,
    given at import: other sizes move what it sees; differing tails for the rules and for
    parse_checks turn it off (it answers False: the classifier runs)."""
    from efc_tui.parsers import status

    text = "x" * 150 + "Traceback (most recent call last):" + "x" * 20_000
    lists = (status._SUMMARY_HINTS, status._SUMMARY_PAIR, status._HINTS)
    try:
        assert fast.no_hints(text) is False  # inside the 4,000-char head
        assert fast.set_hints(*lists, 100, 8000, 8000) is True
        assert fast.no_hints(text) is True  # past a 100-char head
        assert fast.no_hints("all good") is True
        assert fast.set_hints(*lists, 4000, 8000, 9000) is False
        assert fast.no_hints("all good") is False
    finally:
        status._install_hints()
    assert fast.no_hints("all good") is True and fast.no_hints(text) is False


def test_hints_in_a_wide_text_past_the_stack_room_and_no_nul_hint() -> None:
    """A two-byte text whose head and tail outgrow the scan's room on the stack (16,384
    chars) is read from the heap alike; a hint holding NUL is refused (the scan reads a code
    point above 255 as NUL)."""
    from efc_tui.parsers import status

    wide = "x\u2192" * 10_000
    text = wide[:15_000] + "Traceback (most recent call last):" + wide[15_000:] + "y" * 20_000
    lists = (status._SUMMARY_HINTS, status._SUMMARY_PAIR, status._HINTS)
    try:
        assert fast.set_hints(*lists, 20_000, 8000, 8000) is True
        assert fast.no_hints(text) is False and fast.found_hints(text)
        assert fast.set_hints(*lists, 10_000, 8000, 8000) is True
        assert fast.no_hints(text) is True and not fast.found_hints(text)
        with pytest.raises(ValueError, match="NUL"):
            fast.set_hints(*lists[:2], ("Tra\0ceback",), 4000, 8000, 8000)
    finally:
        status._install_hints()
    assert fast.no_hints(text) is True


@settings(max_examples=400, deadline=None)
@given(texts)
def test_shingle_count_matches_python(text: str) -> None:
    from efc_tui.scoring.features import shingles

    assert fast.shingle_count(text) == len(shingles(text))


def test_shingles_of_two_byte_lines_at_every_offset() -> None:
    """A Claude Code file read (an arrow on each line, so two bytes a character; its lines
    are found four characters at a time): each separator at every offset of such a text
    gives as many shingles as Python finds."""
    from efc_tui.scoring.features import shingles

    base = "".join(f"{i:5d}\u2192line {'x' * (i % 9)} end\n" for i in range(8))
    for sep in SEPARATORS:
        for at in range(len(base)):
            t = base[:at] + sep + base[at:]
            assert fast.shingle_count(t) == len(shingles(t)), (repr(sep), at)


@pytest.mark.parametrize("n", [31, 32, 33, 64, 65, 500])
def test_many_shingles_are_counted_once_each(n: int) -> None:
    """Past 32 shingles the compiled pass keeps the first of each in a table instead of
    sorting: texts of n lines and of n words, each with repeats, one- and two-byte."""
    from efc_tui.scoring.features import shingles

    for wide in ("", "\u2192"):
        lines = "\n".join(f"line {i % (n // 2 + 1)}{wide} {'x' * (i % 3)}" for i in range(n))
        words = " ".join(f"w{i % 7}{wide}" for i in range(n))  # one line: word 3-grams
        for text in (lines, words, lines + "\n" + lines):
            assert fast.shingle_count(text) == len(shingles(text)), (n, wide)


def test_a_line_is_one_shingle_whatever_its_strings_width() -> None:
    """Novelty compares lines across observations stored one, two or four bytes a
    character: a line seen before is not new in a wider or narrower string."""
    from efc_tui.scoring.features import compute_features

    lines = ["plain ascii line", "caf\xe9 latin-1 line", "arrow \u2192 line"]
    texts = [
        "\n".join(lines),  # two bytes a character (the arrow)
        "\n".join([*lines, "\U0001f600 new"]),  # four
        "\n".join([lines[0], lines[1], "ascii new"]),  # one
    ]
    evs = [
        Event(index=i, step=i, kind=EventKind.TOOL, observation_text=t) for i, t in enumerate(texts)
    ]
    run = Run(run_id="w", events=evs)
    a = compute_features(run)
    with _fast.pure_python():
        b = compute_features(run)
    assert np.array_equal(a.n, b.n) and list(a.n) == [1.0, 0.25, 1 / 3]


# --------------------------------------------------------------------- feature pass

events = st.builds(
    lambda i, kind, tool, status, act, obs, refs, checks, mem, plan, trunc, comp: Event(
        index=i,
        step=i,
        kind=kind,
        tool=tool,
        status=status,
        action_text=act,
        observation_text=obs,
        refs=refs,
        checks=checks,
        memory_write=mem,
        plan=plan,
        truncated=trunc,
        extra={"compaction": comp} if comp is not None else {},
    ),
    st.just(0),
    st.sampled_from(list(EventKind)),
    st.sampled_from([None, "", "bash", "edit", "é"]),
    st.sampled_from(list(Status)),
    st.one_of(
        texts, st.sampled_from(["cat src/pkg/module_a.py", "grep -n handler_x src/", "  ls  "])
    ),
    st.one_of(
        texts, st.sampled_from(["see src/pkg/module_a.py line 3\nok\nok", "handler_x\nrésumé_ab"])
    ),
    st.lists(st.integers(-2, 30), max_size=3).map(tuple),
    st.one_of(
        st.none(),
        st.builds(
            Checks, st.integers(0, 5), st.integers(0, 5), st.one_of(st.none(), st.integers(0, 12))
        ),
    ),
    st.sampled_from([None, "", "note"]),
    st.sampled_from([None, "", "plan"]),
    st.booleans(),
    st.sampled_from([None, 0, 1, True, "yes", ""]),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(events, max_size=25))
def test_feature_pass_matches_python(evs: list[Event]) -> None:
    from efc_tui.scoring.features import compute_features

    for i, e in enumerate(evs):
        e.index = e.step = i
    run = Run(run_id="h", events=evs)
    a = compute_features(run)
    with _fast.pure_python():
        b = compute_features(run)
    for name in a.__struct_fields__:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


# --------------------------------------------------------------------- event columns

#: counts an event may hold: the compiled columns take exact ints within 2**53 and floats,
#: and decline the rest (a bool, a longer int, a float subclass), which Python then reads
counts = st.one_of(
    st.integers(0, 2**53),
    st.integers(2**53 + 1, 2**70),
    st.integers(-(2**53), -1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(list(EventKind)), st.sampled_from(list(Status)), *[counts] * 5),
        max_size=12,
    )
)
def test_event_columns_match_python(rows: list[tuple[Any, ...]]) -> None:
    from efc_tui.scoring.event_columns import _python_columns, event_columns

    evs = [
        Event(
            index=i,
            step=i,
            kind=k,
            status=s,
            tokens_in=a,
            tokens_out=b,
            tool_calls=c,
            wall_s=w,
            ops=o,
        )
        for i, (k, s, a, b, c, w, o) in enumerate(rows)
    ]
    got, want = event_columns(evs), _python_columns(evs)
    for name in want.__struct_fields__:
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True), name


def test_event_columns_decline_what_they_do_not_take() -> None:
    """A value the pass does not read as Python would (a bool, an int past 2**53, a status
    not listed, another class) makes it decline; exact ints and floats it reads."""
    from efc_tui.scoring.event_columns import KINDS, STATUSES

    def ev(**kw: Any) -> Event:
        return Event(index=0, step=0, kind=EventKind.TOOL, status=Status.PASSED, **kw)

    got = fast.event_columns([ev(tokens_in=2**53, tokens_out=2**53, wall_s=1.5)], KINDS, STATUSES)
    assert [np.frombuffer(b, np.float64).tolist() for b in got[2:]] == [
        [2.0**54],
        [0.0],
        [1.5],
        [0.0],
    ]
    assert bytes(got[0]) == bytes([KINDS.index(EventKind.TOOL)])
    assert bytes(got[1]) == bytes([STATUSES.index(Status.PASSED)])
    for odd in (
        ev(tokens_in=True),
        ev(tokens_in=2**53 + 1),
        ev(ops=None),
        ev(wall_s="1"),
        Event(index=0, step=0, kind=EventKind.TOOL, status="passed"),  # type: ignore[arg-type]
    ):
        assert fast.event_columns([ev(), odd], KINDS, STATUSES) is None
    assert fast.event_columns([ev(), object()], KINDS, STATUSES) is None
    assert fast.event_columns([], KINDS, STATUSES) == (bytearray(),) * 6


def test_token_characters_come_from_features(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled loop splits observations into tokens with ``features._TOKEN_TABLE``,
    given to it at import (one definition): a table that also keeps ":" changes which
    observation a later action cites, in both loops alike; a table the C cannot follow
    (a byte >= 128 as a separator) makes it decline, and Python runs."""
    from efc_tui.scoring import features

    evs = [
        Event(index=0, step=0, kind=EventKind.TOOL, action_text="grep -n x", observation_text=o)
        for o in ("src/app.py:12:x = 1", "src/app.py also here", "key abc:defg:hij " * 3)
    ]
    act = "sed -n 1p src/app.py:12:x && echo abc:defg:hij"
    evs.append(Event(index=3, step=3, kind=EventKind.TOOL, action_text=act))

    def refs() -> tuple[list[int], list[int]]:
        compiled = features._compiled_pass(fast, evs)
        assert compiled is not None
        return compiled.first_ref.tolist(), features._python_pass(evs).first_ref.tolist()

    compiled, python = refs()
    assert compiled == python == [3, 3, -1, -1]  # "src/app.py", cited by the last action
    table = bytearray(features._TOKEN_TABLE)
    table[ord(":")] = ord(":")
    try:
        monkeypatch.setattr(features, "_TOKEN_TABLE", bytes(table))
        features._install_tokens()
        compiled, python = refs()
        # only the first holds "src/app.py:12:x"; the third "abc:defg:hij", whose pieces
        # between colons are all shorter than a distinctive token (8 characters)
        assert compiled == python == [3, -1, 3, -1]
        table[0xC3] = 32
        monkeypatch.setattr(features, "_TOKEN_TABLE", bytes(table))
        assert fast.set_tokens(bytes(table), features.MIN_TOKEN, features._EDGE) is False
        assert features._compiled_pass(fast, evs) is None
    finally:
        monkeypatch.undo()
        features._install_tokens()
    assert features._compiled_pass(fast, evs) is not None


#: action texts made of token runs around the rule's edges: 7, 8 and 9 bytes, plain
#: lower-case words, edge characters at either end, two-byte and four-byte characters
_ACTION_TEXT = st.lists(
    st.one_of(
        st.sampled_from(["abcdefgh", "abcdefg", "abcdefghi", "Abcdefgh", "abcdefg1", "./abcdefgh"]),
        st.sampled_from(["abcdefgh.", "-abc/def-", "/abc_defgh/", "abédefg", "😀abcd"]),
        st.sampled_from([" ", "\n", ":", "=", "\t", " ", "　"]),
        st.text(alphabet=st.sampled_from(list("aZ9_./-é日")), max_size=12),
    ),
    max_size=12,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ACTION_TEXT, min_size=1, max_size=6), st.lists(_ACTION_TEXT, max_size=6))
def test_action_tokens_cite_alike(actions: list[str], observations: list[str]) -> None:
    """The compiled loop finds an action's distinctive tokens itself: the events a later
    action cites are the Python pass's (``distinctive_tokens``), whatever the texts."""
    from efc_tui.scoring import features

    texts = observations + actions
    evs = [
        Event(index=i, step=i, kind=EventKind.TOOL, action_text=a, observation_text=o)
        for i, (a, o) in enumerate(zip([""] * len(observations) + actions, texts, strict=True))
    ]
    compiled = features._compiled_pass(fast, evs)
    assert compiled is not None
    assert compiled.first_ref.tolist() == features._python_pass(evs).first_ref.tolist()


@pytest.mark.parametrize("width", ["é", "\u2192", "\U0001f600"])
@pytest.mark.parametrize("at", [4090, 4095, 4096, 4097, 8190])
def test_a_long_wide_texts_tokens_are_cited_across_its_pieces(width: str, at: int) -> None:
    """A text that is not ASCII is read a 4,096-char piece at a time: a token at a piece's
    mark, and a run of token chars longer than a piece, are cited as the Python pass cites
    them, whatever the text's width."""
    from efc_tui.scoring import features

    token = "src/módulo_x.py"
    long_run = "a" * 5000 + "_TARGET_" + "b" * 5000
    text = (("line " + width + " of text\n") * 2000)[:at] + " " + token + " " + long_run + " end"
    evs = [
        Event(index=0, step=0, kind=EventKind.TOOL, observation_text=text),
        Event(index=1, step=1, kind=EventKind.TOOL, action_text=f"cat {token}; echo {long_run}"),
    ]
    compiled = features._compiled_pass(fast, evs)
    assert compiled is not None
    assert compiled.first_ref.tolist() == features._python_pass(evs).first_ref.tolist() == [1, -1]


def test_action_tokens_take_the_rules_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    """MIN_TOKEN and _EDGE are features.py's: changed there, both loops cite alike."""
    from efc_tui.scoring import features

    evs = [
        Event(index=0, step=0, kind=EventKind.TOOL, observation_text="see App.py"),
        Event(index=1, step=1, kind=EventKind.TOOL, observation_text="run_x9 failed"),
        Event(index=2, step=2, kind=EventKind.TOOL, action_text="cat App.py; ./run_x9/"),
    ]

    def refs() -> list[int]:
        compiled = features._compiled_pass(fast, evs)
        assert compiled is not None
        python = features._python_pass(evs).first_ref.tolist()
        assert compiled.first_ref.tolist() == python
        return python

    assert refs() == [-1, -1, -1]  # "App.py" (6 bytes) and "run_x9" are too short to cite
    try:
        monkeypatch.setattr(features, "MIN_TOKEN", 6)
        features._install_tokens()
        assert refs() == [2, 2, -1]
        monkeypatch.setattr(features, "_EDGE", b"")
        features._install_tokens()
        assert refs() == [2, -1, -1]  # "./run_x9/" is no longer also "run_x9"
        assert fast.set_tokens(features._TOKEN_TABLE, 6, b":") is False  # not a token char
    finally:
        monkeypatch.undo()
        features._install_tokens()


def test_feature_pass_on_repeated_actions() -> None:
    """q's rule for an observing action repeated with the same, then another, then the
    first output again (the third is inconsistent too): both paths agree."""
    from efc_tui.scoring.features import compute_features

    obs = ["A", "B", "A", "A", "B", "", "A"]
    evs = [
        Event(
            index=i,
            step=i,
            kind=EventKind.TOOL,
            tool="bash",
            action_text=" ls ",
            observation_text=o,
        )
        for i, o in enumerate(obs)
    ]
    run = Run(run_id="r", events=evs)
    a = compute_features(run)
    with _fast.pure_python():
        b = compute_features(run)
    assert b.q.tolist() == [1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]
    assert np.array_equal(a.q, b.q) and np.array_equal(a.repeat_action, b.repeat_action)


# --------------------------------------------------------------------- gates, raw cost


runs_for_scoring = st.lists(events, min_size=0, max_size=30)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    runs_for_scoring,
    st.lists(st.integers(0, 3), max_size=30),
    st.integers(1, 8),
    st.sampled_from([0.0, 1e-4, 0.02, 0.5]),
)
def test_scoring_and_adapter_match_python(
    evs: list[Event], steps: list[int], window: int, epsilon: float
) -> None:
    """Gates, raw cost and everything scored from them (the adapter's decisions too) on
    random runs: several candidates per step, verdicts with and without counts, any status
    and kind."""
    from efc_tui.adapter import score_and_decide
    from tests.reference_ledgers import snapshot

    step = 0
    for i, e in enumerate(evs):
        step += steps[i] if i < len(steps) else 1
        e.index, e.step = i, step // 2
        e.tokens_in, e.tool_calls, e.wall_s, e.ops = 10 * i, i % 2, 0.5 * (i % 3), i % 4
        e.flags = ("tokens",) if i % 3 == 0 else ("wall_s",) if i % 3 == 1 else ()
    run = Run(run_id="h", events=evs)
    a = snapshot(score_and_decide(run, window=window, epsilon=epsilon, lazy=True))
    with _fast.pure_python():
        b = snapshot(score_and_decide(run, window=window, epsilon=epsilon, lazy=True))
    assert first_difference(b, a) is None


def test_compiled_loops_are_the_ones_running() -> None:
    """The speed-ups are in use (a silent fallback would pass every equality test)."""
    from efc_tui.adapter import score_and_decide
    from efc_tui.adapter.decide import _compiled_summary, _Inputs
    from efc_tui.parsers import load
    from efc_tui.scoring import load_estimator, score_run
    from efc_tui.scoring.features import _compiled_pass
    from tests.conftest import SAMPLES

    run = next(load(SAMPLES / "repair_loop.jsonl"))
    assert _compiled_pass(fast, run.events) is not None
    assert fast.event_columns(run.events, tuple(EventKind), tuple(Status)) is not None
    ledger = score_run(run, load_estimator())
    nr = np.ones(len(run.events))
    inputs = _Inputs(run.events, ledger.features, nr, nr, nr, nr, nr, nr, 1.0, 3, 0.01, 3)
    loop = _compiled_summary(fast, inputs)
    assert loop is not None and loop.decisions is None and len(loop.has_obs) == len(run.events)
    assert sum(loop.memory_counts.values()) == len(run.events)
    # score's summary comes from it
    summary = score_and_decide(run, lazy=True).summary
    assert summary.memory == loop.memory_counts


@pytest.mark.parametrize("value", [2**70, 1.5, -3])
def test_odd_counts_score_alike(value: Any) -> None:
    """Counts the compiled loops do not take as small ints (huge, float, negative) give the
    Python path's results."""
    from efc_tui.adapter import score_and_decide
    from tests.reference_ledgers import snapshot

    evs = [
        Event(
            index=i,
            step=i,
            kind=EventKind.CHECK,
            status=Status.ASSERTION_ERROR,
            observation_text=f"{i} failed",
            checks=Checks(passed=value if i else 1, failed=1, total=3),
            tokens_in=value if i == 1 else 5,
        )
        for i in range(4)
    ]
    run = Run(run_id="odd", events=evs)
    a = snapshot(score_and_decide(run, lazy=True))
    with _fast.pure_python():
        b = snapshot(score_and_decide(run, lazy=True))
    assert first_difference(b, a) is None


def test_rollback_ties_go_to_the_latest_candidate() -> None:
    from efc_tui.adapter import score_and_decide

    kinds = [(0, Status.ASSERTION_ERROR), (0, Status.ASSERTION_ERROR), (1, Status.RUNTIME_ERROR)]
    evs = [
        Event(
            index=i,
            step=s,
            kind=EventKind.GENERATION,
            tool="edit",
            status=st,
            action_text=f"write v{i}",
            observation_text=f"out {i}",
        )
        for i, (s, st) in enumerate(kinds)
    ]
    run = Run(run_id="ties", events=evs)
    a = score_and_decide(run, lazy=True)
    with _fast.pure_python():
        b = score_and_decide(run, lazy=True)
    assert b.decisions[2].rollback_to == 1 and a.decisions[2].as_dict() == b.decisions[2].as_dict()
    assert a.summary.rollback_event == b.summary.rollback_event == 2
    assert a.summary.rollback_to == b.summary.rollback_to == 1


@pytest.mark.parametrize("repeat", [0, 2, 3])
@pytest.mark.parametrize("epsilon", [0.0, 1e6])
def test_repetition_rule_decided_alike(repeat: int, epsilon: float) -> None:
    """A failure loop (one command failing the same way again and again, with edits and
    thoughts in between): the repetition rule's stops and reasons, alone and together with
    the window rule (a huge ε fires it everywhere), are the Python path's."""
    from efc_tui.adapter import score_and_decide
    from tests.reference_ledgers import snapshot

    evs = []
    for i in range(12):
        if i % 3 == 2:
            evs.append(
                Event(
                    index=i,
                    step=i,
                    kind=EventKind.REPAIR,
                    tool="edit",
                    status=Status.NONE,
                    action_text=f"edit try {i}",
                    observation_text="ok",
                )
            )
        else:
            evs.append(
                Event(
                    index=i,
                    step=i,
                    kind=EventKind.CHECK,
                    tool="bash",
                    status=Status.ASSERTION_ERROR,
                    action_text="pytest -q tests/test_a.py",
                    observation_text="E   AssertionError: 1 != 2\n1 failed in 0.1s",
                    checks=Checks(passed=0, failed=1, total=1),
                    tokens_in=100,
                    tool_calls=1,
                )
            )
    run = Run(run_id="loop", events=evs)
    a = score_and_decide(run, window=2, epsilon=epsilon, repeat=repeat, lazy=True)
    with _fast.pure_python():
        b = score_and_decide(run, window=2, epsilon=epsilon, repeat=repeat, lazy=True)
    assert first_difference(snapshot(b), snapshot(a)) is None
    fired = [d for d in a.decisions if d.repeat_rule]
    assert bool(fired) == (repeat > 0)
    if fired and fired[0].control == "stop":
        assert "times in a row since event" in fired[0].control_reason


def test_slot_reads_and_other_classes() -> None:
    """The passes read Event and Checks fields straight from their slots (every field is
    found at set-up); an instance of a subclass is read through getattr, with the same
    ledger."""
    from msgspec.structs import fields

    from efc_tui.adapter import score_and_decide
    from efc_tui.parsers import load
    from tests.conftest import SAMPLES
    from tests.reference_ledgers import snapshot

    assert fast.setup_slots(
        Event, tuple(f.name for f in fields(Event)), Checks, tuple(f.name for f in fields(Checks))
    ) == (len(fields(Event)), len(fields(Checks)))

    class Sub(Event):
        pass

    run = next(load(SAMPLES / "repair_loop.jsonl"))
    want = snapshot(score_and_decide(run, lazy=True))
    run.events = [
        Sub(**{f.name: getattr(e, f.name) for f in fields(Event)}) if i % 2 else e
        for i, e in enumerate(run.events)
    ]
    assert first_difference(want, snapshot(score_and_decide(run, lazy=True))) is None
    with _fast.pure_python():
        assert first_difference(want, snapshot(score_and_decide(run, lazy=True))) is None


@pytest.mark.parametrize("name,path", [pytest.param(n, p, id=n) for n, p in fixture_files()])
def test_lazy_decisions_are_the_eager_ones(name: str, path: Path) -> None:
    """``lazy=True`` (what ``score`` asks for): the summary from the compiled pass, which
    builds no Decision, the decisions built (in Python) when first read; the same ledger,
    decisions and summary as the eager path and the pure-Python one."""
    from efc_tui.adapter import score_and_decide
    from efc_tui.adapter.decide import LazyDecisions
    from efc_tui.errors import EfcError
    from efc_tui.parsers import load

    try:
        runs = list(load(path))
    except EfcError:
        pytest.skip("not a readable trace")
    for run in runs:
        lazy = score_and_decide(run, lazy=True)
        assert isinstance(lazy.decisions, LazyDecisions) and lazy.decisions._items is None
        summary_first = snapshot(lazy)  # reads the summary, then the decisions
        eager = snapshot(score_and_decide(run))
        with _fast.pure_python():
            pure = snapshot(score_and_decide(run, lazy=True))
        assert first_difference(eager, summary_first) is None
        assert first_difference(pure, summary_first) is None
        assert len(lazy.decisions) == len(run.events) and list(lazy.decisions) == lazy.decisions[:]


@settings(max_examples=400, deadline=None)
@given(haystack=st.binary(max_size=64), needle=st.binary(max_size=6))
def test_contains_is_bytes_in(haystack: bytes, needle: bytes) -> None:
    assert fast.contains(haystack, needle) is (needle in haystack)
    assert fast.contains(haystack + needle + haystack, needle) is True


def test_contains_takes_two_bytes_objects() -> None:
    for args in ((b"a",), (b"a", "a"), ("a", b"a"), (b"a", b"a", b"a")):
        with pytest.raises(TypeError):
            fast.contains(*args)


_JSON_VALUES = st.recursive(
    st.none() | st.integers() | st.text(alphabet="[]{}ab", max_size=4) | st.floats(),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=3), c, max_size=4),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(value=_JSON_VALUES, past=st.sampled_from([-1, 0, 1, 2, 3, 5, 240, 2**63 - 1]))
def test_json_depth_matches_python(value: Any, past: int) -> None:
    from efc_tui.parsers._values import depth

    with _fast.pure_python():
        want = depth(value, past)
    assert fast.json_depth(value, past) == want


def test_json_depth_past_its_stack_and_of_other_types() -> None:
    """Deeper than the 64 frames it starts with (the stack grows on the heap), stopped one
    level past ``past``; a dict or list subclass is not a level, as in the Python walk."""

    class Sub(list):
        pass

    value: Any = []
    for _ in range(4999):
        value = [1, {"k": value}]  # 2 levels a turn: 9,999 in all
    assert fast.json_depth(value, 2**63 - 1) == 9_999
    assert fast.json_depth(value, 240) == 241
    assert fast.json_depth({"a": [Sub([[1]])]}, 100) == 2
    assert fast.json_depth("text", 10) == fast.json_depth(Sub(), 10) == 0
    assert fast.json_depth([], 0) == 1 and fast.json_depth([[]], -1) == 0
