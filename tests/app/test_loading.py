"""The replay screen's loader (``efc_tui.app.loading``, no Textual): the updates it gives
for each kind of input, following a growing log, and one scoring pass at a time."""

from __future__ import annotations

import ast
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from msgspec.structs import replace

from efc_tui.app.loading import (
    Events,
    FirstUpdates,
    Header,
    Loaded,
    RunLoader,
    ScorePasses,
    SeveralRuns,
    follow_problem,
)
from efc_tui.errors import InputError
from efc_tui.model import Event, EventKind, Run
from efc_tui.parsers import load
from tests.conftest import FIXTURES, REPO

APP = FIXTURES / "app"


def _events(updates: Sequence[object]) -> list[Event]:
    return [e for u in updates if isinstance(u, Events) for e in u.events]


@pytest.mark.parametrize("batch_seconds", [0.0, 60.0])
def test_a_native_trace_arrives_as_header_batches_then_loaded(batch_seconds: float) -> None:
    loader = RunLoader(APP / "small.jsonl", batch_seconds=batch_seconds)
    assert loader.progressive
    updates = list(loader.updates())
    assert isinstance(updates[0], Header) and updates[0].run.events == []
    assert isinstance(updates[-1], Loaded)
    [expected] = list(load(APP / "small.jsonl"))
    assert _events(updates) == expected.events
    batches = [u for u in updates if isinstance(u, Events)]
    assert batches[-1].fraction == 1.0
    assert all(b.start is None and not b.followed for b in batches)


def test_a_native_trace_first_sends_the_events_of_its_first_64_kb(tmp_path: Path) -> None:
    """The first read of a native trace is small (a screenful of rows in ~10 ms, not a
    1 MB batch); the batches after it still add up to the whole read."""
    from efc_tui.app.loading import PREVIEW_BYTES
    from efc_tui.parsers.native_writer import write_runs

    [run] = list(load(APP / "small.jsonl"))
    events = [
        replace(e, index=i, observation_text=e.observation_text + " x" * 400)
        for i, e in enumerate(run.events * 40)
    ]
    path = write_runs(tmp_path / "long.jsonl", [replace(run, events=events)])
    size = path.stat().st_size
    assert size > 4 * PREVIEW_BYTES[0]
    loader = RunLoader(path, batch_seconds=0.0)
    loader.painted.set()  # no screen to wait for
    updates = list(loader.updates())
    batches = [u for u in updates if isinstance(u, Events) and u.events]
    assert batches[0].fraction is not None and batches[0].fraction <= PREVIEW_BYTES[0] / size
    assert 10 < len(batches[0].events) < len(events)
    [expected] = list(load(path))
    assert _events(updates) == expected.events


def test_other_files_are_read_whole(tmp_path: Path) -> None:
    import gzip

    gz = tmp_path / "small.jsonl.gz"
    gz.write_bytes(gzip.compress((APP / "small.jsonl").read_bytes()))
    loader = RunLoader(gz)
    assert not loader.progressive
    updates = list(loader.updates())
    assert [type(u) for u in updates] == [Header, Events, Loaded]
    assert _events(updates) == next(iter(load(gz))).events


def test_a_file_of_several_runs_says_so_unless_from_the_picker() -> None:
    updates = list(RunLoader(APP / "two_runs.jsonl").updates())
    assert isinstance(updates[-1], SeveralRuns)
    second = list(RunLoader(APP / "two_runs.jsonl", ordinal=1, from_picker=True).updates())
    header = second[0]
    assert isinstance(header, Header) and header.run.run_id == "pair-1"
    with pytest.raises(InputError, match="no run #5"):
        list(RunLoader(APP / "two_runs.jsonl", ordinal=5, from_picker=True).updates())


def test_bad_input_raises_the_input_error(tmp_path: Path) -> None:
    lines = (APP / "small.jsonl").read_bytes().splitlines(keepends=True)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"".join(lines[:4]) + b"{oops\n" + b"".join(lines[4:]))
    with pytest.raises(InputError, match=r"bad\.jsonl:5"):
        list(RunLoader(bad).updates())


