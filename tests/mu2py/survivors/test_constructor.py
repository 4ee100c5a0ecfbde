"""`mu2py kill` on a class's `__init__` (tests/data/ctor_sample): fuzzed as the class's construction, its output the
state the instance holds, so a mutant that builds another instance dies, and a constructor that raises is called
inside `pytest.raises` itself; and on a private helper, aimed at through the public method that calls it."""

import re
import shutil
import sys
from pathlib import Path

import pytest

from mu2py.survivors.kill import KillOptions, run_kill
from mu2py.testgen.function_driver import CallableAttribute, bind, instance_state

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 13),
                                reason="kill on ctor_sample end to end once, on 3.11: CI's time")

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "ctor_sample"


@pytest.fixture(scope="module")
def killed(tmp_path_factory):
    root = tmp_path_factory.mktemp("ctor") / "project"
    shutil.copytree(SAMPLE, root)
    options = KillOptions(root=root, paths=("acct_pkg",), tests=("tests",), out=root / "out", trials=200, seed=0,
                          no_cache=True)
    return run_kill(options, lambda _: None)


def test_constructor_mutants_die_by_the_state_the_instance_holds(killed):
    source = (killed.tests_out / "test_kill_acct_pkg_account.py").read_text()
    # the suite never looks at `history`: only a test comparing what the constructor left kills its mutants
    expected = "{'owner': 'bob', 'balance': 5, 'history': [5]}"
    assert "_attributes(Account(owner='bob', balance=5))" in source and f" == {expected}" in source
    assert "def _attributes(instance):" in source
    # the constructor raising is the call under test: inside pytest.raises, with no instance built before it
    raising = r"    with pytest.raises\(ValueError, match=.*\n        Account\(owner=.*, balance=-\d+\)\n"
    assert re.search(raising, source)
    after, before = killed.scores["after"]["function_body"], killed.scores["before"]["function_body"]
    assert after["detected"] >= before["detected"] + 5


def test_the_driver_of_a_constructor_outputs_the_instance_s_attributes():
    import types

    module = types.ModuleType("m")

    class Point:
        def __init__(self, x, y=0):
            self.x, self.y = x, y

    class Slotted:
        __slots__ = ("x",)

        def __init__(self, x):
            self.x = x

    module.Point, module.Slotted = Point, Slotted
    assert bind(module, "Point.__init__", (), None, construct=True)({"x": 1}) == {"x": 1, "y": 0}
    # an attribute holding a function or a bound method is compared by what it is and what it closes over (a test
    # could neither write nor compare it: the written tests leave it out)
    def labelled(prefix):
        def label(value):
            return prefix + str(value)
        return label

    point, other = Point(1), Point(1)
    point.show, other.show = labelled("p"), labelled("q")
    shown = instance_state(point)
    assert shown["x"] == 1 and isinstance(shown["show"], CallableAttribute) and shown["show"].captured == ("'p'",)
    assert instance_state(other) != shown and instance_state(point) == shown
    slotted = bind(module, "Slotted.__init__", (), None, construct=True)({"x": 1})
    assert isinstance(slotted, Slotted) and instance_state(slotted) is slotted


def test_a_private_helper_is_tested_through_the_public_method_calling_it(killed):
    source = (killed.tests_out / "test_kill_acct_pkg_account.py").read_text()
    # `_fee` is only reached from `Account.deposit`: the written tests call deposit on an account, never the helper
    assert "instance.deposit(amount=" in source and "from acct_pkg.account import Account\n" in source
    assert not re.search(r"^ +(assert |actual = )?_fee\(", source, re.MULTILINE)  # no test calls the helper
    assert len([m for m in killed.killed_by_tests if m.startswith("acct_pkg.account:5:")]) >= 5
