"""Functions with the shapes score must handle: loops, methods, properties, caches, module constants."""

import functools
import os

LIMIT = 100


def insertion_sort(arr):
    for j in range(1, len(arr)):
        key = arr[j]
        i = j - 1
        while i >= 0 and arr[i] > key:
            arr[i + 1] = arr[i]
            i -= 1
        arr[i + 1] = key
    return arr


def clamp(x):
    if x > LIMIT:
        return LIMIT
    return x


@functools.lru_cache(maxsize=None)
def square(n):
    return n * n


class Counter:
    def __init__(self, start=0):
        self._n = start

    @property
    def value(self):
        return self._n

    @value.setter
    def value(self, v):
        self._n = v

    def bump(self, by=1):
        self._n += by
        return self._n


def untested(a, b):
    return a - b  # pragma: no mutate


def checked_exit(flag):
    if flag > 0:
        return "ok"
    os._exit(70)  # a mutant that reaches this must not take the scoring run down with it
