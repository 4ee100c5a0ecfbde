import pytest
from rerun_pkg import activate, deactivate, describe, join_words


@pytest.mark.parametrize(("args", "expected"), [([3], "3"), ([12], "12")])
def test_describe(args, expected):
    assert describe(args[0]) == expected
    args[0] *= -1  # as humanize's test_naturalsize: the parameter list is changed in place
    assert describe(args[0]) == "minus " + expected


@pytest.mark.parametrize(("items", "expected"), [(["a", "b"], "a and b"), ((c for c in "abc"), "a, b and c")])
def test_join(items, expected):
    # the second case is a generator: it can be consumed once per process
    assert join_words(items) == expected


def test_french():
    activate("fr")
    try:
        assert join_words(["a", "b"]) == "a et b"
    finally:
        deactivate()
