"""Golden bytes for every output format: ``score`` (table, ``--json``, ``--jsonl``, ``--csv``,
``--adapter`` table and JSON), ``export`` (one document, JSON array, JSONL, a folder) and
``fit`` (the fit file and its printed table).

Any change to what a user or a script reads shows up here as a diff. When the change is
meant, regenerate every golden file at once with ``make golden`` and review the diff.

The inputs are pinned: the bundled sample traces, a small run with oracle blocks
(``tests/fixtures/golden/oracle_small.jsonl``), the test estimator
(``tests/fixtures/app/estimator.json``, so recalibrating the shipped one does not move
these bytes) and a fit corpus written by ``tests.cli.test_fit.write_corpus`` (seeded).
Commands run with relative paths from a fixed folder, so the bytes hold no machine paths.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from efc_tui.cli import app
from tests.cli.test_fit import write_corpus
from tests.conftest import FIXTURES, REPO
from tests.tolerance import ABS, ABS_FIT, REL, REL_FIT, json_diff, text_diff

GOLDEN = Path(__file__).resolve().parent  # this folder: the golden outputs
#: ``make golden`` sets this: write the outputs instead of comparing them
UPDATE = os.environ.get("EFC_GOLDEN_UPDATE") == "1"
EST = "estimator.json"
#: terminal width of the table goldens (a pipe gets this from $COLUMNS)
WIDTH = "160"


def _lines(data: bytes) -> list[str]:
    """Lines to diff: JSON and JSONL indented (one line per value), other text as it is."""
    text = data.decode(errors="replace")
    try:
        docs = [json.loads(text)]
    except ValueError:
        try:
            docs = [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError:
            return text.splitlines()
    return [ln for d in docs for ln in json.dumps(d, indent=1, ensure_ascii=False).splitlines()]


def _docs(text: str) -> list[object] | None:
    """The JSON document, or the JSONL documents, of a text; None for other text."""
    try:
        return [json.loads(text)]
    except ValueError:
        try:
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError:
            return None


def same_within_tolerance(
    expected: bytes, data: bytes, rel: float = REL, abs_: float = ABS
) -> bool:
    """True when two outputs differ only in numbers, and those within tests/tolerance.py's
    tolerance (another CPU's numpy kernels move the last bits). JSON and JSONL are compared
    as data; other text (tables, CSV) with its numbers compared and the rest byte for byte."""
    a, b = expected.decode(errors="replace"), data.decode(errors="replace")
    da, db = _docs(a), _docs(b)
    if da is not None and db is not None:
        return not json_diff(da, db, rel=rel, abs_=abs_)
    return text_diff(a, b, rel, abs_) is None


def check(name: str, data: bytes, rel: float = REL, abs_: float = ABS) -> None:
    """``data`` must equal the golden file ``name`` byte for byte, or differ only in numbers
    within the one tolerance (``rel``/``abs_``: looser for a fit's output, which an optimizer
    computes; tests/tolerance.py) (or, updating, becomes it).

    The working folder's absolute path (the estimator's resolved source) reads ``<work>``.
    """
    data = data.replace(str(Path.cwd()).encode(), b"<work>")
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return
    assert path.is_file(), f"no golden file {name}: run `make golden` and review it"
    expected = path.read_bytes()
    if data != expected and not same_within_tolerance(expected, data, rel, abs_):
        diff = difflib.unified_diff(
            _lines(expected), _lines(data), f"golden/{name}", "now", lineterm="", n=1
        )
        shown = "\n".join(list(diff)[:40])
        pytest.fail(f"{name} differs from its golden bytes (`make golden` if meant):\n{shown}")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder holding copies of the inputs under fixed relative names; tests run in it."""
    root = tmp_path_factory.mktemp("golden")
    shutil.copytree(REPO / "sample_traces", root / "samples")
    shutil.copy(FIXTURES / "app" / "estimator.json", root / EST)
    shutil.copy(FIXTURES / "golden" / "oracle_small.jsonl", root / "oracle.jsonl")
    shutil.copytree(FIXTURES / "golden" / "names", root / "names")
    write_corpus(root / "corpus")
    old = Path.cwd()
    os.chdir(root)
    try:
        yield root
    finally:
        os.chdir(old)


def run_cli(*args: str, width: str = WIDTH) -> bytes:
    r = CliRunner().invoke(app, list(args), env={"COLUMNS": width})
    assert r.exit_code == 0, r.output
    return r.stdout_bytes


SCORE_CASES = {
    "score.txt": (),
    "score.json": ("--json",),
    "score.jsonl": ("--jsonl",),
    "score.csv": ("--csv",),
    "score-adapter.txt": ("--adapter",),
    "score-adapter.json": ("--adapter", "--json"),
}


@pytest.mark.parametrize("name", sorted(SCORE_CASES))
def test_score(workdir: Path, name: str) -> None:
    check(name, run_cli("score", "samples", "--estimator", EST, "--quiet", *SCORE_CASES[name]))


@pytest.mark.parametrize("width", ["80", "120"])
@pytest.mark.parametrize("adapter", [False, True], ids=["score", "adapter"])
def test_tables_at_terminal_widths(workdir: Path, width: str, adapter: bool) -> None:
    """The tables a person sees at 80 and 120 columns, with long and repeated run ids."""
    opts = ("--adapter",) if adapter else ()
    out = run_cli("score", "samples", "names", "--estimator", EST, "--quiet", *opts, width=width)
    check(f"{'score-adapter' if adapter else 'score'}-{width}.txt", out)


EXPORT_CASES = {
    "export-one.json": ("samples/repair_loop.jsonl", "--with-text", "--pretty"),
    "export-all.json": ("samples", "--no-text"),
    "export-all.jsonl": ("samples", "--no-text"),
    "export-oracle.json": ("oracle.jsonl", "--no-text"),
}


@pytest.mark.parametrize("name", sorted(EXPORT_CASES))
def test_export(workdir: Path, name: str) -> None:
    source, *opts = EXPORT_CASES[name]
    out = workdir / "out" / name
    out.parent.mkdir(exist_ok=True)
    run_cli(
        "export", source, "-o", str(out.relative_to(workdir)), "--estimator", EST, "--quiet", *opts
    )
    check(name, out.read_bytes())


def test_export_to_a_folder(workdir: Path) -> None:
    out = workdir / "out" / "folder"
    out.mkdir(parents=True, exist_ok=True)
    run_cli("export", "samples", "-o", "out/folder", "--estimator", EST, "--quiet", "--no-text")
    names = sorted(p.name for p in out.iterdir())
    check("export-folder/names.txt", "".join(n + "\n" for n in names).encode())
    for n in names:
        check(f"export-folder/{n}", (out / n).read_bytes())


def test_fit(workdir: Path) -> None:
    table = run_cli(
        "fit",
        "corpus",
        "-o",
        "fit.json",
        "--estimator",
        EST,
        "--bootstrap",
        "20",
        "--no-terminal-plot",
    )
    check("fit.txt", table)
    check("fit.json", (workdir / "fit.json").read_bytes(), REL_FIT, ABS_FIT)
