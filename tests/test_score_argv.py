"""`efc-tui score` without Typer (efc_tui/cli/_score_argv.py) means what Typer means.

``parse`` either hands a command line back to Typer (None) or returns exactly the keyword
arguments Typer passes to ``_score_run.run`` for it: the same names, values and types,
checked on hand-picked command lines and on random ones built from the options' spellings.
Its option table is checked against the command Typer builds, so an option added to
``score.py`` cannot be read differently here. End to end, the console script gives the same
output, messages and exit status on either path.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.main import get_command
from typer.testing import CliRunner

from efc_tui.cli import _registered_app, _score_argv, _score_run
from tests.conftest import REPO, SAMPLES

SAMPLE = str(SAMPLES / "clean_pass.jsonl")
#: the options only Typer reads (Dask starts a cluster; help is Typer's)
TYPER_ONLY = {"--dask", "--scheduler", "--dask-workers", "--help", "-h"}
DEFAULTS = {
    name: p.default
    for name, p in inspect.signature(_score_run.run).parameters.items()
    if p.default is not inspect.Parameter.empty
}


def score_command() -> Any:
    app = _registered_app("score")
    return get_command(app).commands["score"]  # type: ignore[attr-defined]


def typer_options(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any] | None:
    """The keyword arguments Typer passes to ``_score_run.run`` for ``score ARGV`` (None when
    Typer refuses the command line)."""
    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(_score_run, "run", lambda **kw: seen.append(kw))
    result = CliRunner().invoke(_registered_app("score"), ["score", *argv])
    monkeypatch.undo()
    if result.exit_code != 0:
        assert not seen
        return None
    assert len(seen) == 1, result.output
    return seen[0]


def typed(options: dict[str, Any]) -> dict[str, tuple[type, Any]]:
    return {k: (type(v), v) for k, v in {**DEFAULTS, **options}.items()}


def test_the_option_table_is_the_commands() -> None:
    """Every option of the command is read here or left to Typer; flags are flags, options
    with values take one, and each sets the parameter Typer sets."""
    names: dict[str, tuple[str, bool]] = {}
    for param in score_command().params:
        if param.param_type_name != "option":
            assert param.name == "paths"
            continue
        for opt in param.opts:
            names[opt] = (param.name, bool(param.is_flag))
        for opt in param.secondary_opts:
            names[opt] = (param.name, True)
    ours = {**{k: (p, True) for k, (p, _) in _score_argv.FLAGS.items()},
            **{k: (p, False) for k, (p, _) in _score_argv.VALUED.items()}}
    assert {k: v for k, v in names.items() if k not in TYPER_ONLY} == ours
    assert set(DEFAULTS) | {"paths"} == {p.name for p in score_command().params}


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
]
# fmt: on


@pytest.mark.parametrize("argv", LINES, ids=[" ".join(a)[-60:] or "none" for a in LINES])
def test_a_command_line_means_what_it_means_to_typer(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _score_argv.parse(argv)
    if fast is None:
        return  # Typer reads it, as before
    expected = typer_options(argv, monkeypatch)
    assert expected is not None, f"Typer refuses {argv} but the fast path reads it"
    assert typed(fast) == typed(expected)


def test_the_common_command_lines_skip_typer() -> None:
    """What CI jobs and bench/score_bench.py type is read here (the shortcut is used)."""
    for argv in ([SAMPLE], [SAMPLE, "--jsonl", "--quiet"], [SAMPLE, SAMPLE, "--csv"],
                 [SAMPLE, "--min-eta", "0.5", "--json"], [SAMPLE, "--format", "native", "-q"],
                 [SAMPLE, "--junit", "r.xml", "--github", "--labels", ROOT_README]):
        assert _score_argv.parse(argv) is not None, argv


TOKENS = [
    SAMPLE, ROOT_README, "missing.jsonl", "-", "--", "-q", "-f", "-qf", "--help", "--dask",
    *_score_argv.FLAGS, *_score_argv.VALUED, "--no-json", "--jsonl=", "--format=native",
    "--min-eta=0.5", "--window=2", "--labels=", "native", "0", "1", "-1", "0.5", "1e-3", "2.",
    ".5", "+3", "1_0", "abc", "", " 1", "inf", "NaN", "99999999999999999999",
]


@settings(max_examples=150)
@given(st.lists(st.sampled_from(TOKENS), max_size=7))
def test_random_command_lines_mean_what_they_mean_to_typer(argv: list[str]) -> None:
    fast = _score_argv.parse(argv)
    if fast is None:
        return
    with pytest.MonkeyPatch.context() as mp:
        expected = typer_options(argv, mp)
    assert expected is not None, f"Typer refuses {argv} but the fast path reads it"
    assert typed(fast) == typed(expected)


def cli(argv: list[str], *, typer_path: bool, cwd: Path) -> tuple[int, str, str]:
    """``efc-tui score ARGV`` in a fresh interpreter, by the console script's own path or
    with Typer reading the command line."""
    run = ("from efc_tui.cli import _registered_app\nfrom efc_tui.cli._app import main\n"
           "_registered_app('score')\nmain()") if typer_path else "from efc_tui.cli import main\nmain()"
    code = f"import sys\nsys.argv = ['efc-tui', 'score', *{argv!r}]\n{run}"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       cwd=cwd, env={**os.environ, "COLUMNS": "120"})
    return r.returncode, r.stdout.replace(str(cwd), "CWD"), r.stderr.replace(str(cwd), "CWD")


@pytest.mark.parametrize("argv", [
    [str(SAMPLES)],  # the table
    [str(SAMPLES), "--jsonl", "-q"],
    [str(SAMPLES / "repair_loop.jsonl"), "--csv", "--min-eta", "0.9"],  # exit 1, named on stderr
    [str(SAMPLES / "clean_pass.jsonl"), "--json", "--window", "3", "--repeat", "0"],
    ["no-such-file.jsonl", "--jsonl"],  # exit 2
    [str(REPO / "README.md")],  # no reader: exit 2
    [str(SAMPLES / "clean_pass.jsonl"), "--estimator", "missing-estimator.json"],
    [str(SAMPLES / "clean_pass.jsonl"), "--junit", "report.xml", "--github"],
    [str(SAMPLES / "clean_pass.jsonl"), "--github", "--min-nrs", "100"],  # annotations, exit 1
    [str(SAMPLES / "clean_pass.jsonl"), "--window", "2", "--epsilon", "1e-9", "--adapter"],
    [str(SAMPLES / "clean_pass.jsonl"), "--fit", "default"],
    [str(SAMPLES / "clean_pass.jsonl"), "--labels", str(REPO / "README.md")],  # not labels: exit 2
    ["\udcff.jsonl"],  # a file name that is not UTF-8: exit 2 naming it
])
def test_the_console_script_gives_what_typer_gives(argv: list[str], tmp_path: Path) -> None:
    assert _score_argv.parse(argv) is not None
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    fast = cli(argv, typer_path=False, cwd=tmp_path / "a")
    slow = cli(argv, typer_path=True, cwd=tmp_path / "b")
    assert fast == slow
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == sorted(
        p.name for p in (tmp_path / "b").iterdir())
    for p in (tmp_path / "a").iterdir():  # --junit: the same report
        assert p.read_bytes() == (tmp_path / "b" / p.name).read_bytes()
