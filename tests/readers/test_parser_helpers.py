"""The shared reader helpers (parsers/_values, _time, _content, _drafts, _builder): one
meaning per name. Each case pins a point where the two former helper libraries (``_chat``
and ``_messages``) disagreed, with values computed by hand."""

from __future__ import annotations

import json
import re
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from efc_tui.model import EventKind as K
from efc_tui.model import Run
from efc_tui.model import Status as S
from efc_tui.parsers._builder import RunBuilder
from efc_tui.parsers._content import content_text, reasoning_of, text_of
from efc_tui.parsers._drafts import Draft, finalize
from efc_tui.parsers._msg import ToolCall, Usage
from efc_tui.parsers._time import parse_time
from efc_tui.parsers._values import (
    MAX_DEPTH,
    as_count,
    as_float,
    as_int,
    as_str,
    depth,
    id_str,
    opt_count,
    opt_str,
    parse_json_text,
    too_deep,
)

# --------------------------------------------------------------------------- values


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("-5", -5),  # _messages said None: exit codes are negative (killed by a signal: -9)
        (-9, -9),
        ("1200", 1200),
        (" 7 ", 7),
        ("3.0", 3),
        (3.0, 3),
        (12.5, None),  # _messages truncated to 12: a non-integer is not an integer field
        ("12.5", None),
        ("1e3", None),
        ("", None),
        ("x", None),
        (True, None),
        (None, None),
        (float("nan"), None),
        (float("inf"), None),
    ],
)
def test_as_int(value: object, expected: int | None) -> None:
    assert as_int(value) == expected


def test_counts_are_never_negative() -> None:
    assert opt_count("-5") is None and opt_count(-1) is None and opt_count("40") == 40
    assert as_count("-5") == 0 and as_count(None) == 0 and as_count(17) == 17


def test_strings_have_one_meaning_each() -> None:
    # as_str: the string or "" (never None); _messages' as_str turned 5 into "5"
    assert (as_str("a"), as_str(5), as_str(None), as_str("")) == ("a", "", "", "")
    assert (opt_str("a"), opt_str(""), opt_str(5)) == ("a", None, None)
    # identifiers some formats write as numbers (tau-bench task ids, Inspect sample ids)
    assert (id_str(42), id_str("t-1"), id_str(""), id_str(True), id_str(1.5)) == (
        "42",
        "t-1",
        None,
        None,
        None,
    )


def test_as_float_reads_numeric_strings() -> None:
    assert as_float("0.25") == 0.25 and as_float(2) == 2.0
    assert as_float("nan") is None and as_float(True) is None and as_float("x") is None


def test_parse_json_text() -> None:
    assert parse_json_text('{"command": "ls"}') == {"command": "ls"}
    assert parse_json_text('"ls"') == "ls"  # a JSON string argument (was kept quoted by _chat)
    assert parse_json_text("ls -la") == "ls -la" and parse_json_text("{bad") == "{bad"
    assert parse_json_text({"a": 1}) == {"a": 1}


# --------------------------------------------------------------------------- time

T = 1756860439.293123  # 2025-09-03T00:47:19.293123Z


_DEEP_JSON = st.recursive(
    st.none() | st.integers(-(2**63), 2**63 - 1) | st.text(alphabet='[]{}"\\ab\n/', max_size=8),
    lambda c: (
        st.lists(c, max_size=3)
        | st.dictionaries(st.text(alphabet='[{"\\k]}', max_size=4), c, max_size=3)
    ),
    max_leaves=30,
)


_TEXT_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def _text_depth(text: bytes) -> int:
    """The deepest nesting of brackets outside strings in a JSON text: the depth read from
    the bytes, independently of the parsed value."""
    level = deepest = 0
    for m in _TEXT_TOKEN.finditer(text):
        c = m.group()
        if c in (b"[", b"{"):
            level += 1
            deepest = max(deepest, level)
        elif c in (b"]", b"}"):
            level -= 1
    return deepest


