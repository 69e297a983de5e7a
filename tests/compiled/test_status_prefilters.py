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
from efc_tui.parsers._patterns import _Guarded

GUARDED = {
    **{
        r.name: r.test.pattern  # type: ignore[attr-defined]  # set by status._text_rule
        for r in status.RULES
        if isinstance(getattr(r.test, "pattern", None), _Guarded)
    },
    "api class": status._API_CLASS,
    "api words": status._API_WORDS,
    "llm client": status._LLM_CLIENT,
    "edit command": status._EDIT_CMD,
    "echo into a file": status._EDIT_ECHO,
}

PHRASES = [
    # killed or hung
    "Killed",
    "process got SIGKILL",
    "(no new output) Process still running",
    # runner could not start
    "no tests ran in 0.01s",
    "Interrupted: 1 error during collection",
    "ERROR collecting tests/test_a.py",
    "ERROR: file or directory not found: tests/x.py",
    "collected 0 items",
    # command not found
    "bash: foo: command not found",
    "sh: 1: jq: not found",
    "is not recognized as an internal or external command",
    # executable or runner missing
    "/bin/bash: line 4: /opt/jdk/bin/javac: No such file or directory",
    "/usr/bin/env: 'python': No such file or directory",
    "Error: JAVA_HOME is not defined correctly.",
    "/usr/bin/python3: No module named pytest",
    "python: can't open file 'x.py'",
    "Error: Could not find or load main class Main",
    # permission denied
    "bash: ./run.sh: Permission denied",
    "PermissionError: [Errno 13] Permission denied: '/usr/lib'",
    "Operation not permitted",
    "Claude requested permissions to write to /x, but you haven't granted it yet.",
    # syntax error in the command
    "bash: -c: line 1: syntax error near unexpected token `('",
    "unexpected EOF while looking for matching `''",
    "SyntaxError: invalid syntax",
    "  IndentationError: unexpected indent",
    "TabError",
    "Your proposed edit has introduced new syntax error(s).",
    "E999 SyntaxError",
    # bad tool arguments
    "Invalid `view_range` parameter: [1, 9]",
    "Parameter `old_str` is required for command: str_replace.",
    "Missing required parameters",
    "1 validation error for Call",
    "Field required",
    "unrecognized arguments: --x",
    "Unknown tool: foo",
    "not a valid tool",
    "tool_use_error",
    "Error: <line> must be less than or equal to 10",
    "Error: Cancel.invoke() got an unexpected keyword argument 'x'",
    "Previous response had parsing errors",
    "Please always provide EXACTLY ONE action",
    # harness or policy refusal
    "exec preflight: refusing to run",
    "ERROR: Cannot execute multiple commands at once.",
    "Blocked: resolves to private/internal IP",
    "guardrail input_check tripped",
    "error: externally-managed-environment",
    "denied by policy",
    # api class
    "RateLimitError",
    "litellm.APIError: APIError: XaiException",
    "overloaded_error",
    "insufficient_quota",
    "openai.AuthenticationError: bad key",
    "context_length_exceeded",
    "MyAPIError: not an API class",
    "ServiceUnavailableError_x",
    "context_length_exceeded",
    # api words
    "Rate limit reached",
    "429 Too Many Requests",
    "the model is overloaded",
    "maximum context length is 8192 tokens",
    "Connection reset by peer",
    "ConnectionResetError",
    "ServiceResponseError",
    "RemoteDisconnected",
    "HTTP 503",
    # timed out
    "Command timed out before completing.",
    "TimeoutError",
    "subprocess.TimeoutExpired",
    "Deadline exceeded",
    "Timeout after 30s",
    "timeout of 30",
    # assertion failed
    "AssertionError",
    "FAILED tests/a.py",
    "E   assert 1 == 2",
    "assertion failed",
    # build or compile error
    "Main.java:5: error: cannot find symbol",
    "error[E0425]: cannot find value",
    "src/a.ts(1,1): error TS2304: Cannot find name",
    "[INFO] BUILD FAILURE",
    "make: *** [all] Error 2",
    "npm ERR! code 1",
    "[ERROR] Failed to execute goal",
    "error: could not apply 650dba4",
    # check printed FAIL / a cross / an exception / success / a tick
    "FAIL: dtype is float64",
    "accepted new password (BAD - unless disabled)",
    "✗ wrong",
    "ValueError: bad value",
    "SUCCESS: value matches",
    "All tests passed!",
    "BUILD SUCCESS",
    "Header.fromstring succeeded",
    "Caught expected exception: X",
    "    Finished dev profile",
    "Valid JSON.",
    "✓ imports",
    # file argument missing, error line
    "ls: cannot access 'x': No such file or directory",
    "/bin/bash: line 1: cd: src/: No such file or directory",
    "File foo.py not found",
    "Error: user not found",
    "An error occurred: boom",
    "Failed to import X",
    "fatal: not a git repository",
    "No replacement was performed",
    # installed
    "Successfully installed pkg-1.0",
    # edit command
    "sed -i s/a/b/ f",
    "cat > f.py <<'EOF'",
    "cat << 'EOF' > f.py",
    "tee out",
    "git apply p.diff",
    "patch -p1",
    "echo x > out.txt",
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
    folded = _Guarded(r"insufficient_quota", re.IGNORECASE, ("insufficient_quota",))
    text = "error: inſufficient_quota"
    assert folded.rx.search(text) is not None
    assert folded.search(text) is not None


def test_every_rule_that_needs_no_flag_has_keys_in_the_hints() -> None:
    """A rule's keys are the pre-filter's hints (one list, status._HINTS), and they are
    long enough and plain enough for the compiled scan."""
    for rule in status.RULES:
        for k in rule.keys:
            assert k in status._HINTS or k in status._SUMMARY_HINTS, (rule.name, k)
    # the compiled scan takes Latin-1 hints of 4 characters or more; others it finds with
    # PyUnicode_Find in texts that can hold them
    assert all(len(h) >= 4 for h in status._HINTS if max(map(ord, h)) <= 255)


def _table(obs: status._Obs) -> status.Status:
    """The rule table alone: every rule's test in order (``first_rule`` without passing
    over the text rules whose keys the compiled scan did not find)."""
    return next((r.status for r in status.RULES if r.test(obs)), status._fallthrough(obs))


@settings(max_examples=500)
@given(
    st.lists(
        st.one_of(st.sampled_from(PHRASES), st.sampled_from(ODD), st.text(max_size=6)), max_size=6
    ).map("".join),
    st.sampled_from([None, 0, 1, 127]),
    st.booleans(),
)
def test_the_prefilters_never_change_a_status(
    text: str, exit_code: int | None, check: bool
) -> None:
    """classify_observation (with its pre-filters, compiled or not) answers as the rule
    table alone does, on texts made of the rules' own phrases; with a failing exit code
    too, where the compiled path skips the rules none of whose keys is in the text."""
    from efc_tui import _fast

    got = status.classify_observation(text, exit_code=exit_code, is_check=check)[0]
    obs = status._Obs(text, exit_code, None, None, check, None)
    assert got is status.first_rule(obs) is _table(obs), text
    with _fast.pure_python():
        assert status.classify_observation(text, exit_code=exit_code, is_check=check)[0] is got


def test_a_lazy_pattern_compiles_once_when_first_used() -> None:
    import re

    from efc_tui._lazy_re import LazyPattern

    text, data = LazyPattern(r"^ab+$", re.MULTILINE), LazyPattern(rb"a\d")
    assert text._rx is None and data._rx is None  # nothing compiled by creating them
    assert text.rx.search("x\nabb") is not None and data.rx.findall(b"a1 a2 b3") == [b"a1", b"a2"]
    assert text.rx is text.rx and text.rx.flags & re.MULTILINE
