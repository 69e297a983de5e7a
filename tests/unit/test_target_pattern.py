"""``scoring.features``' linear target pattern finds what the plain one it replaced finds
(issue 31: the plain pattern backtracked through every word of every action text, 7% of
scoring a folder of tau-bench runs), searched from where its first match can start."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from efc_tui.scoring.features import _TARGET, _target_from, target

PLAIN = re.compile(r"[\w.-]*/[\w./-]+|[\w-]+\.[A-Za-z]\w{0,4}\b")


def spans(pattern: re.Pattern[str], text: str) -> tuple[int, int, str] | None:
    m = pattern.search(text)
    return (m.start(), m.end(), m.group(0)) if m else None


@settings(max_examples=3000)
@given(st.text(alphabet='ab_Z9é٣²·-./: \n"{}', max_size=40))
def test_the_linear_pattern_matches_what_the_plain_one_matches(text: str) -> None:
    assert spans(_TARGET, text) == spans(PLAIN, text)
    # searched from where its first match can start, it finds the same match (or none)
    start = _target_from(text)
    m = _TARGET.search(text, start) if start >= 0 else None
    assert ((m.start(), m.end(), m.group(0)) if m else None) == spans(PLAIN, text)


def test_on_commands_agents_write() -> None:
    for text in (
        "cat src/app.py",
        "python -m pytest tests/test_x.py::test_y -q",
        "sed -n 1,20p ../lib/a-b.c",
        'get_order_details {"order_id": "#W4219264", "email": "yara.li@example.com"}',
        "open README.md and docs",
        "ls",
        "",
        "x" * 600 + "/y",
        "I have updated your order. Is there anything else?",
        "see https://example.com/a",
        "end/",
        "a.B",
    ):
        assert spans(_TARGET, text) == spans(PLAIN, text)
        m = PLAIN.search(text[:500])
        assert target(text) == (m.group(0) if m else (text[:500].split(None, 1) or [""])[0])
