"""bench/docgen.py: the generated whole-document logs are what the benchmarks claim they
are, for each of the five formats: detected as their format, read as one run with one
tool call per step and that step's output, and shown by ``efc-tui open``'s loader from a
preview of their first bytes before the whole read (which then leaves exactly the whole
read's events on screen)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from efc_tui.app.loading import PREVIEW_BYTES, PREVIEW_MIN_RATIO, Events, Header, Loaded, RunLoader
from efc_tui.model import Event
from efc_tui.parsers import detect, load
from tests.conftest import REPO

BENCH = REPO / "bench"
#: steps per file: enough for each format to pass the loader's preview threshold
N = 150


def _docgen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docgen", BENCH / "docgen.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("docgen", mod)
    spec.loader.exec_module(mod)
    return mod


docgen = _docgen()


@pytest.fixture(scope="module", params=sorted(docgen.FORMATS))
def generated(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path]:
    fmt = request.param
    suffix, generate = docgen.FORMATS[fmt]
    path = tmp_path_factory.mktemp(fmt) / (
        "run" + (suffix if suffix.startswith(".") else "." + suffix)
    )
    size = generate(path, N, 7)
    assert size == path.stat().st_size
    return fmt, path


def test_the_five_whole_document_readers_have_a_generator() -> None:
    assert set(docgen.FORMATS) == {"mini-swe-agent", "swe-agent", "openhands", "inspect-ai", "atif"}


def test_detected_as_its_format(generated: tuple[str, Path]) -> None:
    fmt, path = generated
    assert detect(path).name == fmt


def test_one_run_with_a_tool_call_and_its_output_per_step(generated: tuple[str, Path]) -> None:
    fmt, path = generated
    runs = list(load(path))
    assert len(runs) == 1
    calls = [e for e in runs[0].events if e.tool_calls]
    if fmt == "openhands":  # its run ends with a `finish` tool call
        assert calls[-1].tool == "finish"
        calls = calls[:-1]
    steps = list(docgen.steps(N, 7))
    assert len(calls) == len(steps) == N
    for event, step in zip(calls, steps, strict=True):
        assert step.cmd in event.action_text
        assert step.text in event.observation_text


def test_the_same_steps_in_every_format() -> None:
    """Same seed, same commands and outputs, whatever the format (files of one size are
    comparable); another seed, other steps."""
    a = [(s.cmd, s.text, s.thought) for s in docgen.steps(40, 3)]
    assert a == [(s.cmd, s.text, s.thought) for s in docgen.steps(40, 3)]
    assert a != [(s.cmd, s.text, s.thought) for s in docgen.steps(40, 4)]


def test_large_enough_for_a_preview_first(generated: tuple[str, Path]) -> None:
    _fmt, path = generated
    assert path.stat().st_size > PREVIEW_BYTES[0] * PREVIEW_MIN_RATIO


def test_open_shows_a_preview_then_the_whole_read(generated: tuple[str, Path]) -> None:
    _fmt, path = generated
    loader = RunLoader(path)
    loader.painted.set()  # no screen to wait for
    updates = list(loader.updates())
    assert isinstance(updates[0], Header)
    first = updates[1]
    assert isinstance(first, Events) and first.preview and first.events
    assert first.start is None and first.fraction is not None and first.fraction < 1
    assert isinstance(updates[-1], Loaded)
    shown: list[Event] = []
    for u in updates:
        if isinstance(u, Events):
            if u.start is not None:
                del shown[u.start :]
            shown.extend(u.events)
    (run,) = load(path)
    assert shown == run.events
    # the preview's rows were the run's first steps, and only some of them (the last
    # call's output may be past the cut)
    previewed = [e for e in first.events if e.tool_calls]
    assert 1 < len(previewed) < N
    for event, step in zip(previewed[:-1], docgen.steps(N, 7), strict=False):
        assert step.cmd in event.action_text
        assert step.text in event.observation_text
