"""`efc-tui score` without Typer (efc_tui/cli/_score_argv.py) means what Typer means.

``parse`` either hands a command line back to Typer (None) or returns exactly the keyword
arguments Typer passes to ``_score_run.run`` for it: the same names, values and types,
checked on hand-picked command lines and on random ones built from the options' spellings.
Its option table is checked against the command Typer builds, so an option added to
``score.py`` cannot be read differently here. End to end, the console script gives the same
output, messages and exit status on either path.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from efc_tui.cli import _score_argv, _score_run
from tests.argv_agreement import PlainArgv
from tests.conftest import REPO, SAMPLES

SAMPLE = str(SAMPLES / "clean_pass.jsonl")
#: the options only Typer reads (Dask starts a cluster; help is Typer's)
SCORE = PlainArgv(
    "score",
    _score_argv,
    _score_run,
    frozenset({"--dask", "--scheduler", "--dask-workers", "--help", "-h"}),
)


def test_the_option_table_is_the_commands() -> None:
    SCORE.check_tables()


ROOT_README = str(REPO / "README.md")

# fmt: off
LINES: list[list[str]] = [
    [SAMPLE], [SAMPLE, "--jsonl", "-q"], ["-q", SAMPLE, "--jsonl", SAMPLE], [SAMPLE, "--json"],
    [SAMPLE, "--csv", "--lenient"], [SAMPLE, "--lenient", "--no-lenient"], [SAMPLE, "--quiet"],
    [SAMPLE, "--format", "native"], [SAMPLE, "-f", "native"], [SAMPLE, "--format=native"],
    [SAMPLE, "--format="], [SAMPLE, "--min-eta", "0.5", "--min-x=2", "--min-nrs", "1e-3"],
    [SAMPLE, "--min-eta", "0.5", "--min-eta", "0.7"], [SAMPLE, "--success-threshold", "0.9"],
    [SAMPLE, "--window", "3", "--epsilon", "0", "--repeat", "0", "--max-waste", "0.25"],
    [SAMPLE, "--window", "0"], [SAMPLE, "--epsilon", "-1"], [SAMPLE, "--repeat", "2.5"],
    [SAMPLE, "--window", "1_0"], [SAMPLE, "--min-eta", "inf"], [SAMPLE, "--min-eta", "nan"],
    [SAMPLE, "--min-eta", " 1"], [SAMPLE, "--min-eta", "abc"], [SAMPLE, "--min-eta"],
    [SAMPLE, "--labels", ROOT_README], [SAMPLE, "--labels", "no/such/labels.csv"],
    [SAMPLE, "--fit", "default"], [SAMPLE, "--junit", "out.xml", "--parquet=o.parquet"],
    [SAMPLE, "--labels", ""], [SAMPLE, "--labels="], [SAMPLE, "--estimator", "est.json"],
    [SAMPLE, "--adapter", "--adapter-sweep", "--github"], [SAMPLE, "--json=1"],
    [SAMPLE, "--", "--jsonl"], [SAMPLE, "-"], [SAMPLE, "-qf", "native"], [SAMPLE, "-fnative"],
    [SAMPLE, "--jsonl", "--help"], [SAMPLE, "-h"], [SAMPLE, "--dask"], ["s3://bucket/x.jsonl"],
    [SAMPLE, "--scheduler", "tcp://x:1"], [SAMPLE, "--dask-workers", "2"], [], ["--jsonl"],
    [SAMPLE, "--nope"], [SAMPLE, "--jso"], [SAMPLE, "--format", "-q"], [SAMPLE, "--version"],
    [SAMPLE, "--min-eta", "-1"], [SAMPLE, "--min-eta=-1"], ["-1"], [SAMPLE, "--no-quiet"],
    [SAMPLE, "--jobs", "2"], [SAMPLE, "--jobs=1"], [SAMPLE, "--jobs", "0"], [SAMPLE, "--jobs"],
    [SAMPLE, "--jobs", "1.5"], [SAMPLE, "--jobs", "2", "--dask"],
    [SAMPLE, "--max-tokens", "5000", "--max-usd", "1"], [SAMPLE, "--max-tokens=-1"],
    [SAMPLE, "--max-tokens", "2.5"],
]
# fmt: on


@pytest.mark.parametrize("argv", LINES, ids=[" ".join(a)[-60:] or "none" for a in LINES])
def test_a_command_line_means_what_it_means_to_typer(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    SCORE.check_line(argv, monkeypatch)


def test_the_common_command_lines_skip_typer() -> None:
    """What CI jobs and bench/score_bench.py type is read here (the shortcut is used)."""
    for argv in (
        [SAMPLE],
        [SAMPLE, "--jsonl", "--quiet"],
        [SAMPLE, SAMPLE, "--csv"],
        [SAMPLE, "--min-eta", "0.5", "--json"],
        [SAMPLE, "--format", "native", "-q"],
        [SAMPLE, "--junit", "r.xml", "--github", "--labels", ROOT_README],
        [SAMPLE, SAMPLE, "--jsonl", "--jobs", "2"],
    ):
        assert _score_argv.parse(argv) is not None, argv


TOKENS = [
    SAMPLE,
    ROOT_README,
    "missing.jsonl",
    "-",
    "--",
    "-q",
    "-f",
    "-qf",
    "--help",
    "--dask",
    *_score_argv.FLAGS,
    *_score_argv.VALUED,
    "--no-json",
    "--jsonl=",
    "--format=native",
    "--min-eta=0.5",
    "--window=2",
    "--labels=",
    "native",
    "0",
    "1",
    "-1",
    "0.5",
    "1e-3",
    "2.",
    ".5",
    "+3",
    "1_0",
    "abc",
    "",
    " 1",
    "inf",
    "NaN",
    "99999999999999999999",
]


@settings(max_examples=150)
@given(st.lists(st.sampled_from(TOKENS), max_size=7))
def test_random_command_lines_mean_what_they_mean_to_typer(argv: list[str]) -> None:
    with pytest.MonkeyPatch.context() as mp:
        SCORE.check_line(argv, mp)


@pytest.mark.parametrize(
    "argv",
    [
        [str(SAMPLES)],  # the table
        [str(SAMPLES), "--jsonl", "-q"],
        [str(SAMPLES), "--jsonl", "--jobs", "2"],  # on the pool
        [
            str(SAMPLES / "repair_loop.jsonl"),
            "--csv",
            "--min-eta",
            "0.9",
        ],  # exit 1, named on stderr
        [str(SAMPLES / "clean_pass.jsonl"), "--json", "--window", "3", "--repeat", "0"],
        ["no-such-file.jsonl", "--jsonl"],  # exit 2
        [str(REPO / "README.md")],  # no reader: exit 2
        [str(SAMPLES / "clean_pass.jsonl"), "--estimator", "missing-estimator.json"],
        [str(SAMPLES / "clean_pass.jsonl"), "--junit", "report.xml", "--github"],
        [str(SAMPLES / "clean_pass.jsonl"), "--github", "--min-nrs", "100"],  # annotations, exit 1
        [str(SAMPLES / "clean_pass.jsonl"), "--window", "2", "--epsilon", "1e-9", "--adapter"],
        [str(SAMPLES / "clean_pass.jsonl"), "--fit", "default"],
        [
            str(SAMPLES / "clean_pass.jsonl"),
            "--labels",
            str(REPO / "README.md"),
        ],  # not labels: exit 2
        ["\udcff.jsonl"],  # a file name that is not UTF-8: exit 2 naming it
    ],
)
def test_the_console_script_gives_what_typer_gives(argv: list[str], tmp_path: Path) -> None:
    SCORE.check_console(argv, tmp_path)  # --junit: the same report
