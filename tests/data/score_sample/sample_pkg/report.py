"""Uses of `formats` by value: a default computed at import (cannot be redone in place) and plain bindings."""

from sample_pkg.formats import DEFAULT, SEP, UNIT


def join(a, b, sep=SEP):
    return f"{a}{sep}{b}"


def units(n):
    return n * UNIT


def scaled(n):
    return DEFAULT.apply(n)
