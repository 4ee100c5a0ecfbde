"""The ledger of interpreter-wide state: one table of what a unit may leave behind, checked after every unit.

Mutants and tests share one interpreter with every later unit; that is what makes mu2py fast,
and it is where a verdict can go wrong: a unit that leaves `gc.set_debug(DEBUG_SAVEALL)`, the
recursion limit at 300, 120 descriptors open, a trace function, an exit handler or an event
loop behind changes what every later unit sees.  A fresh interpreter starts from none of it.

`Ledger` holds one `Entry` per kind of state.  `settle()` takes each entry's snapshot (the
state every unit must start from); `check()`, called after every unit, asks each entry whether
the state moved and, where it did, puts it back (`Entry.restore`) or, for state that cannot be
put back (a thread still running, a frozen heap, a lowered hard limit, descriptors leaked past
a margin), names it in `Drift.retire`: the process must be retired after this unit's verdict.

Two tiers.  The quick check reads ints, flags and version tags only (the hooks, streams,
limits and counts the guarded entries hold are read into one tuple, `_probe`, compared at
once), plus the working directory and `sys.path`: for a caller whose units take microseconds
(a fuzz host checks after every mutant run).  The full check adds what costs more (system calls,
lists and module attributes compared item by item, `sys.modules` name by name): after every
test of `score`, every 16th run of a host and before a host confirms a verdict.  Where a check
would cost more still (counting descriptors), a cheap proxy decides whether to look closer: the
lowest free descriptor number rises exactly when a descriptor below it was left open.  The
figures: `python benchmarks/ledger_cost.py`.

Invariant: after `check()` returns a `Drift` whose `retire` is None, every entry's state equals
(or, for entries with a margin, stays within the margin of) its snapshot at `settle()`.  Entries
whose module is not imported at `settle()` are checked once it is (a module imported later starts
in its default state, which is its snapshot).
"""

from __future__ import annotations

import _signal
import _thread
import atexit
import errno
import faulthandler
import gc
import os
import resource
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from mu2py.processes.outside import VersionTag

# descriptors a unit may leave open (across all units since `settle`) before the process is retired: a leak
# that small cannot exhaust the limit, and a retirement per unit that leaks one would cost more than it saves
FD_MARGIN = 32
# descriptors the ledger keeps open for mu2py's own clean-up: released when a unit exhausted the limit
RESERVE = 8
# the signals mu2py's own timers use: `runs.run` and `runs.wall_alarm` put their handlers back themselves
_TIMER_SIGNALS = {signal.SIGALRM, signal.SIGPROF, signal.SIGVTALRM}
_RLIMITS = tuple(getattr(resource, name) for name in (
    "RLIMIT_NOFILE", "RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_STACK", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NPROC",
    "RLIMIT_CORE") if hasattr(resource, name))


class Entry:
    """One kind of interpreter-wide state: `snapshot()`, `differs(saved)`, and `restore(saved)` when it can be put
    back (`restorable`); else a change retires the process (`why` says what was left)."""

    name = ""
    restorable = True
    # its check costs more than reading an int, a flag or a version tag (system calls, comparing lists or
    # module attributes): `Ledger.check(full=False)` leaves it out
    costly = False
    guarded = False  # `_probe()` reads all of its state: while the probe is unchanged, it is not asked

    def snapshot(self) -> Any:
        """The state now (cheap: ints, identities, short tuples)."""
        raise NotImplementedError

    def differs(self, saved: Any) -> bool:
        """Whether the state moved since `saved` was taken."""
        return self.snapshot() != saved

    def restore(self, saved: Any) -> None:
        """Put the state back as `saved` (only called when `restorable`)."""
        raise NotImplementedError

    def why(self, saved: Any) -> str:
        """What a unit left, for the retirement's reason."""
        return f"changed {self.name}"


class _Value(Entry):
    """State read by one getter and put back by one setter (the recursion limit, the umask...)."""

    def __init__(self, name: str, get: Callable[[], Any], put: Callable[[Any], Any], *, costly: bool = False,
                 guarded: bool = False) -> None:
        self.name, self._get, self._put, self.costly, self.guarded = name, get, put, costly, guarded

    def snapshot(self) -> Any:
        return self._get()

    def differs(self, saved: Any) -> bool:
        return self._get() != saved

    def restore(self, saved: Any) -> None:
        self._put(saved)


class _Same(Entry):
    """A tuple of objects compared by identity (hooks, stdio objects), each put back by its setter."""

    guarded = True

    def __init__(self, name: str, get: Callable[[], tuple[Any, ...]], put: Callable[[tuple[Any, ...]], None]) -> None:
        self.name, self._get, self._put = name, get, put

    def snapshot(self) -> tuple[Any, ...]:
        return self._get()

    def differs(self, saved: tuple[Any, ...]) -> bool:
        # tuple comparison tries identity first, item by item: for hooks and streams, equality is identity
        return self._get() != saved

    def restore(self, saved: tuple[Any, ...]) -> None:
        self._put(saved)


