"""A reload whose mutant changes one value leaves every other class attribute, default and accessor as it was:
only what the mutant changed counts as changed (so only the tests reading it run)."""

import collections
import importlib
import pickle
import sys
import types

import pytest

from mu2py.score.imports import ImportGraph, module_facts
from mu2py.score.reload import reload_in_place
from mu2py.score.spec import SuiteSpec, build_program
from tests.mu2py.score.conftest import one_module_package, write_tree

SOURCE = '''import collections

VERSION = "1.0"


class _Size:
    __slots__ = ()

    def __call__(self, value):
        return 1


class Store:
    __size = _Size()
    __marker = _Size()

    def __init__(self):
        self.data = {}

    def put(self, key, value):
        self.data[key] = self.__size(value)

    def get(self, key, default=__marker):
        if key in self.data:
            return self.data[key]
        if default is self.__marker:
            raise KeyError(key)
        return default


class Counted(Store):
    def put(self, key, value, store_put=Store.put):
        store_put(self, key, value)


class Link:
    __slots__ = ("key", "next")

    def __init__(self, key=None):
        self.key = key


Info = collections.namedtuple("Info", ["hits", "misses"])
'''


@pytest.fixture
def store(tmp_path):
    write_tree(tmp_path, {"mpkg/__init__.py": "", "mpkg/store.py": SOURCE})
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("mpkg.store")
        pickle.dumps(module.Link(1))  # copyreg caches the slot names on the class: `Link.__slotnames__`
        spec = SuiteSpec(root=str(tmp_path), pytest_args=(), modules=("mpkg.store",),
                         files=(str(tmp_path / "mpkg" / "store.py"),))
        yield types.SimpleNamespace(module=module, program=build_program(spec))
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("mpkg.store", "mpkg"):
            sys.modules.pop(name, None)


def _reload(store, mutated):
    m = next(m for m in store.program.mutants if m.line == 3 and m.mutated == mutated)
    code = compile(store.program.mutant_source(m.id), m.file, "exec")
    graph = ImportGraph([module_facts("mpkg.store", SOURCE)])
    return reload_in_place(store.module, code, graph, {"mpkg.store": store.module}, ran_at_import=set())


def test_a_constant_changes_its_name_and_what_holds_a_recreated_marker_only(store):
    module = store.module
    kept = (module.Store._Store__size, module.Counted.put.__defaults__, module.Link.key, module.Info.hits)
    reload = _reload(store, '"XX1.0XX"')
    try:
        assert module.VERSION == "XX1.0XX"
        # `__marker` is also held by `get`'s default: it is re-created with it, so the two stay one object
        assert reload.changed_names == {"VERSION", "_Store__marker"} and not reload.doubts
        assert {c.co_qualname for c in reload.changed_codes} == {"Store.get"} and reload.observable_by_name
        assert (module.Store._Store__size, module.Counted.put.__defaults__, module.Link.key,
                module.Info.hits) == kept
        counted = module.Counted()
        counted.put("a", "x")
        assert counted.get("a") == 1 and counted.get("b", 2) == 2
        with pytest.raises(KeyError):
            counted.get("b")  # the marker default is still the class's own marker
        assert module.Link(3).key == 3 and module.Info(1, 2).misses == 2 and "__slotnames__" in vars(module.Link)
    finally:
        reload.restore()
    assert module.VERSION == "1.0" and module.Store._Store__size is kept[0]


def test_a_namedtuple_accessor_is_equivalent_only_with_its_field_number_and_doc():
    from mu2py.score.merge import Reload

    reload = Reload(types.ModuleType("m"), {})
    first, second = collections.namedtuple("P", "x y"), collections.namedtuple("P", "x y")
    assert reload.equivalent(first.x, second.x) and not reload.equivalent(first.x, second.y)


NAMED = '''import collections

LIMIT = 3


class Pair(collections.namedtuple("Pair", ["left", "right"])):
    def total(self):
        return min(self.left + self.right, LIMIT)
'''


