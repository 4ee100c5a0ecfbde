"""Discovery on tests/data/corpus_odd: the public methods of public classes, by module and by name."""

import pytest

from mu2py.testgen.discovery import discover

pytestmark = pytest.mark.usefixtures("odd_pkg_on_path")


def test_methods_of_public_classes_are_fuzzed():
    specs = {s.name: s for s in discover("odd_pkg.shapes")[0]}
    assert set(specs) == {"Rect.area", "Rect.scaled", "Rect.square", "Rect.fits"}
    assert all(s.skipped is None for s in specs.values())
    assert specs["Rect.area"].kind == "method" and specs["Rect.square"].kind == "classmethod"
    named = discover("odd_pkg.shapes:Rect.square")[0]
    assert [s.qualname for s in named] == ["odd_pkg.shapes.Rect.square"]
