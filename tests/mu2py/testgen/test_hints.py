"""Type hints on tests/data/corpus_odd: Iterable hints drawn as lists, hints only a type checker sees."""

import sys

import pytest

from mu2py.engine.runs import Status, run
from mu2py.testgen.discovery import discover
from mu2py.testgen.function_driver import function_target
from tests.mu2py.testgen.conftest import draws

pytestmark = pytest.mark.usefixtures("odd_pkg_on_path")


def test_iterable_parameters_draw_lists_that_runs_can_copy():
    (spec,), _ = discover("odd_pkg.words:words")
    assert spec.skipped is None and spec.params[0].how.startswith("lists for")
    values = draws(spec)
    assert values and all(type(v["items"]) is list for v in values)
    target = function_target(spec)
    assert all(run(target.driver.fn, v, 5.0).status is Status.OK for v in values)


def test_hints_defined_under_type_checking_are_resolved():
    specs = {s.name: s for s in discover("odd_pkg.numbers")[0]}
    assert specs["widen"].skipped is None and specs["scale"].skipped is None
    assert specs["widen"].params[0].how == "from_type(float | str)"
    assert {type(v["value"]) for v in draws(specs["scale"], 40)} == {float, str}
    # the module itself is left as it was: the alias exists only in the namespace used for hints
    assert not hasattr(sys.modules["odd_pkg.numbers"], "Number")
