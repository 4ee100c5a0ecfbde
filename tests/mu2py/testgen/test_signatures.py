"""Inference on tests/data/corpus_odd: methods of classes, Iterable hints, hints only a type checker sees."""

import random
import sys

import pytest

from mu2py.engine.runs import Status, run
from mu2py.inputs.generators import StrategySource
from mu2py.testgen.function_driver import function_target
from mu2py.testgen.signatures import SELF, discover, infer_named

pytestmark = pytest.mark.usefixtures("odd_pkg_on_path")


def _draws(spec, count=20):
    source, rng = StrategySource(spec.strategy), random.Random(0)
    return [d.value for d in (source.decode((), rng) for _ in range(count)) if d is not None]


def test_methods_of_public_classes_are_fuzzed():
    specs = {s.name: s for s in discover("odd_pkg.shapes")[0]}
    assert set(specs) == {"Rect.area", "Rect.scaled", "Rect.square", "Rect.fits"}
    assert all(s.skipped is None for s in specs.values())
    area = specs["Rect.area"]
    assert area.kind == "method" and [p.name for p in area.init_params] == ["width", "height"]
    assert area.test_name == "test_Rect_area" and specs["Rect.square"].kind == "classmethod"
    # the instance is built from its constructor arguments by the driver, in the module copy it runs
    target = function_target(area)
    result = run(target.driver.fn, {SELF: {"width": 3, "height": 4}}, 5.0)
    assert result.status is Status.OK and result.output == 12
    assert run(target.driver.fn, {SELF: {"width": -1}}, 5.0).exc_type == "builtins.ValueError"
    assert all(SELF in value for value in _draws(area))
    named = discover("odd_pkg.shapes:Rect.square")[0]
    assert [s.qualname for s in named] == ["odd_pkg.shapes.Rect.square"]
    assert infer_named("odd_pkg.shapes", "Rect.fits").kind == "staticmethod"


def test_iterable_parameters_draw_lists_that_runs_can_copy():
    (spec,), _ = discover("odd_pkg.words:words")
    assert spec.skipped is None and spec.params[0].how.startswith("lists for")
    values = _draws(spec)
    assert values and all(type(v["items"]) is list for v in values)
    target = function_target(spec)
    assert all(run(target.driver.fn, v, 5.0).status is Status.OK for v in values)


def test_hints_defined_under_type_checking_are_resolved():
    specs = {s.name: s for s in discover("odd_pkg.numbers")[0]}
    assert specs["widen"].skipped is None and specs["scale"].skipped is None
    assert specs["widen"].params[0].how == "from_type(float | str)"
    assert {type(v["value"]) for v in _draws(specs["scale"], 40)} == {float, str}
    # the module itself is left as it was: the alias exists only in the namespace used for hints
    assert not hasattr(sys.modules["odd_pkg.numbers"], "Number")
