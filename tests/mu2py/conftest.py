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


@pytest.fixture
def odd_pkg_on_path(monkeypatch):
    """tests/data/corpus_odd on sys.path for one test, and its odd_pkg modules forgotten after it."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "data" / "corpus_odd"))
    yield
    for name in [n for n in sys.modules if n == "odd_pkg" or n.startswith("odd_pkg.")]:
        del sys.modules[name]


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
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "data" / "warn_pkg"))
    yield
    for name in [n for n in sys.modules if n == "warn_pkg" or n.startswith("warn_pkg.")]:
        del sys.modules[name]
