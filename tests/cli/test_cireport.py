"""CI reports of `score`: JUnit XML (--junit FILE) and GitHub annotations (--github)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from efc_tui.cli import app
from efc_tui.report.cireport import RunCheck, github_annotations, junit_xml, workflow_command
from tests.conftest import FIXTURES, SAMPLES

runner = CliRunner()
XSD = FIXTURES / "junit" / "junit.xsd"
#: a workflow command: ::name[ key=value(,key=value)*]::message, one line, values escaped
COMMAND = re.compile(
    r"^::(error|warning|notice)( [a-z]+=[^,:\r\n]*(,[a-z]+=[^,:\r\n]*)*)?::[^\r\n]*$"
)


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def validate(document: bytes) -> None:
    xmlschema = pytest.importorskip("xmlschema")
    xmlschema.XMLSchema(str(XSD)).validate(document.decode())


def figures() -> dict[str, dict[str, Any]]:
    r = invoke("score", SAMPLES, "--jsonl", "-q")
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    return {str(row["run_id"]): row for row in rows}


def test_junit_one_case_per_run_and_a_failure_per_missed_threshold(tmp_path: Path) -> None:
    rows = figures()
    nrs = sorted(float(r["nrs_efc"]) for r in rows.values())
    limit = (nrs[1] + nrs[2]) / 2  # two runs below, two above
    eta_limit = 0.1
    below_eta = {k for k, r in rows.items() if float(r["eta"]) < eta_limit}
    out = tmp_path / "report.xml"
    r = invoke("score", SAMPLES, "--min-nrs", limit, "--min-eta", eta_limit, "--junit", out, "-q")
    assert r.exit_code == 1  # the thresholds and the exit code are unchanged
    document = out.read_bytes()
    validate(document)
    suite = ET.fromstring(document).find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert sorted(c.get("name", "") for c in cases) == sorted(rows)
    assert int(suite.get("tests", "")) == len(rows) == 4
    failed = {
        c.get("name"): [f.get("message") for f in c.findall("failure")]
        for c in cases
        if c.find("failure") is not None
    }
    below_nrs = {k for k, row in rows.items() if float(row["nrs_efc"]) < limit}
    assert len(below_nrs) == 2 and below_eta  # the check below means something
    assert set(failed) == below_nrs | below_eta
    assert int(suite.get("failures", "")) == len(failed)
    for name, messages in failed.items():
        wanted = (name in below_nrs) + (name in below_eta)
        assert len(messages) == wanted, messages
        if name in below_nrs:  # the numbers are in the message
            shown = f"NRS-EFC {float(rows[name]['nrs_efc']):.4g} < {limit:g}"
            assert shown in messages
    case = next(c for c in cases if c.get("name") == "clean-pass")
    assert case.get("file", "").endswith("clean_pass.jsonl")
    assert f"NRS-EFC {float(rows['clean-pass']['nrs_efc']):.6g}" in (
        case.findtext("system-out") or ""
    )


def test_junit_without_thresholds_has_no_failure(tmp_path: Path) -> None:
    out = tmp_path / "r.xml"
    r = invoke("score", SAMPLES, "--junit", out, "-q")
    assert r.exit_code == 0
    root = ET.fromstring(out.read_bytes())
    assert root.get("tests") == "4" and root.get("failures") == "0"
    assert root.find("testsuite/testcase/failure") is None


def test_junit_never_overwrites_an_input(tmp_path: Path) -> None:
    trace = tmp_path / "run.jsonl"
    trace.write_bytes((SAMPLES / "clean_pass.jsonl").read_bytes())
    before = trace.read_bytes()
    r = invoke("score", trace, "--junit", trace, "-q")
    assert r.exit_code == 2 and "refusing to overwrite an input file" in r.output
    assert trace.read_bytes() == before


def test_hostile_names_still_give_well_formed_xml() -> None:
    check = RunCheck("run\x00<&>\x1b[31m\ud800", "a\x07.jsonl", {"nrs_efc": 1.0}, ["eta 0.1 < 0.3"])
    document = junit_xml([check], thresholds="--min-eta 0.3")
    validate(document)
    case = ET.fromstring(document).find("testsuite/testcase")
    assert case is not None and case.get("name") == "run\ufffd<&>\ufffd[31m\ufffd"


def test_github_annotations_follow_the_workflow_command_format() -> None:
    rows = figures()
    nrs = sorted(float(r["nrs_efc"]) for r in rows.values())
    lowest = min(rows, key=lambda k: float(rows[k]["nrs_efc"]))
    r = invoke("score", SAMPLES, "--min-nrs", (nrs[0] + nrs[1]) / 2, "--github", "-q")
    assert r.exit_code == 1
    lines = [line for line in r.stdout.splitlines() if line.startswith("::")]
    assert lines and all(COMMAND.match(line) for line in lines), lines
    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == 1  # the lowest run is the one under the limit
    assert (
        errors[0].startswith("::error file=")
        and str(rows[lowest]["source_path"]).split("/")[-1] in errors[0]
    )
    assert f"title=efc-tui%3A {lowest}::run {lowest}: NRS-EFC " in errors[0]
    assert lines[-1] == "::notice title=efc-tui score::3 of 4 runs met the thresholds"


def test_github_escapes_what_the_runner_decodes() -> None:
    line = workflow_command("error", "50% done\nnext", file="a,b:c.jsonl", title="x%y\r")
    assert line == "::error file=a%2Cb%3Ac.jsonl,title=x%25y%0D::50%25 done%0Anext"
    assert COMMAND.match(line)
    hostile = RunCheck("id::x,y\n::error::fake", "f.jsonl", {}, ["eta 0.1 < 0.3"])
    out = github_annotations([hostile])
    assert all(COMMAND.match(x) for x in out) and len(out) == 2  # no injected command


def test_github_is_not_mixed_into_machine_output() -> None:
    r = invoke("score", SAMPLES, "--json", "--github")
    assert r.exit_code == 2 and "--github" in r.output
