"""A table a test module passes to `pytest.mark.parametrize` while it is imported: its mutants are judged in place,
the tests given the re-created table as their parameter, unless a fresh collection would collect other tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mu2py.score.imports import ImportGraph, module_facts
from tests.mu2py.score.conftest import reload_and_fresh, write_tree

TABLES = '''CSS = {"red": "#f00", "lime": "#0f0"}
HTML = {"red": "#ff0000"}
BY_SPEC = {"css": CSS, "html": HTML}


def to_hex(name, spec="css"):
    return BY_SPEC[spec][name]


def names(spec):
    return sorted(BY_SPEC[spec])
'''
TEST_TABLES = '''import pytest

from palette import tables


@pytest.mark.parametrize(["spec", "mapping"], [("css", tables.CSS), ("html", tables.HTML)], ids=["css", "html"])
def test_names(spec, mapping):
    assert tables.names(spec) == sorted(mapping)


@pytest.mark.parametrize(["spec", "mapping"], [("css", tables.CSS), ("html", tables.HTML)], ids=["css", "html"])
def test_hex(spec, mapping):
    for name, value in mapping.items():
        assert tables.to_hex(name, spec) == value


@pytest.mark.parametrize("name", tables.CSS)
def test_known(name):
    assert tables.to_hex(name).startswith("#")
'''


def test_reads_only_for_parametrize_are_told_apart() -> None:
    graph = ImportGraph([module_facts("palette.tables", TABLES), module_facts("tests.test_tables", TEST_TABLES),
                         module_facts("tests.test_other", "from palette.tables import HTML\nN = len(HTML)\n")])
    assert graph.read_as_parameter("tests.test_tables", "palette.tables", "HTML") == "value"
    assert graph.read_as_parameter("tests.test_tables", "palette.tables", "CSS") == "iterated"
    assert graph.read_as_parameter("tests.test_other", "palette.tables", "HTML") is None


def test_a_table_given_to_parametrize_is_judged_in_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"palette/__init__.py": "", "palette/tables.py": TABLES, "tests/test_tables.py": TEST_TABLES})
    reloaded, _ = reload_and_fresh(tmp_path, "palette", capsys)  # the same status for every mutant, both ways

    def entry(mutated: str) -> dict[str, Any]:
        return next(m for m in reloaded.values() if m["line"] == 1 and m["mutated"] == mutated)

    # a value changed: the same tests are collected, test_hex and test_names are given the re-created table
    value = entry('"XX#f00XX"')
    assert (value["mode"], value["status"], value["killed_by"]) == (
        "reexec", "killed", "tests/test_tables.py::test_known[red]")
    # a key changed: test_known's ids come from the keys, a fresh collection collects other tests
    key = entry('"XXredXX"')
    assert (key["mode"], key["status"]) == ("isolated", "survived")
