"""A weak suite: it builds the shapes the package knows, and checks little about them."""

import pytest

from suite_pkg.shapes import Shape


@pytest.fixture
def circle():
    return Shape({"kind": "circle", "r": 2})


def test_rect_has_an_area():
    assert Shape({"kind": "rect", "w": 2, "h": 3}).area() > 0


def test_circle_has_an_area(circle):
    assert circle.area() > 0


def test_nothing_has_no_area():
    assert Shape().area() == 0
