"""`efc-tui open` without Typer (efc_tui/cli/_open_argv.py) means what Typer means.

As for ``score`` (tests/cli/test_score_argv.py): ``parse`` hands a command line back to Typer
(None) or returns exactly the keyword arguments Typer passes to ``_open_run.run``, on
hand-picked and random command lines; its tables are checked against the command Typer
builds; end to end, ``--screenshot`` and the errors come out the same on either path.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from efc_tui.cli import _open_argv, _open_run
from tests.argv_agreement import PlainArgv
from tests.conftest import FIXTURES, REPO, SAMPLES

SAMPLE = str(SAMPLES / "clean_pass.jsonl")
README = str(REPO / "README.md")
OPEN = PlainArgv("open", _open_argv, _open_run, frozenset({"--help", "-h"}))


def test_the_option_tables_are_the_commands() -> None:
    OPEN.check_tables()


# fmt: off
LINES: list[list[str]] = [
    [SAMPLE], [SAMPLE, SAMPLE], [SAMPLE, "--follow"], [SAMPLE, "--lenient", "--no-lenient"],
    [SAMPLE, "-f", "native"], [SAMPLE, "--format=native"], [SAMPLE, "--select", "3"],
    [SAMPLE, "--select", "-1"], [SAMPLE, "--select=0"], [SAMPLE, "--select", "1.5"],
    [SAMPLE, "--size", "80x24"], [SAMPLE, "--size", "-80x24"], [SAMPLE, "--screenshot", "o.svg"],
    [SAMPLE, "--fit", "default"], [SAMPLE, "--estimator", "e.json"], [SAMPLE, "--compare", SAMPLE],
    [SAMPLE, "--export-dir", "."], [SAMPLE, "--labels", README], [SAMPLE, "--labels="],
    [SAMPLE, "--success-threshold", "0.5"], [SAMPLE, "--success-threshold", "x"],
    [SAMPLE, "--help"], [SAMPLE, "-h"], [], ["--follow"], [SAMPLE, "--nope"], [SAMPLE, "--"],
    [SAMPLE, "-"], [SAMPLE, "--follow=1"], [SAMPLE, "--select"],
]
# fmt: on


@pytest.mark.parametrize("argv", LINES, ids=[" ".join(a)[-60:] or "none" for a in LINES])
def test_a_command_line_means_what_it_means_to_typer(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    OPEN.check_line(argv, monkeypatch)


def test_the_common_command_lines_skip_typer() -> None:
    for argv in (
        [SAMPLE],
        [SAMPLE, "--follow"],
        [SAMPLE, SAMPLE],
        [SAMPLE, "--select", "4"],
        [SAMPLE, "--screenshot", "o.svg", "--size", "80x24"],
        [SAMPLE, "-f", "native"],
    ):
        assert _open_argv.parse(argv) is not None, argv


TOKENS = [
    SAMPLE,
    README,
    "missing.jsonl",
    "-",
    "--",
    "-h",
    "-f",
    "--help",
    *_open_argv.FLAGS,
    *_open_argv.VALUED,
    "--select=2",
    "--size=80x24",
    "--labels=",
    "native",
    "0",
    "3",
    "-1",
    "0.5",
    "+3",
    "1_0",
    "abc",
    "",
    "80x24",
    "o.svg",
]


@settings(max_examples=100)
@given(st.lists(st.sampled_from(TOKENS), max_size=6))
def test_random_command_lines_mean_what_they_mean_to_typer(argv: list[str]) -> None:
    with pytest.MonkeyPatch.context() as mp:
        OPEN.check_line(argv, mp)


@pytest.mark.parametrize(
    "argv",
    [
        [
            str(FIXTURES / "app" / "small.jsonl"),
            "--screenshot",
            "shot.svg",
            "--select",
            "3",
            "--size",
            "100x30",
            "--fit",
            str(FIXTURES / "app" / "fit.json"),
            "--estimator",
            str(FIXTURES / "app" / "estimator.json"),
        ],
        ["no-such-file.jsonl"],  # exit 2
        [README],  # no reader: exit 2
        [SAMPLE, "--size", "10x10"],  # out of range: exit 2
        [SAMPLE, "--follow", str(SAMPLES / "repair_loop.jsonl")],  # --follow tails one file: exit 2
    ],
)
def test_the_console_script_gives_what_typer_gives(argv: list[str], tmp_path: Path) -> None:
    OPEN.check_console(argv, tmp_path)  # --screenshot: the same picture
