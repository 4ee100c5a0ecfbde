"""Uses of `formats` by value: a default computed at import (redone by re-running this body) and plain bindings."""

from sample_pkg.formats import DEFAULT, SEP, UNIT


def join(a, b, sep=SEP):
    return f"{a}{sep}{b}"


def units(n):
    return n * UNIT


def scaled(n):
    return DEFAULT.apply(n)
