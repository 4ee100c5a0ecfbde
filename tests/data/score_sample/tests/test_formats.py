from sample_pkg.formats import Scale, render
from sample_pkg.report import join, scaled, units


def test_render():
    assert render("d", 7) == "07" and render("x", 255) == "ff"


def test_join():
    assert join(1, 2) == "1-2"


def test_units():
    assert units(3) == 30


def test_scaled():
    assert scaled(5) == 11


def test_scale():
    assert isinstance(Scale(), Scale) and Scale(0).apply(1) == 2
