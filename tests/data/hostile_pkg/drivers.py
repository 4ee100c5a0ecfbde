"""Drivers over the hazards: each feeds inputs under which only the hostile mutant misbehaves."""

from hypothesis import strategies as st

from hostile_pkg import hazards, slowimport
from mu2py import driver

_BIG = st.integers(10**9, 10**9 + 100)
_SMALL = st.integers(0, 50)


@driver(_BIG, targets=["hostile_pkg.hazards"])
def hang_in_c(n):
    return hazards.hang_in_c(n)


@driver(_SMALL, targets=["hostile_pkg.hazards"])
def exits(n):
    return hazards.exits(n)


@driver(_SMALL, targets=["hostile_pkg.hazards"])
def segfaults(n):
    return hazards.segfaults(n)


@driver(_BIG, targets=["hostile_pkg.hazards"])
def allocates(n):
    return hazards.allocates(n)


@driver(_SMALL, targets=["hostile_pkg.hazards"])
def moves(n):
    return hazards.moves(n)


@driver(_SMALL, targets=["hostile_pkg.hazards"])
def cached(n):
    return hazards.cached(n)


@driver(_SMALL, targets=["hostile_pkg.slowimport"])
def slow(n):
    return slowimport.first(n)
