"""Each function has few mutants (`pragma: no mutate` elsewhere); the named one misbehaves."""

import ctypes
import os

_SEEN = {}  # pragma: no mutate


def hang_in_c(n):
    # n % 64 -> n * 64: sum() over a huge range runs in C, where SIGALRM cannot interrupt it
    return sum(range(n % 64))


def exits(n):
    if n < 0:  # n >= 0: the mutant calls os._exit
        os._exit(3)  # pragma: no mutate
    return n  # pragma: no mutate


def segfaults(n):
    if n < 0:  # n >= 0: the mutant reads address 0
        ctypes.string_at(0)  # pragma: no mutate
    return n  # pragma: no mutate


def allocates(n):
    # n % 8 -> n * 8: eight gigabytes for n = 10**9, over the host's memory limit
    size = n % 64 // 8
    return len(b"x" * size)  # pragma: no mutate


def moves(n):
    if n < 0:  # n >= 0: the mutant changes the working directory
        os.chdir("/")  # pragma: no mutate
    return os.path.exists("hazard-data.txt")  # pragma: no mutate


def cached(n):
    if n in _SEEN:  # pragma: no mutate
        return _SEEN[n]  # pragma: no mutate
    value = n * 3 + 1
    _SEEN[n] = value  # pragma: no mutate
    return value  # pragma: no mutate
