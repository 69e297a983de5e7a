"""``score`` and ``fit`` on Dask (issue 16): the same results as the local path.

One local cluster (2 worker processes, 1 thread each) serves the whole module; the CLI
reaches it with ``--scheduler``. Skipped when dask.distributed is not installed
(``pip install 'efc-tui[dask]'``; the dev extras have it); ``-m "not dask"`` skips it too.
The tests that need only fsspec (URL planning, reading a source in this process) run
without a cluster.
"""

from __future__ import annotations

import faulthandler
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from efc_tui.cli import app
from tests.conftest import FIXTURES

pytestmark = pytest.mark.dask
distributed = pytest.importorskip("distributed")

runner = CliRunner()
OUTCOMES = FIXTURES / "outcomes"


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def dask_note(stderr: str) -> str:
    """stderr without the one line saying where the work ran."""
    return "".join(
        line for line in stderr.splitlines(keepends=True) if not line.startswith("efc-tui: Dask: ")
    )


#: a Dask test that has not finished after this long is hung (the longest takes ~20 s)
HUNG_AFTER_S = 300


@pytest.fixture(autouse=True)
def _hang_watchdog() -> Iterator[None]:
    """A hung cluster test ends the run with every thread's traceback instead of waiting
    for CI's own time limit: seen once on a loaded machine, the CLI waiting in
    ``as_completed`` with both workers idle (docs/dask.md)."""
    faulthandler.dump_traceback_later(HUNG_AFTER_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """A local cluster of 2 worker processes, started the way ``--dask`` starts one."""
    from efc_tui.cluster.client import connect

    with connect(workers=2) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        yield client.scheduler.address


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small simulated corpus: 6 files of 8 runs (2 families × 3 harnesses × 4 tasks ×
    2 budgets), enough groups for a fit."""
    out = tmp_path_factory.mktemp("dask") / "corpus"
    r = invoke(
        "simulate",
        "-o",
        out,
        "-n",
        "4",
        "--families",
        "needle_lookup,rule_filter",
        "--harnesses",
        "H0,H1,H3",
        "--budgets",
        "1,2",
        "--models",
        "sim-base",
        "-q",
    )
    assert r.exit_code == 0, r.output
    assert len(list(out.glob("*.jsonl"))) == 6
    return out


def test_score_on_dask_is_byte_identical_to_the_local_path(scheduler: str, corpus: Path) -> None:
    for fmt in ("--jsonl", "--json", "--csv"):
        local = invoke("score", corpus, fmt)
        on_dask = invoke("score", corpus, fmt, "--scheduler", scheduler)
        assert local.exit_code == 0 and on_dask.exit_code == 0, on_dask.output
        assert on_dask.stdout == local.stdout
        assert f"Dask: {scheduler}, 2 workers" in on_dask.stderr
    assert len(local.stdout.splitlines()) == 1 + 48  # the CSV: a header and every run



def test_score_fit_default_on_dask_matches_the_local_path(scheduler: str, corpus: Path) -> None:
    """--fit default: each worker places its runs on the package fit that matches them; the
    rows, the fit objects and the command's fit warnings are the local path's."""
    for fmt in ("--jsonl", "--json"):
        local = invoke("score", corpus, fmt, "--fit", "default")
        on_dask = invoke("score", corpus, fmt, "--fit", "default", "--scheduler", scheduler)
        assert local.exit_code == on_dask.exit_code == 0, on_dask.output
        assert on_dask.stdout == local.stdout
        assert dask_note(on_dask.stderr) == local.stderr
    rows = [orjson.loads(line) for line in invoke("score", corpus, "--jsonl", "--fit", "default").stdout.splitlines()]
    assert rows and all("fit_success" in r for r in rows)
    assert any(r["fit_success"] is not None for r in rows)  # the synthetic fit predicts

def test_outcomes_labels_and_warnings_match_the_local_path(scheduler: str) -> None:
    """Trials (one run each), sidecar outcomes, a labels file, unreadable logs skipped with
    the same warnings, the labels no run matched: stdout and stderr as the local path's."""
    args = ("score", OUTCOMES, "--jsonl", "--labels", OUTCOMES / "labels" / "labels.csv")
    local = invoke(*args)
    on_dask = invoke(*args, "--scheduler", scheduler)
    assert local.exit_code == on_dask.exit_code == 0
    assert on_dask.stdout == local.stdout
    assert dask_note(on_dask.stderr) == local.stderr
    assert "label(s) name no run that was read" in local.stderr
    assert "looks like an agent log, but no reader recognizes it" in local.stderr


def test_a_bad_file_is_reported_and_every_other_run_scored(
    scheduler: str, corpus: Path, tmp_path: Path
) -> None:
    mixed = tmp_path / "mixed"
    shutil.copytree(corpus, mixed)
    good = invoke("score", mixed, "--jsonl")
    bad = mixed / "a_broken.jsonl"  # read first: the local path stops here
    lines = (corpus / "needle_lookup__H1__sim-base.jsonl").read_text().splitlines()
    bad.write_text("\n".join([*lines[:5], '{"type": "step", "t": ', *lines[5:9]]) + "\n")
    local = invoke("score", mixed, "--jsonl")
    assert local.exit_code == 2 and local.stdout == ""
    assert f"efc-tui: error: {bad}:6: not valid JSON" in local.stderr
    on_dask = invoke("score", mixed, "--jsonl", "--scheduler", scheduler)
    assert on_dask.exit_code == 2
    assert f"efc-tui: error: {bad}:6: not valid JSON" in on_dask.stderr
    assert "1 of 7 source(s) could not be read" in on_dask.stderr
    assert on_dask.stdout == good.stdout  # no run of the other files is lost


@pytest.mark.parametrize("curve", ["saturating", "power"])
def test_fit_on_dask_is_byte_identical_to_the_local_path(
    scheduler: str, corpus: Path, tmp_path: Path, curve: str
) -> None:
    """Rows scored on the workers, the bootstrap's 300 resamples fitted there in 3 pieces:
    the same fit file, byte for byte, and the same tables, for either failure curve."""
    args = ("--bootstrap", "300", "--seed", "5", "--holdout", "harness", "--no-terminal-plot", "--curve", curve)
    local = invoke("fit", corpus, "-o", tmp_path / "local.json", *args)
    on_dask = invoke("fit", corpus, "-o", tmp_path / "dask.json", *args, "--scheduler", scheduler)
    assert local.exit_code == 0 and on_dask.exit_code == 0, on_dask.output
    assert (tmp_path / "dask.json").read_bytes() == (tmp_path / "local.json").read_bytes()
    assert on_dask.stdout == local.stdout
    doc = json.loads((tmp_path / "dask.json").read_text())
    assert doc["settings"]["bootstrap"] == 300 and doc["model"]["curve"] == curve
    assert any((p.get("bootstrap") or {}).get("resamples") == 300 for p in doc["predictors"])


def test_fit_with_a_bad_file_fits_every_other_run_and_exits_2(
    scheduler: str, corpus: Path, tmp_path: Path
) -> None:
    mixed = tmp_path / "mixed"
    shutil.copytree(corpus, mixed)
    args = ("--bootstrap", "0", "--no-terminal-plot")
    assert invoke("fit", mixed, "-o", tmp_path / "good.json", *args).exit_code == 0
    bad = mixed / "zz_broken.jsonl"  # read last: the local path has scored the rest by then
    bad.write_text('{"type": "run", "schema": "efc-trace/1", "run_id": "x"}\nnot json\n')
    assert invoke("fit", mixed, "-o", tmp_path / "local.json", *args).exit_code == 2
    assert not (tmp_path / "local.json").exists()
    r = invoke("fit", mixed, "-o", tmp_path / "dask.json", *args, "--scheduler", scheduler)
    assert r.exit_code == 2
    assert f"efc-tui: error: {bad}:2: not valid JSON" in r.stderr
    good = json.loads((tmp_path / "good.json").read_text())
    fitted = json.loads((tmp_path / "dask.json").read_text())
    assert fitted["notes"] == [
        *good["notes"],
        f"1 source(s) could not be read and are not in this fit: {bad}",
    ]
    fitted["notes"] = good["notes"]
    fitted["corpus"]["inputs"] = good["corpus"]["inputs"]
    assert fitted == good


def test_runs_of_a_large_file_spread_over_workers_keep_their_order(
    scheduler: str, corpus: Path
) -> None:
    """A file of more runs than a batch is read once and scored on every worker."""
    from distributed import Client

    from efc_tui.cluster.client import run_sources
    from efc_tui.cluster.work import Job, Source, read_source
    from efc_tui.parsers import Outcomes
    from efc_tui.scoring import load_estimator

    sources = [Source(i, str(p)) for i, p in enumerate(sorted(corpus.glob("*.jsonl")))]
    job = Job("score", load_estimator(None), outcomes=Outcomes(), documents=True, batch=3)
    here = [
        read_source(s, Job("score", job.estimator, outcomes=Outcomes(), documents=True, batch=0))
        for s in sources
    ]
    with Client(scheduler) as client:
        there = list(run_sources(client, sources, job))
    assert [r.index for r in there] == list(range(len(sources)))
    assert [[(i.row, i.document) for i in r.items] for r in there] == [
        [(i.row, i.document) for i in r.items] for r in here
    ]
    assert sum(len(r.items) for r in there) == 48


def test_a_url_is_read_like_the_local_path(scheduler: str, corpus: Path) -> None:
    local = invoke("score", corpus, "--jsonl")
    on_dask = invoke("score", corpus.as_uri(), "--jsonl", "--scheduler", scheduler)
    assert on_dask.exit_code == 0, on_dask.output
    assert on_dask.stdout == local.stdout.replace(f'"{corpus}/', f'"{corpus.as_uri()}/')


def test_url_sources_get_the_local_paths_runs_and_outcomes() -> None:
    """Planned from an fsspec listing and fetched into a mirror, every fixture folder (Harbor
    and Terminal-Bench trials, SWE-bench reports, metadata beside logs) gives the runs and
    outcomes the local discovery gives (no cluster: the sources are read in this process)."""
    pytest.importorskip("fsspec")
    from efc_tui.cluster.remote import plan_url
    from efc_tui.cluster.work import Job, Source, read_source
    from efc_tui.parsers import Outcomes, discover
    from efc_tui.scoring import load_estimator

    job = Job("score", load_estimator(None), outcomes=Outcomes(), token="test")
    for folder in sorted(p for p in OUTCOMES.iterdir() if p.is_dir()):
        found = discover([folder])
        local = [read_source(Source(i, str(p)), job) for i, p in enumerate(found.sources)]
        remote = [read_source(s, job) for s in plan_url(folder.as_uri())]
        rows = [it.row for r in local for it in r.items]
        url_rows = [it.row for r in remote for it in r.items]
        assert str(url_rows).replace("file://", "") == str(rows), folder.name
        skipped = {Path(r.path).name: r.looks_like for r in remote if r.error}
        expected = {Path(r.path).name: r.looks_like for r in local if r.error}
        if folder.name == "job_unreadable":  # discovery leaves such a trial out, with a warning
            assert found.unreadable_trials and not found.sources
            expected["fix-build__X1"] = "trial"
        elif folder.name == "mini_eval":  # the SWE-bench summary: a sidecar, never a log
            expected["openai__gpt-4o-mini.eval1.json"] = "sidecar"
        assert skipped == expected, folder.name


def test_an_unexpected_failure_names_its_file_and_spares_the_rest(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import efc_tui.parsers
    from efc_tui.cluster.work import Job, Source, read_source
    from efc_tui.scoring import load_estimator

    real = efc_tui.parsers.load

    def load(path, *a, **k):  # a reader bug on one file
        if "H1" in str(path):
            raise ZeroDivisionError("division by zero")
        return real(path, *a, **k)

    monkeypatch.setattr(efc_tui.parsers, "load", load)
    job = Job("score", load_estimator(None))
    results = [
        read_source(Source(i, str(p)), job) for i, p in enumerate(sorted(corpus.glob("*.jsonl")))
    ]
    broken = [r for r in results if r.error]
    assert [r.error_kind for r in broken] == ["internal", "internal"]
    assert all(
        r.error and r.error.startswith(r.path) and "ZeroDivisionError" in r.error for r in broken
    )
    assert sum(len(r.items) for r in results) == 48 - 16


def test_dask_options_and_urls_need_a_cluster(corpus: Path) -> None:
    r = invoke("score", corpus.as_uri())
    assert r.exit_code == 2 and "URLs are read on Dask: add --dask" in r.stderr
    r = invoke("score", corpus, "--scheduler", "tcp://127.0.0.1:1", "--dask-workers", "2")
    assert r.exit_code == 2 and "--dask-workers sizes a local cluster" in r.stderr


def test_a_local_cluster_is_quiet_when_port_8787_is_taken() -> None:
    """A user's own Dask dashboard usually holds port 8787: ``--dask`` must not print
    distributed's "Port 8787 is already in use" warning into the command's stderr."""
    import socket
    import warnings

    from efc_tui.cluster.client import connect

    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 8787))  # taken already: the case under test anyway
        holder.listen()
    except OSError:
        pass
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with connect(workers=1) as client:
                assert client.submit(sum, [1, 2]).result() == 3
    finally:
        holder.close()
    assert not [w for w in caught if "already in use" in str(w.message)]


