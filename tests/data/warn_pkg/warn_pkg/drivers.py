"""A driver calling the deprecated function, as its users do."""

from hypothesis import strategies as st

from mu2py import driver
from warn_pkg import legacy


@driver(st.lists(st.integers(0, 9), max_size=5), targets=["warn_pkg.legacy"])
def total(values):
    return legacy.old_total(values)
