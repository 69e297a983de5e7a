"""Data files shipped inside the package (estimator, fits).

``data_bytes`` and ``has_data_file`` read them from the package's folder, which is where
``importlib.resources`` finds them in an ordinary install, without importing it: its
import brings tempfile, shutil, random and the compression modules, a few milliseconds of
every ``efc-tui score``. A package that is not a folder (a zip) is read through it.
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).parent


def data_bytes(name: str) -> bytes:
    """The bytes of the shipped file ``name``."""
    if _HERE.is_dir():
        return (_HERE / name).read_bytes()
    from importlib import resources

    return resources.files(__name__).joinpath(name).read_bytes()


def has_data_file(name: str) -> bool:
    """Whether the package ships the file ``name``."""
    if _HERE.is_dir():
        return (_HERE / name).is_file()
    from importlib import resources

    return resources.files(__name__).joinpath(name).is_file()
