"""Mutants that drop a `super()` call (or another closure variable) are swapped in place, closure shape kept."""

import json
import types
from pathlib import Path

import pytest

from mu2py.cli.main import main
from mu2py.engine.closures import keep_closure_shape, lost_free_variables
from mu2py.engine.swap import CodeSwap, SwapError, code_index

SOURCE = '''class Loud(str):
    def __add__(self, other):
        return self.__class__(super().__add__(other.upper()))

    @property
    def size(self):
        return len(self)

    @size.setter
    def size(self, value):
        raise AttributeError(super().__class__)


def counter():
    count = 0

    def bump(step):
        nonlocal count
        count += step
        return count
    return bump


BUMP = counter()
'''


def _module(source: str = SOURCE) -> types.ModuleType:
    module = types.ModuleType("loud")
    exec(compile(source, "loud.py", "exec"), vars(module))
    return module


def _compiled(source: str) -> types.CodeType:
    return compile(source, "loud.py", "exec", dont_inherit=True)


def test_a_method_without_its_super_call_keeps_the_class_cell_and_swaps():
    module = _module()
    swap = CodeSwap(module, _compiled(SOURCE))
    mutated = SOURCE.replace("return self.__class__(super().__add__(other.upper()))", "return None")
    code = _compiled(mutated)
    with pytest.raises(SwapError, match="closure shape"):
        swap.apply(code)
    assert lost_free_variables(_compiled(SOURCE), code) == {("Loud.__add__", 0): ["__class__"]}
    kept = keep_closure_shape(mutated, "loud.py", _compiled(SOURCE), code)
    assert kept is not None
    assert swap.apply(kept) == 1
    assert module.Loud("a") + "b" is None
    swap.restore()
    assert module.Loud("a") + "b" == "aB"


def test_only_the_lost_names_are_added_and_the_bytecode_is_the_mutants():
    mutated = SOURCE.replace("return self.__class__(super().__add__(other.upper()))", "x = 1\n        return x")
    code = _compiled(mutated)
    kept = keep_closure_shape(mutated, "loud.py", _compiled(SOURCE), code)
    assert kept is not None
    before, after = code_index(code), code_index(kept)
    changed = after["Loud.__add__"][0]
    assert changed.co_freevars == ("__class__",)
    # the dead reference generates nothing: past the free-variable copy, the same instructions
    assert changed.co_code.endswith(before["Loud.__add__"][0].co_code)
    assert changed.co_names == before["Loud.__add__"][0].co_names
    for qualname, codes in before.items():  # every other function (not enclosing it) compiles as the mutant's
        if qualname not in ("Loud", "Loud.__add__"):
            assert codes == after[qualname]


def test_namesakes_are_told_apart_and_nested_closures_keep_their_cells():
    original = _compiled(SOURCE)
    # the property's setter loses `__class__`, its getter (same qualified name) never had it
    setter = SOURCE.replace("raise AttributeError(super().__class__)", "raise AttributeError(None)")
    kept = keep_closure_shape(setter, "loud.py", original, _compiled(setter))
    assert kept is not None
    assert [c.co_freevars for c in code_index(kept)["Loud.size"]] == [(), ("__class__",)]
    # the nested function no longer reads `count`: the enclosing function keeps making its cell
    nested = SOURCE.replace("nonlocal count\n        count += step\n        return count", "return step")
    module = _module()
    swap = CodeSwap(module, original)
    kept = keep_closure_shape(nested, "loud.py", original, _compiled(nested))
    assert kept is not None
    swap.apply(kept)
    assert module.BUMP(5) == 5 and module.BUMP(5) == 5
    swap.restore()
    assert module.BUMP(5) == 5 and module.BUMP(5) == 10


def test_a_mutant_needing_a_new_closure_variable_is_not_kept():
    mutated = SOURCE.replace("return len(self)", "return len(__class__)")
    assert keep_closure_shape(mutated, "loud.py", _compiled(SOURCE), _compiled(mutated)) is None
    assert keep_closure_shape(SOURCE, "loud.py", _compiled(SOURCE), _compiled(SOURCE)) is None


def test_score_swaps_super_methods_in_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """Each mutant of a method calling `super()` runs in place (no fresh interpreter), with plain pytest's verdict."""
    test = "from loud import Loud\n\n\ndef test_add():\n    assert Loud('a') + 'b' == 'aB'\n"
    for rel, text in {"loud/__init__.py": SOURCE, "tests/test_loud.py": test}.items():
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        (tmp_path / rel).write_text(text)
    args = ["--root", str(tmp_path), "--paths", "loud", "--tests", "tests", "--no-cache", "--json"]
    assert main(["score", *args]) == 0
    adds = [m for m in json.loads(capsys.readouterr().out)["mutants"] if m["line"] == 3]
    assert adds and all(m["mode"] == "mutant" and m["status"] == "killed" for m in adds), adds


TWO_LAMBDAS = '''import re


def humanize(word):
    word = re.sub(r"(?i)([a-z]*)", lambda m: m.group(1).lower(), word)
    return re.sub(r"^\\w", lambda m: m.group(0).upper(), word)


SHOUT = [lambda s: s.upper(), lambda s: s + "!"]
'''


def test_a_mutant_dropping_one_of_a_function_s_lambdas_swaps_the_function():
    module = _module(TWO_LAMBDAS)
    swap = CodeSwap(module, _compiled(TWO_LAMBDAS))
    mutated = TWO_LAMBDAS.replace('lambda m: m.group(1).lower()', 'r"\\1"')
    # the lambdas are made at each call: none lives to be paired with the mutant's one lambda
    assert swap.apply(_compiled(mutated)) == 1
    assert module.humanize("aBC") == "ABC"
    swap.restore()
    assert module.humanize("aBC") == "Abc"


def test_a_mutant_changing_how_many_live_lambdas_there_are_is_not_swapped():
    module = _module(TWO_LAMBDAS)
    swap = CodeSwap(module, _compiled(TWO_LAMBDAS))
    # lambdas made at import (live in a table): the one left cannot be told apart from the one dropped
    with pytest.raises(SwapError, match="different number of times"):
        swap.apply(_compiled(TWO_LAMBDAS.replace('lambda s: s.upper(), ', '')))
