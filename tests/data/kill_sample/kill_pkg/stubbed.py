"""Typed only by stubbed.pyi next to it."""


def halve(n):
    if n % 2:
        raise ValueError("odd")
    return n // 2
