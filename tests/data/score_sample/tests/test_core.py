from sample_pkg.core import Counter, checked_exit, clamp, insertion_sort, square


def test_sort():
    assert insertion_sort([3, 1, 2]) == [1, 2, 3]


def test_sort_empty():
    assert insertion_sort([]) == []


def test_clamp():
    assert clamp(150) == 100


def test_square():
    assert square(3) == 9


def test_counter():
    c = Counter()
    c.value = 2
    assert c.bump() == 3


def test_checked_exit():
    assert checked_exit(1) == "ok"


def test_double():
    from sample_pkg.extra import double

    assert double(4) == 8