def test_a_class_on_an_unnamed_namedtuple_base_is_merged(tmp_path):
    write_tree(tmp_path, {"npkg/__init__.py": "", "npkg/pair.py": NAMED})
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("npkg.pair")
        pair, made = module.Pair, module.Pair(2, 5)  # an instance made before, as a test module's constant
        spec = SuiteSpec(root=str(tmp_path), pytest_args=(), modules=("npkg.pair",),
                         files=(str(tmp_path / "npkg" / "pair.py"),))
        program = build_program(spec)
        m = next(m for m in program.mutants if m.line == 3 and m.mutated == "4")
        graph = ImportGraph([module_facts("npkg.pair", NAMED)])
        reload = reload_in_place(module, compile(program.mutant_source(m.id), m.file, "exec"), graph,
                                 {"npkg.pair": module}, ran_at_import=set())
        try:
            # the class keeps its identity (no importer's binding of it goes stale), and only LIMIT changed
            assert module.Pair is pair and made.total() == 4 and module.Pair(1, 1).left == 1
            assert reload.changed_names == {"LIMIT"} and not reload.doubts
        finally:
            reload.restore()
        assert module.Pair is pair and made.total() == 3
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("npkg.pair", "npkg"):
            sys.modules.pop(name, None)


def test_package_metadata_dunders_are_plain_data():
    from mu2py.score.merge import Reload

    reload = Reload(types.ModuleType("m"), {}, changed_names={"__title__", "__author_email__"})
    assert reload.observable_by_name
    assert not Reload(types.ModuleType("m"), {}, changed_names={"__getattr__"}).observable_by_name


MOVED = '''NAMES = (
    "double",
)


def double(n):
    return 2 * n
'''


def test_a_function_only_moved_by_the_mutant_is_no_change(tmp_path):
    write_tree(tmp_path, {"lpkg/__init__.py": "", "lpkg/moved.py": MOVED})
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("lpkg.moved")
        code = module.double.__code__
        spec = SuiteSpec(root=str(tmp_path), pytest_args=(), modules=("lpkg.moved",),
                         files=(str(tmp_path / "lpkg" / "moved.py"),))
        program = build_program(spec)
        m = next(m for m in program.mutants if m.line == 1 and m.mutated == "NAMES = None")  # two lines fewer
        graph = ImportGraph([module_facts("lpkg.moved", MOVED)])
        reload = reload_in_place(module, compile(program.mutant_source(m.id), m.file, "exec"), graph,
                                 {"lpkg.moved": module}, ran_at_import=None)
        try:
            # nothing ran `double` differently: no change, and so no doubt about calls made at import time
            assert module.double.__code__ is code and not reload.changed_codes and not reload.doubts
            assert reload.changed_names == {"NAMES"} and module.NAMES is None
        finally:
            reload.restore()
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("lpkg.moved", "lpkg"):
            sys.modules.pop(name, None)


NONE = '''class Hashed(tuple):
    __value = None

    def __hash__(self):
        return self.__value if self.__value is not None else 0


def pick(n, default=0):
    return default
'''


@pytest.mark.parametrize(("line", "mutated"), [(2, '__value = ""'), (8, "1")])
def test_a_changed_class_attribute_or_default_is_a_change(tmp_path, line, mutated):
    """`__value = None` -> `__value = ""` (cachetools' `_HashedTuple`: an unmapped value passed for the same as an
    original None), `default=0` -> `default=1`."""
    with one_module_package(tmp_path, "zpkg", "none", NONE) as (module, _, program):
        m = next(m for m in program.mutants if m.line == line and m.mutated == mutated)
        graph = ImportGraph([module_facts("zpkg.none", NONE)])
        reload = reload_in_place(module, compile(program.mutant_source(m.id), m.file, "exec"), graph,
                                 {"zpkg.none": module}, ran_at_import=set())
        try:
            assert (module.Hashed._Hashed__value, module.pick(1)) == (("", 0) if line == 2 else (None, 1))
        finally:
            reload.restore()
        assert (module.Hashed._Hashed__value, module.pick(1)) == (None, 0)