@settings(max_examples=300, deadline=None)
@given(value=_DEEP_JSON)
def test_the_depth_of_a_value_is_the_depth_of_its_json_text(value: Any) -> None:
    """depth walks the parsed value level by level as the text nests its brackets
    (brackets and quotes inside strings, escaped quotes and backslashes, any spacing)."""
    for text in (
        orjson.dumps(value),
        orjson.dumps(value, option=orjson.OPT_INDENT_2),
        json.dumps(value, ensure_ascii=True).encode(),
    ):
        assert depth(orjson.loads(text)) == _text_depth(text), text
        assert depth(orjson.loads(text), 1) == min(_text_depth(text), 2), text


def test_too_deep_at_the_limit() -> None:
    for levels in (MAX_DEPTH, MAX_DEPTH + 1):
        text = b'{"a": "[[[\\\\\\"", "b": ' + b"[" * (levels - 1) + b"]" * (levels - 1) + b"}"
        value = orjson.loads(text)
        assert depth(value) == _text_depth(text) == levels
        assert depth(value, MAX_DEPTH) == min(levels, MAX_DEPTH + 1)
        assert too_deep(text, value) is (levels > MAX_DEPTH)
        assert too_deep(text.decode(), value) is (levels > MAX_DEPTH)


@pytest.mark.parametrize(
    "value",
    [
        T,  # seconds
        1756860439293.123,  # milliseconds
        1756860439293123,  # microseconds: _chat read this 1000x too large (as ms)
        1756860439293123000,  # nanoseconds
        "1756860439293123000",  # OTLP startTimeUnixNano, a decimal string
        "2025-09-03T00:47:19.293123Z",
        "2025-09-03T00:47:19.293123z",
        "2025-09-03T02:47:19.293123+02:00",
        "2025-09-03T00:47:19.293123",  # naive: UTC
        "2025-09-03T00:47:19.293123456Z",  # nanosecond fraction (Go)
        [1756860439, 293123000],  # JS [seconds, nanos]
    ],
)
def test_parse_time_units(value: object) -> None:
    assert parse_time(value) == pytest.approx(T, abs=1e-6)


def test_parse_time_rejects() -> None:
    for bad in ("", "later", None, True, -5, 0, float("nan"), {"a": 1}, [1, 2, 3], "9" * 70):
        assert parse_time(bad) is None


# --------------------------------------------------------------------------- content


def test_refusal_is_kept_from_its_refusal_field() -> None:
    # OpenAI writes {"type": "refusal", "refusal": ...}: _chat read its "text" and dropped it
    assert (
        text_of([{"type": "refusal", "refusal": "I can't help with that."}])
        == "I can't help with that."
    )
    assert text_of({"type": "refusal", "text": "no"}) == "no"


def test_reasoning_is_not_message_text() -> None:
    blocks = [
        {"type": "thinking", "thinking": "hmm"},
        {"type": "text", "text": "done"},
        {"type": "redacted_thinking", "data": "xx"},
    ]
    # _chat put thinking into the text; reasoning has its own place (extra["reasoning"])
    assert text_of(blocks) == "done"
    assert reasoning_of(blocks) == "hmm\n[redacted thinking]"


def test_content_text_shapes() -> None:
    text, images = content_text(
        [
            "plain",
            {"type": "text", "text": {"value": "assistants"}},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJDRA=="}},
            {"inlineData": {"mimeType": "audio/wav", "data": "QUJD"}},
            {"type": "document", "source": {"data": "QUJDRA=="}},
            {"type": "tool_use", "name": "bash", "input": {}},
            {"type": "custom", "text": "kept"},
        ]
    )
    # 8 base64 chars with 2 '=' -> 8*3/4 - 2 = 4 bytes; "QUJD" -> 3 bytes
    assert text == (
        "plain\nassistants\n[image: image/png, 4 bytes]\n[audio: 3 bytes]\n"
        "[document: 4 bytes]\nkept"
    )
    assert images == 1


# --------------------------------------------------------------------------- finalize


