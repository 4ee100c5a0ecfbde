"""What a supervised child process does to itself: die with its parent, cap its memory, silence its output.

Also `send`, which pickles a deeply nested value to the other end of a pipe.  Used by the mutant
host (`engine.host`) and the worker pools (`engine.workers`).
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
from typing import Any


def die_with_parent() -> None:
    """Ask Linux to kill this process when its parent dies (no-op elsewhere)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def limit_memory(megabytes: int) -> None:
    """Cap the host's address space at what it uses now plus `megabytes` (a mutant then gets MemoryError)."""
    if megabytes <= 0:
        return
    try:
        with open("/proc/self/statm") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        used = 0
    limit = used + megabytes * 1024 * 1024
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):
        pass


# the recursion limit `send` may raise to while pickling a deeply nested value (a 2,000-deep fuzzed list needs
# a few thousand frames of the pickler, which runs in Python); past it, the value cannot be sent
PICKLE_RECURSION_LIMIT = 100_000


def send(conn: Any, message: Any) -> None:
    """`conn.send(message)`, with the recursion limit raised step by step while pickling a deep value needs it.

    Raises RecursionError only when even PICKLE_RECURSION_LIMIT frames do not suffice.
    """
    try:
        conn.send(message)
        return
    except RecursionError:
        pass
    previous = sys.getrecursionlimit()
    limit = previous
    try:
        while True:
            limit *= 4
            if limit > PICKLE_RECURSION_LIMIT:
                raise RecursionError(f"a value nested too deep to send (over {PICKLE_RECURSION_LIMIT} frames)")
            sys.setrecursionlimit(limit)
            try:
                conn.send(message)
                return
            except RecursionError:
                continue
    finally:
        sys.setrecursionlimit(previous)


def silence_output() -> None:
    """Point this process's stdout and stderr (descriptors 1 and 2) at /dev/null: a mutant's flood of output
    must reach neither the command's output (`--json`) nor its memory or disk."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
