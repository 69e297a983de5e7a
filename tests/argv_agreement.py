"""What a command's plain-options reader (``efc_tui/cli/_<name>_argv.py``) must agree on
with Typer, checked the same way for every command that has one (tests/cli/test_score_argv.py,
tests/cli/test_open_argv.py).

``parse`` either hands a command line back to Typer (None) or returns exactly the keyword
arguments Typer passes to the command's ``run`` for it: the same names, values and types.
Its option tables are checked against the command Typer builds, so an option added to the
command's declarations cannot be read differently. End to end, the console script gives
the same output, messages, exit status and files on either path.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from efc_tui.cli import _registered_app


@dataclass(frozen=True)
class PlainArgv:
    """The command ``name``: its plain-options reader ``plain`` (``parse``, ``FLAGS``,
    ``VALUED``), the module ``runner`` whose ``run`` is the command, and the options only
    Typer reads."""

    name: str
    plain: ModuleType
    runner: ModuleType
    typer_only: frozenset[str]

    @property
    def defaults(self) -> dict[str, Any]:
        return {
            name: p.default
            for name, p in inspect.signature(self.runner.run).parameters.items()
            if p.default is not inspect.Parameter.empty
        }

    def command(self) -> Any:
        return get_command(_registered_app(self.name)).commands[self.name]  # type: ignore[attr-defined]

    def typer_options(
        self, argv: list[str], monkeypatch: pytest.MonkeyPatch
    ) -> dict[str, Any] | None:
        """The keyword arguments Typer passes to ``run`` for ``NAME ARGV`` (None when Typer
        refuses the command line)."""
        seen: list[dict[str, Any]] = []
        monkeypatch.setattr(
            self.runner,
            "run",
            lambda *args, **kw: seen.append({**dict(zip(["paths"], args, strict=False)), **kw}),
        )
        result = CliRunner().invoke(_registered_app(self.name), [self.name, *argv])
        monkeypatch.undo()
        if result.exit_code != 0:
            assert not seen
            return None
        assert len(seen) == 1, result.output
        return seen[0]

    def typed(self, options: dict[str, Any]) -> dict[str, tuple[type, Any]]:
        return {k: (type(v), v) for k, v in {**self.defaults, **options}.items()}

    def check_tables(self) -> None:
        """Every option of the command is read here or left to Typer; flags are flags,
        options with values take one, and each sets the parameter Typer sets."""
        names: dict[str, tuple[str, bool]] = {}
        for param in self.command().params:
            if param.param_type_name != "option":
                assert param.name == "paths"
                continue
            for opt in param.opts:
                names[opt] = (param.name, bool(param.is_flag))
            for opt in param.secondary_opts:
                names[opt] = (param.name, True)
        ours = {
            **{k: (p, True) for k, (p, _) in self.plain.FLAGS.items()},
            **{k: (p, False) for k, (p, _) in self.plain.VALUED.items()},
        }
        assert {k: v for k, v in names.items() if k not in self.typer_only} == ours
        assert set(self.defaults) | {"paths"} == {p.name for p in self.command().params}

    def check_line(self, argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
        """``argv`` is Typer's to read, or means here what it means to Typer."""
        fast = self.plain.parse(argv)
        if fast is None:
            return  # Typer reads it, as before
        expected = self.typer_options(argv, monkeypatch)
        assert expected is not None, f"Typer refuses {argv} but the fast path reads it"
        assert self.typed(fast) == self.typed(expected)

    def cli(self, argv: list[str], *, typer_path: bool, cwd: Path) -> tuple[int, str, str]:
        """``efc-tui NAME ARGV`` in a fresh interpreter, by the console script's own path or
        with Typer reading the command line."""
        run = (
            (
                "from efc_tui.cli import _registered_app\nfrom efc_tui.cli._app import main\n"
                f"_registered_app({self.name!r})\nmain()"
            )
            if typer_path
            else ("from efc_tui.cli import main\nmain()")
        )
        code = f"import sys\nsys.argv = ['efc-tui', {self.name!r}, *{argv!r}]\n{run}"
        r = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=180,
            cwd=cwd,
            env={**os.environ, "COLUMNS": "120"},
        )
        return r.returncode, r.stdout.replace(str(cwd), "CWD"), r.stderr.replace(str(cwd), "CWD")

    def check_console(self, argv: list[str], tmp_path: Path) -> None:
        """The console script reads ``argv`` without Typer and gives what Typer gives: exit
        status, stdout, stderr and the files written."""
        assert self.plain.parse(argv) is not None
        (tmp_path / "a").mkdir()
        (tmp_path / "b").mkdir()
        fast = self.cli(argv, typer_path=False, cwd=tmp_path / "a")
        slow = self.cli(argv, typer_path=True, cwd=tmp_path / "b")
        assert fast == slow
        written = sorted(p.name for p in (tmp_path / "a").iterdir())
        assert written == sorted(p.name for p in (tmp_path / "b").iterdir())
        for name in written:
            assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
