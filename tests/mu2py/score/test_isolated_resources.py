"""A package whose code reads its data files (`importlib.resources.files`): a mutant of its `__init__` judged in a
fresh interpreter reads them as a plain import would, so no test fails for want of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mu2py.score.conftest import reload_and_fresh, write_tree

INIT = '''"""Greetings read from the package's data files."""
import importlib.resources

__all__ = ["greet"]
DEFAULT = "en"


def greet(lang=DEFAULT):
    return (importlib.resources.files("grt") / "data" / f"{lang}.txt").read_text().strip()
'''
TESTS = '''from grt import greet


def test_greet():
    assert greet() == "hello"


def test_german():
    assert greet("de") == "hallo"
'''


def test_a_fresh_interpreter_s_mutant_package_reads_its_data_files(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"grt/__init__.py": INIT, "grt/data/en.txt": "hello\n", "grt/data/de.txt": "hallo\n",
                          "tests/test_grt.py": TESTS})
    reloaded, fresh = reload_and_fresh(tmp_path, "grt", capsys)  # the same status for every mutant, both ways
    by = {(m["line"], m["mutated"]): m for m in fresh.values()}
    # `__all__` renamed changes nothing a test sees: it survives in a fresh interpreter too (it was killed there,
    # every test failing in `importlib.resources.files` for want of a resource reader)
    assert by[(4, '"XXgreetXX"')]["status"] == "survived"
    assert by[(5, '"XXenXX"')]["status"] == "killed"  # the default language's file is missing: test_greet fails