def test_finalize_flags_inferred_kind_and_classified_status() -> None:
    fin = finalize(
        [
            Draft(
                tool="bash",
                action="pytest -q",
                is_call=True,
                has_result=True,
                observation="FAILED t.py::a - assert 1 == 2\n=== 1 failed, 2 passed in 0.1s ===",
                exit_code=1,
                t_start=10,
                t_end=12,
                model_call=True,
                tokens_in=100,
                tokens_out=5,
            )
        ]
    )
    [e] = fin.events
    assert (e.kind, e.status) == (K.CHECK, S.ASSERTION_ERROR)
    assert e.flags == ("kind", "status")


def test_finalize_siblings_share_one_estimate() -> None:
    # one model response without usage, two parallel calls; the run has usage elsewhere
    first = Draft(
        tool="bash",
        action="ls",
        is_call=True,
        has_result=True,
        observation="a" * 40,
        model_call=True,
        gen_text="think" + "\n" + "ls" + "\n" + "cat f",
    )
    sib = Draft(
        tool="bash",
        action="cat f",
        is_call=True,
        has_result=True,
        observation="b" * 20,
        sibling=True,
    )
    other = Draft(
        tool="bash",
        action="x",
        is_call=True,
        has_result=True,
        observation="c",
        model_call=True,
        tokens_in=500,
        tokens_out=9,
    )
    sib2 = Draft(
        tool="bash", action="y", is_call=True, has_result=True, observation="d" * 80, sibling=True
    )
    fin = finalize([first, sib, other, sib2])
    # the estimated response's output, len("think\nls\ncat f") = 14 -> 3, shared evenly
    # (2 + 1); each call's input its own observation: 40 // 4 = 10, 20 // 4 = 5
    # the response with usage (500 / 9): shared evenly, not flagged
    assert [(e.tokens_in, e.tokens_out) for e in fin.events] == [
        (10, 2),
        (5, 1),
        (250, 5),
        (250, 4),
    ]
    assert ["tokens" in e.flags for e in fin.events] == [True, True, False, False]
    assert (fin.tokens_in, fin.tokens_out) == (515, 12)
    assert fin.flags == [
        "tokens: 1 model call(s) have no usage in the log; estimated at 4 chars/token",
        "wall time: the log records no timestamps or durations; counted as 0 s",
    ]


def test_finalize_wall_time() -> None:
    drafts = [
        # the first event counts from its own start (its model call began at t=100)
        Draft(
            tool="bash",
            action="ls",
            is_call=True,
            has_result=True,
            t_model=100,
            t_start=103,
            t_end=104,
            model_call=True,
            tokens_in=1,
            tokens_out=1,
        ),
        # a human answered at t=200: the wait is not the agent's
        Draft(observation="go on", t_start=200, idle=True),
        Draft(
            tool="bash",
            action="make",
            is_call=True,
            has_result=True,
            t_start=202,
            t_end=210,
            model_call=True,
            tokens_in=1,
            tokens_out=1,
        ),
        # a parallel call that ended earlier adds nothing (running maximum)
        Draft(
            tool="bash",
            action="pwd",
            is_call=True,
            has_result=True,
            t_start=202,
            t_end=205,
            sibling=True,
        ),
        # a call with no time: 0 s and flagged; a message with no time is not flagged
        Draft(
            tool="bash",
            action="x",
            is_call=True,
            has_result=True,
            model_call=True,
            tokens_in=1,
            tokens_out=1,
        ),
        Draft(observation="note"),
    ]
    fin = finalize(drafts)
    assert [e.wall_s for e in fin.events] == [4.0, 0.0, 10.0, 0.0, 0.0, 0.0]
    assert ["wall_s" in e.flags for e in fin.events] == [False, False, False, False, True, False]
    assert fin.flags == ["wall time: 1 tool or model call(s) have no timestamp; counted as 0 s"]
    assert [e.timestamp for e in fin.events][:3] == [103, 200, 202]


