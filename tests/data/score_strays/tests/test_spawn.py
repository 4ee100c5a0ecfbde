from strays.spawn import leave, wait_for


def test_wait_for():
    assert wait_for(3) == 6


def test_leave():
    assert leave() == 2
