"""Drivers over the round-2 hazards (`leaks`): inputs at the guards' boundary, 1000."""

from hypothesis import strategies as st

from hostile_pkg import leaks, state
from mu2py import driver

_EDGE = st.integers(995, 1000)
_TARGET = ["hostile_pkg.leaks"]


@driver(_EDGE, targets=_TARGET)
def scaled(n):
    return leaks.scaled(n)


@driver(_EDGE, targets=_TARGET)
def archived(n):
    return leaks.archived(n)


@driver(_EDGE, targets=_TARGET)
def forked(n):
    return leaks.forked(n)


@driver(_EDGE, targets=_TARGET)
def countdown(n):
    return leaks.countdown(n)


@driver(_EDGE, targets=_TARGET)
def chatty(n):
    return leaks.chatty(n)


@driver(_EDGE, targets=_TARGET)
def configured(n):
    return leaks.configured(n)


@driver(_EDGE, targets=_TARGET)
def tidy(n):
    return leaks.tidy(n)


@driver(_EDGE, targets=_TARGET)
def hangs_up(n):
    return leaks.hangs_up(n)


@driver(st.integers(1990, 2010).map(lambda depth: _nest(depth)), targets=_TARGET)
def deep(tree):
    return leaks.depth(tree)


def _nest(depth):
    value = 0
    for _ in range(depth):
        value = [value]
    return value


# round 3 (`state`): interpreter-wide state
_STATE_TARGET = ["hostile_pkg.state"]


@driver(_EDGE, targets=_STATE_TARGET)
def lowered(n):
    return state.lowered(n)


@driver(_EDGE, targets=_STATE_TARGET)
def keeps_garbage(n):
    return state.keeps_garbage(n)


@driver(_EDGE, targets=_STATE_TARGET)
def leaks_descriptors(n):
    return state.leaks_descriptors(n)


@driver(_EDGE, targets=_STATE_TARGET)
def registers_exit(n):
    return state.registers_exit(n)


@driver(_EDGE, targets=_STATE_TARGET)
def interrupts(n):
    return state.interrupts(n)


@driver(_EDGE, targets=_STATE_TARGET)
def spins(n):
    return state.spins(n)


@driver(_EDGE, targets=_STATE_TARGET)
def gives_up(n):
    return state.gives_up(n)
