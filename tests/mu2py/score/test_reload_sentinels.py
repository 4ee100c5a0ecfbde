"""A reload re-creating a bare `object()` sentinel keeps the original everywhere: no doubt, same verdicts as fresh."""

import importlib
import sys
import types
from pathlib import Path

import pytest

from mu2py.score.imports import ImportGraph, module_facts
from mu2py.score.reload import reload_in_place
from mu2py.score.spec import SuiteSpec, build_program
from tests.mu2py.score.conftest import reload_and_fresh, write_tree

MISC = '''UseExisting = object()
PATTERN = "a+"


def pick(value=UseExisting):
    return "kept" if value is UseExisting else value


class Cache:
    __marker = object()
    limit = 10

    def pop(self, key, default=__marker):
        if default is self.__marker:
            raise KeyError(key)
        return default


CHOICES = {"use": UseExisting}
'''

MIXIN = '''from spkg import misc


class Mixin:
    def copy_with(self, scheme=misc.UseExisting):
        return "kept" if scheme is misc.UseExisting else scheme
'''

OTHER = '''ELSEWHERE = object()
'''

TESTS = '''import re

import pytest

from spkg import misc
from spkg.mixin import Mixin


def test_pick():
    assert misc.pick() == "kept" and misc.pick(3) == 3


def test_copy_with():
    assert Mixin().copy_with() == "kept" and Mixin().copy_with(1) == 1


def test_pop():
    with pytest.raises(KeyError):
        misc.Cache().pop("k")
    assert misc.Cache().pop("k", 2) == 2


def test_pattern():
    assert re.fullmatch(misc.PATTERN, "aaa") and misc.CHOICES["use"] is misc.UseExisting
'''


def _write(root: Path) -> None:
    write_tree(root, {"spkg/__init__.py": "", "spkg/misc.py": MISC, "spkg/mixin.py": MIXIN,
                      "spkg/other.py": OTHER, "tests/test_spkg.py": TESTS})


@pytest.fixture
def pkg(tmp_path):
    _write(tmp_path)
    sys.path.insert(0, str(tmp_path))
    try:
        modules = {f"spkg.{n}": importlib.import_module(f"spkg.{n}") for n in ("misc", "mixin", "other")}
        spec = SuiteSpec(root=str(tmp_path), pytest_args=(), modules=("spkg.misc",),
                         files=(str(tmp_path / "spkg/misc.py"),))
        graph = ImportGraph([module_facts("spkg.misc", MISC), module_facts("spkg.mixin", MIXIN),
                             module_facts("spkg.other", OTHER)])
        yield types.SimpleNamespace(misc=modules["spkg.misc"], mixin=modules["spkg.mixin"], modules=modules,
                                    program=build_program(spec), graph=graph)
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("spkg.misc", "spkg.mixin", "spkg.other", "spkg"):
            sys.modules.pop(name, None)


def _reload(pkg, source, ran_at_import=frozenset()):
    code = compile(source, pkg.misc.__file__, "exec")
    ran = None if ran_at_import is None else set(ran_at_import)
    return reload_in_place(pkg.misc, code, pkg.graph, pkg.modules, ran_at_import=ran)


def _mutant_source(pkg, line, mutated):
    for m in pkg.program.mutants:
        if m.line == line and m.mutated == mutated:
            return pkg.program.mutant_source(m.id)
    raise AssertionError(f"no mutant {mutated!r} on line {line}")


@pytest.mark.parametrize("ran_at_import", [frozenset(), None])
def test_a_re_created_sentinel_keeps_the_original_everywhere(pkg, ran_at_import):
    sentinel, marker, pick = pkg.misc.UseExisting, pkg.misc.Cache._Cache__marker, pkg.misc.pick
    reload = _reload(pkg, _mutant_source(pkg, 2, '"XXa+XX"'), ran_at_import)  # `PATTERN = "a+"`
    try:
        # `copy_with(scheme=misc.UseExisting)` was computed at import: it still matches the module's sentinel
        assert reload.doubts == []
        assert pkg.misc.PATTERN == "XXa+XX" and pkg.misc.UseExisting is sentinel and pkg.misc.pick is pick
        assert pick.__defaults__ == (sentinel,) and pkg.misc.CHOICES["use"] is sentinel
        assert pkg.misc.Cache._Cache__marker is marker and pkg.misc.Cache.pop.__defaults__ == (marker,)
        assert pkg.misc.pick() == "kept" and pkg.mixin.Mixin().copy_with() == "kept"
        with pytest.raises(KeyError):
            pkg.misc.Cache().pop("k")
    finally:
        reload.restore()
    assert pkg.misc.UseExisting is sentinel and pkg.misc.PATTERN == "a+" and pkg.misc.pick() == "kept"


def test_a_sentinel_held_where_it_cannot_be_replaced_stays_a_doubt(pkg):
    source = MISC.replace('PATTERN = "a+"', 'PATTERN = "b+"\nPAIR = (UseExisting, 1)')  # a tuple: immutable
    reload = _reload(pkg, source)
    try:
        assert any("spkg.mixin reads UseExisting" in d for d in reload.doubts)
        assert pkg.misc.PAIR[0] is pkg.misc.UseExisting and pkg.misc.pick() == "kept"  # consistent, all new
    finally:
        reload.restore()


def test_an_object_that_existed_before_is_never_taken_for_a_re_created_sentinel(pkg):
    elsewhere = pkg.modules["spkg.other"].ELSEWHERE
    reload = _reload(pkg, MISC.replace("UseExisting = object()", "from spkg.other import ELSEWHERE as UseExisting"))
    try:
        assert pkg.misc.UseExisting is elsewhere and pkg.misc.pick.__defaults__ == (elsewhere,)
        assert any("spkg.mixin reads UseExisting" in d for d in reload.doubts)
    finally:
        reload.restore()
    assert pkg.misc.UseExisting is not elsewhere


def test_two_sentinels_made_one_are_not_paired(pkg):
    source = MISC.replace("UseExisting = object()", "UseExisting = object()\nOTHER = object()")
    exec(compile(source, pkg.misc.__file__, "exec"), vars(pkg.misc))  # the original now has two sentinels
    reload = _reload(pkg, source.replace("OTHER = object()", "OTHER = UseExisting"))
    try:
        assert pkg.misc.OTHER is pkg.misc.UseExisting  # the mutant's single object, not split back into two
        assert pkg.misc.pick(pkg.misc.OTHER) == "kept"
    finally:
        reload.restore()


def test_sentinel_mutants_are_judged_in_place_as_in_a_fresh_interpreter(tmp_path, capsys):
    """Every import-time mutant of misc.py runs in place (no fresh interpreter), with the fresh verdict."""
    _write(tmp_path)
    reloaded, fresh = reload_and_fresh(tmp_path, "spkg", capsys)
    pattern = next(m for m in reloaded.values() if m["line"] == 2 and m["module"] == "spkg.misc")
    assert pattern["status"] == "killed" and fresh[pattern["id"]]["mode"] == "isolated"
    kept = [m for m in reloaded.values() if m["module"] == "spkg.misc" and fresh[m["id"]]["mode"] == "isolated"
            and "UseExisting = None" not in m["mutated"]]
    assert kept and all(m["mode"] == "reexec" for m in kept), kept
