"""Payloads: a function mutant's snippet compiles to the module's own code objects except where it is mutated."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mu2py.engine.engine import LocalRunner
from mu2py.engine.swap import code_index
from mu2py.mutants.catalog import Program
from mu2py.mutants.loader import compile_module
from mu2py.target import resolve_target


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
    snippet = [c for codes in code_index(original).values() for c in codes]
    assert snippet and all(code in module_codes for code in snippet)
    changed = [c for codes in code_index(mutated).values() for c in codes if c not in module_codes]
    assert changed, "a swap payload changes at least one function"


def test_every_swap_payload_finds_live_functions(toml_program):
    runner = LocalRunner(toml_program)
    swaps = [i for i in range(len(toml_program.mutants)) if toml_program.payload(i).kind == "swap"]
    assert len(swaps) > len(toml_program.mutants) // 2
    for index in swaps:
        payload = toml_program.payload(index)
        original, mutated = payload.codes()
        assert runner.engine.swaps[payload.module].plan(mutated, original), toml_program.mutants[index]


def test_import_time_mutants_are_never_swapped(toml_program):
    for index, mutant in enumerate(toml_program.mutants):
        if mutant.at_import:
            assert toml_program.payload(index).kind in ("copy", "error"), mutant


def test_import_time_mutants_judged_as_a_whole_module_import_would(json_program):
    """Statement-by-statement rebuilds with the driver rebound give the verdicts of a plain re-import."""
    from mu2py.engine.oracle import kill_reason
    from mu2py.engine.runs import run
    from mu2py.mutants.loader import build_copies, driver_function

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
