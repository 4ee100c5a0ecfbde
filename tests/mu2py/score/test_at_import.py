"""Execution analysis for import-time mutants: code a module's body never runs is pruned, what it runs never is."""

from __future__ import annotations

import ast
import functools
import sys
from collections import namedtuple
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mu2py.score.at_import import NOT_RUN, Layout, computes_alike, lines_run
from tests.mu2py.score.conftest import reload_and_fresh, write_tree

SOURCE = '''\
import sys
TABLE = (
    1,
    2,
)
try:
    import json as fast
except ImportError:
    fast = None
    FALLBACK = "slow"
HANDLER = lambda x: (x
                     + 1)


@staticmethod
def total(scale=2):
    return sum(TABLE) * scale


SQUARES = (n * n for n in TABLE)


class Box:
    SIDE = 3
    if sys.version_info < (3,):
        SIDE = 4


if __name__ == "__main__":
    print(total())
    sys.exit(3)
'''


def test_the_layout_holds_statements_and_code_that_runs_later() -> None:
    layout = Layout.of(SOURCE)
    assert layout.lines(4, 4) == range(2, 6)  # a constant folded into its tuple: the whole statement's lines
    assert layout.lines(9, 9) == range(9, 10)
    assert layout.lines(12, 12) is None  # the lambda's body runs when it is called
    assert layout.lines(17, 17) is None  # a function body
    assert layout.lines(16, 16) == range(15, 18)  # a default runs with the `def`, decorated from its decorator
    assert layout.lines(20, 20) is None  # a generator expression runs when iterated
    assert layout.lines(24, 24) == range(24, 25)  # a class body runs at import
    assert layout.lines(26, 26) == range(26, 27)
    assert layout.lines(30, 30) == range(30, 31)


@given(st.integers(1, SOURCE.count("\n")), st.integers(0, 3))
def test_lines_asked_about_always_hold_the_mutant(first: int, more: int) -> None:
    lines = Layout.of(SOURCE).lines(first, first + more)
    assert lines is None or (lines.start <= first and first + more < lines.stop)


def test_the_lines_of_one_file_that_ran_and_only_those(tmp_path: Path) -> None:
    code = compile(SOURCE, str(tmp_path / "m.py"), "exec")
    with lines_run(str(tmp_path / "m.py")) as ran:
        exec(code, {"__name__": "m"})
    assert ran is not None
    assert {2, 7, 11, 20, 23, 24, 25, 29} <= ran  # statements of the body, the class body's
    assert not ran & {9, 10, 26, 30, 31}  # the fallback, the other version's branch, the script's lines
    assert sys.gettrace() is None


def test_no_lines_are_told_under_another_trace_function() -> None:
    def other(frame, event, arg):  # type: ignore[no-untyped-def]
        return None

    sys.settrace(other)
    try:
        with lines_run(__file__) as ran:
            assert ran is None
        assert sys.gettrace() is other
    finally:
        sys.settrace(None)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="scored once, on 3.13: CI's time")
def test_mutants_a_body_never_reaches_are_pruned_and_as_a_fresh_interpreter_judges_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {
        "boxes/__init__.py": "", "boxes/core.py": SOURCE,
        "tests/test_core.py": "from boxes.core import HANDLER, Box, total\n\n\n"
                              "def test_total():\n    assert total() == 6\n\n\n"
                              "def test_handler():\n    assert HANDLER(1) == 2\n\n\n"
                              "def test_box():\n    assert Box.SIDE == 3\n"})
    reloaded, fresh = reload_and_fresh(tmp_path, "boxes", capsys)  # the same status for every mutant, both ways
    pruned = {m["line"] for m in reloaded.values() if m["pruned"] == NOT_RUN}
    # the fallback, the other version's branch, the script: pruned, every one; nothing the body runs
    assert {9, 10, 26, 30, 31} <= pruned and not pruned & {2, 3, 4, 11, 12, 16, 20, 24, 25, 29}
    assert all(m["status"] == "survived" and m["tests_run"] == 0 for m in reloaded.values() if m["pruned"] == NOT_RUN)
    # the constant folded into the tuple runs: judged, and killed by the test that sums it
    assert {m["status"] for m in reloaded.values() if m["line"] == 4} == {"killed"}


Row = namedtuple("Row", "a b")


def _helper() -> int:
    return 1


class _Local:
    pass


_Local.__module__ = _helper.__module__ = "proj"


@pytest.mark.parametrize(("statement", "alike"), [
    ('T = {"a": Row(1, 2), "b": Row(3, _helper)}', True),  # named tuples of constants and project functions
    ("P = functools_partial(_helper, 2)", True),
    ("K = sorted([3, 1]), _Local", True),
    ('if __name__ == "__main__": pass', False),  # not an assignment
    ('MAIN = __name__ == "__main__"', False),  # "__main__" in a script
    ("ARGS = sys.argv[1:]", False),  # a module's attribute
    ("X = _helper()", False),  # a project function called: it may read anything
    ("Y = T", False),  # a value an earlier statement computed
    ('Z = "x".upper()', False),  # a method called
    ("W = [i for i in range(3)]", False),
])
def test_a_statement_computes_alike_in_any_process_only_from_constants_and_pure_calls(
        statement: str, alike: bool) -> None:
    namespace = {"Row": Row, "_helper": _helper, "_Local": _Local, "functools_partial": functools.partial,
                 "sys": sys, "T": {}, "__name__": "proj"}
    assert computes_alike(ast.parse(statement).body[0], namespace, frozenset({"proj"})) is alike
