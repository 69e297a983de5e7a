"""`efc-tui open` without Typer (efc_tui/cli/_open_argv.py) means what Typer means.

As for ``score`` (tests/test_score_argv.py): ``parse`` hands a command line back to Typer
(None) or returns exactly the keyword arguments Typer passes to ``_open_run.run``, on
hand-picked and random command lines; its tables are checked against the command Typer
builds; end to end, ``--screenshot`` and the errors come out the same on either path.
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

from efc_tui.cli import _open_argv, _open_run, _registered_app
from tests.conftest import FIXTURES, REPO, SAMPLES

SAMPLE = str(SAMPLES / "clean_pass.jsonl")
README = str(REPO / "README.md")
#: the options only Typer reads
TYPER_ONLY = {"--help", "-h"}
DEFAULTS = {
    name: p.default
    for name, p in inspect.signature(_open_run.run).parameters.items()
    if p.default is not inspect.Parameter.empty
}


def open_command() -> Any:
    return get_command(_registered_app("open")).commands["open"]  # type: ignore[attr-defined]


def typer_options(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any] | None:
    """The keyword arguments Typer passes to ``_open_run.run`` for ``open ARGV`` (None when
    Typer refuses the command line)."""
    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(_open_run, "run", lambda paths, **kw: seen.append({"paths": paths, **kw}))
    result = CliRunner().invoke(_registered_app("open"), ["open", *argv])
    monkeypatch.undo()
    if result.exit_code != 0:
        assert not seen
        return None
    assert len(seen) == 1, result.output
    return seen[0]


def typed(options: dict[str, Any]) -> dict[str, tuple[type, Any]]:
    return {k: (type(v), v) for k, v in {**DEFAULTS, **options}.items()}


def test_the_option_tables_are_the_commands() -> None:
    names: dict[str, tuple[str, bool]] = {}
    for param in open_command().params:
        if param.param_type_name != "option":
            assert param.name == "paths"
            continue
        for opt in param.opts:
            names[opt] = (param.name, bool(param.is_flag))
        for opt in param.secondary_opts:
            names[opt] = (param.name, True)
    ours = {**{k: (p, True) for k, (p, _) in _open_argv.FLAGS.items()},
            **{k: (p, False) for k, (p, _) in _open_argv.VALUED.items()}}
    assert {k: v for k, v in names.items() if k not in TYPER_ONLY} == ours
    assert set(DEFAULTS) | {"paths"} == {p.name for p in open_command().params}


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
def test_a_command_line_means_what_it_means_to_typer(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _open_argv.parse(argv)
    if fast is None:
        return  # Typer reads it, as before
    expected = typer_options(argv, monkeypatch)
    assert expected is not None, f"Typer refuses {argv} but the fast path reads it"
    assert typed(fast) == typed(expected)


def test_the_common_command_lines_skip_typer() -> None:
    for argv in ([SAMPLE], [SAMPLE, "--follow"], [SAMPLE, SAMPLE], [SAMPLE, "--select", "4"],
                 [SAMPLE, "--screenshot", "o.svg", "--size", "80x24"], [SAMPLE, "-f", "native"]):
        assert _open_argv.parse(argv) is not None, argv


TOKENS = [
    SAMPLE, README, "missing.jsonl", "-", "--", "-h", "-f", "--help", *_open_argv.FLAGS,
    *_open_argv.VALUED, "--select=2", "--size=80x24", "--labels=", "native", "0", "3", "-1",
    "0.5", "+3", "1_0", "abc", "", "80x24", "o.svg",
]


@settings(max_examples=100)
@given(st.lists(st.sampled_from(TOKENS), max_size=6))
def test_random_command_lines_mean_what_they_mean_to_typer(argv: list[str]) -> None:
    fast = _open_argv.parse(argv)
    if fast is None:
        return
    with pytest.MonkeyPatch.context() as mp:
        expected = typer_options(argv, mp)
    assert expected is not None, f"Typer refuses {argv} but the fast path reads it"
    assert typed(fast) == typed(expected)


def cli(argv: list[str], *, typer_path: bool, cwd: Path) -> tuple[int, str, str]:
    """``efc-tui open ARGV`` in a fresh interpreter, by the console script's own path or
    with Typer reading the command line."""
    run = ("from efc_tui.cli import _registered_app\nfrom efc_tui.cli._app import main\n"
           "_registered_app('open')\nmain()") if typer_path else "from efc_tui.cli import main\nmain()"
    code = f"import sys\nsys.argv = ['efc-tui', 'open', *{argv!r}]\n{run}"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180,
                       cwd=cwd, env={**os.environ, "COLUMNS": "120"})
    return r.returncode, r.stdout.replace(str(cwd), "CWD"), r.stderr.replace(str(cwd), "CWD")


@pytest.mark.parametrize("argv", [
    [str(FIXTURES / "app" / "small.jsonl"), "--screenshot", "shot.svg", "--select", "3",
     "--size", "100x30", "--fit", str(FIXTURES / "app" / "fit.json"),
     "--estimator", str(FIXTURES / "app" / "estimator.json")],
    ["no-such-file.jsonl"],  # exit 2
    [README],  # no reader: exit 2
    [SAMPLE, "--size", "10x10"],  # out of range: exit 2
    [SAMPLE, "--follow", str(SAMPLES / "repair_loop.jsonl")],  # --follow tails one file: exit 2
])
def test_the_console_script_gives_what_typer_gives(argv: list[str], tmp_path: Path) -> None:
    assert _open_argv.parse(argv) is not None
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    fast = cli(argv, typer_path=False, cwd=tmp_path / "a")
    slow = cli(argv, typer_path=True, cwd=tmp_path / "b")
    assert fast == slow
    shots = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert shots == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in shots:  # --screenshot: the same picture
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
