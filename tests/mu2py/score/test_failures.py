"""The one line that says how a test failed (`failures.failure_line`), from real tracebacks."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from mu2py.score import failures


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A project of its own: a module, and a test module that calls it (imported under its own name, without
    pytest's assertion rewriting: the helper's assertion says its message itself)."""
    (tmp_path / "core.py").write_text("def parse(text):\n    return int(text)\n")
    (tmp_path / "test_core.py").write_text(
        "import core\n\n\ndef check(value):\n    __tracebackhide__ = True\n"
        "    assert value == 4, f'assert {value} == 4'\n\n\n"
        "def test_parse():\n    core.parse('x')\n\n\ndef test_value():\n    check(core.parse('3'))\n\n\n"
        "def test_long():\n    raise KeyError('x' * 500 + '\\nsecond line')\n\n\n"
        "from hypothesis import given, settings, strategies as st\n\n\n"
        "@settings(database=None, derandomize=True)\n@given(text=st.text(alphabet='0123456789', min_size=1))\n"
        "def test_digits(text):\n    check(core.parse(text) % 4 + 1)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(__import__("sys").modules, "core", raising=False)
    return tmp_path, _load(tmp_path / "test_core.py")


def _line(root: Path, test, when: str = "call", label: str = "") -> str:
    with pytest.raises(BaseException) as excinfo:
        test()
    return failures.failure_line(excinfo, str(root / "test_core.py"), when, *failures.under_root(str(root)), label)


def test_where_it_was_raised_and_the_test_s_line_that_led_there(project) -> None:
    root, tests = project
    # raised in the project's module (int() itself is no frame of the project), reached from the test's line
    assert _line(root, tests.test_parse) == \
        "ValueError: invalid literal for int() with base 10: 'x' (core.py:2, from test_core.py:10)"
    # an assertion helper hides itself from pytest's tracebacks: its caller's line, as pytest shows it
    assert _line(root, tests.test_value) == "AssertionError: assert 3 == 4 (test_core.py:14)"
    assert _line(root, tests.test_value, "setup", "subtest (n=1): ") == \
        "subtest (n=1): in setup: AssertionError: assert 3 == 4 (test_core.py:14)"


def test_a_long_message_is_cut_and_the_place_kept(project) -> None:
    root, tests = project
    line = _line(root, tests.test_long)
    assert len(line) == failures.FAILURE_CHARS and line.endswith("… (test_core.py:18)")
    assert "second line" not in line


def test_outside_the_project_no_place(project) -> None:
    root, tests = project
    with pytest.raises(ValueError) as excinfo:
        tests.test_parse()
    elsewhere = failures.under_root(os.path.join(str(root), "nowhere"))
    assert failures.failure_line(excinfo, str(root / "test_core.py"), "call", *elsewhere) == \
        "ValueError: invalid literal for int() with base 10: 'x'"


def test_a_given_test_s_falsifying_example_is_the_input_that_failed(project) -> None:
    """Hypothesis notes the shrunk input on the exception: the line ends with its arguments."""
    root, tests = project
    line = _line(root, tests.test_digits)
    assert line == "AssertionError: assert 1 == 4 (test_core.py:27); falsifying example: text='0'"
    assert len(line) <= failures.FAILURE_CHARS
