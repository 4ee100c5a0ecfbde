"""A function mutant whose function ran while another module under test was imported (a registry of instances built
at import) is judged in place: the mutated module's body re-run, then the body of the module whose import ran it,
with the statuses a fresh interpreter per mutant gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mu2py.score.conftest import reload_and_fresh, write_tree

LANG = '''class Words:
    def __init__(self):
        self.setup()

    def setup(self):
        self.ones = ["zero", "one", "two"]
        self.sep = "-"

    def say(self, n):
        return self.ones[n]

    def pair(self, a, b):
        return self.say(a) + self.sep + self.say(b)
'''
INIT = '''from reg import lang

CONVERTERS = {"en": lang.Words()}


def say(n, to="en"):
    return CONVERTERS[to].say(n)
'''
TESTS = '''from reg import say


def test_one():
    assert say(1) == "one"


def test_two():
    assert say(2) == "two"
'''


def test_a_function_run_by_another_module_s_import_is_judged_by_re_running_both_bodies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"reg/__init__.py": INIT, "reg/lang.py": LANG, "tests/test_reg.py": TESTS})
    reloaded, fresh = reload_and_fresh(tmp_path, "reg", capsys)  # the same status for every mutant, both ways
    setup = [m for m in reloaded.values() if m["module"] == "reg.lang" and 6 <= m["line"] <= 7]
    assert setup and all(m["mode"] == "reexec" for m in setup)  # not a fresh interpreter each
    by_change = {m["mutated"]: m for m in setup}
    assert by_change['"XXoneXX"']["status"] == "killed"
    assert by_change['"XX-XX"']["status"] == "survived"  # no test reads the separator
    assert all(fresh[m["id"]]["mode"] == "isolated" for m in setup)
