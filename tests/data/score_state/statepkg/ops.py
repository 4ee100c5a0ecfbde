"""Functions whose mutants leave interpreter-wide state behind (guards that `n > 1000` -> `n >= 1000` opens)."""

import os
import sys

_OPEN = []  # pragma: no mutate
_BASE = int("0")  # a mutant of the text raises while the module is imported: every test module fails to import


def depth(k):
    return 0 if k <= 0 else 1 + depth(k - 1)  # pragma: no mutate


def careful(n):
    old = sys.getrecursionlimit()  # pragma: no mutate
    sys.setrecursionlimit(200)  # pragma: no mutate
    if n > 1000:
        raise ValueError("too big")  # pragma: no mutate
    sys.setrecursionlimit(old)  # pragma: no mutate
    return n * 2  # pragma: no mutate


def interrupted(n):
    if n > 1000:
        raise KeyboardInterrupt  # pragma: no mutate
    return n + 1  # pragma: no mutate


def opened(n):
    if n > 1000:
        _OPEN.extend(os.open(os.devnull, os.O_RDONLY) for _ in range(100))  # pragma: no mutate
    with open(os.devnull, "rb") as f:  # pragma: no mutate
        return n + len(f.read())  # pragma: no mutate


if sys.version_info < (3, 0):  # pragma: no mutate

    def legacy(n):
        return n + 1  # never defined on any interpreter the tests run: no test can run its mutants
