"""Start-up stays cheap (issue 13 goal 3, issue 14 item 5): what a fresh interpreter has
imported after the package root, the errors module, `efc-tui --version` and `--help`.

Each check runs in a new subprocess and reads ``sys.modules``, so one stray top-level
import anywhere (numpy in errors.py, the readers in the CLI's shared module, rich in a
command's header) fails here. The timings themselves live in bench/startup_bench.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

#: third-party packages that cost tens of milliseconds each to import
HEAVY = ("numpy", "scipy", "pandas", "textual", "rich", "orjson", "zstandard", "pydantic")
#: imported only when a command is asked to run on Dask (--dask, --scheduler, a URL)
DASK = ("dask", "distributed", "fsspec", "tornado", "cloudpickle")

PROBE = """
import sys
{setup}
mods = sorted(sys.modules)
print("\\n".join(mods))
"""


def imported(setup: str) -> set[str]:
    """Module names loaded after running ``setup`` in a fresh interpreter."""
    code = PROBE.format(setup=setup)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return set(r.stdout.split())


def heavy(mods: set[str]) -> list[str]:
    return sorted(m for m in mods if m.split(".")[0] in HEAVY)


def ours(mods: set[str], *prefixes: str) -> list[str]:
    return sorted(m for m in mods if any(m == p or m.startswith(p + ".") for p in prefixes))


#: the entry point ends the process itself (cli._hard_exit): the modules are read by an
#: exit function, which it runs, after the command's output and its ``=== modules`` line
CLI_RUN = """
import atexit, sys
atexit.register(lambda: print("=== modules", *sorted(sys.modules), sep="\\n"))
sys.argv = ["efc-tui", {args}]
from efc_tui.cli import main
main()
"""


def cli_modules(*args: str) -> set[str]:
    """Module names loaded once ``efc-tui ARGS`` has run in a fresh interpreter (whatever
    its exit status: a typo exits 2)."""
    code = CLI_RUN.format(args=", ".join(repr(a) for a in args))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "=== modules" in r.stdout, r.stderr
    return set(r.stdout.split("=== modules", 1)[1].split())


#: imports every command's module, which registers it on the app: what shell completion
#: does (it shows every command's help); the app then builds them all
BUILD_ALL = (
    "import importlib\nimport efc_tui.cli as cli\n"
    "for m in dict.fromkeys(cli.COMMANDS.values()):\n"
    "    importlib.import_module('efc_tui.cli.' + m)\n"
)

#: the modules of efc_tui that Typer's root needs: what --version and --help load (and the
#: process's garbage-collection policy, which the entry point sets before any command)
ROOT = [
    "efc_tui",
    "efc_tui.cli",
    "efc_tui.cli._app",
    "efc_tui.cli._exits",
    "efc_tui.pipeline",
    "efc_tui.pipeline.gc_policy",
]


@pytest.mark.parametrize(
    "module", ["efc_tui", "efc_tui.errors", "efc_tui.model", "efc_tui.report.text", "efc_tui.io"]
)
def test_package_root_and_light_modules_import_nothing_heavy(module: str) -> None:
    mods = imported(f"import {module}")
    assert heavy(mods) == []
    # neither the readers nor the scoring core, adapter, fitting, synthetic or the app
    assert (
        ours(
            mods,
            "efc_tui.parsers",
            "efc_tui.scoring",
            "efc_tui.adapter",
            "efc_tui.fitting",
            "efc_tui.synthetic",
            "efc_tui.app",
            "efc_tui.cli",
            "efc_tui.api",
        )
        == []
    )


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["scor"]])
def test_version_help_and_a_typo_import_no_command(args: list[str]) -> None:
    """Typer's root alone: the commands are listed from ``cli.SUMMARIES`` and a typo is
    matched against ``cli.COMMANDS``, without importing a command. The version and the
    help answer before Typer converts any option's value."""
    mods = cli_modules(*args)
    assert heavy(mods) == []
    assert ours(mods, "efc_tui") == ROOT


def test_building_every_command_imports_no_core() -> None:
    mods = imported(BUILD_ALL + "from typer.main import get_command\nget_command(cli.app)")
    assert "efc_tui.cli.score" in mods and "efc_tui.cli.simulate" in mods  # commands were built
    assert heavy(mods) == []
    assert (
        ours(
            mods,
            "efc_tui.parsers",
            "efc_tui.adapter",
            "efc_tui.fitting",
            "efc_tui.app",
            "efc_tui.api",
            "efc_tui.report.export",
        )
        == []
    )
    # scoring and synthetic: only the constants the options show as defaults, and the
    # figures' titles the tables are declared with (plain data, both)
    assert ours(mods, "efc_tui.scoring") == [
        "efc_tui.scoring",
        "efc_tui.scoring.constants",
        "efc_tui.scoring.figures",
    ]
    assert "efc_tui.synthetic.corpus" not in mods and "efc_tui.synthetic.engine" not in mods