def test_finalize_no_result_spares_a_final_submission_and_sums_cost() -> None:
    d1 = Draft(
        tool="bash",
        action="ls",
        is_call=True,
        model_call=True,
        tokens_in=3,
        tokens_out=1,
        cost_usd=0.25,
    )
    d2 = Draft(
        tool="submit",
        action="done",
        is_call=True,
        kind=K.GENERATION,
        model_call=True,
        tokens_in=3,
        tokens_out=1,
        cost_usd=0.5,
    )
    fin = finalize([d1, d2])
    assert [e.extra.get("no_result") for e in fin.events] == [True, None]
    assert fin.cost_usd == 0.75 and fin.events[1].extra["cost_usd"] == 0.5
    assert fin.flags[0].startswith("1 tool call(s) have no result")


def test_builder_pairs_results_and_uses_the_command_hint() -> None:
    b = RunBuilder(Run(run_id="r", source_format="x"))
    b.message("find the bug", role="user", ts=1.0)
    b.assistant(
        "look first",
        [
            ToolCall("c1", "bash", {"command": "grep -n bug a.py"}),
            ToolCall("c2", "bash", {"command": "cat a.py"}),
        ],
        usage=Usage(120, 30, cache_read=100, cost=0.01),
        t_start=2.0,
        t_end=3.0,
    )
    b.result("c2", "x = 1", exit_code=0, ts=4.0)
    b.result("c1", "", exit_code=1, ts=5.0)
    b.result(None, "stray output", ts=6.0)
    run = b.finish()
    _user, grep, cat, stray = run.events
    # grep exiting 1 found nothing: no verdict, not a failure (the shared classifier's
    # command rule, which the message-list readers did not apply before)
    assert grep.status is S.NONE and grep.extra["exit_code"] == 1 and "status" in grep.flags
    # the response's usage shared evenly by its two calls
    assert (grep.tokens_in, grep.tokens_out, grep.extra["cache_read_tokens"]) == (60, 15, 50)
    assert (cat.tokens_in, cat.tokens_out, cat.extra["cache_read_tokens"]) == (60, 15, 50)
    assert grep.extra["cost_usd"] == cat.extra["cost_usd"] == 0.005
    assert grep.extra["thought"] == "look first"
    assert stray.extra["orphan_result"] is True and (stray.tokens_in, stray.tokens_out) == (0, 0)
    # wall: from the latest end before each event's end: grep 1.0 -> 5.0; cat ended at 4.0,
    # inside grep's span (0); the stray result 5.0 -> 6.0
    assert [e.wall_s for e in run.events] == [0.0, 4.0, 0.0, 1.0]
    assert run.cost_usd == 0.01


@pytest.mark.parametrize(
    ("command", "words"),
    [
        (
            "cd /repo && python -m pytest \"tests/a;b.py\" -k 'x || y'",
            [["cd", "/repo"], ["python", "-m", "pytest", "tests/a;b.py", "-k", "x || y"]],
        ),
        ('echo "a \\" ; b" ; ls', [["echo", 'a \\" ; b'], ["ls"]]),
        ("grep foo\\;bar file | head -5", [["grep", "foo\\;bar", "file"], ["head", "-5"]]),
        ("sleep 1 & echo done", [["sleep", "1", "&", "echo", "done"]]),
        ("echo 'unterminated ; x", [["echo", "'unterminated", ";", "x"]]),
        ('echo "it\'s" (cd sub; make test)', [["echo", "it's"], ["cd", "sub"], ["make", "test"]]),
    ],
)
def test_simple_commands_cut_only_outside_quotes(command: str, words: list[list[str]]) -> None:
    from efc_tui.parsers._commands import simple_commands

    assert simple_commands(command) == words
    assert simple_commands(command) == words  # the second reading comes from the cache


@given(st.text(alphabet="ab &|;\n()", max_size=40))
@settings(max_examples=300, deadline=None)
def test_segments_without_quotes_are_the_separators_split(text: str) -> None:
    from efc_tui.parsers._commands import _segments

    assert _segments(text) == re.split(r"&&|\|\||[;|\n()]", text)


# --------------------------------------------------------------------------- patterns

