"""Test counts from a test runner's summary (``parse_checks``, re-exported by ``status``):
pytest, unittest, cargo test, jest / vitest, Maven Surefire / Gradle."""

from __future__ import annotations

import re

from efc_tui._lazy_re import LazyPattern
from efc_tui.model import Checks
from efc_tui.parsers._patterns import _LineStart

#: only the tail of long output holds a summary: bounded work on megabyte observations
_TAIL = 8000

_PYTEST_SUMMARY = _LineStart(
    r"^=+ (?P<body>[^=\n]*?\b(?:passed|failed|error|errors|skipped|xfailed|xpassed|deselected|no tests ran)\b[^=\n]*?) in [\d.]+\s*s(?:econds)?\b.*?=*\s*$",
    re.MULTILINE,
    ("=",),
)
#: (not a _LineStart: many outputs hold lines that start with a digit, a numbered file view's,
#: and trying the pattern at each costs twice the engine's own search)
_PYTEST_SHORT = LazyPattern(
    r"^(?P<body>(?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?)(?:, )?)+) in [\d.]+\s*s\b",
    re.MULTILINE,
)
_COUNT = LazyPattern(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")
_UNITTEST_RAN = _LineStart(r"^Ran (\d+) tests? in [\d.]+s", re.MULTILINE, ("Ran ",))
_UNITTEST_RESULT = _LineStart(
    r"^(OK|FAILED)\b(?: \((?P<detail>[^)]*)\))?", re.MULTILINE, ("OK", "FAILED")
)
_UNITTEST_DETAIL = LazyPattern(
    r"(failures|errors|skipped|expected failures|unexpected successes)=(\d+)"
)
#: cargo test (one line per test binary), jest / vitest, Maven Surefire / Gradle
_CARGO = _LineStart(
    r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed", re.MULTILINE, ("test result: ",)
)
_JEST = _LineStart(r"^Tests:\s+(?P<body>[^\n]*?)\d+ total", re.MULTILINE, ("Tests:",))
_MAVEN = LazyPattern(
    r"Tests run: (\d+), Failures: (\d+), Errors: (\d+)(?:, Skipped: (\d+))?", re.MULTILINE
)
_ANSI = LazyPattern(r"\x1b\[[0-9;?]*[A-Za-z]")
#: the substrings parse_checks needs in the tail before it tries a pattern ("error" counts
#: only with "=="); the compiled pre-filter gets the same lists (_install_hints)
_SUMMARY_HINTS = ("passed", "failed", "no tests ran", "Ran ", "Tests run:")
_SUMMARY_PAIR = ("error", "==")


def parse_checks(text: str) -> Checks | None:
    """Counts of passed / failed checks from a test runner's summary, if present: pytest,
    unittest, cargo test, jest / vitest, Maven Surefire / Gradle."""
    tail = text[-_TAIL:]
    if not any(h in tail for h in _SUMMARY_HINTS) and not all(h in tail for h in _SUMMARY_PAIR):
        return None
    if "\x1b" in tail:
        tail = _ANSI.rx.sub("", tail)
    body = None
    # each pattern runs only on a tail that holds a text every match of it holds
    if "= " in tail:
        for m in _PYTEST_SUMMARY.finditer(tail):
            body = m.group("body")
    if body is None and " in " in tail:
        for m in _PYTEST_SHORT.rx.finditer(tail):
            body = m.group("body")
    if body is None and "Tests:" in tail:
        for m in _JEST.finditer(tail):
            body = m.group("body")
    if body is not None:
        passed = failed = 0
        for n, what in _COUNT.rx.findall(body):
            if what == "passed" or what == "xfailed":
                passed += int(n)
            elif what in ("failed", "error", "errors", "xpassed"):
                failed += int(n)
        return Checks(passed=passed, failed=failed, total=passed + failed)
    cargo = [m.groups() for m in _CARGO.finditer(tail)] if "test result:" in tail else []
    if cargo:
        passed, failed = sum(int(p) for p, _ in cargo), sum(int(f) for _, f in cargo)
        return Checks(passed=passed, failed=failed, total=passed + failed)
    if "Tests run:" in tail:
        last = None
        for m in _MAVEN.rx.finditer(tail):
            last = m
        if last is not None:
            run, fails, errs = int(last.group(1)), int(last.group(2)), int(last.group(3))
            skipped = int(last.group(4) or 0)
            failed = fails + errs
            passed = max(0, run - failed - skipped)
            return Checks(passed=passed, failed=failed, total=passed + failed)
    if "Ran " not in tail:
        return None
    ran = None
    for m in _UNITTEST_RAN.finditer(tail):
        ran = int(m.group(1))
    if ran is not None:
        failed = 0
        for m in _UNITTEST_RESULT.finditer(tail):
            failed = 0
            if m.group("detail"):
                for what, n in _UNITTEST_DETAIL.rx.findall(m.group("detail")):
                    if what in ("failures", "errors", "unexpected successes"):
                        failed += int(n)
        return Checks(passed=max(0, ran - failed), failed=failed, total=ran)
    return None


# ----------------------------------------------------------------------------- the rules
