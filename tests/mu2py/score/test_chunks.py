"""A mutated module body compiled statement by statement runs as the whole mutated module's code does
(`chunks`)."""

from __future__ import annotations

import sys
import traceback
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mu2py.score import chunks

SOURCE = '''"""The module's docstring."""
from __future__ import annotations

import functools

"""A string statement, which is not the docstring."""
LIMIT: int = 3
TABLE = {
    "a": 1,
    "b": 2,
}


@functools.lru_cache(maxsize=None)
def double(x: "Number") -> int:
    return 2 * x


class Box:
    size = LIMIT

    def grow(self) -> int:
        return self.size + TABLE["a"]

    def joined(self) -> str:
        return os.fspath("a")  # a function of an imported module: called without LOAD_METHOD
\x0c
DOUBLED = double(LIMIT)
try:
    import os
except ImportError:
    os = None
'''


def _run(code: Any) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "sample"}
    chunks.execute(code, namespace)
    return namespace


def _same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a.keys() == b.keys()
    for name in a:
        x, y = a[name], b[name]
        if name == "double":
            assert x.__wrapped__.__code__ == y.__wrapped__.__code__
            assert x.__wrapped__.__annotations__ == y.__wrapped__.__annotations__ == {"x": "'Number'", "return": "int"}
        elif name == "Box":
            assert x.grow.__code__ == y.grow.__code__ and x.joined.__code__ == y.joined.__code__ and x.size == y.size
        elif name not in ("__builtins__", "functools", "os"):
            assert x == y, name


@pytest.mark.parametrize("old, new", [('"a": 1', '"a": 5'), ("return 2 * x", "return 3 * x"),
                                      ("size = LIMIT", "size = 0"), ("LIMIT: int = 3", "LIMIT: int = 4"),
                                      ("maxsize=None", "maxsize=1")])
def test_a_body_run_statement_by_statement_makes_what_the_whole_code_makes(old: str, new: str) -> None:
    mutated = SOURCE.replace(old, new)
    statements = chunks.Statements.of(SOURCE, "sample.py")
    body = statements.body(mutated)
    assert len(body.codes) == len(statements.spans) == 10  # one code object per statement: one compiled anew
    whole = _run(compile(mutated, "sample.py", "exec", dont_inherit=True))
    _same(_run(body), whole)
    assert whole["__doc__"] == "The module's docstring."
    assert statements.body(SOURCE).codes == statements.body(SOURCE).codes  # the unchanged ones compiled once


def test_a_mutant_raises_where_the_whole_code_raises() -> None:
    mutated = SOURCE.replace("DOUBLED = double(LIMIT)", "DOUBLED = double(LIMIT) / 0")
    with pytest.raises(ZeroDivisionError) as raised:
        _run(chunks.Statements.of(SOURCE, "sample.py").body(mutated))
    frame = traceback.extract_tb(raised.value.__traceback__)[-1]
    assert (frame.filename, frame.lineno) == ("sample.py", SOURCE.split("\n").index("DOUBLED = double(LIMIT)") + 1)
    with pytest.raises(SyntaxError) as wrong:
        chunks.Statements.of(SOURCE, "sample.py").body(SOURCE.replace("size = LIMIT", "size = = LIMIT"))
    assert wrong.value.lineno == SOURCE.split("\n").index("    size = LIMIT") + 1


def test_a_statement_that_lost_lines_is_padded_and_the_later_ones_keep_theirs() -> None:
    lost = SOURCE.replace('    "a": 1,\n', "")  # one line gone from TABLE's statement
    statements = chunks.Statements.of(SOURCE, "sample.py")
    body = statements.body(lost)
    assert len(body.codes) == 10 and _run(body)["TABLE"] == {"b": 2}
    original = statements.body(SOURCE)
    # every later statement's code is the original's (the functions keep their code objects' lines)
    assert body.codes[6:] == original.codes[6:] and body.codes[:5] == original.codes[:5]
    assert body.codes[5] != original.codes[5]
    repeated = "X = [\n    1,\n    1,\n]\nY = 2\n"
    assert _run(chunks.Statements.of(repeated, "r.py").body(repeated.replace("    1,\n", "", 1)))["X"] == [1]


