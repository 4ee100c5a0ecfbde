"""The in-place reload of a mutated module: changes reach every live reference, and restore undoes all of it."""

import functools
import importlib
import sys
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mu2py.score.imports import ImportGraph, module_facts
from mu2py.score.reload import reload_in_place
from mu2py.score.spec import SuiteSpec, build_program

BASE = '''
import functools
import sys

LIMIT = 10
NAMES = ["a", "b"]
TABLE = {"neg": lambda n: -n, "sq": lambda n: n * n}


class Base:
    kind = "base"

    def describe(self, prefix="<"):
        return prefix + self.kind


class Child(Base):
    kind = "child"

    def describe(self, prefix="["):
        return super().describe(prefix) + "!"

    @property
    def size(self):
        return len(self.kind) + 1

    @staticmethod
    def make(n=2):
        return [Child() for _ in range(n)]


SHARED = Child()


@functools.lru_cache(maxsize=None)
def cached(n, step=1):
    return n + step


def limit(n):
    return min(n, LIMIT)


if sys.version_info >= (3,):
    text = str


def as_text(x):
    return text(x)
'''

USER = '''
from rpkg.base import LIMIT, NAMES, SHARED, Child, cached, limit
from rpkg.base import TABLE as T


def default_limit(n=LIMIT):
    return n


def names():
    return list(NAMES)


def over(n):
    return n > LIMIT


def shared_kind():
    return SHARED.describe()


def through_table(n):
    return T["sq"](n)
'''


@pytest.fixture(scope="module")
def pkg(tmp_path_factory):
    root = tmp_path_factory.mktemp("reload")
    (root / "rpkg").mkdir()
    (root / "rpkg" / "__init__.py").write_text("")
    (root / "rpkg" / "base.py").write_text(BASE)
    (root / "rpkg" / "user.py").write_text(USER)
    sys.path.insert(0, str(root))
    try:
        base = importlib.import_module("rpkg.base")
        user = importlib.import_module("rpkg.user")
        spec = SuiteSpec(root=str(root), pytest_args=(), modules=("rpkg.base",), files=(str(root / "rpkg/base.py"),))
        program = build_program(spec)
        graph = ImportGraph([module_facts("rpkg.base", BASE), module_facts("rpkg.user", USER)])
        yield types.SimpleNamespace(base=base, user=user, program=program, graph=graph,
                                    modules={"rpkg.base": base, "rpkg.user": user})
    finally:
        sys.path.remove(str(root))
        for name in ("rpkg.user", "rpkg.base", "rpkg"):
            sys.modules.pop(name, None)


def _reload(pkg, line, mutated, ran_at_import=frozenset()):
    """Reload the mutant; by default no function of the package ran while the importers were imported."""
    for m in pkg.program.mutants:
        if m.line == line and m.mutated == mutated:
            return reload_in_place(pkg.base, compile(pkg.program.mutant_source(m.id), m.file, "exec"),
                                   pkg.graph, pkg.modules, ran_at_import=set(ran_at_import))
    raise AssertionError(f"no mutant {mutated!r} on line {line}")


def _function_state(fn):
    cells = tuple(id(c.cell_contents) for c in fn.__closure__ or ())
    return (id(fn), fn.__code__, fn.__defaults__, fn.__kwdefaults__, cells, dict(vars(fn)))


def snapshot(*modules):
    """Everything a reload may touch: bindings, functions' code and defaults, class attributes."""
    state = {}
    for module in modules:
        for name, value in vars(module).items():
            state[(module.__name__, name)] = id(value)
            if isinstance(value, types.FunctionType):
                state[(module.__name__, name, "fn")] = _function_state(value)
            elif isinstance(value, functools._lru_cache_wrapper):
                state[(module.__name__, name, "fn")] = _function_state(value.__wrapped__)
            elif isinstance(value, type):
                state[(module.__name__, name, "class")] = {k: id(v) for k, v in vars(value).items()}
                for key, attr in vars(value).items():
                    fn = getattr(attr, "__func__", None) or getattr(attr, "fget", None) or attr
                    if isinstance(fn, types.FunctionType):
                        state[(module.__name__, name, key)] = _function_state(fn)
    return state


def test_a_constant_imported_by_value_is_patched(pkg):
    reload = _reload(pkg, 5, "11")
    try:
        assert pkg.user.over(11) is False and pkg.base.limit(20) == 11
        assert any("rpkg.user reads LIMIT" in d for d in reload.doubts)  # `def default_limit(n=LIMIT)`
    finally:
        reload.restore()
    assert pkg.user.over(11) is True and pkg.user.LIMIT == 10


def test_classes_and_functions_keep_their_identity(pkg):
    child, base_describe = pkg.base.Child, pkg.base.Base.describe
    reload = _reload(pkg, 11, '"XXbaseXX"')  # `kind = "base"`: a class attribute
    try:
        assert pkg.base.Child is child and pkg.base.Base.describe is base_describe
        assert pkg.base.Base().describe() == "<XXbaseXX" and pkg.user.shared_kind() == "[child!"
        assert isinstance(pkg.user.SHARED, child)
        assert not reload.doubts
    finally:
        reload.restore()
    assert pkg.base.Base().describe() == "<base"


