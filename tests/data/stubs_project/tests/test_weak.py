from pep561_pkg.units import to_cents
from stubs_pkg.shapes import area


def test_area():
    assert area(2, 3) > 0


def test_to_cents():
    assert to_cents(1.5) == 150
