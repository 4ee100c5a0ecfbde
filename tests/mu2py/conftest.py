"""Shared fixtures: the insertion-sort and json programs, built once per test session; odd_pkg on the path."""

import sys
from pathlib import Path

import pytest

from mu2py.mutants.catalog import Program
from mu2py.target.modules import resolve_target


@pytest.fixture(scope="session")
def sort_program() -> Program:
    return Program(resolve_target("targets.insertion_sort.driver:sort"))


@pytest.fixture(scope="session")
def json_program() -> Program:
    return Program(resolve_target("targets.json_decoder.driver:parse"))


@pytest.fixture(scope="session")
def sort_runner(sort_program):
    """One in-process engine over the sort program: building copies per Hypothesis example would dominate."""
    from mu2py.engine.engine import LocalRunner

    return LocalRunner(sort_program)


def _forget(package: str) -> None:
    """Drop `package` and its submodules from sys.modules (the next test imports its own)."""
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        del sys.modules[name]


def _data_on_path(monkeypatch, folder: str, package: str):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "data" / folder))
    yield
    _forget(package)


@pytest.fixture
def odd_pkg_on_path(monkeypatch):
    """tests/data/corpus_odd on sys.path for one test, and its odd_pkg modules forgotten after it."""
    yield from _data_on_path(monkeypatch, "corpus_odd", "odd_pkg")


@pytest.fixture
def files_package(tmp_path, monkeypatch):
    """`make(package, files)`: a package of `files` (name -> text) on sys.path for one test, its modules forgotten
    after it."""
    made: list[str] = []

    def make(package: str, files: dict[str, str]) -> None:
        (tmp_path / package).mkdir()
        for name, text in files.items():
            (tmp_path / package / name).write_text(text)
        monkeypatch.syspath_prepend(str(tmp_path))
        made.append(package)

    yield make
    for package in made:
        _forget(package)


@pytest.fixture
def driver_package(tmp_path, monkeypatch):
    """`make(package, source)`: a package on sys.path for one test whose `drivers` module holds `source`;
    returns the module's dotted name (`package.drivers`)."""

    def make(package: str, source: str) -> str:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
        (tmp_path / package / "drivers.py").write_text(source)
        monkeypatch.syspath_prepend(str(tmp_path))
        return f"{package}.drivers"

    return make


@pytest.fixture
def warn_pkg_on_path(monkeypatch):
    """tests/data/warn_pkg on sys.path for one test (its deprecated function warns), its modules forgotten after it."""
    yield from _data_on_path(monkeypatch, "warn_pkg", "warn_pkg")