def test_help_and_local_scoring_never_import_dask() -> None:
    """The Dask options are on score and fit, but Dask loads only when a cluster is asked for."""
    scored = cli_modules(
        "score", str(REPO / "sample_traces" / "repair_loop.jsonl"), "--jsonl", "-q"
    )
    assert "efc_tui.scoring.ledger" in scored  # it did score
    for mods in (cli_modules("--help"), cli_modules("fit", "--help"), scored):
        assert sorted(m for m in mods if m.split(".")[0] in DASK) == []
        assert ours(mods, "efc_tui.cluster.client") == []


def test_readers_do_not_need_numpy() -> None:
    """Reading and validating logs never loads numpy (``efc-tui validate`` stays quick)."""
    mods = imported("import efc_tui.parsers\nassert len(efc_tui.parsers.READERS) > 10")
    assert ours(mods, "efc_tui.parsers.native", "efc_tui.parsers.claude_code") != []
    assert [
        m for m in heavy(mods) if m.split(".")[0] != "orjson" and m.split(".")[0] != "zstandard"
    ] == []


def test_lazy_names_still_resolve() -> None:
    """The root, scoring and synthetic packages still export every name they did."""
    mods = imported(
        "import efc_tui, efc_tui.scoring as s, efc_tui.synthetic as y\n"
        "assert callable(efc_tui.load) and callable(efc_tui.load_all) and callable(efc_tui.score)\n"
        "assert {'load', 'load_all', 'score'} <= set(dir(efc_tui))\n"
        "assert s.Ledger.__name__ == 'Ledger' and callable(s.score_run) and s.load_estimator\n"
        "assert y.DEFAULT_SEED == 7 and 'H0' in y.HARNESS_NAMES and callable(y.write_corpus)\n"
        "import efc_tui.adapter as a\n"
        "assert callable(a.choose_adapter) and callable(a.choose_stop_rules)\n"
        "from efc_tui.cli import app\n"
        "assert app.info.name == 'efc-tui'\n"
    )
    assert "efc_tui.api" in mods and "efc_tui.scoring.ledger" in mods


@pytest.mark.parametrize(
    "pkg,name",
    [
        ("efc_tui", "nope"),
        ("efc_tui.scoring", "nope"),
        ("efc_tui.synthetic", "nope"),
        ("efc_tui.cli", "nope"),
        ("efc_tui.adapter", "nope"),
        ("efc_tui.parsers", "nope"),
        ("efc_tui.parsers.registry", "nope"),
    ],
)
def test_unknown_names_still_raise_attribute_error(pkg: str, name: str) -> None:
    import importlib

    with pytest.raises(AttributeError):
        getattr(importlib.import_module(pkg), name)


def test_a_command_builds_alone() -> None:
    """`efc-tui score ...` imports the score command's module and no other command's."""
    commands = {
        f"efc_tui.cli.{m}"
        for m in (
            "calibrate",
            "diff",
            "experiment",
            "export",
            "fit",
            "formats",
            "open",
            "score",
            "simulate",
        )
    }
    scored = cli_modules("score", str(REPO / "sample_traces" / "repair_loop.jsonl"), "--jsonl")
    assert "efc_tui.scoring.ledger" in scored  # it did score
    assert sorted(commands & scored) == ["efc_tui.cli.score"]
    assert "efc_tui.adapter.calibrate" not in scored  # the adapter's calibration hooks
    assert "efc_tui.parsers.labels" not in scored  # no --labels
    assert "efc_tui.cluster.remote" not in scored  # no URL
    assert sorted(commands & cli_modules("validate", "--help")) == ["efc_tui.cli.formats"]
    assert commands.isdisjoint(cli_modules("scor"))  # suggested from cli.COMMANDS
    assert commands.isdisjoint(cli_modules("--help"))  # listed from cli.SUMMARIES


@pytest.mark.parametrize("args", [["--jsonl", "-q"], ["--csv", "--min-eta", "0.5"]])
def test_score_writing_lines_or_csv_loads_no_table(args: list[str]) -> None:
    """`efc-tui score FILE` writing JSON lines or CSV loads no rich and no other command.
    numpy is imported: the scoring core's arrays need it (the ledger's columns, the gates,
    the adapter's window sums); no pydantic (the Typer pinned in pyproject.toml converts
    option values itself)."""
    mods = cli_modules("score", str(REPO / "sample_traces" / "repair_loop.jsonl"), *args)
    assert "efc_tui.scoring.ledger" in mods  # it did score
    assert ours(mods, "efc_tui.cli") == [
        "efc_tui.cli",
        "efc_tui.cli._app",
        "efc_tui.cli._col",
        "efc_tui.cli._common",
        "efc_tui.cli._dask",
        "efc_tui.cli._exits",
        "efc_tui.cli._score_run",
        "efc_tui.cli.score",
    ]
    assert sorted({m.split(".")[0] for m in heavy(mods)}) == ["numpy", "orjson"]
    assert "socket" not in mods  # io's host name comes from os.uname (socket: ~6 ms)
    # the row reads the ledger alone: no adapter decision is made (pipeline.score_batch)
    assert ours(mods, "efc_tui.adapter") == ["efc_tui.adapter", "efc_tui.adapter.config"]


