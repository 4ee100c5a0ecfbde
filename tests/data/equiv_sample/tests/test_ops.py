from equiv_pkg.ops import square, twenties


def test_square():
    assert square(3) == 9


def test_twenties():
    assert twenties(40)