_PIECES = ["sed", "-i", "cat", ">", "<<", "EOF", "tee", "apply_patch", "git apply", "patch"]
_PIECES += ["-p1", "-n", "x", "a.py", "sedx", "xsed", "_cat", "catx", "\n", " ", "\t", "é"]


@settings(max_examples=400)
@given(st.lists(st.sampled_from(_PIECES), max_size=120), st.sampled_from(["", " ", "\n"]))
def test_start_guarded_finds_what_its_regex_finds(pieces: list[str], sep: str) -> None:
    """``_StartGuarded`` (the edit-command pattern) tries its regex only where a word
    starts, on long texts, and as a plain guard on short ones: the same match either way,
    ``\\b`` seeing the character before each place."""
    from efc_tui.parsers._commands import _EDIT_CMD

    text = sep.join(pieces)
    for t in (text, "x" * 200 + text, text + " y" * 100):
        m, want = _EDIT_CMD.search(t), _EDIT_CMD.rx.search(t)
        assert (m and m.span()) == (want and want.span()), t


_SUMMARY_PIECES = [
    "=",
    "==",
    " ",
    "\n",
    "\r\n",
    "1",
    "12",
    "passed",
    "failed",
    "error",
    "in",
    "0.5",
]
_SUMMARY_PIECES += ["s", "seconds", "Ran ", "tests", "test", "OK", "FAILED", "(failures=2)", "x"]
_SUMMARY_PIECES += ["test result: ", "ok", ". ", "; ", "Tests:", "total", ",", "é", "٣"]


@settings(max_examples=400)
@given(st.lists(st.sampled_from(_SUMMARY_PIECES), max_size=80))
def test_line_start_finds_what_its_regex_finds(pieces: list[str]) -> None:
    """``_LineStart`` (the test-summary patterns) tries its regex only at the lines that
    start with a lead: the same matches, in order, as the pattern's own ``finditer``,
    matches that run on past their line (``\\s`` holds newlines) included."""
    from efc_tui.parsers import _summaries as m

    text = "".join(pieces)
    for pattern in (m._PYTEST_SUMMARY, m._UNITTEST_RAN, m._UNITTEST_RESULT, m._CARGO, m._JEST):
        got = [(x.span(), x.groups()) for x in pattern.finditer(text)]
        assert got == [(x.span(), x.groups()) for x in pattern.rx.finditer(text)], text


# --------------------------------------------------------------------------- sniffing

_HEAD_PIECES = [b"{", b"}", b"[", b"]", b"\n", b" ", b"\t", b"\r", b"\x0c", b'"a"', b":", b","]
_HEAD_PIECES += [b"1", b"null", b"\xef\xbb\xbf", b"{}", b'{"type": "run"}', b"[1, 2]"]


@settings(max_examples=500)
@given(st.lists(st.sampled_from(_HEAD_PIECES), max_size=16))
def test_first_line_object_is_the_first_non_blank_line_parsed(pieces: list[bytes]) -> None:
    """``Sniff.first_line_object`` walks the head line by line and skips the parse of a
    line that cannot be an object or array (one that opens and does not close): the
    same value as parsing the first non-blank line of the split head."""
    from pathlib import Path

    from efc_tui.parsers.base import Sniff

    head = b"".join(pieces)
    want = None
    for line in head.split(b"\n"):
        if line.strip():
            try:
                want = orjson.loads(line)
            except orjson.JSONDecodeError:
                want = None
            break
    assert Sniff(Path("x.jsonl"), head).first_line_object == want


