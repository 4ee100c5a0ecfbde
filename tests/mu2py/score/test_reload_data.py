"""A reload re-creating a class's data attributes: a doubt only where import-time code may have read that data."""

import importlib
import sys
import types

import pytest

from mu2py.score.imports import ImportGraph, module_facts
from mu2py.score.reload import reload_in_place
from mu2py.score.spec import SuiteSpec, build_program

BASE = '''
class Cache:
    __marker = object()
    limit = 10

    def __init__(self, size=3):
        self.size = size

    def pop(self, key, default=__marker):
        if default is self.__marker:
            raise KeyError(key)
        return default

    def room(self):
        return self.limit - self.size
'''

HOLDS = '''
from dpkg import base


class CacheTest:
    Cache = base.Cache
'''

READS = '''
from dpkg import base

LIMIT = base.Cache.limit
'''


@pytest.fixture(scope="module")
def pkg(tmp_path_factory):
    root = tmp_path_factory.mktemp("reload_data")
    (root / "dpkg").mkdir()
    files = {"__init__": "", "base": BASE, "holds": HOLDS, "reads": READS}
    for name, text in files.items():
        (root / "dpkg" / f"{name}.py").write_text(text)
    sys.path.insert(0, str(root))
    try:
        modules = {f"dpkg.{n}": importlib.import_module(f"dpkg.{n}") for n in ("base", "holds", "reads")}
        spec = SuiteSpec(root=str(root), pytest_args=(), modules=("dpkg.base",), files=(str(root / "dpkg/base.py"),))
        yield types.SimpleNamespace(base=modules["dpkg.base"], program=build_program(spec), modules=modules,
                                    sources={n: files[n.split(".")[1]] for n in modules})
    finally:
        sys.path.remove(str(root))
        for name in ("dpkg.reads", "dpkg.holds", "dpkg.base", "dpkg"):
            sys.modules.pop(name, None)


def _doubts(pkg, line, mutated, readers, ran_at_import=frozenset()):
    """The doubts of reloading the mutant with only `readers` (module names) known to the import graph."""
    graph = ImportGraph([module_facts(n, pkg.sources[n]) for n in ("dpkg.base", *readers)])
    modules = {n: pkg.modules[n] for n in ("dpkg.base", *readers)}
    for m in pkg.program.mutants:
        if m.line == line and m.mutated == mutated:
            code = compile(pkg.program.mutant_source(m.id), m.file, "exec")
            ran = None if ran_at_import is None else set(ran_at_import)
            reload = reload_in_place(pkg.base, code, graph, modules, ran_at_import=ran)
            try:
                return list(reload.doubts)
            finally:
                reload.restore()
    raise AssertionError(f"no mutant {mutated!r} on line {line}")


def test_a_re_created_sentinel_is_no_doubt_for_a_module_holding_the_class(pkg):
    # `def __init__(self, size=3)` -> 4: the class body re-creates `__marker`, a data attribute nobody read
    # at import time; the test module's class attribute holds the same (merged) class, which sees the mutant
    assert _doubts(pkg, 6, "4", ["dpkg.holds"]) == []
    assert pkg.base.Cache().pop("k", 1) == 1 and pkg.modules["dpkg.holds"].CacheTest.Cache is pkg.base.Cache
    with pytest.raises(KeyError):
        pkg.base.Cache().pop("k")


def test_a_data_attribute_read_by_another_module_at_import_is_a_doubt(pkg):
    # `limit = 10` -> 11: `LIMIT = base.Cache.limit` holds the original's value
    assert any("dpkg.reads reads limit" in d for d in _doubts(pkg, 4, "11", ["dpkg.reads"]))
    assert _doubts(pkg, 4, "11", ["dpkg.holds"]) == []


def test_a_data_attribute_read_by_code_that_ran_at_import_is_a_doubt(pkg):
    room = pkg.base.Cache.room.__code__  # reads `limit`: what it computed at import time holds the original's
    assert any("Cache.room" in d for d in _doubts(pkg, 4, "11", ["dpkg.holds"], ran_at_import={room}))
    assert _doubts(pkg, 6, "4", ["dpkg.holds"], ran_at_import={room}) == []
    assert _doubts(pkg, 6, "4", ["dpkg.holds"], ran_at_import=None) != []
