"""CI reports of ``efc-tui score``: JUnit XML and GitHub Actions annotations (issue 15).

One JUnit test case per scored run; one ``<failure>`` per threshold it missed, with the
numbers; the run's figures in ``<system-out>``. GitHub annotations are workflow commands
(``::error file=...,title=...::message``), one per missed threshold, naming the run and
its file, then one ``::notice`` with the counts.

The thresholds, their checks and the exit codes are the command's; this module only
writes what it is given. Library code: nothing here prints.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from efc_tui.scoring.figures import title

#: the figures shown in a test case's output, in order (``run_row`` keys; their titles are
#: ``efc_tui.scoring.figures``'s)
FIGURES: tuple[str, ...] = (
    "nrs_efc",
    "efc",
    "c_raw",
    "eta",
    "eta_nrs",
    "d_task",
    "x",
    "x_nrs",
    "cost_usd",
    "events",
    "success",
)

#: characters XML 1.0 cannot carry at all (log text is untrusted): replaced by U+FFFD
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True, slots=True)
class RunCheck:
    """One scored run as the CI reports show it: its row of figures and what it missed."""

    run_id: str
    source_path: str | None
    row: dict[str, Any]
    #: one line per threshold missed, with the numbers ("η 0.12 < 0.3")
    misses: list[str] = field(default_factory=list)


def _xml_text(text: object) -> str:
    return _NOT_XML.sub("\ufffd", str(text))


def _figures(row: dict[str, Any]) -> str:
    parts = []
    for key in FIGURES:
        if key not in row:
            continue
        v = row[key]
        if v is None:
            shown = "n/a"
        elif isinstance(v, bool):
            shown = "yes" if v else "no"
        elif isinstance(v, float):
            shown = f"{v:.6g}"
        else:
            shown = str(v)
        parts.append(f"{title(key)} {shown}")
    return "  ".join(parts)


def junit_xml(
    checks: Iterable[RunCheck], *, suite: str = "efc-tui score", thresholds: str = ""
) -> bytes:
    """A JUnit XML report: ``<testsuites>`` holding one ``<testsuite>``, one ``<testcase>``
    per run (name: run id, classname: its file) with one ``<failure type="threshold">``
    per missed threshold. ``thresholds`` (e.g. "--min-eta 0.3") goes in a property."""
    cases = list(checks)
    failures = sum(len(c.misses) for c in cases)
    failed_cases = sum(1 for c in cases if c.misses)
    root = ET.Element(
        "testsuites",
        {
            "name": suite,
            "tests": str(len(cases)),
            "failures": str(failed_cases),
            "errors": "0",
            "skipped": "0",
        },
    )
    ts = ET.SubElement(
        root,
        "testsuite",
        {
            "name": suite,
            "tests": str(len(cases)),
            "failures": str(failed_cases),
            "errors": "0",
            "skipped": "0",
        },
    )
    props = ET.SubElement(ts, "properties")
    ET.SubElement(
        props, "property", {"name": "thresholds", "value": _xml_text(thresholds or "none")}
    )
    ET.SubElement(props, "property", {"name": "thresholds missed", "value": str(failures)})
    for c in cases:
        attrs = {"name": _xml_text(c.run_id), "classname": _xml_text(c.source_path or "efc-tui")}
        if c.source_path:
            attrs["file"] = _xml_text(c.source_path)
        tc = ET.SubElement(ts, "testcase", attrs)
        for miss in c.misses:
            f = ET.SubElement(tc, "failure", {"message": _xml_text(miss), "type": "threshold"})
            f.text = _xml_text(f"run {c.run_id} ({c.source_path or '-'}): {miss}")
        out = ET.SubElement(tc, "system-out")
        out.text = _xml_text(_figures(c.row))
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(kind: str, message: str, **props: str | None) -> str:
    """One GitHub Actions workflow command line: ``::kind key=value,...::message``, with
    the escapes the runner decodes (``%``, CR, LF everywhere; ``:`` and ``,`` in values)."""
    shown = ",".join(f"{k}={_escape_property(v)}" for k, v in props.items() if v)
    return f"::{kind}{' ' + shown if shown else ''}::{_escape_data(message)}"


def github_annotations(checks: Iterable[RunCheck]) -> list[str]:
    """``::error`` per missed threshold (file: the run's file; title: the run), then one
    ``::notice`` with how many runs met the thresholds."""
    lines: list[str] = []
    runs = failed = 0
    for c in checks:
        runs += 1
        failed += bool(c.misses)
        for miss in c.misses:
            lines.append(
                workflow_command(
                    "error",
                    f"run {c.run_id}: {miss}",
                    file=c.source_path,
                    title=f"efc-tui: {c.run_id}",
                )
            )
    summary = (
        f"{runs - failed} of {runs} runs met the thresholds"
        if failed
        else f"all {runs} runs met the thresholds"
    )
    lines.append(workflow_command("notice", summary, title="efc-tui score"))
    return lines


__all__ = ["FIGURES", "RunCheck", "github_annotations", "junit_xml", "workflow_command"]
