"""A nested function a test module runs while it is imported (a decorator applied to its classes) is judged."""

import json

from mu2py.cli.main import main
from tests.mu2py.score.conftest import write_tree

DECO = '''def tagged(label):
    def decorator(cls):
        cls.label = label
        return cls
    return decorator
'''
TEST = '''from deco_pkg.deco import tagged


@tagged("x")
class Thing:
    pass


def test_label():
    assert Thing.label == "x"
'''


def test_a_decorator_run_while_the_tests_are_collected_is_not_left_uncovered(tmp_path, capsys):
    """fasteners' `locked.<locals>.decorator`: no test runs it (the test module's import does), so no test reaches
    it; plain pytest fails on its mutants all the same.  They are judged in a fresh interpreter, not `no_coverage`."""
    root = tmp_path / "project"
    write_tree(root, {"deco_pkg/__init__.py": "", "deco_pkg/deco.py": DECO, "tests/test_deco.py": TEST})
    assert main(["score", "--root", str(root), "--paths", "deco_pkg", "--tests", "tests", "--no-cache",
                 "--json"]) == 0
    mutants = json.loads(capsys.readouterr().out)["mutants"]
    inner = {(m["line"], m["mutated"]): m for m in mutants if m["line"] in (3, 4)}
    assert inner[(3, "cls.label = None")]["status"] == "killed"
    assert inner[(4, "return None")]["status"] == "killed"
    assert {m["mode"] for m in inner.values()} == {"isolated"}
    assert all("decorator ran while a module was imported" in m["isolated_because"] for m in inner.values())
