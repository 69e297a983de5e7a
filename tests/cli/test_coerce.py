"""The CLI's light option coercion (efc_tui/cli/_coerce.py) gives what Typer's own pydantic
coercion gives: the same value of the same type, or the same error, for every value tried;
and the commands parse their options without importing pydantic."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from efc_tui.cli import _coerce
from tests.cli.test_import_cost import cli_modules

if not _coerce.install():
    pytest.skip("this Typer does not coerce options through pydantic", allow_module_level=True)

from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param as typer_build
from typer._coercion import resolve_type_descriptor
from typer.core import build_runtime_param as light_build
from typer.models import ArgumentInfo, OptionInfo

from tests.conftest import REPO

#: (annotation, parameter info) as the commands declare them
KINDS: list[tuple[Any, Any]] = [
    (str, OptionInfo()),
    (int, OptionInfo()),
    (float, OptionInfo()),
    (bool, OptionInfo()),
    (Path, OptionInfo()),
    (int, OptionInfo(min=1)),
    (int, OptionInfo(min=0)),
    (float, OptionInfo(min=0.0)),
    (float, OptionInfo(min=0.0, max=1.0)),
    (int, OptionInfo(min=1, max=10, clamp=True)),
    (Path, OptionInfo(exists=True)),
    (Path, OptionInfo(exists=True, dir_okay=False)),
    (Path, OptionInfo(file_okay=False)),
    (list[str], ArgumentInfo()),
    (list[Path], ArgumentInfo()),
    (list[int], OptionInfo()),
]

# fmt: off
VALUES: list[Any] = [
    "", "0", "5", "+5", "-5", "007", "1_000", " 5", "5 ", "5.0", "5.", ".5", "-.5", "1e3",
    "1E-3", "1e400", "2.5", "-0", "0x10", "inf", "nan", "-inf", "abc", "١٢", "99999999999999999999",
    "True", "false", "yes", "1", "-", "~/x", "./x", "a/b/", "a\x00b", 0, 3, -1, 2.5, 1.0, True,
    False, ["1", "2"], ("a", "b"), (), ("3", "x"), b"abc",
    str(REPO / "README.md"), str(REPO / "sample_traces"), str(REPO / "no-such-file"),
]
# fmt: on


def outcome(build: Any, annotation: Any, info: Any, value: Any) -> tuple[str, Any]:
    runtime = build(resolve_type_descriptor(annotation, info))
    try:
        got = runtime._coerce_value(value, param=None, ctx=None)
    except BadParameter as exc:
        return "error", exc.message
    return type(got).__name__, got


def same(annotation: Any, info: Any, value: Any) -> None:
    light = outcome(light_build, annotation, info, value)
    typer = outcome(typer_build, annotation, info, value)
    if light[0] == "float" and typer[0] == "float" and light[1] != light[1]:
        assert typer[1] != typer[1]  # nan
    else:
        assert light == typer, (annotation, info, value)


@pytest.mark.parametrize("annotation,info", KINDS)
def test_every_value_coerces_as_typer_does(annotation: Any, info: Any) -> None:
    for value in VALUES:
        same(annotation, info, value)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789+-.eE_ x", max_size=12))
def test_number_spellings_coerce_as_typer_does(text: str) -> None:
    for annotation, info in KINDS[1:3] + KINDS[5:9]:
        same(annotation, info, text)


def test_plain_values_skip_pydantic() -> None:
    """The point of it: the usual values never build a pydantic adapter."""
    for annotation, info, value in [
        (str, OptionInfo(), "x"),
        (int, OptionInfo(min=1), "12"),
        (float, OptionInfo(min=0.0), "0.5"),
        (Path, OptionInfo(), "a/b"),
        (list[str], ArgumentInfo(), ("a", "b")),
        (bool, OptionInfo(), True),
    ]:
        runtime = light_build(resolve_type_descriptor(annotation, info))
        runtime._coerce_value(value, param=None, ctx=None)  # type: ignore[arg-type]
        assert runtime.slow == []  # type: ignore[attr-defined]


def test_commands_parse_options_without_pydantic() -> None:
    trace = str(REPO / "sample_traces" / "repair_loop.jsonl")
    runs = [
        cli_modules(
            "score",
            trace,
            "--jsonl",
            "-q",
            "--window",
            "4",
            "--epsilon",
            "0.01",
            "--success-threshold",
            "0.5",
            "--labels",
            str(REPO / "no-labels.csv"),
        ),
        cli_modules("score", trace, "--jsonl", "-q"),
        cli_modules("--help"),
        cli_modules("score", "--help"),
    ]
    assert "efc_tui.scoring.ledger" in runs[1]  # it did score
    for mods in runs:
        assert sorted(m for m in mods if m.split(".")[0] in ("pydantic", "pydantic_core")) == []


def test_a_bad_value_still_gets_typers_message() -> None:
    from typer.testing import CliRunner

    from efc_tui.cli import app

    trace = str(REPO / "sample_traces" / "repair_loop.jsonl")
    for args, words in [
        (["--window", "0"], "greater than or equal to 1"),
        (["--window", "x"], "valid integer"),
        (["--epsilon", "-1"], "greater than or equal to 0"),
    ]:
        r = CliRunner().invoke(app, ["score", trace, "-q", *args])
        assert r.exit_code == 2 and words in r.output and args[0] in r.output