_LEAD_PIECES = [b" ", b"\t", b"\n", b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1f", b"\xef\xbb\xbf"]
_LEAD_PIECES += [b"\xc2\xa0", b"\xc2\x85", b"\xe2\x80\xa8", b"\xe3\x80\x80", b"\x85", b"\xff"]
_LEAD_PIECES += [b"{", b"[", b"a", b"\xe2\x86\x92", b"\xc3"]


@settings(max_examples=500)
@given(st.lists(st.sampled_from(_LEAD_PIECES), max_size=12))
def test_first_char_is_the_texts_first_non_blank_character(pieces: list[bytes]) -> None:
    """``Sniff.first_char`` reads an ASCII first character off the head's bytes: the same
    as the decoded text's (leading BOMs stripped, then any Unicode white space)."""
    from pathlib import Path

    from efc_tui.parsers.base import Sniff

    head = b"".join(pieces)
    want = head.decode("utf-8", errors="replace").lstrip("\ufeff").lstrip()[:1]
    assert Sniff(Path("x.json"), head).first_char == want


_HAS_PIECES = [
    b'"',
    b"info",
    b'"info"',
    b"in",
    b"fo",
    b" ",
    b"\xc2",
    b"\xa0",
    b"\xef\xbb\xbf",
    b"\xff",
]


@settings(max_examples=500)
@given(
    st.lists(st.sampled_from(_HAS_PIECES), max_size=12),
    st.lists(st.sampled_from(_HAS_PIECES[:6]), min_size=1, max_size=3),
)
def test_sniff_has_is_a_substring_test_of_head_and_text(
    pieces: list[bytes], key: list[bytes]
) -> None:
    """``Sniff.has`` (memmem when compiled) answers ``needle in head`` on both paths, and for
    an ASCII needle that is ``needle in text``: the decoding's replacement characters and
    stripped BOMs never make or break a match."""
    from pathlib import Path

    from efc_tui import _fast
    from efc_tui.parsers.base import Sniff

    head, needle = b"".join(pieces), b"".join(key)
    s = Sniff(Path("x.json"), head)
    want = needle in head
    assert want == (needle.decode() in s.text)
    assert s.has(needle) == want
    with _fast.pure_python():
        assert s.has(needle) == want


_EXC_LINE_PIECES = ["E", "  E  ", "", " ", "\t", "KeyError: 'k'", "E   AssertionError: 1 != 2"]
_EXC_LINE_PIECES += ["SystemExit", "KeyboardInterrupt:", "UserWarning: x", "x.FooException"]
_EXC_LINE_PIECES += ["Exit code 1", "TestFailure ok", "ErrorLog", "élan Error", "E\tTypeError"]
_EXC_LINE_PIECES += ["\x85", "\u2028", '  File "x.py", line 3', "Error", "E\n"]


@settings(max_examples=500)
@given(
    st.lists(st.one_of(st.sampled_from(_EXC_LINE_PIECES), st.text(max_size=12)), max_size=14),
    st.sampled_from(["\n", "\r\n", "\n\n", " "]),
)
def test_the_last_exception_line_is_the_last_a_full_scan_finds(pieces: list[str], sep: str) -> None:
    """``last_line_match`` (the status rules' exception name, from the end of the tail) finds
    the last match a scan of every position finds."""
    from efc_tui._lazy_re import last_line_match
    from efc_tui.parsers import status

    text = sep.join(pieces)
    want = None
    for m in status._EXC_LINE.rx.finditer(text):
        want = m
    got = last_line_match(status._EXC_LINE.rx, text, status._EXC_WORDS)
    assert (got and (got.span(), got.group("name"))) == (want and (want.span(), want.group("name")))


_SHELL_PIECES = ["ls", "-la", " ", "  ", "\t", "\n", '"', "'", "\\", 'a"b"', "\u00a0", "\u2028"]
_SHELL_PIECES += ['\\"', "''", '""', "x=1", "/tmp/a b", "é", "\x1c"]


@settings(max_examples=500)
@given(st.lists(st.sampled_from(_SHELL_PIECES), max_size=14))
def test_shell_words_are_the_word_patterns_matches(pieces: list[str]) -> None:
    """``_commands._words`` (``str.split`` when the segment has no quote) gives each match of
    ``_WORD`` as the group that took part, Unicode white space included."""
    from efc_tui.parsers._commands import _WORD, _words

    segment = "".join(pieces)
    want = [
        m.group(1)
        if m.group(1) is not None
        else m.group(2)
        if m.group(2) is not None
        else m.group(3)
        for m in _WORD.finditer(segment)
    ]
    assert _words(segment) == want
