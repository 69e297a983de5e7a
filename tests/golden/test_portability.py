"""The stored references hold on every CPU: the reference-ledger and golden checks pass again
in a fresh interpreter with numpy's run-time SIMD dispatch forced down (no AVX-512; then
baseline kernels only), as they pass in this one at full dispatch.

numpy chooses its kernels by the CPU it finds when it is imported, and the kernels differ in
the last bits (tests/tolerance.py); ``NPY_DISABLE_CPU_FEATURES`` turns groups of them off.
The groups are read from the numpy that runs the suite (their names change between numpy
versions and architectures), so the test means the same on any machine: whatever this CPU
dispatches to, the references written on another one still hold.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

CHECKS = ("tests/golden/test_reference_ledgers.py", "tests/golden/test_outputs.py")


def _dispatch() -> tuple[list[str], dict[str, bool]]:
    """numpy's dispatched groups and which of them are on (numpy 2 moved the module)."""
    import importlib

    try:
        umath = importlib.import_module("numpy._core._multiarray_umath")
    except ImportError:  # numpy < 2
        umath = importlib.import_module("numpy.core._multiarray_umath")
    return list(umath.__cpu_dispatch__), dict(umath.__cpu_features__)


def levels() -> dict[str, list[str]]:
    """Dispatch groups to disable, by level: the AVX-512 ones, then every dispatched group
    (the baseline the build was compiled for is all that is left)."""
    dispatch, _ = _dispatch()
    return {
        "no-avx512": [f for f in dispatch if "AVX512" in f or f == "X86_V4"],
        "baseline": dispatch,
    }


def _env(disabled: list[str]) -> dict[str, str]:
    env = dict(os.environ)
    env["NPY_DISABLE_CPU_FEATURES"] = " ".join(disabled)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return env


@pytest.mark.parametrize("level", ["no-avx512", "baseline"])
def test_references_hold_with_numpy_dispatch_forced_down(level: str) -> None:
    disabled = levels()[level]
    if not disabled:
        pytest.skip(f"this numpy dispatches no {level} group to turn off")
    env = _env(disabled)
    # the groups are really off in a process started with this environment
    probe = (
        "import numpy, json\n"
        "try:\n from numpy._core._multiarray_umath import __cpu_features__ as f\n"
        "except ImportError:\n from numpy.core._multiarray_umath import __cpu_features__ as f\n"
        "print(json.dumps(f))"
    )
    r = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    import json

    on = json.loads(r.stdout)
    assert not [f for f in disabled if on.get(f)], f"still on: {disabled} under {level}"
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *CHECKS],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    tail = "\n".join(r.stdout.splitlines()[-25:])
    assert r.returncode == 0, f"with NPY_DISABLE_CPU_FEATURES={' '.join(disabled)!r}:\n{tail}"
    assert " passed" in tail and " failed" not in tail, tail
