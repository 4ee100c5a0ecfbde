"""Applying mutants in the engine leaves the original program, its copies and sys.modules untouched."""

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

import targets.insertion_sort.sort as original_sort
from mu2py.engine.engine import LocalRunner
from mu2py.engine.runs import Status


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_running_a_mutant_leaves_original_untouched(sort_program, sort_runner, data):
    runner = sort_runner
    index = data.draw(st.integers(0, len(sort_program.mutants) - 1))
    before_modules = dict(sys.modules)
    before_globals = dict(vars(original_sort))
    copy_globals = {name: dict(vars(m)) for name, m in runner.engine.copies.items()}
    codes = {fn: fn.__code__ for fns in runner.engine.swaps[original_sort.__name__].functions.values() for fn in fns}
    runner.judge([3, 1, 2], [index], 0.2)
    assert dict(sys.modules) == before_modules
    assert vars(original_sort) == before_globals
    assert sys.modules["targets.insertion_sort.sort"] is original_sort
    assert {name: dict(vars(m)) for name, m in runner.engine.copies.items()} == copy_globals
    assert all(fn.__code__ is code for fn, code in codes.items())
    assert sort_program.original()([3, 1, 2]) == [1, 2, 3]
    assert runner.engine.run_original([3, 1, 2]).output == [1, 2, 3]


def test_mutant_runs_mutated_code(sort_program, sort_runner):
    runner = sort_runner
    index = next(i for i, m in enumerate(sort_program.mutants) if m.operator == "return_value")
    runner.judge([2, 1], [index], 0.2)  # makes the mutant known to the engine
    result = runner.engine.run_mutant(index, [2, 1], 0.2)
    assert result.status is Status.OK and result.output is None
    assert sort_program.original()([2, 1]) == [1, 2]


def test_function_mutants_are_swapped_and_import_time_ones_copied(json_program):
    kinds = {json_program.payload(i).kind for i in range(len(json_program.mutants))}
    assert kinds <= {"swap", "copy", "error"} and {"swap", "copy"} <= kinds
    for i, mutant in enumerate(json_program.mutants):
        if mutant.at_import:
            assert json_program.payload(i).kind != "swap", mutant


def test_copy_cache_is_bounded(json_program):
    runner = LocalRunner(json_program, copy_cache=3)
    static = [i for i in range(len(json_program.mutants)) if json_program.payload(i).kind == "copy"][:6]
    runner.judge('{"a": [1, 2.5, "x"]}', static + static, 1.0)
    assert len(runner.engine._copy_sets) == 3
    assert runner.copies_built == 12  # each pass over six evicts all: LRU with three slots
