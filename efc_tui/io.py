"""Writing outputs safely: atomically (temp file in the same folder + rename)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from efc_tui.errors import InputError


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
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=parent)
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
