"""Previews of large whole-document logs (``efc_tui.parsers.preview``) and the replay
loader that shows them first and then the whole read (``efc_tui.app.loading``).

The invariant that matters: whatever the previews showed, the events on screen after the
load are exactly the whole read's, for every whole-document format."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest

from efc_tui.app import loading
from efc_tui.app.loading import Events, Header, Loaded, RunLoader, SeveralRuns
from efc_tui.errors import EfcError
from efc_tui.model import Event
from efc_tui.parsers import detect, load
from efc_tui.parsers.preview import close_prefix, preview
from tests.conftest import FIXTURES, SHARED
from tests.pilot import pilot_test, settle

# -------------------------------------------------------------------------- close_prefix


@pytest.mark.parametrize(
    ("prefix", "closed"),
    [
        # cut before the last comma of the longest open list; every open bracket closed
        (b'{"a": 1, "ev": [{"x": 1}, {"x": 2}, {"x"', b'{"a": 1, "ev": [{"x": 1}, {"x": 2}]}'),
        # brackets, commas, quotes and backslashes inside strings are text
        (b'[{"a": "x\\"y,]"}, {"b": "[{"}, {"c', b'[{"a": "x\\"y,]"}, {"b": "[{"}]'),
        # a prefix ending inside a string, or after a backslash in one
        (b'{"m": [1, 2, 3, "abc', b'{"m": [1, 2, 3]}'),
        (b'{"m": [1, 2, 3, "a\\', b'{"m": [1, 2, 3]}'),
        # lists before objects: the list of events, not the object around it
        (
            b'{"a": 1, "b": {"c": [1, 2, 3], "d": [4, 5, 6, 7',
            b'{"a": 1, "b": {"c": [1, 2, 3], "d": [4, 5, 6]}}',
        ),
        # the longest list: whole elements of it, not of a shorter list inside the last one
        (b"[[1], [2], [3], [4, 5, 6", b"[[1], [2], [3]]"),
        # no list of two elements yet: the outermost object's whole members
        (b'{"info": {"k": 1}, "messages": [{"role": "user", "n": [1', b'{"info": {"k": 1}}'),
        # the whole document fits: returned as it is (trailing bytes dropped)
        (b'{"a": [1, 2]}  \n', b'{"a": [1, 2]}'),
    ],
)
def test_close_prefix_cuts_at_the_last_element_boundary(prefix: bytes, closed: bytes) -> None:
    out = close_prefix(prefix)
    assert out == closed
    orjson.loads(out)  # valid JSON


@pytest.mark.parametrize(
    "prefix",
    [
        b'{"a": {"b": 1',  # no separator anywhere: nothing complete to keep
        b"]",  # closes what was never opened
        b"[1, 2}",  # closes with the wrong bracket
        b'"just a string',
        b"",
    ],
)
def test_close_prefix_gives_up_on_what_it_cannot_cut(prefix: bytes) -> None:
    assert close_prefix(prefix) is None


def test_every_cut_of_a_document_closes_into_valid_json() -> None:
    doc: dict[str, Any] = {
        "info": {"k": [1, {"z": "a,b]}"}]},
        "messages": [
            {"role": "user", "content": f'line {i} \\ "quoted" [x] {{y}}', "n": [i, i + 1]}
            for i in range(20)
        ],
        "tail": "end",
    }
    data = json.dumps(doc).encode()
    kept = 0
    for n in range(1, len(data)):
        out = close_prefix(data[:n])
        if out is None:
            continue
        value = orjson.loads(out)  # never invalid
        kept += 1
        msgs = value.get("messages", [])
        # whole elements once the list has two (the first may be cut while it is alone)
        whole = msgs if len(msgs) > 1 else []
        assert whole == doc["messages"][: len(whole)]
    assert kept > len(data) // 2


# -------------------------------------------------------------------------- a trajectory


def _trajectory(path: Path, steps: int) -> Path:
    """A mini-swe-agent-1 trajectory (bash block, returncode, usage on every call)."""
    messages: list[dict[str, object]] = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Fix the parser."},
    ]
    for t in range(steps):
        cmd = "python -m pytest tests/test_parser.py" if t % 3 == 0 else f"cat src/mod{t % 7}.py"
        messages.append(
            {
                "role": "assistant",
                "content": f"THOUGHT: step {t}, looking at the code.\n\n```bash\n{cmd}\n```",
                "extra": {
                    "response": {"usage": {"prompt_tokens": 100 + t, "completion_tokens": 20}}
                },
            }
        )
        out = (
            ("=== 1 failed, 3 passed in 0.1s ===" if t % 6 == 0 else "=== 4 passed in 0.1s ===")
            if t % 3 == 0
            else f"def f{t}():\n    return {t}\n" * 5
        )
        messages.append(
            {
                "role": "user",
                "content": f"<returncode>{int(t % 6 == 0)}</returncode>\n"
                f"<output>\n{out}\n</output>",
            }
        )
    doc = {
        "info": {
            "exit_status": "Submitted",
            "mini_version": "1.13.4",
            "config": {"model": {"model_name": "test-model"}},
        },
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1",
    }
    path.write_bytes(orjson.dumps(doc))
    return path


def test_a_preview_reads_the_first_elements_as_the_whole_read_does(tmp_path: Path) -> None:
    path = _trajectory(tmp_path / "run.traj.json", 300)
    [full] = load(path)
    pv = preview(path, 16 << 10)
    assert pv is not None and not pv.complete
    [run] = pv.runs
    n = len(run.events)
    assert 10 < n < len(full.events)
    # every event but the last (whose result may be past the cut) is the whole read's
    assert run.events[: n - 1] == full.events[: n - 1]
    assert (run.model, run.task_id, run.source_format) == (
        full.model,
        full.task_id,
        full.source_format,
    )


def test_a_preview_of_a_short_file_or_a_line_format_is_the_whole_read(tmp_path: Path) -> None:
    path = _trajectory(tmp_path / "run.traj.json", 5)
    pv = preview(path, 1 << 20)
    assert pv is not None and pv.complete
    assert pv.runs[0].events == next(iter(load(path))).events
    jsonl = FIXTURES / "agents" / "codex_session.jsonl"
    pv = preview(jsonl, jsonl.stat().st_size + 1)
    assert pv is not None and pv.complete
    assert pv.runs[0].events == next(iter(load(jsonl))).events


def test_a_preview_limit_travels_with_its_read_and_names_one_file(tmp_path: Path) -> None:
    """The limit is part of the read's options, not of the process: it cuts the file it
    names and no other (a sidecar the reader opens with the same options is read whole),
    and a read without it, even of the same file, is whole."""
    from efc_tui.parsers.base import ReadOptions, open_binary, read_all
    from efc_tui.parsers.preview import PreviewLimit

    log = _trajectory(tmp_path / "run.traj.json", 300)
    side = tmp_path / "side.json"
    side.write_bytes(log.read_bytes())
    opts = ReadOptions(preview=PreviewLimit(log, 4096))
    cut = read_all(log, opts)
    assert len(cut) < log.stat().st_size and json.loads(cut)  # cut, closed, valid
    assert read_all(side, opts) == read_all(log) == log.read_bytes()
    with open_binary(log, opts) as f:
        assert len(f.read()) <= 4096
    assert opts.limit(side) is None and opts.limit(log) is opts.preview


def test_a_log_read_line_by_line_is_previewed_from_its_first_whole_lines() -> None:
    jsonl = FIXTURES / "agents" / "codex_session.jsonl"
    [full] = load(jsonl)
    data = jsonl.read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 1
    pv = preview(jsonl, cut + 10)  # ten bytes into the next line: that line is left out
    assert pv is not None and not pv.complete
    [run] = pv.runs
    assert 0 < len(run.events) < len(full.events)
    assert run.events[:-1] == full.events[: len(run.events) - 1]
    assert not run.warnings  # no cut-short last line: the preview ends on a whole line


def test_a_start_that_makes_no_document_gives_no_preview(tmp_path: Path) -> None:
    path = _trajectory(tmp_path / "run.traj.json", 50)
    assert preview(path, 40) is None  # not one whole element yet


def test_bad_input_is_still_reported_by_the_whole_read(tmp_path: Path) -> None:
    path = _trajectory(tmp_path / "run.traj.json", 200)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 50])  # the end is cut off
    loader = RunLoader(path)
    with pytest.raises(Exception, match="not valid JSON"):
        list(loader.updates())


# -------------------------------------------------------------------------- the loader


def _unpainted(loader: RunLoader) -> RunLoader:
    """A loader with no screen: nothing to wait for before reading on."""
    loader.painted.set()
    return loader


def _replay(updates: Sequence[object]) -> tuple[list[Event], list[Header]]:
    """The events on screen after applying the updates as the replay screen does."""
    shown: list[Event] = []
    headers: list[Header] = []
    for u in updates:
        if isinstance(u, Header):
            headers.append(u)
        elif isinstance(u, Events):
            if u.start is not None:
                del shown[u.start :]
            shown.extend(u.events)
    return shown, headers


def _logs() -> list[Path]:
    """Every log the tests have that a reader takes (every format; ../shared's real ones
    when present), but the native format's progressive reader's own."""
    roots = [FIXTURES / "agents", FIXTURES / "formats", FIXTURES / "more", FIXTURES / "outcomes"]
    if SHARED is not None and (SHARED / "fixtures" / "real").is_dir():
        roots.append(SHARED / "fixtures" / "real")
    out = []
    for root in roots:
        for p in sorted(root.rglob("*")):
            if not p.is_file() or p.stat().st_size < 200:
                continue
            try:
                if detect(p).name != "native" or p.suffix == ".gz":
                    out.append(p)
            except Exception:
                continue
    return out


@pytest.mark.parametrize("path", _logs(), ids=lambda p: p.name)
def test_whatever_the_previews_show_the_load_ends_with_the_whole_read(
    path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    size = path.stat().st_size
    monkeypatch.setattr(loading, "PREVIEW_BYTES", (max(64, size // 6), max(128, size // 2)))
    monkeypatch.setattr(loading, "PREVIEW_MIN_RATIO", 1)
    try:
        runs = list(load(path))
    except EfcError as exc:  # bad input: the load fails the same way, whatever was previewed
        with pytest.raises(EfcError) as failed:
            list(_unpainted(RunLoader(path)).updates())
        assert str(failed.value) == str(exc)
        return
    updates = list(_unpainted(RunLoader(path, from_picker=len(runs) > 1)).updates())
    assert isinstance(updates[-1], Loaded)
    shown, headers = _replay(updates)
    assert shown == runs[0].events
    assert headers[-1].run.run_id == runs[0].run_id
    assert headers[-1].run.model == runs[0].model
    assert updates[-1].flags == runs[0].flags


def test_a_large_trajectory_is_shown_from_its_first_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _trajectory(tmp_path / "run.traj.json", 2000)
    monkeypatch.setattr(loading, "PREVIEW_BYTES", (16 << 10, 128 << 10))
    [full] = load(path)
    updates = list(_unpainted(RunLoader(path)).updates())
    kinds = [
        type(u).__name__ + ("(preview)" if getattr(u, "preview", False) else "") for u in updates
    ]
    # the header again once the first rows are painted, with the run's outcome (the preview
    # is read without: sidecars wait for the first frame), here the exit status the reader
    # keeps in ``extra``; and again after the whole read: the end of the document holds
    # trajectory_format
    assert kinds == [
        "Header",
        "Events(preview)",
        "Header",
        "Events(preview)",
        "Header",
        "Events",
        "Loaded",
    ]
    assert updates[0].run.exit_status is None  # type: ignore[union-attr]
    assert updates[2].run.exit_status == full.exit_status == "Submitted"  # type: ignore[union-attr]
    assert updates[4].run.extra["trajectory_format"] == "mini-swe-agent-1"  # type: ignore[union-attr]
    assert "trajectory_format" not in updates[2].run.extra  # type: ignore[union-attr]
    first, second, last = (u for u in updates if isinstance(u, Events))
    assert 10 < len(first.events) < len(second.events) + (second.start or 0) < len(full.events)
    # the second preview and the whole read revise at most the last event shown (an action
    # whose result was past the cut)
    assert second.start in (None, len(first.events) - 1)
    assert last.start is None or last.start >= len(first.events) + len(second.events) - 2
    assert _replay(updates)[0] == full.events
    assert 0 < first.fraction < second.fraction < 1 == last.fraction  # type: ignore[operator]


def test_a_preview_holding_two_runs_opens_the_picker(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tau-bench results list of three tasks: the picker opens as soon as a preview shows
    a second run, without reading the rest; from the picker, run #1 ends as the whole
    read's run #1."""
    src = (
        FIXTURES
        / "formats"
        / "tau_bench"
        / "tool-calling-gpt-4o-0.0_range_0-3_user-gpt-4o-llm_0612073827.json"
    )
    runs = list(load(src))
    assert len(runs) == 3
    size = src.stat().st_size
    monkeypatch.setattr(loading, "PREVIEW_BYTES", (size - 40,))  # cut in the last run
    monkeypatch.setattr(loading, "PREVIEW_MIN_RATIO", 1)
    assert [type(u) for u in _unpainted(RunLoader(src)).updates()] == [SeveralRuns]
    updates = list(_unpainted(RunLoader(src, ordinal=1, from_picker=True)).updates())
    assert any(isinstance(u, Events) and u.preview for u in updates)
    assert _replay(updates)[0] == runs[1].events