def test_following_a_native_log_sends_only_appended_events(tmp_path: Path) -> None:
    lines = (APP / "small.jsonl").read_bytes().splitlines(keepends=True)
    log = tmp_path / "live.jsonl"
    log.write_bytes(b"".join(lines[:6]))
    loader = RunLoader(log, follow=True)
    assert len(_events(list(loader.updates()))) == 5
    assert loader.poll() is None  # nothing new
    with log.open("ab") as f:
        f.write(b"".join(lines[6:9]))
    got = loader.poll()
    assert got is not None and got.followed and [e.index for e in got.events] == [5, 6, 7]
    log.write_bytes(b"".join(lines[:2]))  # truncated: following stops, with a warning
    stop = loader.poll()
    assert stop is not None and "shrank" in stop.warnings[0] and loader.stopped
    assert loader.poll() is None


def test_score_passes_run_one_at_a_time() -> None:
    p = ScorePasses()
    assert p.request() and p.running
    assert not p.request()  # one is running: asks for one more
    assert p.finished(more=False) and p.running  # the asked-for pass starts at once
    assert not p.finished(more=False) and not p.running
    assert p.request()
    assert p.finished(more=True)  # more events than the pass covered
    assert not p.finished(more=False)


def test_first_updates_hand_over_the_first_rows_then_refuse() -> None:
    """What the load puts before the first rows (or the end) is taken whole; after the
    take, the load is told to post its updates itself."""
    header, rows = Header(Run(run_id="r")), Events([Event(index=0, step=0, kind=EventKind.TOOL)])
    empty = Events([])
    early = FirstUpdates()
    assert early.put(header) and early.put(empty)  # no rows yet: not ready
    assert early.put(rows)  # ready: take() returns at once
    t = time.perf_counter()
    assert early.take(60.0) == [header, empty, rows]
    assert time.perf_counter() - t < 30.0
    assert not early.put(Loaded())  # taken: the caller sends it as a message
    assert early.take(0.0) == []


@pytest.mark.parametrize("end", [SeveralRuns(), Loaded()])
def test_first_updates_are_ready_at_the_end_of_a_load_without_rows(end: object) -> None:
    early = FirstUpdates()
    header = Header(Run(run_id="r"))
    assert early.put(header) and early.put(end)  # type: ignore[arg-type]
    assert early.take(60.0) == [header, end]


def test_first_updates_wait_no_longer_than_told_nor_after_a_close() -> None:
    early = FirstUpdates()
    header = Header(Run(run_id="r"))
    early.put(header)
    t = time.perf_counter()
    assert early.take(0.05) == [header]  # no rows in time: what there is
    assert time.perf_counter() - t >= 0.05
    closed = FirstUpdates()
    closed.close()  # the load failed: nothing to wait for
    t = time.perf_counter()
    assert closed.take(60.0) == [] and time.perf_counter() - t < 30.0


def test_first_updates_from_a_thread_arrive_in_order() -> None:
    early = FirstUpdates()
    updates = list(RunLoader(APP / "small.jsonl").updates())
    sent: list[object] = []

    def load() -> None:
        for u in updates:
            if not early.put(u):
                sent.append(u)
        early.close()

    thread = threading.Thread(target=load)
    thread.start()
    taken = early.take(60.0)
    thread.join()
    assert taken and taken + sent == updates
    assert any(isinstance(u, Events) and u.events for u in taken)


def test_follow_problem() -> None:
    assert follow_problem(APP / "small.jsonl", None) is None
    msg = follow_problem(FIXTURES / "agents" / "mini_v2_parallel.traj.json", None)
    assert msg is not None and "--follow reads" in msg


def test_screens_never_call_the_app() -> None:
    """Screens and widgets talk upward by messages: none imports the app module or reaches
    for app-specific members (efc_app)."""
    for path in [
        *(REPO / "efc_tui" / "app" / "screens").glob("*.py"),
        *(REPO / "efc_tui" / "app" / "widgets").glob("*.py"),
    ]:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.module != "efc_tui.app.app", path.name
            if isinstance(node, ast.Attribute):
                assert node.attr != "efc_app", f"{path.name}:{node.lineno}"


def test_the_app_imports_no_scoring_before_its_first_frame() -> None:
    """The first frame of `efc-tui open` needs Textual and a reader: numpy, scipy, the
    scoring code and the fit are imported by the first scoring pass (a worker, after the
    first frame is drawn), so importing the app loads none of them."""
    from tests.cli.test_import_cost import imported

    mods = imported("import efc_tui.app.app")
    assert "textual" in mods
    assert not {"numpy", "scipy", "pandas", "pygments"} & {m.split(".")[0] for m in mods}
    assert not [
        m
        for m in mods
        if m.startswith(("efc_tui.scoring.", "efc_tui.adapter", "efc_tui.fitting"))
        and m not in ("efc_tui.scoring.columns", "efc_tui.scoring.figures")  # plain data
    ]


