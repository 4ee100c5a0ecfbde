"""A replaced original held only by the reload's own bookkeeping is no doubt, found without searching the heap."""

import gc

import pytest

from mu2py.score import reload as reload_module
from mu2py.score.imports import ImportGraph, module_facts
from mu2py.score.reload import reload_in_place
from tests.mu2py.score.conftest import one_module_package

TABLES = '''RULES = [("a", 1), ("b", 2)]


def lookup(key):
    return dict(RULES).get(key)
'''


def _reload(tmp_path, kept=None):
    """Reload the mutant `("b", 2)` -> `("b", 3)` with `gc.get_referrers` counted; (doubts, referrer searches)."""
    with one_module_package(tmp_path, "hpkg", "tables", TABLES) as (module, _, program):
        if kept is not None:
            kept.append(module.RULES)  # a holder outside the reload: the original stays reachable there
        m = next(m for m in program.mutants if m.line == 1 and m.original == "2" and m.mutated == "3")
        searches = []
        real = gc.get_referrers

        def counted(*objects):
            searches.append(len(objects))
            # this wrapper's own argument tuple holds the originals, and Python 3.13 reports it: not the reload's
            return [r for r in real(*objects) if r is not objects]

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(reload_module.gc, "get_referrers", counted)
            reload = reload_in_place(module, compile(program.mutant_source(m.id), m.file, "exec"),
                                     ImportGraph([module_facts("hpkg.tables", TABLES)]), {"hpkg.tables": module},
                                     ran_at_import=set())
        try:
            assert module.lookup("b") == 3
        finally:
            reload.restore()
        assert module.lookup("b") == 2
        return reload.doubts, searches


def test_an_original_only_the_reload_holds_needs_no_heap_search(tmp_path):
    doubts, searches = _reload(tmp_path)
    assert doubts == [] and searches == []


def test_an_original_held_elsewhere_is_still_a_doubt(tmp_path):
    kept = []
    doubts, searches = _reload(tmp_path, kept)
    assert searches and any("the original RULES is still held by a list" in d for d in doubts)


def test_without_exact_reference_counts_the_heap_decides(tmp_path, monkeypatch):
    """From Python 3.14 (or without the GIL) a reference count may be lower than the references: no shortcut."""
    monkeypatch.setattr(reload_module, "_EXACT_REFCOUNTS", False)
    doubts, searches = _reload(tmp_path)
    assert doubts == [] and searches