class _FlakyClient:
    """A stand-in Client whose gather fails ``failures`` times with ``error``."""

    def __init__(self, failures: int, error: BaseException) -> None:
        self.failures, self.error = failures, error
        self.sent = 0
        self.cancelled = 0

    def scatter(self, value: object, **_: object) -> object:
        return value

    def submit(self, fn: Any, piece: Any, shared: Any, **_: object) -> tuple[Any, Any, Any]:
        self.sent += 1
        return (fn, piece, shared)

    def gather(self, futures: list[tuple[Any, Any, Any]]) -> list[Any]:
        if self.failures:
            self.failures -= 1
            raise self.error
        return [fn(piece, shared) for fn, piece, shared in futures]

    def cancel(self, futures: object) -> None:
        self.cancelled += 1


def test_a_bootstrap_transfer_the_transport_breaks_is_sent_once_more() -> None:
    """Seen under load: tornado's stream raised a bare AssertionError while the results
    came back. The pieces are pure, so they are sent again and give the same numbers;
    a failure of the work itself, or a second failure, is raised."""
    from efc_tui.cluster.client import bootstrap_map

    def fn(piece: Any, shared: Any) -> Any:
        return piece * shared

    def run(client: _FlakyClient, pieces: list[int]) -> Any:
        return bootstrap_map(client)(fn, 10, iter(pieces))  # type: ignore[arg-type]

    client = _FlakyClient(1, AssertionError())
    assert run(client, [1, 2, 3]) == [10, 20, 30]
    assert client.sent == 6 and client.cancelled == 1
    with pytest.raises(ValueError):
        run(_FlakyClient(1, ValueError("bad piece")), [1])
    with pytest.raises(AssertionError):
        run(_FlakyClient(2, AssertionError()), [1])
