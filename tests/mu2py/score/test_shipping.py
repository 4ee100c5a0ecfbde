"""What `score --cluster` ships of the project (`shipping`), and how paths move to the workers' copy and back."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pytest

from mu2py.errors import UserError
from mu2py.score.shipping import LIMIT_ENV, mapped_back, pack_project, project_files
from mu2py.score.spec import SuiteSpec


def _project(root: Path) -> SuiteSpec:
    """A small project with what a suite needs and what it never does (VCS, venv, caches, build outputs), and its
    package metadata."""
    files = {
        "pkg/__init__.py": "", "pkg/core.py": "X = 1\n", "tests/conftest.py": "", "tests/test_core.py": "",
        "tests/data/words.txt": "a b\n", "pyproject.toml": "[tool.pytest.ini_options]\n", "tox.ini": "",
        ".coveragerc": "", "run.sh": "#!/bin/sh\n",
        ".git/HEAD": "ref\n", ".venv/pyvenv.cfg": "", "venv/pyvenv.cfg": "", "venv/lib/x.py": "",
        "pkg/__pycache__/core.cpython-311.pyc": "", ".pytest_cache/v": "", ".mu2py-cache/score.json": "{}",
        "build/lib/pkg/core.py": "", "dist/pkg.whl": "", "pkg.egg-info/PKG-INFO": "", "node_modules/m.js": "",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "run.sh").chmod(0o755)
    return SuiteSpec(root=str(root), pytest_args=("tests",), modules=("pkg.core",), files=(str(root / "pkg/core.py"),),
                     sys_path=(str(root),))


def test_the_project_tree_is_shipped_without_vcs_venvs_caches_or_build_outputs(tmp_path: Path) -> None:
    spec = _project(tmp_path)
    # the package's metadata travels too: a package reading its own version at import needs it (semantic_version)
    assert sorted(project_files(spec)) == [".coveragerc", "pkg.egg-info/PKG-INFO", "pkg/__init__.py", "pkg/core.py",
                                           "pyproject.toml", "run.sh", "tests/conftest.py", "tests/data/words.txt",
                                           "tests/test_core.py", "tox.ini"]
    archive = zipfile.ZipFile(io.BytesIO(pack_project(spec)))
    assert archive.read("tests/data/words.txt") == b"a b\n"
    assert (archive.getinfo("run.sh").external_attr >> 16) & 0o777 == 0o755  # a script the tests run stays runnable
    os.utime(tmp_path / "pkg/core.py", (0, 0))
    assert pack_project(spec) == pack_project(spec)  # content alone names it: the same tree, the same hash


def test_a_hidden_folder_asked_for_is_shipped_when_it_lies_under_the_root(tmp_path: Path) -> None:
    """props ships the example database (`.hypothesis/examples`) its default runs replay; not one outside."""
    spec = _project(tmp_path)
    (tmp_path / ".hypothesis" / "examples" / "ab12").mkdir(parents=True)
    (tmp_path / ".hypothesis" / "examples" / "ab12" / "cd34").write_bytes(b"\x01")
    (tmp_path / ".hypothesis" / "constants").mkdir()
    elsewhere = tmp_path.parent / "elsewhere-db"
    elsewhere.mkdir(exist_ok=True)
    (elsewhere / "x").write_text("x")
    shipped = set(project_files(spec, also=(str(tmp_path / ".hypothesis" / "examples"), str(elsewhere))))
    assert shipped - set(project_files(spec)) == {os.path.join(".hypothesis", "examples", "ab12", "cd34")}


def test_a_build_folder_holding_the_code_under_test_is_shipped(tmp_path: Path) -> None:
    spec = _project(tmp_path)
    spec = SuiteSpec(root=spec.root, pytest_args=spec.pytest_args, modules=spec.modules,
                     files=(str(tmp_path / "build/lib/pkg/core.py"),), sys_path=(str(tmp_path / "build/lib"),))
    assert "build/lib/pkg/core.py" in project_files(spec) and "dist/pkg.whl" not in project_files(spec)


def test_over_the_cap_or_outside_the_root_is_a_user_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = _project(tmp_path / "p")
    (tmp_path / "p" / "tests" / "data" / "big.bin").write_bytes(b"\0" * 2**20)
    monkeypatch.setenv(LIMIT_ENV, "0.5")
    cap = rf"1\.0 MiB of files, over the 0\.5 MiB cap \(largest: tests 1\.0 MiB.*{LIMIT_ENV}"
    with pytest.raises(UserError, match=cap):
        pack_project(spec)
    monkeypatch.delenv(LIMIT_ENV)
    (tmp_path / "elsewhere.py").write_text("")
    outside = SuiteSpec(root=spec.root, pytest_args=(), modules=("elsewhere",), files=(str(tmp_path / "elsewhere.py"),))
    with pytest.raises(UserError, match="elsewhere.py lies outside"):
        pack_project(outside)


def test_paths_move_to_the_workers_copy_and_back() -> None:
    spec = SuiteSpec(root="/client/proj", pytest_args=("/client/proj/tests", "-k", "x", "--rootdir=/client/proj",
                                                       "/client/project2"),
                     modules=("pkg.core",), files=("/client/proj/pkg/core.py",), sys_path=("/client/proj", "/opt/lib"))
    there = spec.relocated("/w/tree")
    assert there.root == "/w/tree" and there.files == ("/w/tree/pkg/core.py",)
    assert there.sys_path == ("/w/tree", "/opt/lib")  # outside the root: unchanged
    assert there.pytest_args == ("/w/tree/tests", "-k", "x", "--rootdir=/w/tree", "/client/project2")
    result = {"status": "isolate", "why": "imports pkg from /w/tree/pkg/core.py", "tests": [("/w/tree/a", 1)]}
    assert mapped_back(result, "/w/tree", "/client/proj") == {
        "status": "isolate", "why": "imports pkg from /client/proj/pkg/core.py", "tests": [("/client/proj/a", 1)]}
