"""Helpers of the round-3 hazards (not mutated)."""

import gc
import os
import sys


class _Node:
    def __init__(self):
        self.me = self


def lower_recursion_limit():
    """Lower the recursion limit and raise before putting it back (a mutant's error path)."""
    sys.setrecursionlimit(120)
    raise ValueError("raised before putting the recursion limit back")


def depth(k):
    """Recurse `k` deep (fine under the default limit, a RecursionError under 120)."""
    return 0 if k <= 0 else 1 + depth(k - 1)


def garbage_after_collect():
    """Make a reference cycle, collect, and count what the collector kept (0 unless DEBUG_SAVEALL is on)."""
    _Node()
    gc.collect()
    return len(gc.garbage)


_OPEN = []


def leak_descriptors(count):
    """Open `count` descriptors and keep them (raw numbers: no finalizer will ever close them)."""
    _OPEN.extend(os.open(os.devnull, os.O_RDONLY) for _ in range(count))


def read_null():
    """Open, read and close /dev/null: fails with EMFILE once the descriptors are used up."""
    with open(os.devnull, "rb") as f:
        return len(f.read())


def shout_at_exit():
    """An exit handler that writes straight onto descriptor 1."""
    os.write(1, b"an exit handler of the program was here\n")
