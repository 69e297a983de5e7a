"""A hostile event (markup, click actions, escapes, OSC 52, NUL, \\r, U+202E, invalid
UTF-8, a 2 MB line, deep nesting) goes through the reader, `score` and `export` intact
and inert (STYLE.md, "Untrusted text")."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from efc_tui.cli import app
from efc_tui.parsers import load
from efc_tui.report.text import csv_safe, sanitize_for_terminal, sanitize_label

HOSTILE = (
    "[bold red]pwned[/] [link=https://evil.example]click[/link] [@click=app.quit]quit[/]\n"
    "\x1b[2J\x1b[H\x1b]0;title\x07\x1b]52;c;ZXZpbA==\x07\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\\n"
    "nul:\x00 bell:\x07 cr:\r overwrite \u202eevil\u202c zero\u200bwidth :smile: [/"
)


def write_hostile(tmp_path: Path) -> Path:
    nested: object = "deep"
    for _ in range(200):
        nested = {"n": nested}
    header = {
        "type": "run",
        "schema": "efc-trace/1",
        "run_id": "[red]hostile[/red]\x1b[31m",
        "harness": "=cmd|' /C calc'!A0",
    }
    steps = [
        {
            "type": "step",
            "t": 0,
            "action": {"kind": "tool", "tool": "[b]bash[/b]", "input": HOSTILE},
            "observation": {"text": HOSTILE},
            "nested": nested,
        },
        {
            "type": "step",
            "t": 1,
            "action": {"kind": "tool", "tool": "cat", "input": "cat big"},
            "observation": {"text": "x" * 2_000_000},
        },
    ]
    p = tmp_path / "hostile.jsonl"
    data = b"\n".join(json.dumps(x).encode() for x in [header, *steps]) + b"\n"
    # invalid UTF-8 inside a JSON string on a line of its own: an error naming the line
    p.write_bytes(data)
    return p


def test_reader_keeps_hostile_text_whole(tmp_path: Path) -> None:
    [run] = list(load(write_hostile(tmp_path)))
    assert run.events[0].observation_text == HOSTILE
    assert len(run.events[1].observation_text) == 2_000_000


def test_score_and_export_show_it_literally(tmp_path: Path) -> None:
    p = write_hostile(tmp_path)
    runner = CliRunner()
    r = runner.invoke(app, ["score", str(p)])
    assert r.exit_code == 0, r.output
    assert "[red]hostile[/red]" in r.stdout  # shown as typed, not as red text
    assert "\x1b" not in r.stdout
    r = runner.invoke(app, ["score", str(p), "--csv"])
    assert "'=cmd|' /C calc'!A0" in r.stdout  # formula neutralized
    out = tmp_path / "out.json"
    r = runner.invoke(app, ["export", str(p), "-o", str(out), "--with-text"])
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    assert doc["events"][0]["observation"] == HOSTILE  # the data keeps it byte for byte
    assert doc["events"][0]["extra"]["nested"]["n"]["n"]["n"]


def test_invalid_utf8_is_an_error_naming_the_line(tmp_path: Path) -> None:
    p = tmp_path / "latin1.jsonl"
    p.write_bytes(
        b'{"type": "run", "schema": "efc-trace/1"}\n{"type": "step", "observation": {"text": "caf\xe9"}}\n'
    )
    r = CliRunner().invoke(app, ["score", str(p)])
    assert r.exit_code == 2 and f"{p}:2:" in r.stderr


def test_sanitize_for_terminal() -> None:
    s = sanitize_for_terminal(HOSTILE)
    assert "\x1b" not in s and "\x00" not in s and "\r" not in s and "\x07" not in s
    assert "\u202e" not in s and "\u200b" not in s
    assert "␀" in s and "␍" in s and "<U+202E>" in s
    assert "[bold red]pwned[/]" in s  # markup is left as plain characters
    assert "ZXZpbA==" not in s  # the OSC 52 clipboard payload is dropped with its sequence
    colored = sanitize_for_terminal("\x1b[31mred\x1b[0m\x1b]0;t\x07", keep_colors=True)
    assert colored == "\x1b[31mred\x1b[0m"
    assert sanitize_label("a\nb" + "c" * 500, 10) == "a bcccccc…"
    assert csv_safe("@SUM(A1)") == "'@SUM(A1)" and csv_safe(-1.5) == -1.5
