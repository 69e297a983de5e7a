"""Writing outputs safely: atomically (temp file in the same folder + rename).

A writer killed before its rename leaves its temporary file behind. Our temporaries are
named ``.<name>.<host>-<pid>.<random>.tmp`` (``<host>``: 6 hex digits of the host name), and
the first write of a process to a folder removes the stale ones it finds there (``sweep``):
a temporary is stale when it has not been written to for ``STALE_SECONDS``, or when its
writer ran on this host, is gone (no such pid) and it has not been written to for
``GONE_SECONDS``. A writer still at work (on this host or another one sharing the folder)
keeps its file: its pid is alive or its file is recent. Files of the earlier naming
(``.<name>.<random>.tmp``) are removed by age only; nothing else is touched.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
import zlib
from pathlib import Path

from efc_tui.errors import InputError

#: a temporary not written to for this long is debris, whoever wrote it
STALE_SECONDS = 15 * 60
#: a temporary whose writer (on this host) is gone, once its last write is this old
GONE_SECONDS = 60


def _hostname() -> str:
    """This machine's name: the kernel's, as ``socket.gethostname`` gives it on POSIX,
    without importing socket (about 6 ms of every command's start-up); socket's elsewhere."""
    uname = getattr(os, "uname", None)
    if uname is not None:
        return str(uname().nodename)
    import socket  # no uname (Windows)

    return socket.gethostname()


_HOST = f"{zlib.crc32(_hostname().encode()) & 0xFFFFFF:06x}"
# tempfile.mkstemp's random part: 8 characters of [a-z0-9_]
_OURS = re.compile(r"\..+?\.(?:(?P<host>[0-9a-f]{6})-(?P<pid>\d+)\.)?[a-z0-9_]{8}\.tmp")
_swept: set[str] = set()


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's (EPERM), or cannot tell: not gone
        return False
    return False


def sweep(folder: Path, now: float | None = None) -> list[Path]:
    """Remove the stale temporaries of our naming in ``folder`` (see the module docstring);
    returns what was removed. Never raises: a file that cannot be removed stays."""
    removed: list[Path] = []
    now = time.time() if now is None else now
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        m = _OURS.fullmatch(entry.name)
        if m is None:
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            age = now - entry.stat(follow_symlinks=False).st_mtime
        except OSError:
            continue
        ours_here = m["host"] == _HOST and m["pid"] is not None
        stale = age > STALE_SECONDS or (
            ours_here
            and age > GONE_SECONDS
            and int(m["pid"]) != os.getpid()
            and _gone(int(m["pid"]))
        )
        if stale:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


class AtomicFile:
    """A file written in pieces that appears at ``path`` whole or not at all.

    Bytes go to a temporary file in the same folder; ``commit()`` syncs it, gives it the
    mode an ordinary write would have (the existing file's, else 0666 less the umask) and
    renames it into place; ``abort()`` removes it. Readers see the old file or the whole
    new one, never half.
    """

    def __init__(self, path: str | Path) -> None:
        import tempfile  # here: only writers need it (its import brings shutil and random)

        self.path = Path(path)
        parent = self.path.parent if str(self.path.parent) else Path(".")
        if not parent.is_dir():
            raise InputError("output folder does not exist", parent)
        key = os.path.realpath(parent)
        if key not in _swept:  # once per folder and process: the debris of killed writers
            _swept.add(key)
            sweep(parent)
        try:
            fd, tmp = tempfile.mkstemp(
                prefix=f".{self.path.name}.{_HOST}-{os.getpid()}.", suffix=".tmp", dir=parent
            )
        except OSError as exc:
            raise InputError(f"cannot write here: {exc.strerror or exc}", parent) from None
        self._tmp = tmp
        self._file = os.fdopen(fd, "wb")

    def write(self, data: bytes) -> None:
        self._file.write(data)

    def commit(self) -> Path:
        try:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            try:
                mode = self.path.stat().st_mode & 0o7777
            except FileNotFoundError:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            os.chmod(self._tmp, mode)
            os.replace(self._tmp, self.path)
        except BaseException:
            self.abort()
            raise
        return self.path

    def abort(self) -> None:
        with contextlib.suppress(OSError):
            self._file.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._tmp)


def write_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` so readers see the old file or the whole new one, never half."""
    f = AtomicFile(path)
    try:
        f.write(data)
    except BaseException:
        f.abort()
        raise
    return f.commit()
