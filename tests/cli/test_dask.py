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
    for CI's own time limit (a safety net: the hang once seen, the CLI waiting in
    ``as_completed`` with both workers idle, had a cause now fixed: docs/dask.md)."""
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
    rows = [
        orjson.loads(line)
        for line in invoke("score", corpus, "--jsonl", "--fit", "default").stdout.splitlines()
    ]
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
    args = (
        "--bootstrap",
        "300",
        "--seed",
        "5",
        "--holdout",
        "harness",
        "--no-terminal-plot",
        "--curve",
        curve,
    )
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

    from efc_tui.cluster.source import Source
    from efc_tui.cluster.tasks import read_source, run_sources
    from efc_tui.parsers import Outcomes
    from efc_tui.pipeline.score import Job
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
    from efc_tui.cluster.source import Source
    from efc_tui.cluster.tasks import read_source
    from efc_tui.parsers import Outcomes, discover
    from efc_tui.pipeline.score import Job
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
    from efc_tui.cluster.source import Source
    from efc_tui.cluster.tasks import read_source
    from efc_tui.pipeline.score import Job
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


class _Shared:
    """A fake scattered value."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def release(self) -> None:
        pass


def _value(x: Any) -> Any:
    return x.value if isinstance(x, _Shared) else x


class _FakeFuture:
    def __init__(self, client: _FakeClient, key: str, value: Any, fate: str) -> None:
        self.client, self.key, self._value, self.fate = client, key, value, fate
        self.status = "pending"
        self.released = False

    def add_done_callback(self, callback: Any) -> None:
        if self.fate in ("never", "slow"):  # the result message does not come (yet)
            self.client.waiting.append((self, callback))
            return
        self.status = "error" if self.fate == "error" else "finished"
        callback(self)

    def result(self, timeout: float | None = None) -> Any:
        if self.fate == "error":
            raise self._value
        if self.fate == "broken":  # the transport broke the transfer (seen: tornado's assert)
            raise AssertionError()
        return self._value

    def release(self) -> None:
        self.released = True