class _List(Entry):
    """A list the program may change in place or rebind (`sys.path`, `sys.meta_path`, `gc.callbacks`)."""

    def __init__(self, name: str, get: Callable[[], list[Any]], rebind: Callable[[list[Any]], None] | None = None,
                 after: Callable[[], None] | None = None, *, costly: bool = False) -> None:
        self.name, self._get, self._rebind, self._after, self.costly = name, get, rebind, after, costly

    def snapshot(self) -> tuple[list[Any], list[Any]]:
        current = self._get()
        return current, list(current)

    def differs(self, saved: tuple[list[Any], list[Any]]) -> bool:
        current = self._get()
        # list comparison tries identity first, item by item
        return current is not saved[0] or current != saved[1]

    def restore(self, saved: tuple[list[Any], list[Any]]) -> None:
        the_list, items = saved
        if self._get() is not the_list and self._rebind is not None:
            self._rebind(the_list)
        the_list[:] = items
        if self._after is not None:
            self._after()


def _gc_settings() -> tuple[bool, tuple[int, ...], int]:
    return gc.isenabled(), gc.get_threshold(), gc.get_debug()


def _put_gc(saved: tuple[bool, tuple[int, ...], int]) -> None:
    enabled, threshold, debug = saved
    gc.set_debug(debug)
    gc.set_threshold(*threshold)
    (gc.enable if enabled else gc.disable)()
    if not debug and gc.garbage:
        # DEBUG_SAVEALL kept every object a collection found: the next collections would walk them all again
        gc.garbage.clear()


class _Frozen(Entry):
    """`gc.freeze` and `gc.unfreeze`, noted by wrappers: `gc.get_freeze_count()` walks the whole permanent
    generation (milliseconds in a host that froze the heap it inherited), too slow to ask after every unit."""

    name = "gc.freeze state"
    restorable = False

    def __init__(self) -> None:
        for name in ("freeze", "unfreeze"):
            real = getattr(gc, name)
            if getattr(real, "__wrapped__", None) is None:
                setattr(gc, name, _noting(real))

    def snapshot(self) -> None:
        _FROZE.clear()

    def differs(self, saved: None) -> bool:
        return bool(_FROZE)

    def why(self, saved: Any) -> str:
        return "froze or unfroze the collector's heap (gc.freeze)"


_FROZE: list[bool] = []  # not empty once gc.freeze or gc.unfreeze ran since the latest snapshot


def _noting(real: Callable[[], None]) -> Callable[[], None]:
    def noted() -> None:
        """The collector's own function, noted for the ledger (see `_Frozen`)."""
        _FROZE.append(True)
        real()

    noted.__wrapped__ = real  # type: ignore[attr-defined]  # functools' marker, set on a function
    noted.__name__ = real.__name__
    return noted


def _trace() -> tuple[Any, ...]:
    return sys.gettrace(), sys.getprofile()


def _put_trace(saved: tuple[Any, ...]) -> None:
    sys.settrace(saved[0])
    sys.setprofile(saved[1])


def _thread_hooks() -> tuple[Any, ...]:
    return threading._trace_hook, threading._profile_hook  # type: ignore[attr-defined]  # threading's private hooks


def _put_thread_hooks(saved: tuple[Any, ...]) -> None:
    threading._trace_hook, threading._profile_hook = saved  # type: ignore[attr-defined]  # threading's private hooks


_HOOKS = ("excepthook", "unraisablehook", "displayhook", "breakpointhook")


def _hooks() -> tuple[Any, ...]:
    return (*(getattr(sys, name) for name in _HOOKS), threading.excepthook)


def _put_hooks(saved: tuple[Any, ...]) -> None:
    for name, value in zip(_HOOKS, saved, strict=False):
        setattr(sys, name, value)
    threading.excepthook = saved[-1]


class _LastException(Entry):
    """`sys.last_exc`, `sys.last_value`, `sys.last_type`, `sys.last_traceback`: pytest stores a failing test's
    exception there (for post-mortem debugging) until the next test starts.  Its traceback holds the frames of
    the failure, and through them objects of the code under test: an in-place reload would find the original
    objects still held and doubt, after some units and not others.  Put back as a fresh interpreter has them:
    absent (the snapshot is always that, whatever `settle` found)."""

    name = "sys.last_exc and sys.last_value, last_type, last_traceback"
    _NAMES = ("last_exc", "last_value", "last_type", "last_traceback")
    # set by pytest (and interactive hooks), not by a program's own runs: the full check (after every test of
    # `score`, before a host confirms a verdict) sees it, and the quick check after every mutant run need not
    costly = True

    def snapshot(self) -> None:
        return None

    def differs(self, saved: None) -> bool:
        found = vars(sys)
        return any(name in found for name in self._NAMES)

    def restore(self, saved: None) -> None:
        for name in self._NAMES:
            vars(sys).pop(name, None)