def test_what_cannot_be_split_by_line_is_compiled_whole() -> None:
    shared = "A = 1; B = 2\nC = A\n"
    assert len(chunks.Statements.of(shared, "s.py").body(shared.replace("B = 2", "B = 3")).codes) == 1
    grown = SOURCE.replace("LIMIT: int = 3", "LIMIT: int = (\n    3)")  # one more line: the later ones would move
    assert len(chunks.Statements.of(SOURCE, "sample.py").body(grown).codes) == 1


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(["X = 1", "Y = X + 1", '"note"', "def f():\n    return X", "", "# comment",
                                 "if X:\n    Z = 2", "class K:\n    a = 1"]), min_size=1, max_size=8),
       st.integers(min_value=0, max_value=7))
def test_any_module_split_runs_as_its_whole(parts: list[str], which: int) -> None:
    source = "\n".join(parts) + "\n"
    mutated = source.replace("1", "7", 1) if which % 2 else source
    whole, split = {"__name__": "m"}, {"__name__": "m"}
    raised = []
    for run in (lambda: exec(compile(mutated, "m.py", "exec", dont_inherit=True), whole),
                lambda: chunks.execute(chunks.Statements.of(source, "m.py").body(mutated), split)):
        try:
            run()
            raised.append(None)
        except NameError as exc:  # `Y = X + 1` before any `X = 1`: both raise it, on the same line
            raised.append((str(exc), traceback.extract_tb(exc.__traceback__)[-1].lineno))
    assert raised[0] == raised[1]
    assert {k: v for k, v in whole.items() if k not in ("f", "K", "__builtins__")} == \
        {k: v for k, v in split.items() if k not in ("f", "K", "__builtins__")}
    assert ("f" in whole) == ("f" in split) and ("K" in whole) == ("K" in split)


def test_a_trace_of_a_body_sees_only_the_lines_its_statements_run() -> None:
    # a fallback never run, then a statement compiled with the module's imports (past the module's last line):
    # the trace of a re-run body tells which lines ran (`at_import`), and line 4 must not seem run
    source = "import sys\ntry:\n    import json as fast\nexcept ImportError:\n    fast = None\n" \
             "LIMIT = sys.maxsize\n\"A note.\"\nLATER = fast.dumps(1)\n"
    body = chunks.Statements.of(source, "t.py").body(source.replace("(1)", "(2)"))
    lines: set[int] = set()

    def trace(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename == "t.py":
            if event == "line":
                lines.add(frame.f_lineno)
            return trace
        return None

    sys.settrace(trace)
    try:
        _run(body)
    finally:
        sys.settrace(None)
    assert {n for n in lines if n <= len(source.split("\n"))} == {1, 2, 3, 6, 7, 8}


def test_a_module_s_future_imports_give_each_statement_the_code_the_whole_module_gets() -> None:
    # `division` and `unicode_literals` are features every Python 3 has: their flags must not reach the code, or
    # every function of a re-compiled statement differs from the original's; `annotations` changes the code
    source = ("from __future__ import annotations, division, unicode_literals\n\n\n"
              "def f(x: Undefined) -> int:\n    return x / 2\n\n\nclass K:\n    def g(self):\n        return 'k'\n")
    whole = compile(source, "fut.py", "exec", dont_inherit=True)
    body = chunks.Statements.of(source, "fut.py").body(source.replace("x / 2", "x / 3"))

    def functions(codes: Any) -> dict[str, Any]:
        found, todo = {}, list(codes)
        while todo:
            code = todo.pop()
            found[code.co_name] = code
            todo.extend(c for c in code.co_consts if isinstance(c, type(whole)))
        return found

    split, original = functions(body.codes), functions([whole])
    assert split["g"] == original["g"]  # unchanged, with the original's flags
    assert split["f"].co_flags == original["f"].co_flags and split["f"] != original["f"]
    assert _run(body)["f"].__annotations__ == {"x": "Undefined", "return": "int"}  # still postponed
