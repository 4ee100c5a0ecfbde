import os
import unittest

import pytest

from lean_pkg.words import article, dashed, plural, repeat, shout


@pytest.mark.parametrize(("word", "expected"), [("cat", "cats"), ("bus", "buses"), ("person", "people")])
def test_plural(word, expected):
    assert plural(word) == expected


def test_runs_under_pytest():
    # only pytest's own protocol sets this variable: a run without it fails here, and pytest's passes
    assert "test_runs_under_pytest" in os.environ.get("PYTEST_CURRENT_TEST", "")
    assert plural("dog") == "dogs"
    assert article("dog") == "a"


def test_dashed():
    assert dashed("ab") == "a-b-"


@pytest.mark.parametrize("times", [0, 2])
def test_repeat(times):
    assert repeat("ab", times) == "ab" * times


@pytest.mark.filterwarnings("error")
def test_shout_quietly():
    # under this mark a warning is an error: only pytest's protocol applies it
    assert shout("a") == "A!"
    assert shout("hey") == "HEY!"


def test_shout_in(tmp_path):
    (tmp_path / "out.txt").write_text(shout("b"))
    assert (tmp_path / "out.txt").read_text() == "B!"


class TestShout:
    def test_word(self):
        assert shout("x") == "X!"


class TestWithSetup:
    def setup_method(self):
        self.word = "person"

    def test_plural(self):
        assert plural(self.word) == "people"


class TestUnit(unittest.TestCase):
    def test_shout(self):
        self.assertEqual(shout("y"), "Y!")