def _stdio() -> tuple[Any, ...]:
    return sys.stdin, sys.stdout, sys.stderr


def _put_stdio(saved: tuple[Any, ...]) -> None:
    sys.stdin, sys.stdout, sys.stderr = saved


class _Monitoring(Entry):
    """`sys.monitoring` tools (3.12+): a tool a unit registered may have set events on any code object.

    A tool mu2py itself holds around tests (see `own_tool`) reads as free: it is no unit's.
    """

    name = "sys.monitoring tools"
    restorable = False
    costly = True  # six calls: rare enough a hazard for the full check

    def snapshot(self) -> tuple[Any, ...]:
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is None:
            return ()
        return tuple(None if k in _OWN_TOOLS else monitoring.get_tool(k) for k in range(6))

    def why(self, saved: Any) -> str:
        return "registered a sys.monitoring tool"


_OWN_TOOLS: set[int] = set()  # the sys.monitoring tool ids mu2py holds now (see `own_tool`)


@contextmanager
def own_tool(tool: int) -> Iterator[None]:
    """While inside, `sys.monitoring` tool `tool` is mu2py's own (registered and freed by mu2py inside too): every
    ledger reads it as free, so a check after a test it watched neither retires the process nor puts anything back.

    Invariant: a snapshot taken inside equals one taken outside while the tool is free.
    """
    _OWN_TOOLS.add(tool)
    try:
        yield
    finally:
        _OWN_TOOLS.discard(tool)


class _StdioDescriptors(Entry):
    """Descriptors 0-2: which file each one is; put back from copies taken at `settle` (dup2).

    The copies are the process's, not the entry's (`_STDIO_COPIES`): a process holds one set whatever number
    of ledgers it makes (a test suite makes hundreds), and each snapshot replaces them.
    """

    name = "descriptors 0-2"
    costly = True

    def snapshot(self) -> tuple[tuple[int, int] | None, ...]:
        for fd in _STDIO_COPIES:
            if fd >= 0:
                os.close(fd)
        _STDIO_COPIES.clear()
        for fd in (0, 1, 2):
            try:
                _STDIO_COPIES.append(os.dup(fd))
            except OSError:
                _STDIO_COPIES.append(-1)
        return self._identity()

    @staticmethod
    def _identity() -> tuple[tuple[int, int] | None, ...]:
        found: list[tuple[int, int] | None] = []
        for fd in (0, 1, 2):
            try:
                st = os.fstat(fd)
                found.append((st.st_dev, st.st_ino))
            except OSError:
                found.append(None)
        return tuple(found)

    def differs(self, saved: Any) -> bool:
        return self._identity() != saved

    def restore(self, saved: Any) -> None:
        for fd, copy in enumerate(_STDIO_COPIES):
            if copy >= 0:
                os.dup2(copy, fd)
            else:
                try:
                    os.close(fd)
                except OSError:
                    pass


_STDIO_COPIES: list[int] = []  # this process's copies of descriptors 0-2 at the latest snapshot
_RESERVE: list[int] = []  # descriptors this process holds for mu2py's own clean-up (see `_Descriptors`)


def _lowest_free() -> int:
    """The lowest descriptor number not in use (one dup and one close): -1 when none is free."""
    try:
        fd = os.dup(2) if _fd_open(2) else os.open(os.devnull, os.O_RDONLY)
    except OSError as exc:
        if exc.errno in (errno.EMFILE, errno.ENFILE):
            return -1
        raise
    os.close(fd)
    return fd


def _fd_open(fd: int) -> bool:
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def open_descriptors() -> int:
    """How many descriptors this process has open (Linux: /proc/self/fd; elsewhere a probe of the first 4096)."""
    try:
        return len(os.listdir("/proc/self/fd")) - 1  # the listing's own descriptor
    except OSError:
        return sum(_fd_open(fd) for fd in range(4096))


def _descriptor_numbers() -> set[int]:
    """The descriptors this process has open (empty where /proc cannot tell)."""
    try:
        listing = os.listdir("/proc/self/fd")
    except OSError:
        return set()
    found = {int(name) for name in listing}
    return {fd for fd in found if _fd_open(fd)}  # the listing's own descriptor is closed by now


