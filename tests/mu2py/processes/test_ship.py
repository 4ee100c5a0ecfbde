"""What `DaskExecutor.ship` sends: modules of the client's own folders, as zips named by their content."""

from __future__ import annotations

import io
import sys
import zipfile
from pathlib import Path

import pytest

from mu2py.processes.cluster import pack, shippable


@pytest.fixture
def own_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder first on sys.path (as the current directory is for `bonsai run`), with a module and a package."""
    (tmp_path / "shipmod_one.py").write_text("X = 1\n")
    (tmp_path / "shippkg_one").mkdir()
    (tmp_path / "shippkg_one" / "__init__.py").write_text("")
    (tmp_path / "shippkg_one" / "inner.py").write_text("Y = 2\n")
    (tmp_path / "shippkg_one" / "__pycache__").mkdir()
    (tmp_path / "shippkg_one" / "__pycache__" / "inner.cpython-311.pyc").write_bytes(b"stale")
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_only_modules_of_the_clients_own_folders_are_shipped(own_folder: Path) -> None:
    assert shippable("shipmod_one") == own_folder / "shipmod_one.py"
    assert shippable("shippkg_one.inner") == own_folder / "shippkg_one"  # the whole top-level package
    # the standard library, installed packages, the toolkit itself, built-ins and unknown names stay
    for name in ("json.decoder", "pytest", "mu2py.engine", "bonsai", "sys", "no_such_module_here"):
        assert shippable(name) is None, name


def test_a_zip_holds_the_module_under_its_name_and_depends_on_content_only(own_folder: Path) -> None:
    data = pack(own_folder / "shippkg_one")
    assert zipfile.ZipFile(io.BytesIO(data)).namelist() == ["shippkg_one/__init__.py", "shippkg_one/inner.py"]
    (own_folder / "shippkg_one" / "inner.py").touch()  # a new mtime, the same content: the same zip
    assert pack(own_folder / "shippkg_one") == data
    (own_folder / "shippkg_one" / "inner.py").write_text("Y = 3\n")
    assert pack(own_folder / "shippkg_one") != data
    assert zipfile.ZipFile(io.BytesIO(pack(own_folder / "shipmod_one.py"))).namelist() == ["shipmod_one.py"]
    assert "shipmod_one" not in sys.modules  # finding a module's file imports nothing
