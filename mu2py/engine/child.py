"""What a supervised child process does to itself: die with its parent, cap its memory, silence its output.

Also `send` and `receive`, a pipe's two ends: the C pickler first (a message is mostly an input and an
output of plain data, and pickling them with `dill`, which runs in Python, cost more than a short
mutant's run), dill for what it refuses and for deep values, within a raised recursion limit.  Used by
the mutant host (`engine.host`).
"""

from __future__ import annotations

import ctypes
import os
import pickle
import resource
import signal
import sys
from typing import Any

import dill


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


# a message's first byte: how its body was pickled
_PLAIN, _DILL = b"P", b"D"


def _dumps(message: Any) -> bytes:
    """The message pickled by the C pickler, or by dill when the C pickler refuses it (a lambda, a code object,
    a class of a module copy: dill pickles those by value).  A RecursionError is raised as is (see `send`)."""
    try:
        return _PLAIN + pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    except RecursionError:
        raise
    except Exception:  # noqa: BLE001 - PicklingError, TypeError, AttributeError: what only dill can pickle
        return _DILL + dill.dumps(message, pickle.HIGHEST_PROTOCOL)


def send(conn: Any, message: Any) -> None:
    """Send `message` for `receive` at the other end, raising the recursion limit step by step while pickling a
    deep value needs it.  Nothing is written unless the whole message pickled.

    A deep value goes by dill alone: its pickler runs in Python, whose frames a raised limit bounds safely,
    while the C pickler's recursion is on the C stack (at a raised limit it overflows it: a segfault on 3.11;
    since 3.12 a stack guard of its own refuses long before).  Raises RecursionError only when even
    PICKLE_RECURSION_LIMIT frames do not suffice.
    """
    try:
        conn.send_bytes(_dumps(message))
        return
    except RecursionError:
        pass
    previous = sys.getrecursionlimit()
    limit = previous
    try:
        while True:
            if limit >= PICKLE_RECURSION_LIMIT:
                raise RecursionError(f"a value nested too deep to send (over {PICKLE_RECURSION_LIMIT} frames)")
            limit = min(limit * 4, PICKLE_RECURSION_LIMIT)  # the last try is at the limit itself
            sys.setrecursionlimit(limit)
            try:
                data = _DILL + dill.dumps(message, pickle.HIGHEST_PROTOCOL)
            except RecursionError:
                continue
            conn.send_bytes(data)
            return
    finally:
        sys.setrecursionlimit(previous)


def receive(conn: Any) -> Any:
    """The next message `send` sent on `conn` (EOFError when the other end closed)."""
    data = memoryview(conn.recv_bytes())
    # unpickling is iterative (no recursion limit to raise): only pickling a deep value needs one
    return (dill.loads if data[:1] == _DILL else pickle.loads)(data[1:])


def silence_output() -> None:
    """Point this process's stdout and stderr (descriptors 1 and 2) at /dev/null: a mutant's flood of output
    must reach neither the command's output (`--json`) nor its memory or disk."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