#: the classes of efc_tui's loaded modules that are dataclasses, once the command has run
CLI_DATACLASSES = """
import atexit, sys
def report():
    found = [
        f"{{name}}.{{attr}}"
        for name, mod in list(sys.modules.items())
        if name.startswith("efc_tui")
        for attr, obj in vars(mod).items()
        if isinstance(obj, type) and obj.__module__ == name and "__dataclass_fields__" in vars(obj)
    ]
    print("=== dataclasses", *sorted(found), sep="\\n")
atexit.register(report)
sys.argv = ["efc-tui", {args}]
from efc_tui.cli import main
main()
"""


@pytest.mark.parametrize(
    "log",
    [
        "sample_traces/repair_loop.jsonl",
        "tests/fixtures/agents/claude_interrupted.jsonl",
        "tests/fixtures/agents/swe_agent_1x.traj",
    ],
)
def test_score_defines_no_dataclass(log: str) -> None:
    """The records `score` loads are msgspec Structs: a dataclass costs 0.4-1.2 ms to define
    (its methods are generated as source and compiled), a Struct 0.03 ms; the 35 on the
    native path were 18 ms of a 0.15 s start-up, and a reader's draft event is built 3x
    faster (docs/speed.md, "Start-up")."""
    args = ("score", str(REPO / log), "--json", "--quiet")  # the adapter's decisions too
    code = CLI_DATACLASSES.format(args=", ".join(repr(a) for a in args))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "=== dataclasses" in r.stdout, r.stderr
    assert r.stdout.split("=== dataclasses", 1)[1].split() == []


def test_score_makes_the_adapters_decisions_only_when_its_output_reads_them() -> None:
    sample = str(REPO / "sample_traces" / "repair_loop.jsonl")
    for args in (["--adapter"], ["--jsonl", "--max-waste", "0.9"], ["--json"]):
        assert "efc_tui.adapter.decide" in cli_modules("score", sample, "-q", *args), args


def test_command_table_names_every_command_and_its_module() -> None:
    """``cli.COMMANDS`` (what `efc-tui COMMAND` imports) matches what the modules register,
    in the order `--help` lists them, so a new command cannot be left out of it. Asked in
    a fresh interpreter: Typer registers commands in the order their modules are first
    imported, and other tests import some of them first."""
    code = (
        "import json\n"
        f"{BUILD_ALL}"
        "from efc_tui.cli import COMMANDS, app\n"
        "print(json.dumps([[[c.name or c.callback.__name__, c.callback.__module__]\n"
        "                   for c in app.registered_commands],\n"
        "                  [[n, 'efc_tui.cli.' + m] for n, m in COMMANDS.items()]]))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    registered, table = json.loads(r.stdout)
    assert registered == table


@pytest.mark.parametrize("command", ["score", "validate", "open", "fit"])
def test_a_command_built_alone_has_the_same_help(command: str) -> None:
    """A command's --help from the console script (built alone) is the one it has in the
    whole app (every command registered first)."""

    def help_text(setup: str) -> str:
        code = (
            f"import sys\nsys.argv = ['efc-tui', {command!r}, '--help']\n"
            f"import efc_tui.cli as cli\n{setup}\ncli.main()"
        )
        r = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "COLUMNS": "100"},
        )
        assert r.returncode == 0, r.stderr
        return r.stdout

    alone = help_text("")
    assert f"Usage: efc-tui {command} [OPTIONS]" in alone
    assert alone == help_text(BUILD_ALL)


@pytest.mark.parametrize("args", [["--help"], ["-h"], []])
def test_the_root_help_lists_what_the_commands_say(args: list[str]) -> None:
    """`efc-tui --help` (and no arguments) lists ``cli.SUMMARIES`` without building the
    commands: the same text and exit code as the app with every command built, at any width."""
    from efc_tui.cli import COMMANDS, SUMMARIES

    assert list(SUMMARIES) == list(COMMANDS)

    def root_help(run: str, columns: int) -> tuple[int, str]:
        code = f"import sys\nsys.argv = ['efc-tui', *{args!r}]\nimport efc_tui.cli as cli\n{run}"
        r = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "COLUMNS": str(columns)},
        )
        return r.returncode, r.stdout + r.stderr

    for columns in (60, 100, 250):
        listed = root_help("cli.main()", columns)
        built = root_help(f"{BUILD_ALL}cli.main()", columns)
        assert "Commands:" in listed[1] and "Score runs headless" in listed[1]
        assert listed == built


@pytest.mark.parametrize("preset", [None, "3"])
def test_the_console_script_runs_blas_on_one_thread_unless_told(preset: str | None) -> None:
    """`efc-tui` sets OPENBLAS_NUM_THREADS=1 (and MKL's) before numpy loads, as numpy reads
    it then; a value the user set is kept."""
    code = (
        "import atexit, os, sys\nsys.argv = ['efc-tui', '--version']\n"
        "atexit.register(lambda: print('numpy' in sys.modules, "
        "os.environ['OPENBLAS_NUM_THREADS'], os.environ['MKL_NUM_THREADS']))\n"
        "from efc_tui.cli import main\nmain()\n"
    )
    env = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
    }
    if preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[-3:] == ["False", preset or "1", "1"]