# -------------------------------------------------------------------------- the app


@pilot_test
async def test_the_first_frame_already_shows_rows(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One run: the replay screen is the app's first screen, and it takes the load's first
    rows before it is drawn, so the first frame Textual writes shows rows (not an empty
    ledger redrawn when they arrive). Frames are seen where Textual writes them
    (``App._display``, outside an update batch): it has no public hook for that."""
    from textual.app import App

    from efc_tui.app import app as app_module
    from efc_tui.app.screens import replay

    path = _trajectory(tmp_path / "run.traj.json", 1500)
    monkeypatch.setattr(loading, "PREVIEW_BYTES", (16 << 10,))
    monkeypatch.setattr(replay, "FIRST_ROWS_WAIT", 60.0)  # the hand-over is tested, not speed
    frames: list[int] = []
    display = App._display

    def seen(self: App[Any], screen: Any, renderable: Any) -> None:
        if renderable is not None and not self._batch_count:
            frames.append(screen.data.n_rows if isinstance(screen, replay.ReplayScreen) else -1)
        display(self, screen, renderable)

    monkeypatch.setattr(App, "_display", seen)
    app = app_module.EfcApp([path])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, replay.ReplayScreen) and app.screen_stack == [app.screen]
        assert frames and 10 < frames[0] < len(app.screen.data)  # the preview's rows, at once
        assert app.screen.first_painted_at is not None


@pilot_test
async def test_work_after_the_first_frame_starts_even_if_no_frame_is_seen(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fit and the preview's scoring start once a frame showing rows is written (the
    ledger says so). Should that never be seen (Textual drawing the rows from its cache),
    they start FIRST_PAINT_WAIT after the rows arrived, not when the whole read ends."""
    import threading

    from efc_tui.app import app as app_module
    from efc_tui.app.screens import replay

    path = _trajectory(tmp_path / "run.traj.json", 50)
    [full] = load(path)
    release = threading.Event()

    def updates(self: RunLoader, cancelled: Any = None) -> Any:
        yield Header(full)
        yield Events(list(full.events[:10]), 0.1, [], preview=True)
        release.wait(60)  # the rest of a long read
        yield Loaded([])

    monkeypatch.setattr(RunLoader, "updates", updates)
    monkeypatch.setattr(replay.ReplayScreen, "_first_rows_painted", lambda self: None)
    monkeypatch.setattr(replay, "FIRST_PAINT_WAIT", 0.05)
    app = app_module.EfcApp([path])
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.screen
            assert isinstance(screen, replay.ReplayScreen)
            for _ in range(500):
                if screen._first_frame_done:
                    break
                await pilot.pause(0.01)
            assert screen._first_frame_done and not screen.loaded  # started while reading
            release.set()
            await settle(pilot)
    finally:
        release.set()


@pilot_test
async def test_the_app_shows_a_large_trajectory_before_reading_it_all(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from efc_tui.app.app import EfcApp
    from efc_tui.app.screens.replay import ReplayScreen
    from efc_tui.app.widgets.charts import FitPanel

    path = _trajectory(tmp_path / "run.traj.json", 1500)
    [full] = load(path)
    monkeypatch.setattr(loading, "PREVIEW_BYTES", (16 << 10,))
    arrived: list[tuple[bool, int | None, int]] = []
    original = ReplayScreen._events_arrived

    def spy(self: ReplayScreen, update: Events) -> None:
        arrived.append((update.preview, update.start, len(update.events)))
        original(self, update)

    monkeypatch.setattr(ReplayScreen, "_events_arrived", spy)
    app = EfcApp([path])  # no fit given: the package's, read once the first rows are drawn
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        # first the preview's rows, then the rest of the whole read
        assert arrived[0][0] is True and 10 < arrived[0][2] < len(full.events)
        assert [a[0] for a in arrived[1:]] == [False]
        assert screen.first_painted_at is not None
        assert screen.data.events == full.events
        assert screen.data.n_scored == len(full.events)
        assert screen.ready.is_set()
        # the fit arrived after the first paint and is the one every panel shows
        assert screen.fit is not None and screen.fit is app.fit_view
        panel = screen.query_one(FitPanel)
        assert panel.fit is screen.fit and "reading the fit" not in str(panel.render())
