"""Hatch build hook: compile efc_tui/_speedups.c with the machine's C compiler.

The extension is optional. When there is no compiler or no Python headers (or
``EFC_TUI_NO_COMPILE=1`` is set) the build still succeeds, as a pure-Python wheel, and
efc_tui runs its pure-Python path, which gives the same results (efc_tui/_fast.py).

- ``pip install .`` (a wheel): the module is compiled into a temporary folder and added to
  the wheel, which is then tagged for this interpreter and platform;
- ``pip install -e .`` (editable): the module is compiled next to its source, where the
  editable install imports it from (git ignores it).

The compile command is the one CPython itself was built with: ``LDSHARED`` and
``CCSHARED`` from ``sysconfig`` (``$CC`` replaces the compiler when set), with every
warning an error (``WARNINGS``). ``$CFLAGS`` and
``$LDFLAGS`` are added after our own flags, so the caller's win: an ``-O`` level in
``$CFLAGS`` replaces our ``-O2`` (``make sanitize`` builds with
``CFLAGS="-O1 -g -fsanitize=address,undefined"``).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sysconfig
import tempfile
import zlib
from pathlib import Path
from typing import Any

try:  # the build hook needs hatchling; the compile helpers below do not (tests use them)
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # pragma: no cover - only outside a build
    BuildHookInterface = object

SOURCE = Path("efc_tui") / "_speedups.c"
#: as msgspec builds its C: every warning is an error. A compiler that warns where ours
#: does not leaves the extension unbuilt (the build says why, and the pure-Python path runs)
#: rather than a module built past a warning; tests/compiled/test_build.py builds with them.
WARNINGS = (
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-missing-field-initializers",
    "-Werror",
)


def compile_command(src: Path, out: Path) -> list[str] | None:
    """The command that builds ``src`` into the extension module ``out`` (None: no compiler)."""
    ldshared = sysconfig.get_config_var("LDSHARED")
    include = sysconfig.get_paths().get("include")
    if not ldshared or not include or not (Path(include) / "Python.h").is_file():
        return None
    cmd = shlex.split(ldshared)
    if os.environ.get("CC"):
        cmd = [*shlex.split(os.environ["CC"]), *cmd[1:]]
    data = src.read_bytes()
    digest = f"{zlib.crc32(data):08x}-{len(data)}"  # as efc_tui._fast.source_hash
    cflags = shlex.split(os.environ.get("CFLAGS", ""))
    ldflags = shlex.split(os.environ.get("LDFLAGS", ""))
    # the caller's optimisation level, when it gives one, is the only one on the line
    opt = [] if any(f.startswith("-O") for f in cflags) else ["-O2"]
    return [
        *cmd,
        *shlex.split(sysconfig.get_config_var("CCSHARED") or ""),
        *opt,
        *WARNINGS,
        "-DNDEBUG",
        f'-DEFC_SOURCE_HASH="{digest}"',
        *cflags,
        "-I",
        include,
        str(src),
        "-o",
        str(out),
        *ldflags,
    ]


def build_extension(src: Path, out: Path) -> str | None:
    """Compile; None on success, else why it was not built."""
    tmp = out.with_name(out.name + ".tmp")
    cmd = compile_command(src, tmp)
    if cmd is None:
        return "no C compiler or Python headers found"
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"the compiler did not run ({exc})"
    if done.returncode != 0 or not tmp.is_file():
        tmp.unlink(missing_ok=True)
        return "the compiler failed:\n" + (done.stderr or done.stdout)[-2000:]
    os.replace(tmp, out)
    return None


class SpeedupsBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:  # pragma: no cover
        if self.target_name != "wheel" or os.environ.get("EFC_TUI_NO_COMPILE", "") not in ("", "0"):
            return
        root = Path(self.root)
        src = root / SOURCE
        name = "_speedups" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")
        if version == "editable":
            out = root / "efc_tui" / name
            why = build_extension(src, out)
        else:
            out = Path(tempfile.mkdtemp(prefix="efc-tui-build-")) / name
            why = build_extension(src, out)
            if why is None:
                build_data["force_include"][str(out)] = f"efc_tui/{name}"
        if why is not None:
            self.app.display_warning(
                f"efc-tui: the compiled fast path was not built ({why}); the pure-Python path "
                "gives the same results, more slowly."
            )
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
