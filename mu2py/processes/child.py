"""What a supervised child process does to itself: die with its parent, cap its memory, silence its output.

Also `send` and `receive`, a pipe's two ends: the C pickler first (a message is mostly an input and an
output of plain data, and pickling them with `dill`, which runs in Python, cost more than a short
mutant's run), dill for what it refuses and for deep values, within a raised recursion limit.  Used by
the mutant host (`engine.host`).

A class or function of a module copy (an output's `SplitResult` made by the fuzzer's covered copy of
`urllib.parse`) has the name of a module in `sys.modules` that is not its own: the C pickler's lookup
by name finds another object and refuses it.  It goes by that name all the same, and arrives as what
the receiver's module of that name holds: copies of one source define the same classes, and the
oracle compares outputs by value and by class names, never by class identity (`engine.oracle`).
dill cannot be left to do it: it pickles such a class by value, in Python, and a class referring to
itself through its module (a namedtuple with mixins) sent it into a RecursionError and a warning on
the user's terminal per message, then a refusal, milliseconds each time.
"""

from __future__ import annotations

import ctypes
import importlib
import io
import os
import pickle
import resource
import signal
import sys
import types
import warnings
from typing import Any

import dill


def die_with_parent() -> None:
    """Ask Linux to kill this process when its parent dies (no-op elsewhere)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def memory_of(pid: int | str = "self") -> tuple[int, int]:
    """A process's address space and resident memory in bytes ((0, 0) where /proc cannot tell)."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            size, resident = f.read().split()[:2]
        page = os.sysconf("SC_PAGE_SIZE")
        return int(size) * page, int(resident) * page
    except (OSError, ValueError):
        return 0, 0


def limit_memory(megabytes: int) -> None:
    """Cap the host's address space at what it uses now plus `megabytes` (a mutant then gets MemoryError)."""
    if megabytes <= 0:
        return
    limit = memory_of()[0] + megabytes * 1024 * 1024
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


def named(module: str, qualname: str) -> Any:
    """What the module named `module` holds at `qualname`, in this process (a copy's class or function sent
    by name, see the module docstring); the module is imported if it was not."""
    return _attribute(importlib.import_module(module), qualname)


def _attribute(root: Any, qualname: str) -> Any:
    """`root`'s attribute at the dotted `qualname` (AttributeError when some part is missing)."""
    for part in qualname.split("."):
        root = getattr(root, part)
    return root


def _shadowed_name(obj: Any) -> tuple[str, str] | None:
    """(module, qualname) of a class or function that its module's name in `sys.modules` does not lead back to,
    where it leads to an object of the same kind instead (a module copy's twin); else None."""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or "<locals>" in qualname:
        return None
    try:
        found = _attribute(sys.modules[module], qualname)
    except (KeyError, AttributeError):
        return None
    if found is obj or type(found) is not type(obj):
        return None
    return module, qualname


class _ByNamePickler(pickle.Pickler):
    """The C pickler, sending a module copy's classes and functions by name (see the module docstring)."""

    def reducer_override(self, obj: Any) -> Any:
        """A copy's class or function as a call of `named`; anything else as the C pickler would."""
        if isinstance(obj, (type, types.FunctionType)):
            name = _shadowed_name(obj)
            if name is not None:
                return named, name
        return NotImplemented


def _dill_dumps(message: Any) -> bytes:
    # dill warns on stderr where it falls back (a class it cannot find or pickle by value): the user's terminal
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dill.PicklingWarning)
        return dill.dumps(message, pickle.HIGHEST_PROTOCOL)


def _dumps(message: Any) -> bytes:
    """The message pickled by the C pickler (a module copy's classes by name, see the module docstring), or by
    dill when the C pickler refuses it (a lambda, a code object).  A RecursionError is raised as is (see `send`)."""
    try:
        return _PLAIN + pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    except RecursionError:
        raise
    except Exception:  # noqa: BLE001 - PicklingError, TypeError, AttributeError: tried by name, then by dill
        pass
    try:
        # only after the plain pickler refused: the override is a Python call per object that is not plain data
        buffer = io.BytesIO()
        _ByNamePickler(buffer, pickle.HIGHEST_PROTOCOL).dump(message)
        return _PLAIN + buffer.getvalue()
    except RecursionError:
        raise
    except Exception:  # noqa: BLE001 - what only dill can pickle
        return _DILL + _dill_dumps(message)


def pack(message: Any) -> bytes:
    """`message` pickled for `unpack`, raising the recursion limit step by step while pickling a deep value needs
    it.

    A deep value goes by dill alone: its pickler runs in Python, whose frames a raised limit bounds safely,
    while the C pickler's recursion is on the C stack (at a raised limit it overflows it: a segfault on 3.11;
    since 3.12 a stack guard of its own refuses long before).  Raises RecursionError only when even
    PICKLE_RECURSION_LIMIT frames do not suffice.
    """
    try:
        return _dumps(message)
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
                return _DILL + _dill_dumps(message)
            except RecursionError:
                continue
    finally:
        sys.setrecursionlimit(previous)


def unpack(data: bytes | memoryview) -> Any:
    """The message `pack` pickled."""
    view = memoryview(data)
    # unpickling is iterative (no recursion limit to raise): only pickling a deep value needs one
    return (dill.loads if view[:1] == _DILL else pickle.loads)(view[1:])


def send(conn: Any, message: Any) -> None:
    """Send `message` for `receive` at the other end (see `pack`).  Nothing is written unless the whole message
    pickled."""
    conn.send_bytes(pack(message))


def receive(conn: Any) -> Any:
    """The next message `send` sent on `conn` (EOFError when the other end closed)."""
    return unpack(conn.recv_bytes())


def silence_output() -> None:
    """Point this process's stdout and stderr (descriptors 1 and 2) at /dev/null: a mutant's flood of output
    must reach neither the command's output (`--json`) nor its memory or disk."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