class _Descriptors(Entry):
    """Open descriptors: a unit's leak is left alone up to `FD_MARGIN` (counted from `settle`), then retires.

    Checked by the lowest free number (a leaked descriptor takes it); only when that moved are the
    descriptors counted, and past the margin the unreachable file objects collected and counted again.
    The ledger's reserve (descriptors held open for mu2py's own clean-up) is released when a unit
    exhausted the limit.
    """

    name = "open descriptors"
    restorable = False
    costly = True

    def __init__(self) -> None:
        self.base = 0
        self.low = 0  # the lowest free descriptor number last seen within the margin
        self.known: set[int] = set()  # the descriptors open at the snapshot
        self.exhausted = False

    def snapshot(self) -> int:
        # one reserve per process (`_RESERVE`), however many ledgers it makes
        while len(_RESERVE) < RESERVE:
            try:
                _RESERVE.append(os.open(os.devnull, os.O_RDONLY))
            except OSError:
                break
        self.base = open_descriptors()
        self.known = _descriptor_numbers()
        self.low = _lowest_free()
        return self.low

    def reclaim(self) -> None:
        """Close every descriptor opened since the snapshot.  Only for a process that retires: what the program
        still holds (a file object) would later close a number that may be reused by then.

        No listing of /proc/self/fd (it needs a free descriptor): the ranges between the known descriptors
        are closed whole (`os.closerange`, one system call each where the kernel has close_range).
        """
        limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        limit = limit if limit != resource.RLIM_INFINITY else 1 << 20
        start = 3
        for fd in sorted(k for k in self.known if k >= 3):
            if fd > start:
                os.closerange(start, fd)
            start = fd + 1
        os.closerange(start, limit)

    def release(self) -> None:
        """Close the reserve: mu2py's clean-up after a unit that used up the limit finds descriptors free."""
        for fd in _RESERVE:
            try:
                os.close(fd)
            except OSError:
                pass
        _RESERVE.clear()

    def differs(self, saved: int) -> bool:
        low = _lowest_free()
        if low == self.low:
            return False
        if low < 0:
            self.exhausted = True
            self.release()
            return True
        if open_descriptors() > self.base + FD_MARGIN:
            # file objects units dropped without closing are closed by their finalizers: collected only past the
            # margin (a collection in a worker holding a test suite costs milliseconds; a test that leaves a
            # file handler on a logger leaks one descriptor each time it runs)
            gc.collect()
            if open_descriptors() > self.base + FD_MARGIN:
                return True
        # within the margin: accepted, so that the next checks cost one dup again
        self.low = _lowest_free()
        return False

    def why(self, saved: Any) -> str:
        if self.exhausted:
            return "used up every file descriptor"
        return f"left more than {FD_MARGIN} file descriptors open"


class _Limits(Entry):
    """Resource limits (`setrlimit`): put back, unless a unit lowered a hard limit (it cannot be raised again)."""

    name = "resource limits"
    costly = True

    def snapshot(self) -> tuple[tuple[int, int], ...]:
        return tuple(resource.getrlimit(k) for k in _RLIMITS)

    def restore(self, saved: tuple[tuple[int, int], ...]) -> None:
        for kind, limits in zip(_RLIMITS, saved, strict=True):
            if resource.getrlimit(kind) != limits:
                resource.setrlimit(kind, limits)  # ValueError when a hard limit was lowered: the process retires


