"""Building and choosing the compiled fast path: the build hook's compile step, the
pure-Python fallback when the extension is missing, stale or switched off."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from efc_tui import _fast
from tests.conftest import REPO


def _hook():
    spec = importlib.util.spec_from_file_location("efc_hatch_build", REPO / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


HAS_CC = (
    bool(sysconfig.get_config_var("LDSHARED"))
    and (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file()
    and shutil.which((sysconfig.get_config_var("CC") or "cc").split()[0]) is not None
)


@pytest.mark.skipif(not HAS_CC, reason="no C compiler or Python headers here")
def test_build_extension_compiles_and_stamps_the_source_hash(tmp_path: Path) -> None:
    hook = _hook()
    src = REPO / "efc_tui" / "_speedups.c"
    out = tmp_path / ("_speedups" + sysconfig.get_config_var("EXT_SUFFIX"))
    assert hook.build_extension(src, out) is None
    spec = importlib.util.spec_from_file_location("_speedups", out)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert _fast.source_hash(src) == mod.SOURCE_HASH
    # the pre-filter's substrings come from status.py at import (one definition): a module
    # loaded by hand is given them as efc_tui._fast's is
    from efc_tui.parsers import status

    mod.set_hints(status._SUMMARY_HINTS, status._SUMMARY_PAIR, status._HINTS)
    assert mod.no_hints("all good") is True and mod.no_hints("1 passed in 0.1s") is False


def test_a_failing_compiler_leaves_no_module_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hook = _hook()
    monkeypatch.setenv("CC", "false")
    out = tmp_path / "_speedups.so"
    why = hook.build_extension(REPO / "efc_tui" / "_speedups.c", out)
    if hook.compile_command(REPO / "efc_tui" / "_speedups.c", out) is None:
        assert why == "no C compiler or Python headers found"
    else:
        assert why is not None and why.startswith("the compiler failed")
    assert not out.exists() and not list(tmp_path.iterdir())


def test_no_compiler_configured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    hook = _hook()
    monkeypatch.setattr(hook.sysconfig, "get_config_var", lambda name: None)
    assert hook.compile_command(REPO / "efc_tui" / "_speedups.c", tmp_path / "x.so") is None
    assert hook.build_extension(REPO / "efc_tui" / "_speedups.c", tmp_path / "x.so") is not None


def _status_in_subprocess(env: dict[str, str]) -> str:
    code = "from efc_tui import _fast; print(_fast.speedups() is None, _fast.STATUS)"
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_environment_switch_forces_pure_python() -> None:
    assert _status_in_subprocess({"EFC_TUI_PURE_PYTHON": "1"}).startswith(
        "True pure Python (EFC_TUI_PURE_PYTHON"
    )


def test_stale_extension_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    if _fast._MODULE is None:
        pytest.skip(f"compiled fast path: {_fast.STATUS}")
    monkeypatch.setattr(_fast, "source_hash", lambda path: "0" * 16)
    module, status = _fast._load()
    assert module is None and "stale" in status


def test_pure_python_scores_like_the_reference_when_nothing_is_built(tmp_path: Path) -> None:
    """A machine without the extension: the package imports and scores (pure Python)."""
    code = (
        "import sys; sys.modules['efc_tui._speedups'] = None\n"  # as if it was never built
        "from efc_tui import _fast; assert _fast.speedups() is None, _fast.STATUS\n"
        "import efc_tui; s = efc_tui.score(efc_tui.load(sys.argv[1]))\n"
        "print(_fast.STATUS, s.figures.nrs_efc)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, str(REPO / "sample_traces" / "repair_loop.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("pure Python (the compiled extension is not built)")


def test_gc_quiet_freezes_each_run_while_it_is_scored_and_restores_the_collector() -> None:
    import gc

    from efc_tui.model import Run
    from efc_tui.pipeline.score import gc_quiet

    def reader():
        for i in range(3):
            assert not gc.isenabled()  # nothing scans what the reader builds
            yield Run(run_id=str(i))

    seen = []
    for run in gc_quiet(reader()):
        assert gc.isenabled() and gc.get_freeze_count() > 0  # the run is frozen while scored
        seen.append(run.run_id)
    assert seen == ["0", "1", "2"] and gc.isenabled() and gc.get_freeze_count() == 0

    def broken():
        yield Run(run_id="0")
        raise ValueError("bad line")

    with pytest.raises(ValueError):
        for _ in gc_quiet(broken()):
            pass
    assert gc.isenabled() and gc.get_freeze_count() == 0
