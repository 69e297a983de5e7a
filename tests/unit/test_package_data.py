"""The shipped data files (efc_tui/data) read without importlib.resources give what it
gives, and a package that is not a folder is still read through it."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

import efc_tui.data as data
from efc_tui.data import data_bytes, has_data_file

SHIPPED = sorted(p.name for p in Path(data.__file__).parent.iterdir() if p.suffix == ".json")


def test_every_shipped_file_is_found() -> None:
    assert {"estimator.json", "estimator_real.json"} <= set(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
@pytest.mark.parametrize("folder", [True, False], ids=["folder", "through-importlib"])
def test_data_files_read_as_importlib_resources_reads_them(
    name: str, folder: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not folder:  # as if the package were not a folder: the importlib.resources path
        monkeypatch.setattr(data, "_HERE", Path("/nonexistent/efc_tui/data"))
    ref = resources.files("efc_tui.data").joinpath(name)
    assert data_bytes(name) == ref.read_bytes()
    assert has_data_file(name) is True
    assert has_data_file("no-such-file.json") is False
    assert has_data_file("__pycache__") is False  # a folder is not a data file
    with pytest.raises(FileNotFoundError):
        data_bytes("no-such-file.json")