class _Exits(Entry):
    """Exit handlers (`atexit.register`): those registered through the module's function are unregistered; one
    registered another way (a reference taken earlier) retires the process, as no API can take it out."""

    name = "atexit handlers"
    guarded = True

    def __init__(self) -> None:
        self.expected = 0
        real = atexit.register
        if getattr(real, "__wrapped__", None) is None:

            def register(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Callable[..., Any]:
                """atexit.register, noted so that the ledger can unregister what a unit added."""
                _REGISTERED.append(func)
                return real(func, *args, **kwargs)

            register.__wrapped__ = real  # type: ignore[attr-defined]  # functools' marker, set on a function
            atexit.register = register

    def snapshot(self) -> None:
        # the count only grows: `atexit.unregister` empties a slot but does not give it back
        _REGISTERED.clear()
        self.expected = atexit._ncallbacks()

    def differs(self, saved: None) -> bool:
        return atexit._ncallbacks() != self.expected

    def restore(self, saved: None) -> None:
        count = atexit._ncallbacks()
        added, self.expected = count - self.expected, count
        for func in _REGISTERED:
            atexit.unregister(func)
        noted = len(_REGISTERED)
        _REGISTERED.clear()
        if added != noted:
            raise RuntimeError("an exit handler registered without atexit.register")


_REGISTERED: list[Callable[..., Any]] = []  # what `atexit.register` took since the latest snapshot


class _Asyncio(Entry):
    """The asyncio event loop policy, the running loop and the loop set for this thread (once asyncio is loaded)."""

    name = "asyncio loop and policy"
    costly = True

    def snapshot(self) -> tuple[Any, ...]:
        events = sys.modules.get("asyncio.events")
        if events is None:
            return (None, None, None)
        policy = events._event_loop_policy
        local = getattr(policy, "_local", None)
        return policy, events._get_running_loop(), getattr(local, "_loop", None)

    def differs(self, saved: tuple[Any, ...]) -> bool:
        events = sys.modules.get("asyncio.events")
        if events is None:
            return False
        policy = events._event_loop_policy
        return (policy is not saved[0] or events._get_running_loop() is not saved[1]
                or getattr(getattr(policy, "_local", None), "_loop", None) is not saved[2])

    def restore(self, saved: tuple[Any, ...]) -> None:
        events = sys.modules["asyncio.events"]
        policy, running, loop = saved
        events._set_running_loop(running)
        events._event_loop_policy = policy  # type: ignore[attr-defined]  # asyncio's private global
        local = getattr(policy, "_local", None)
        if local is not None:
            left = getattr(local, "_loop", None)
            local._loop = loop
            if left is not None and left is not loop and not left.is_running():
                _close_quietly(left)


def _close_quietly(loop: Any) -> None:
    """Cancel what a loop a unit left still holds and close it (its tasks never run again)."""
    try:
        import asyncio

        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.close()
    except Exception:  # noqa: BLE001 - a loop the program broke: dropping it is all that matters
        pass


class _ModuleAttrs(Entry):
    """Attributes of a module that may not be imported yet (`tempfile.tempdir`, the root logger's setup...)."""

    costly = True

    def __init__(self, name: str, module: str, get: Callable[[Any], tuple[Any, ...]],
                 put: Callable[[Any, tuple[Any, ...]], None]) -> None:
        self.name, self._module, self._get, self._put = name, module, get, put

    def snapshot(self) -> tuple[Any, ...] | None:
        module = sys.modules.get(self._module)
        return self._get(module) if module is not None else None

    def differs(self, saved: tuple[Any, ...] | None) -> bool:
        module = sys.modules.get(self._module)
        if module is None:
            return False
        now = self._get(module)
        if saved is None:
            return False  # imported during the unit, as found on import: its defaults are what it starts from
        return len(now) != len(saved) or any(a is not b and a != b for a, b in zip(now, saved, strict=True))

    def restore(self, saved: tuple[Any, ...] | None) -> None:
        if saved is not None:
            self._put(sys.modules[self._module], saved)


def _logger_state(logger: Any) -> tuple[Any, ...]:
    # each handler with what a test reconfigures on it in place (`setFormatter`, `setLevel`: logzero's
    # `setup_logger` does so to the handlers of a logger made at import)
    return (logger.level, tuple(_handler_state(h) for h in logger.handlers), logger.disabled, tuple(logger.filters),
            getattr(logger, "propagate", True))


def _handler_state(handler: Any) -> tuple[Any, ...]:
    return handler, getattr(handler, "level", None), getattr(handler, "formatter", None), \
        tuple(getattr(handler, "filters", ())), getattr(handler, "stream", None)


def _put_handler(state: tuple[Any, ...]) -> Any:
    """Set a handler's level, formatter, filters and stream back as `_handler_state` saw them; the handler."""
    handler, level, formatter, filters, stream = state
    if _handler_state(handler) != state:
        handler.level, handler.formatter = level, formatter
        handler.filters[:] = list(filters)
        if stream is not None:
            handler.stream = stream
    return handler


class _Loggers(Entry):
    """The root logger and every logger that existed at the snapshot (level, handlers, disabled, filters,
    propagate), and `logging.disable`: tests configure loggers by name and leave them so (a library's own logger
    with a handler added), and a unit must not inherit another's.  A logger made since the snapshot is put back
    to the state `getLogger` made it in (no handlers but a library's `NullHandler`, no level, no filters): a test
    that names a logger after itself and adds a handler writing to its captured stream must find none the next
    time it runs (the module that made one may hold it, so it stays, as it is, in the manager)."""

    name = "loggers"
    costly = True

    def snapshot(self) -> tuple[Any, ...] | None:
        logging = sys.modules.get("logging")
        if logging is None:
            return None
        manager = logging.root.manager
        loggers = [logging.root, *(logger for logger in list(manager.loggerDict.values())
                                   if isinstance(logger, logging.Logger))]
        return tuple((logger, _logger_state(logger)) for logger in loggers), manager.disable, \
            frozenset(map(id, loggers))

    def differs(self, saved: tuple[Any, ...] | None) -> bool:
        logging = sys.modules.get("logging")
        if saved is None or logging is None:
            return False
        loggers, disable, known = saved
        return logging.root.manager.disable != disable or any(_logger_state(lg) != st for lg, st in loggers) \
            or any(_logger_state(lg) != _made_state(lg) for lg in _made_since(logging, known))

    def restore(self, saved: tuple[Any, ...] | None) -> None:
        logging = sys.modules["logging"]
        assert saved is not None
        loggers, disable, known = saved
        made = [(lg, _made_state(lg)) for lg in _made_since(logging, known)]
        for logger, state in [*loggers, *made]:
            if _logger_state(logger) != state:
                logger.level, handlers, logger.disabled, filters, propagate = state
                logger.handlers[:] = [_put_handler(h) for h in handlers]
                logger.filters[:] = list(filters)
                if logger is not logging.root:
                    logger.propagate = propagate
        if logging.root.manager.disable != disable:
            logging.disable(disable)
        logging.root.manager._clear_cache()  # the levels isEnabledFor cached per logger


def _made_since(logging: Any, known: frozenset[int]) -> list[Any]:
    """The loggers of the manager not among `known` (ids of those at the snapshot)."""
    return [lg for lg in list(logging.root.manager.loggerDict.values())
            if isinstance(lg, logging.Logger) and id(lg) not in known]


def _made_state(logger: Any) -> tuple[Any, ...]:
    """`_logger_state` of `logger` as `getLogger` made it, with the `NullHandler`s a library adds to its own logger
    at import (the idiom that keeps its records off `lastResort`) kept."""
    import logging

    return (logging.NOTSET, tuple(_handler_state(h) for h in logger.handlers if type(h) is logging.NullHandler),
            False, (), True)


def _put_tempdir(tempfile: Any, saved: tuple[Any, ...]) -> None:
    tempfile.tempdir = saved[0]


def _put_socket_timeout(socket: Any, saved: tuple[Any, ...]) -> None:
    socket.setdefaulttimeout(saved[0])


class _Environ(Entry):
    """`os.environ` (put back through its own API, so that the C environment follows); compared only when written."""

    name = "environment variables"

    def __init__(self) -> None:
        self._tag = VersionTag(os.environ._data)  # type: ignore[attr-defined]  # os.environ's private dict
        self._data: dict[Any, Any] = {}

    def snapshot(self) -> dict[str, str]:
        self._tag = VersionTag(os.environ._data)  # type: ignore[attr-defined]  # os.environ's private dict
        self._data = dict(os.environ._data)  # type: ignore[attr-defined]  # os.environ's private dict
        return dict(os.environ)

    def differs(self, saved: dict[str, str]) -> bool:
        if not self._tag.moved():
            return False
        # the encoded dict compared in C: pytest writes PYTEST_CURRENT_TEST in each phase of every test and
        # deletes it after, so the dict moves after every test while its contents come back
        if os.environ._data == self._data:  # type: ignore[attr-defined]  # os.environ's private dict
            self._tag.reset()
            return False
        return True

    def restore(self, saved: dict[str, str]) -> None:
        for key in [k for k in os.environ if k not in saved]:
            del os.environ[key]
        for key, value in saved.items():
            if os.environ.get(key) != value:
                os.environ[key] = value
        self._tag.reset()


class _Signals(Entry):
    """Python-level signal handlers (mu2py's timer signals aside: their runs put them back).

    `signal.signal` is wrapped to note that a handler was set: the quick check reads that note, the full
    check compares every handler (one set through a reference taken before the wrapper is found there).
    """

    name = "signal handlers"

    def __init__(self) -> None:
        self.numbers = [s for s in range(1, signal.NSIG) if s not in _TIMER_SIGNALS and _catchable(s)]
        self.noted = False
        real = signal.signal
        if getattr(real, "__wrapped__", None) is None:

            def set_handler(signalnum: int, handler: Any) -> Any:
                """signal.signal, noted for the ledger (see `_Signals`)."""
                if signalnum not in _TIMER_SIGNALS:
                    for entry in _SIGNAL_ENTRIES:
                        entry.noted = True
                return real(signalnum, handler)

            set_handler.__wrapped__ = real  # type: ignore[attr-defined]  # functools' marker, set on a function
            signal.signal = set_handler
        _SIGNAL_ENTRIES.append(self)

    def snapshot(self) -> tuple[Any, ...]:
        self.noted = False
        getsignal = _signal.getsignal
        return tuple(getsignal(s) for s in self.numbers)

    def differs(self, saved: tuple[Any, ...]) -> bool:
        if not self.noted:
            return False
        self.noted = False
        return tuple(map(_signal.getsignal, self.numbers)) != saved

    def restore(self, saved: tuple[Any, ...]) -> None:
        for k, s in enumerate(self.numbers):
            if _signal.getsignal(s) is not saved[k] and saved[k] is not None:
                signal.signal(s, saved[k])
        self.noted = False


class _AllSignals(_Signals):
    """Every handler compared (the full check's counterpart of `_Signals`)."""

    name = "signal handlers"
    costly = True

    def differs(self, saved: tuple[Any, ...]) -> bool:
        return tuple(map(_signal.getsignal, self.numbers)) != saved


_SIGNAL_ENTRIES: list[_Signals] = []


def _blocked() -> frozenset[int]:
    return frozenset(signal.pthread_sigmask(signal.SIG_BLOCK, ()))


def _put_blocked(saved: frozenset[int]) -> None:
    signal.pthread_sigmask(signal.SIG_SETMASK, saved)


def _catchable(signum: int) -> bool:
    try:
        return _signal.getsignal(signum) is not None and signum not in (signal.SIGKILL, signal.SIGSTOP)
    except (ValueError, OSError):
        return False


class _Threads(Entry):
    """Threads still running: a thread keeps running the unit's code, so the process retires."""

    name = "threads"
    restorable = False
    guarded = True

    def snapshot(self) -> int:
        return _thread._count()

    def differs(self, saved: int) -> bool:
        return _thread._count() > saved

    def why(self, saved: Any) -> str:
        return "left a thread running"


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _locale() -> str | None:
    import _locale

    try:
        return _locale.setlocale(_locale.LC_ALL, None)
    except _locale.Error:  # type: ignore[attr-defined]  # there at runtime, not in typeshed
        return None


def _put_locale(saved: str | None) -> None:
    import _locale

    if saved is not None:
        _locale.setlocale(_locale.LC_ALL, saved)


def _put_faulthandler(enabled: bool) -> None:
    if enabled:
        faulthandler.enable(file=sys.__stderr__ if sys.__stderr__ is not None else 2)
    else:
        faulthandler.disable()


def _put_cwd(path: str) -> None:
    os.chdir(path)


def _int_max_str_digits() -> int:
    get = getattr(sys, "get_int_max_str_digits", None)
    return get() if get is not None else 0


def _put_int_max_str_digits(value: int) -> None:
    setter = getattr(sys, "set_int_max_str_digits", None)
    if setter is not None:
        setter(value)


def _modules() -> dict[str, Any]:
    return sys.modules


def _probe() -> tuple[Any, ...]:
    """Everything the guarded entries read, in one tuple: compared at once with the snapshot's (identity first)."""
    return (sys.getrecursionlimit(), gc.isenabled(), gc.get_threshold(), gc.get_debug(),
            sys.gettrace(), sys.getprofile(), threading._trace_hook, threading._profile_hook,  # type: ignore[attr-defined]  # threading's private hooks
            sys.excepthook, sys.unraisablehook, sys.displayhook, sys.breakpointhook, threading.excepthook,
            sys.stdin, sys.stdout, sys.stderr, sys.getswitchinterval(), _int_max_str_digits(),
            faulthandler.is_enabled(), atexit._ncallbacks(), _thread._count())


def default_entries(*, threads: bool = True) -> list[Entry]:
    """The table every engine uses (see the module docstring); `threads=False` leaves running threads unchecked."""
    entries: list[Entry] = [
        _Value("recursion limit", sys.getrecursionlimit, sys.setrecursionlimit, guarded=True),
        _Value("gc settings", _gc_settings, _put_gc, guarded=True),
        _Frozen(),
        _List("gc.callbacks", lambda: gc.callbacks, costly=True),
        _Same("trace and profile functions", _trace, _put_trace),
        _Same("threading trace and profile hooks", _thread_hooks, _put_thread_hooks),
        _Monitoring(),
        _Same("exception and display hooks", _hooks, _put_hooks),
        _LastException(),
        _Same("sys.stdin, sys.stdout, sys.stderr", _stdio, _put_stdio),
        _StdioDescriptors(),
        _Descriptors(),
        _Limits(),
        _Exits(),
        _Asyncio(),
        _Modules(),
        _List("sys.path", lambda: sys.path, lambda v: setattr(sys, "path", v), sys.path_importer_cache.clear),
        _List("sys.meta_path", lambda: sys.meta_path, lambda v: setattr(sys, "meta_path", v), costly=True),
        _List("sys.path_hooks", lambda: sys.path_hooks, lambda v: setattr(sys, "path_hooks", v), costly=True),
        _Warnings(),
        _Value("locale", _locale, _put_locale, costly=True),
        _Value("umask", _umask, os.umask, costly=True),
        _Value("working directory", os.getcwd, _put_cwd),
        _Environ(),
        _Signals(),
        _AllSignals(),
        _Value("blocked signals", _blocked, _put_blocked, costly=True),
        _Value("thread switch interval", sys.getswitchinterval, sys.setswitchinterval, guarded=True),
        _Value("int max str digits", _int_max_str_digits, _put_int_max_str_digits, guarded=True),
        _Value("faulthandler", faulthandler.is_enabled, _put_faulthandler, guarded=True),
        _ModuleAttrs("tempfile.tempdir", "tempfile", lambda m: (m.tempdir,), _put_tempdir),
        _ModuleAttrs("socket default timeout", "socket", lambda m: (m.getdefaulttimeout(),), _put_socket_timeout),
        _Loggers(),
    ]
    if threads:
        entries.append(_Threads())
    return entries


class _Modules(Entry):
    """`sys.modules`: a module a unit removed or replaced is put back; modules imported meanwhile stay (a fresh
    interpreter importing them later would hold them too).  Compared name by name only when the dict was written."""

    name = "sys.modules"
    # the engine binds its module copies in sys.modules around every run (`copies.bound_to`): the dict is
    # written each run, and a name-by-name comparison (tens of microseconds) belongs to the full check
    costly = True

    def __init__(self) -> None:
        self._tag = VersionTag(sys.modules)

    def snapshot(self) -> dict[str, Any]:
        self._tag = VersionTag(sys.modules)
        return dict(sys.modules)

    def differs(self, saved: dict[str, Any]) -> bool:
        if not self._tag.moved():
            return False
        get = sys.modules.get
        changed = any(get(k) is not v for k, v in saved.items())
        if not changed:
            self._tag.reset()  # only additions: nothing to check again until the next write
        return changed

    def restore(self, saved: dict[str, Any]) -> None:
        modules = sys.modules
        for name, module in saved.items():
            if modules.get(name) is not module:
                modules[name] = module
        self._tag.reset()


class _Warnings(Entry):
    """The warnings filters (the list and its items) and `warnings.showwarning`."""

    name = "warnings filters"
    costly = True

    def snapshot(self) -> tuple[Any, ...]:
        import warnings

        return warnings.filters, list(warnings.filters), warnings.showwarning

    def differs(self, saved: tuple[Any, ...]) -> bool:
        import warnings

        filters = warnings.filters
        return filters is not saved[0] or filters != saved[1] or warnings.showwarning is not saved[2]

    def restore(self, saved: tuple[Any, ...]) -> None:
        import warnings

        warnings.filters = saved[0]
        warnings.filters[:] = saved[1]  # type: ignore[index]  # a list, which typeshed calls a Sequence
        warnings.showwarning = saved[2]
        warnings._filters_mutated()  # type: ignore[attr-defined]  # warnings' private function


@dataclass
class Drift:
    """What one `check` found: the entries it put back, and why the process must retire (None: it need not)."""

    restored: list[str] = field(default_factory=list)
    retire: str | None = None


class Ledger:
    """The table of `Entry`s with their snapshots; `check()` after every unit (see the module docstring)."""

    def __init__(self, entries: Iterable[Entry] | None = None, *, threads: bool = True) -> None:
        self.entries: Sequence[Entry] = list(entries) if entries is not None else default_entries(threads=threads)
        self.saved: list[Any] = []
        # (position, bound check, snapshot) per entry: the loop of `check` does no attribute lookups
        self._all: list[tuple[int, Callable[[Any], bool], Any]] = []
        self._quick: list[tuple[int, Callable[[Any], bool], Any]] = []
        self._all_unguarded: list[tuple[int, Callable[[Any], bool], Any]] = []
        self._quick_unguarded: list[tuple[int, Callable[[Any], bool], Any]] = []
        self._probed: tuple[Any, ...] | None = None
        self.restores: dict[str, int] = {}  # per entry, how many checks found it changed (for reports and tests)

    def add(self, entry: Entry) -> None:
        """One more entry (an engine's own: module copies, scratch files), snapshotted at the next `settle`."""
        self.entries = [*self.entries, entry]

    def settle(self) -> None:
        """Take the state now as what every unit starts from."""
        self.saved = [e.snapshot() for e in self.entries]
        self._all = [(k, e.differs, self.saved[k]) for k, e in enumerate(self.entries)]
        self._quick = [item for item in self._all if not self.entries[item[0]].costly]
        self._all_unguarded = [item for item in self._all if not self.entries[item[0]].guarded]
        self._quick_unguarded = [item for item in self._quick if not self.entries[item[0]].guarded]
        self._probed = _probe()

    def check(self, *, full: bool = True) -> Drift:
        """After a unit: put back what moved; `Drift.retire` names what cannot be put back.

        With `full=False` the entries whose check makes system calls (`Entry.costly`) are left for a later
        full check: for a caller whose units take microseconds (a mutant's run on one input).
        """
        drift = Drift()
        probe = _probe()
        if probe == self._probed:
            checks = self._all_unguarded if full else self._quick_unguarded
        else:
            checks = self._all if full else self._quick
        for k, differs, saved in checks:
            try:
                if not differs(saved):
                    continue
            except Exception as exc:  # noqa: BLE001 - a check broken by the unit: the process cannot be trusted
                drift.retire = drift.retire or f"broke {self.entries[k].name} ({type(exc).__name__})"
                continue
            self._changed(k, drift)
        if checks is self._all or checks is self._quick:
            if drift.retire is None:
                # put back as saved, but for counts that only grow (atexit's): the probe starts from here
                self._probed = _probe()
            else:
                self._probed = None  # until it retires, the process is checked entry by entry
        return drift

    def _changed(self, k: int, drift: Drift) -> None:
        entry, saved = self.entries[k], self.saved[k]
        self.restores[entry.name] = self.restores.get(entry.name, 0) + 1
        if entry.restorable:
            try:
                entry.restore(saved)
                drift.restored.append(entry.name)
                return
            except Exception as exc:  # noqa: BLE001 - put back what can be, and retire for the rest
                drift.retire = drift.retire or f"changed {entry.name} beyond repair ({type(exc).__name__})"
                return
        drift.retire = drift.retire or entry.why(saved)

    def release(self) -> None:
        """Free the descriptors held in reserve (mu2py's clean-up after a unit that used up the limit)."""
        for entry in self.entries:
            if isinstance(entry, _Descriptors):
                entry.release()

    def reclaim(self) -> None:
        """Close every descriptor opened since `settle`, the reserve's included: for a process that retires after
        a unit used up the limit, so that its own clean-up and its last reply can still open what they need."""
        for entry in self.entries:
            if isinstance(entry, _Descriptors):
                entry.release()
                entry.reclaim()
