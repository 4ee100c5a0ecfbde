from warn_pkg.legacy import old_total


def test_old_total():
    assert old_total([1, 2]) == 3  # the sum only: no mutant of the warning fails it