def test_defaults_of_methods_and_cached_functions_are_merged(pkg):
    reload = _reload(pkg, 20, '"XX[XX"')  # Child.describe's default, in a method using super()
    try:
        assert pkg.user.shared_kind() == "XX[XXchild!" and not reload.doubts
    finally:
        reload.restore()
    reload = _reload(pkg, 36, "2")  # `step=1` of an lru_cache-wrapped function
    try:
        assert pkg.user.cached(1) == 3
    finally:
        reload.restore()
    assert pkg.user.cached(1) == 2


def test_a_changed_function_that_ran_at_import_is_a_doubt(pkg):
    describe = pkg.base.Child.describe
    for ran, doubted in ((set(), False), ({describe.__code__}, True), (None, True)):
        reload = _reload(pkg, 20, '"XX[XX"', ran_at_import=ran) if ran is not None else reload_in_place(
            pkg.base, compile(pkg.program.mutant_source(next(
                m.id for m in pkg.program.mutants if m.line == 20 and m.mutated == '"XX[XX"')), pkg.base.__file__,
                "exec"), pkg.graph, pkg.modules)
        try:
            assert any("Child.describe changed and ran" in d for d in reload.doubts) == doubted
        finally:
            reload.restore()


def test_an_instance_made_at_import_is_remade_with_the_mutant(pkg):
    reload = _reload(pkg, 28, "3")  # `make(n=2)` default, a staticmethod
    try:
        assert len(pkg.base.Child.make()) == 3
    finally:
        reload.restore()
    assert len(pkg.base.Child.make()) == 2


def test_a_name_the_mutant_no_longer_binds_is_gone(pkg):
    reload = _reload(pkg, 44, "< (3,)")  # `if sys.version_info >= (3,): text = str`, negated
    try:
        with pytest.raises(NameError):
            pkg.base.as_text(1)
    finally:
        reload.restore()
    assert pkg.base.as_text(1) == "1"


def test_a_table_of_lambdas_is_seen_through_an_alias(pkg):
    mutants = [(m.column, m.id) for m in pkg.program.mutants if m.line == 7 and m.mutated == "lambda n: None"]
    assert len(mutants) == 2
    for column, mutant_id in sorted(mutants):
        code = compile(pkg.program.mutant_source(mutant_id), pkg.base.__file__, "exec")
        reload = reload_in_place(pkg.base, code, pkg.graph, pkg.modules, ran_at_import=set())
        try:
            # the first lambda is "neg", the second "sq", which the other module reads through `TABLE as T`
            seen = (pkg.base.TABLE["neg"](3), pkg.user.through_table(3))
            assert seen == ((None, 9) if column == min(mutants)[0] else (-3, None)) and not reload.doubts
        finally:
            reload.restore()
    assert pkg.user.through_table(3) == 9


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_any_sequence_of_reloads_then_restores_leaves_the_modules_untouched(pkg, data):
    """Invariant: after reload + restore, every binding, function and class attribute is the original object."""
    before = snapshot(pkg.base, pkg.user)
    static = sorted(pkg.program.static)
    for index in data.draw(st.lists(st.sampled_from(static), min_size=1, max_size=4)):
        m = pkg.program.mutants[index]
        code = compile(pkg.program.mutant_source(m.id), m.file, "exec")
        try:
            reload = reload_in_place(pkg.base, code, pkg.graph, pkg.modules)
        except Exception:  # noqa: BLE001 - a body that raises is restored by reload_in_place itself
            continue
        reload.restore()
        assert snapshot(pkg.base, pkg.user) == before
    assert pkg.user.over(11) and pkg.user.names() == ["a", "b"] and pkg.user.shared_kind() == "[child!"


def test_restore_puts_back_a_class_own_entry_not_what_getattr_resolves(pkg):
    from mu2py.score.merge import Reload

    child = pkg.base.Child
    make = vars(child)["make"]  # a staticmethod object; getattr(child, "make") is the bare function
    reload = Reload(pkg.base, dict(vars(pkg.base)))
    reload._set_attr(child, "make", staticmethod(lambda n=2: []))
    reload._set_attr(child, "extra", 1)
    reload.restore()
    assert vars(child)["make"] is make and "extra" not in vars(child)
    assert len(child.make()) == 2


def test_the_warnings_registry_is_kept_and_no_change_of_the_reload(pkg):
    registry = {"version": 0}
    pkg.base.__warningregistry__ = registry  # as `warnings.warn` leaves it after the module's code warned
    try:
        reload = _reload(pkg, 5, "11")  # `LIMIT = 10`
        try:
            assert pkg.base.__warningregistry__ is registry
            assert "__warningregistry__" not in reload.changed_names and reload.observable_by_name
        finally:
            reload.restore()
        assert pkg.base.__warningregistry__ is registry
    finally:
        del pkg.base.__warningregistry__
