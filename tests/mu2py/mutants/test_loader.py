"""Loading mutants as module copies leaves the original program and sys.modules untouched."""

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

import targets.insertion_sort.sort as original_sort


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_loading_a_mutant_leaves_original_untouched(sort_program, data):
    index = data.draw(st.integers(0, len(sort_program.mutants) - 1))
    before_modules = dict(sys.modules)
    before_globals = dict(vars(original_sort))
    sort_program._cache._items.clear()  # force a fresh build
    mutant = sort_program.mutant(sort_program.mutants[index].id)
    assert dict(sys.modules) == before_modules
    assert vars(original_sort) == before_globals
    assert sys.modules["targets.insertion_sort.sort"] is original_sort
    assert sort_program.original()([3, 1, 2]) == [1, 2, 3]
    if callable(mutant):
        assert mutant.__globals__ is not original_sort.__dict__


def test_mutant_copy_calls_mutated_code(sort_program):
    index = next(i for i, m in enumerate(sort_program.mutants) if m.operator == "return_value")
    mutant = sort_program.mutant(sort_program.mutants[index].id)
    assert mutant([2, 1]) is None
    assert sort_program.original()([2, 1]) == [1, 2]


def test_cache_is_bounded(sort_program):
    from mu2py.mutants.loader import CopyCache

    built = []
    cache = CopyCache(lambda k: built.append(k) or k, capacity=3)
    for key in "abcdab":
        cache.get(key)
    assert len(cache) == 3 and built == list("abcdab")
