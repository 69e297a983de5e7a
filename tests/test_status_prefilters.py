"""The status classifier's substring pre-filters (``status._Guarded``) never change an
answer: each guarded pattern finds exactly what its regular expression finds, on texts
built from the phrases the patterns look for, in any letter case, next to the non-ASCII
letters that Unicode case folding matches with ASCII ones."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from efc_tui.parsers import status

GUARDED = {
    name: getattr(status, name)
    for name in ("_API", "_TIMEOUT", "_STATIC", "_ASSERTION", "_CHECK_CMD", "_EDIT_CMD")
}

PHRASES = [
    # _STATIC
    "bash: foo: command not found",
    "sh: 1: foo: not found",
    "is not recognized as an internal or external command",
    "No such file or directory: 'run.py'",
    "can't open file",
    "SyntaxError: bad",
    "  IndentationError",
    "TabError",
    "invalid syntax",
    "Unknown tool",
    "Unknown command",
    "Invalid JSON",
    "Invalid arguments",
    "unrecognized arguments",
    "tool_use_error",
    "not a valid tool",
    "response had parsing errors",
    "Missing required parameters",
    "introduced new syntax error",
    "E999 SyntaxError",
    # _API
    "rate limit",
    "rate_limit",
    "RateLimitError",
    "APIConnectionError",
    "APIStatusError",
    "API Error",
    "overloaded_error",
    "Overloaded",
    "insufficient_quota",
    "context_length_exceeded",
    "HTTP 429",
    "HTTP Error 503",
    "429 Too Many Requests",
    # _TIMEOUT
    "timed out",
    "TimeoutError",
    "TimeoutExpired",
    "deadline exceeded",
    "Timeout after",
    "timeout of 30",
    # _ASSERTION
    "AssertionError",
    "FAILED tests/a.py",
    "E   assert 1 == 2",
    "assertion failed",
    "assert failed",
    # _CHECK_CMD
    "pytest -q",
    "py.test",
    "tox -e py",
    "mypy .",
    "black --check .",
    "cargo clippy",
    "go vet ./...",
    "npm run test",
    "make check",
    "mvn verify",
    "gradle test",
    "shellcheck x.sh",
    "validate",
    # _EDIT_CMD
    "sed -i s/a/b/ f",
    "cat > f.py <<'EOF'",
    "tee out",
    "git apply p.diff",
    "patch -p1",
    "> out.txt",
    "<< EOF",
    "apply_patch",
]
# letters that match ASCII ones only under Unicode case folding, and other separators
ODD = ["ſ", "\u212a", "ı", "İ", "é", "\n", " ", "\t", "/", "(", ";", "|", "1"]
SWAP = {"s": "ſ", "k": "\u212a", "K": "\u212a", "i": "ı", "I": "İ"}


@st.composite
def phrase(draw: st.DrawFn) -> str:
    p = draw(st.sampled_from(PHRASES))
    how = draw(st.sampled_from(["as is", "upper", "lower", "mixed", "odd letter"]))
    if how == "upper":
        return p.upper()
    if how == "lower":
        return p.lower()
    if how == "mixed":
        flips = draw(st.lists(st.booleans(), min_size=len(p), max_size=len(p)))
        return "".join(c.swapcase() if f else c for c, f in zip(p, flips, strict=True))
    if how == "odd letter":
        at = [i for i, c in enumerate(p) if c in SWAP]
        if at:
            i = draw(st.sampled_from(at))
            return p[:i] + SWAP[p[i]] + p[i + 1 :]
    return p


texts = st.lists(st.one_of(phrase(), st.sampled_from(ODD), st.text(max_size=6)), max_size=8).map(
    "".join
)


def _found(m: re.Match[str] | None) -> tuple[int, int] | None:
    return m.span() if m else None


@settings(max_examples=600)
@given(texts)
def test_guarded_patterns_find_what_their_regex_finds(text: str) -> None:
    for name, g in GUARDED.items():
        assert _found(g.search(text)) == _found(g.rx.search(text)), name


@pytest.mark.parametrize("name", sorted(GUARDED))
def test_every_phrase_still_matches_behind_the_filter(name: str) -> None:
    """The filters pass what the patterns are for (a filter that dropped a match would
    fail the property test only when Hypothesis found that phrase)."""
    g = GUARDED[name]
    hits = [p for p in PHRASES if g.rx.search(p)]
    assert hits, name
    for p in hits:
        for variant in (p, p.upper(), p.lower()):
            assert _found(g.search(variant)) == _found(g.rx.search(variant)), (name, variant)


def test_a_non_ascii_text_runs_the_pattern() -> None:
    # "ſ" folds to "s" under IGNORECASE: "inſufficient_quota" is a match the ASCII keys miss
    text = "error: inſufficient_quota"
    assert status._API.rx.search(text) is not None
    assert status._API.search(text) is not None


def test_a_lazy_pattern_compiles_once_when_first_used() -> None:
    import re

    from efc_tui._lazy_re import LazyPattern

    text, data = LazyPattern(r"^ab+$", re.MULTILINE), LazyPattern(rb"a\d")
    assert text._rx is None and data._rx is None  # nothing compiled by creating them
    assert text.rx.search("x\nabb") is not None and data.rx.findall(b"a1 a2 b3") == [b"a1", b"a2"]
    assert text.rx is text.rx and text.rx.flags & re.MULTILINE
