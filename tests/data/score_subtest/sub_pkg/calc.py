"""Arithmetic checked only inside `self.subTest` blocks."""

FACTOR = 2


def double(n):
    return n * FACTOR


def clamp(n, low, high):
    if n < low:
        return low
    return min(n, high)
