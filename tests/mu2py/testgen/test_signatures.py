"""Inference on tests/data/corpus_odd: methods of public classes, their instances built from constructor hints."""

import pytest

from mu2py.engine.runs import Status, run
from mu2py.testgen.function_driver import function_target
from mu2py.testgen.signatures import SELF, infer_named
from tests.mu2py.testgen.conftest import draws

pytestmark = pytest.mark.usefixtures("odd_pkg_on_path")


def test_an_instance_method_is_drawn_with_its_constructor_arguments():
    area = infer_named("odd_pkg.shapes", "Rect.area")
    assert area.skipped is None and area.kind == "method"
    assert [p.name for p in area.init_params] == ["width", "height"] and area.test_name == "test_Rect_area"
    # the instance is built from its constructor arguments by the driver, in the module copy it runs
    target = function_target(area)
    result = run(target.driver.fn, {SELF: {"width": 3, "height": 4}}, 5.0)
    assert result.status is Status.OK and result.output == 12
    assert run(target.driver.fn, {SELF: {"width": -1}}, 5.0).exc_type == "builtins.ValueError"
    assert all(SELF in value for value in draws(area))
    assert infer_named("odd_pkg.shapes", "Rect.fits").kind == "staticmethod"