class _FakeClient:
    """A stand-in Client that runs each task here when it is sent. ``fates`` says, in the
    order of sending, what happens to each: "ok"; "never" (its result never arrives, the
    workers idle); "slow" (it arrives once the workers have been seen busy ``busy``
    times; ``workers=False``: seen with no worker at all); "broken" (fetching the result fails in the transport); "error" (the task fails
    on the cluster)."""

    def __init__(self, fates: list[str], busy: int = 0, workers: bool = True) -> None:
        self.fates, self.busy, self.workers = list(fates), busy, workers
        self.sent: list[Any] = []
        self.waiting: list[tuple[_FakeFuture, Any]] = []
        self.checks = 0
        self.status = "running"

    def scatter(self, value: Any, **_: object) -> _Shared:
        return _Shared(value)

    def scheduler_info(self) -> dict[str, Any]:
        return {"workers": {"w1": {}, "w2": {}}}

    def _send(
        self, fn: Any, item: Any, extra: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> _FakeFuture:
        fate = self.fates.pop(0) if self.fates else "ok"
        self.sent.append(item)
        if fate == "error":
            value: Any = ZeroDivisionError("in the task")
        else:
            value = fn(item, *map(_value, extra), **{k: _value(v) for k, v in kwargs.items()})
        return _FakeFuture(self, f"task-{len(self.sent)}", value, fate)

    def map(
        self, fn: Any, items: list[Any], *columns: list[Any], pure: bool, **kwargs: Any
    ) -> list[_FakeFuture]:
        assert pure is False
        return [
            self._send(fn, item, tuple(c[i] for c in columns), kwargs)
            for i, item in enumerate(items)
        ]

    def submit(
        self, fn: Any, item: Any, *extra: Any, pure: bool, priority: int = 0, **kwargs: Any
    ) -> _FakeFuture:
        assert pure is False  # a new key: a send again is a new task, not the lost one
        return self._send(fn, item, extra, kwargs)

    def processing(self) -> dict[str, list[str]]:
        self.checks += 1
        if self.busy:
            self.busy -= 1
            if not self.busy:  # the long task finishes: its result arrives
                for future, callback in [w for w in self.waiting if w[0].fate == "slow"]:
                    future.fate = "ok"
                    future.status = "finished"
                    callback(future)
            return {"w1": ["task-1"], "w2": []} if self.workers else {}
        return {"w1": [], "w2": []}


@pytest.fixture
def quick_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cluster is asked whether it works after 10 ms without a result, not 10 s (no
    test here asserts any time: this only keeps the fake-cluster tests short)."""
    from efc_tui.cluster import client

    monkeypatch.setattr(client, "IDLE_CHECK_S", 0.01)


def _bootstrap(client: _FakeClient, pieces: list[int]) -> Any:
    from efc_tui.cluster.client import bootstrap_map

    def fn(piece: Any, shared: Any) -> Any:
        return piece * shared

    return bootstrap_map(client)(fn, 10, iter(pieces))  # type: ignore[arg-type]


@pytest.mark.usefixtures("quick_checks")
def test_a_bootstrap_piece_whose_result_is_lost_is_sent_again() -> None:
    """A result that never arrives while the workers idle (the lost message behind the old
    hang), or whose transfer breaks (the AssertionError tornado raised), is sent again; the
    pieces are pure, so the numbers are the same and in order."""
    client = _FakeClient(["ok", "never", "broken", "ok"])
    assert _bootstrap(client, [1, 2, 3, 4]) == [10, 20, 30, 40]
    assert sorted(client.sent) == [1, 2, 2, 3, 3, 4]  # the lost and the broken one, twice


@pytest.mark.usefixtures("quick_checks")
def test_a_slow_task_is_waited_for_while_the_cluster_works() -> None:
    """No result for a while, but a worker is busy: nothing is sent again."""
    client = _FakeClient(["slow", "ok"], busy=5)
    assert _bootstrap(client, [1, 2]) == [10, 20]
    assert client.sent == [1, 2] and client.checks >= 5
    # nor while it has no worker (scaling up from none, restarting them): waited for
    client = _FakeClient(["slow", "ok"], busy=5, workers=False)
    assert _bootstrap(client, [1, 2]) == [10, 20]
    assert client.sent == [1, 2] and client.checks >= 5


@pytest.mark.usefixtures("quick_checks")
def test_a_bootstrap_piece_that_fails_or_is_never_answered_ends_the_fit() -> None:
    """A piece that fails on the cluster is not sent again (Dask retried it already): its
    error is raised. One without a result after ATTEMPTS sends raises ClusterError, whose
    message the CLI prints as its one error line."""
    from efc_tui.cluster.client import ATTEMPTS, ClusterError

    client = _FakeClient(["ok", "error"])
    with pytest.raises(ZeroDivisionError):
        _bootstrap(client, [1, 2])
    assert client.sent == [1, 2]
    client = _FakeClient(["never"] * ATTEMPTS)
    with pytest.raises(
        ClusterError, match=f"got no result from the cluster after {ATTEMPTS} attempts"
    ):
        _bootstrap(client, [1])
    assert client.sent == [1] * ATTEMPTS


@pytest.mark.usefixtures("quick_checks")
def test_run_sources_sends_lost_sources_again_and_keeps_their_order(corpus: Path) -> None:
    """Sources whose results are lost or broken in transit are read again and come back in
    input order, identical to reading them here; one that fails on the cluster or is never
    answered gets a "lost" error line, and every other source is still read."""
    from efc_tui.cluster.client import ATTEMPTS
    from efc_tui.cluster.source import Source
    from efc_tui.cluster.tasks import read_source, run_sources
    from efc_tui.parsers import Outcomes
    from efc_tui.pipeline.score import Job
    from efc_tui.scoring import load_estimator

    sources = [Source(i, str(p)) for i, p in enumerate(sorted(corpus.glob("*.jsonl")))]
    job = Job("score", load_estimator(None), outcomes=Outcomes(), documents=True)
    here = [[(i.row, i.document) for i in read_source(s, job).items] for s in sources]

    client = _FakeClient(["never", "ok", "broken", "ok", "ok", "never"])
    there = list(run_sources(client, sources, job))  # type: ignore[arg-type]
    assert [r.index for r in there] == list(range(6)) and not any(r.error for r in there)
    assert [[(i.row, i.document) for i in r.items] for r in there] == here
    assert len(client.sent) == 6 + 3

    client = _FakeClient(["error", "ok", "ok", "ok", "ok", *["never"] * ATTEMPTS])
    there = list(run_sources(client, sources, job))  # type: ignore[arg-type]
    assert [r.error_kind for r in there] == ["lost", None, None, None, None, "lost"]
    assert (
        there[0].error == f"{sources[0].path}: lost on the cluster (ZeroDivisionError: in the task)"
    )
    assert there[5].error == (
        f"{sources[5].path}: lost on the cluster "
        f"(_Lost: got no result from the cluster after {ATTEMPTS} attempts)"
    )
    assert [[(i.row, i.document) for i in r.items] for r in there[1:5]] == here[1:5]


@pytest.mark.usefixtures("quick_checks")
def test_runs_spread_from_a_large_file_are_waited_for_boundedly(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker reading a large file sends batches of its runs to the cluster and waits for
    them. All back: the runs are the local read's, in order. A batch whose result never
    comes while the cluster idles makes the source "lost" (an error line naming the file),
    not a worker waiting forever (such a batch is not sent again: its runs are not kept)."""
    import distributed

    from efc_tui.cluster import tasks as work
    from efc_tui.cluster.source import Source
    from efc_tui.cluster.tasks import read_source
    from efc_tui.parsers import Outcomes
    from efc_tui.pipeline.score import Job
    from efc_tui.scoring import load_estimator

    monkeypatch.setattr(distributed, "secede", lambda: None)
    monkeypatch.setattr(distributed, "rejoin", lambda: None)
    source = Source(0, str(sorted(corpus.glob("*.jsonl"))[0]))  # 8 runs: 2 batches of 3 sent
    est = load_estimator(None)
    here = read_source(source, Job("score", est, outcomes=Outcomes(), documents=True, batch=0))
    job = Job("score", est, outcomes=Outcomes(), documents=True, batch=3)

    client = _FakeClient(["ok", "ok"])
    monkeypatch.setattr(work, "_spill_client", lambda: client)
    there = read_source(source, job)
    assert len(client.sent) == 2 and there.error is None
    assert [(i.row, i.document) for i in there.items] == [(i.row, i.document) for i in here.items]

    client = _FakeClient(["ok", "never"])
    monkeypatch.setattr(work, "_spill_client", lambda: client)
    there = read_source(source, job)
    assert len(client.sent) == 2 and there.items == [] and there.error_kind == "lost"
    assert there.error == (
        f"{source.path}: lost on the cluster (Dask: a batch of 3 runs got no result from the cluster)"
    )


def test_run_sources_drives_its_own_client_not_the_process_default(
    scheduler: str, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The flake's cause: ``as_completed`` without a loop tracks futures on the loop of
    the process's default client. In the tests that was this module's cluster client, so
    the CLI client's results were fetched from another client's loop thread: one tornado
    stream used from two threads (tornado's bare AssertionError, garbled messages, a
    result never delivered: the hang). Any use of a default client now fails here."""
    import distributed.client as dclient
    from distributed import Client

    from efc_tui.cluster.client import bootstrap_map, connect
    from efc_tui.cluster.source import Source
    from efc_tui.cluster.tasks import read_source, run_sources
    from efc_tui.parsers import Outcomes
    from efc_tui.pipeline.score import Job
    from efc_tui.scoring import load_estimator

    def no_default(*_: object, **__: object) -> Any:
        raise AssertionError("the process's default client was used")

    sources = [Source(i, str(p)) for i, p in enumerate(sorted(corpus.glob("*.jsonl")))]
    job = Job("score", load_estimator(None), outcomes=Outcomes())
    with Client(scheduler) as other, connect(scheduler) as mine:  # other: the current client
        assert dclient.default_client() is other
        with monkeypatch.context() as m:  # (closing a client looks for the default: undone)
            m.setattr(dclient, "default_client", no_default)
            m.setattr(dclient, "_get_global_client", no_default)
            there = list(run_sources(mine, sources, job))
            pieces = bootstrap_map(mine)(pow, 2, iter([3, 4]))  # type: ignore[arg-type, list-item]
    assert [[i.row for i in r.items] for r in there] == [
        [i.row for i in read_source(s, job).items] for s in sources
    ]
    assert pieces == [9, 16]


def test_a_cluster_that_stops_answering_is_one_error_line(
    scheduler: str, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from efc_tui.cluster import tasks
    from efc_tui.cluster.client import ClusterError

    def gone(*_: object, **__: object) -> Any:
        raise ClusterError("Dask: the cluster stopped answering (CommClosedError: in test)")
        yield

    monkeypatch.setattr(tasks, "run_sources", gone)
    r = invoke("score", corpus, "--jsonl", "--scheduler", scheduler)
    assert r.exit_code == 2 and r.stdout == ""
    assert (
        dask_note(r.stderr)
        == "efc-tui: error: Dask: the cluster stopped answering (CommClosedError: in test)\n"
    )