FIRST_FRAME_PROBE = """
import asyncio, os, sys
os.environ["TEXTUAL_ANIMATIONS"] = "none"
from efc_tui.app.app import EfcApp
from efc_tui.app.screens.replay import ReplayScreen


def first_rows_painted(self):
    print(self.data.n_rows)  # what is imported when the frame that first shows rows is drawn
    print("\\n".join(sorted(sys.modules)), flush=True)
    os._exit(0)


ReplayScreen._first_rows_painted = first_rows_painted


async def drive(app):
    async with app.run_test(size=(120, 40)):
        while not app.failure:
            await asyncio.sleep(0.01)
        raise SystemExit(app.failure)

EfcApp.run = lambda self, *a, **k: asyncio.run(drive(self))
from efc_tui.cli import main
sys.argv = ["efc-tui", "open", sys.argv[1]]
main()
"""


@pytest.mark.parametrize("name", ["agents/mini_v2_parallel.traj.json", "app/small.jsonl"])
def test_efc_tui_open_imports_no_scoring_before_its_first_frame(name: str) -> None:
    """The whole path of `efc-tui open PATH` (the CLI's checks, detection, the app) up to the
    frame that first shows rows: numpy, the scoring code, the estimator and the fit come
    after it (a default --estimator / --fit is read by the app, in a worker)."""
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME_PROBE, str(FIXTURES / name)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    rows, *mods = r.stdout.split()
    assert int(rows) > 0 and "textual" in mods
    assert not {"numpy", "scipy", "pandas", "pygments"} & {m.split(".")[0] for m in mods}
    assert not [
        m
        for m in mods
        if m.startswith(("efc_tui.scoring.", "efc_tui.adapter", "efc_tui.fitting"))
        and m not in ("efc_tui.scoring.columns", "efc_tui.scoring.figures")  # plain data
    ]
    # what the first frame does not show is imported after it: the Footer (mounted then)
    assert "textual.widgets._footer" not in mods


def test_code_in_the_first_event_is_highlighted_after_the_first_frame(tmp_path: Path) -> None:
    """A SWE-agent log whose first event is a shell command: its first frame shows the text
    plain, and Pygments (a lexer, ~20 ms) is imported once that frame is drawn."""
    import subprocess
    import sys

    from tests.readers.test_bench_docgen import docgen

    suffix, generate = docgen.FORMATS["swe-agent"]
    path = tmp_path / f"run{suffix}"
    generate(path, 400, 0)  # large enough to be previewed, as a long log is
    r = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME_PROBE, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    rows, *mods = r.stdout.split()
    assert int(rows) > 0 and "pygments" not in {m.split(".")[0] for m in mods}


def test_a_previewed_log_gets_its_outcome_once_its_first_rows_are_painted(tmp_path: Path) -> None:
    """A log large enough to be previewed is shown before its sidecars are looked for: the
    first frame imports none of the sidecar machinery, and the header follows with the
    outcome (here from a metadata.json beside the log) once the first rows are painted."""
    import subprocess
    import sys

    from efc_tui.parsers import load
    from tests.readers.test_bench_docgen import docgen

    suffix, generate = docgen.FORMATS["mini-swe-agent"]
    path = tmp_path / f"run{suffix}"
    generate(path, 400, 0)
    (tmp_path / "metadata.json").write_text('{"passed": true}')
    [whole] = load(path)
    assert whole.success is True  # what the sidecar says

    loader = RunLoader(path)
    loader.painted.set()
    headers = [u for u in loader.updates() if isinstance(u, Header)]
    assert headers[0].run.success is None  # the preview: no outcome yet
    assert (headers[1].run.success, headers[1].run.success_from) == (True, whole.success_from)
    assert (headers[-1].run.success, headers[-1].run.success_from) == (True, whole.success_from)

    r = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME_PROBE, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    rows, *mods = r.stdout.split()
    assert int(rows) > 0 and "efc_tui.parsers.sidecars" not in mods
