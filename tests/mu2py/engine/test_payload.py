"""Payloads: a function mutant's snippet compiles to the module's own code objects except where it is mutated."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mu2py.engine.copies import compile_module
from mu2py.engine.engine import LocalRunner
from mu2py.engine.swap import code_index
from mu2py.mutants.catalog import Program
from mu2py.target.modules import resolve_target


@pytest.fixture(scope="module")
def toml_program():
    return Program(resolve_target("targets.toml.driver:parse"))


def _module_codes(program, name):
    info = next(m for m in program.target.modules if m.name == name)
    return {code for codes in code_index(compile_module(info)).values() for code in codes}


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_swap_snippet_matches_module_code(toml_program, data):
    index = data.draw(st.integers(0, len(toml_program.mutants) - 1))
    payload = toml_program.payload(index)
    if payload.kind != "swap":
        return
    original, mutated = payload.codes()
    module_codes = _module_codes(toml_program, payload.module)
    # function bodies (a method's snippet holds its own bare class bodies, which nothing swaps)
    snippet = [c for codes in code_index(original).values() for c in codes if c.co_flags & 0x1]
    assert snippet and all(code in module_codes for code in snippet)
    changed = [c for codes in code_index(mutated).values() for c in codes if c.co_flags & 0x1 and c not in module_codes]
    assert changed, "a swap payload changes at least one function"


@pytest.mark.parametrize("spec", ["targets.toml.driver:parse", "targets.chocopy.fuzzing:check"])
def test_every_swap_payload_finds_live_functions(spec, toml_program):
    """tomllib is mostly functions; ChocoPy's checker mostly methods of large classes (compiled one method each)."""
    program = toml_program if spec.startswith("targets.toml") else Program(resolve_target(spec))
    runner = LocalRunner(program)
    swaps = [i for i in range(len(program.mutants)) if program.payload(i).kind == "swap"]
    assert len(swaps) > len(program.mutants) // 2
    for index in swaps[:: 1 if program is toml_program else 3]:  # ChocoPy: a third of its thousand, for time
        payload = program.payload(index)
        original, mutated = payload.codes()
        assert runner.engine.swaps[payload.module].plan(mutated, original), program.mutants[index]


def test_import_time_mutants_are_never_swapped(toml_program):
    for index, mutant in enumerate(toml_program.mutants):
        if mutant.at_import:
            assert toml_program.payload(index).kind in ("copy", "error"), mutant


def test_import_time_mutants_judged_as_a_whole_module_import_would(json_program):
    """Statement-by-statement rebuilds with the driver rebound give the verdicts of a plain re-import."""
    from mu2py.engine.copies import build_copies, driver_function
    from mu2py.engine.oracle import kill_reason
    from mu2py.engine.runs import run

    target = json_program.target
    runner = LocalRunner(json_program)
    copies = [i for i in range(len(json_program.mutants)) if json_program.payload(i).kind == "copy"]
    value = '{"a": [1, -2.5e3, "x\\\\n\\\\u00e9"], "b": null, "c": true}'
    verdicts = {v.index: v.reason for v in runner.judge(value, copies, 2.0)}
    codes = {m.name: compile_module(m) for m in target.copied}
    original = run(target.driver.fn, value, 2.0)
    for index in copies:
        mutant = json_program.mutants[index]
        info = json_program.module_of(mutant.id)
        try:
            code = compile_module(info, json_program.mutant_source(mutant.id))
            fn = driver_function(target, build_copies(target, dict(codes, **{info.name: code})))
            expected = kill_reason(original, run(fn, value, 2.0))
        except Exception:  # noqa: BLE001 - the whole-module import raised: an exception kill
            expected = "raised"
        if expected == "raised":
            assert verdicts[index] is not None, mutant
        else:
            assert verdicts[index] == expected, mutant


SHAPES = '''
class Base:
    def total(self, xs):
        return sum(xs) + 1


class Outer(Base):
    __secret = 3

    def total(self, xs):
        return super().total(xs) * 2 + self.__secret

    @property
    def size(self):
        return self._size + 1

    @size.setter
    def size(self, value):
        self._size = value - 1

    class Inner:
        @staticmethod
        def scale(x):
            return x * 3 - 1

        def shifted(self, x):
            return [y + 1 for y in range(x) if y % 2 == 0]
'''
DRIVER = '''
from hypothesis import strategies as st

from classy import shapes
from mu2py import driver


@driver(st.lists(st.integers(0, 5), max_size=4), targets=["classy.shapes"])
def run(xs):
    outer = shapes.Outer()
    outer.size = len(xs)
    return outer.total(xs), outer.size, shapes.Outer.Inner.scale(len(xs)), shapes.Outer.Inner().shifted(len(xs))
'''


def test_a_method_mutant_compiles_its_method_alone_with_the_verdicts_of_its_whole_class(
        driver_package, tmp_path, monkeypatch):
    """super(), name mangling, a property's getter and setter, a nested class: the method's snippet still holds the
    module's own code objects, and every verdict equals that of the payload compiled from the whole class."""
    from mu2py.engine.payload import ModuleLayout

    spec = f"{driver_package('classy', DRIVER)}:run"
    (tmp_path / "classy" / "shapes.py").write_text(SHAPES)
    narrow = Program(resolve_target(spec))
    payloads = [narrow.payload(i) for i in range(len(narrow.mutants))]
    in_methods = 0
    for payload in payloads:
        if payload.kind == "swap":
            original, _ = payload.codes()
            index = code_index(original)
            if "Outer" in index or "Base" in index:  # a method's snippet: its classes and that method only
                in_methods += 1
                methods = {q for q, codes in index.items() if "<" not in q and codes[0].co_flags & 0x1}
                assert len(methods) == 1, methods
    assert in_methods >= 6
    values = [[], [1], [0, 5, 2], [4, 4, 4, 4]]
    verdicts = [[(v.index, v.reason) for v in LocalRunner(narrow).judge(x, range(len(narrow.mutants)), 5.0)]
                for x in values]
    monkeypatch.setattr(ModuleLayout, "_method_snippet", lambda self, start, end: None)
    whole = Program(resolve_target(spec))
    assert [p.kind for p in payloads] == [whole.payload(i).kind for i in range(len(whole.mutants))]
    assert verdicts == [[(v.index, v.reason) for v in LocalRunner(whole).judge(x, range(len(whole.mutants)), 5.0)]
                        for x in values]
    assert sum(reason is not None for row in verdicts for _, reason in row) > 10
