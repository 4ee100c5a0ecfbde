"""Executors that fan work units out: in this process, or on worker processes that survive what a unit does.

Every executor has the same call, `map_unordered(fn, units)`, yielding `(index, result)` as
units finish, each index exactly once.  `Processes` isolates units in worker processes
(multiprocess, spawn): a unit that crashes the interpreter, calls `os._exit`, hangs inside C
or overruns its deadline costs a worker, which is replaced, and the unit is retried (then
reported as `Lost`) — the run goes on and no result is counted twice.  Each worker is a
`supervisor.Child`: it leads its own process group, and whatever its units started and left running
ends with it, when it is replaced and when the pool closes.
"""

from __future__ import annotations

import math
import os
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import multiprocess as mp
from multiprocess.connection import wait

from mu2py.processes.child import pack, receive, send, unpack
from mu2py.processes.supervisor import Child, end_group, lead_group


@dataclass(frozen=True)
class Lost:
    """A unit whose worker died or overran the deadline on every attempt."""

    reason: str
    attempts: int
    seconds: float = 0.0  # the worker time its attempts took, deadlines included


class WorkerError(RuntimeError):
    """A unit raised inside a worker (a bug in the unit function, not an outcome of the work)."""


class InProcess:
    """Runs units one after another in this process: no isolation, no overhead."""

    workers = 1

    def __init__(self, initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()) -> None:
        if initializer is not None:
            initializer(*initargs)

    def map_unordered(
        self, fn: Callable[[Any], Any], units: Sequence[Any], *, deadline: float | Callable[[Any], float] | None = None,
        on_wait: Callable[[], None] | None = None,
    ) -> Iterator[tuple[int, Any]]:
        """Run each unit in order; `deadline` is not enforced here (units time themselves out)."""
        for index, unit in enumerate(units):
            yield index, fn(unit)
            if on_wait is not None:
                on_wait()

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self) -> InProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_restart_requested = False
RESTART_GRACE = 2.0  # seconds a worker that asked to be replaced has to end by itself before its group is swept
_parent: Any = None  # inside a worker: its connection to the parent (see `extend_deadline`)
_ENDING: list[Callable[[], None]] = []  # inside a worker: what `ending` was given, run before it exits


def ending(close: Callable[[], None]) -> None:
    """Called inside a worker: run `close` before this worker exits (after its last reply), so that a process it
    started (a fork server) is ended and reaped by it: what that process and its children spent then counts in
    the command's own CPU time (an orphan reaped by init would take it away, from `time mu2py ...` too)."""
    _ENDING.append(close)


def exit_worker() -> None:
    """End this worker process now: what `ending` was given first, then `os._exit(0)` (the parent waits for it)."""
    _end()
    os._exit(0)


def _end() -> None:
    """Run what `ending` was given, last first, each once."""
    while _ENDING:
        try:
            _ENDING.pop()()
        except Exception:  # noqa: BLE001 - the worker ends anyway; its group is swept by the parent
            pass


def extend_deadline(seconds: float) -> None:
    """Called by a unit inside a worker: move its deadline `seconds` later (time it spent waiting, not working).

    Sent to the parent at once, as the unit runs: the parent's deadline is a backstop for a worker stuck
    in C code, where no alarm of the worker's own can fire; a wait for another worker (a lock) is no hang.
    A no-op outside a worker process.
    """
    if _parent is not None and seconds > 0:
        send(_parent, ("extend", -1, seconds))


def cut_deadline(seconds: float | None) -> None:
    """Called by a unit inside a worker: it must end within `seconds` from now, whatever its deadline (its test's
    alarm fired and the code ran on: it swallowed the timeout, in a retry loop or a bare `except`); None gives
    the unit its own deadline back (the test ended).  A no-op outside a worker process."""
    if _parent is not None:
        send(_parent, ("cut", -1, seconds))


def request_restart() -> None:
    """Called by a unit inside a worker: replace this worker once its reply is sent (its state is suspect)."""
    global _restart_requested
    _restart_requested = True


def _worker_main(conn: Any, init: bytes, hosting: bool) -> None:
    """A worker: set up, then loop receiving (index, fn, unit) and sending ("ok"|"error", index, payload).

    `init` is the initializer and its arguments, pickled by `pack`.  With `hosting`, the initializer receives the
    loop as its last argument and must call it (so that the loop runs inside a context the initializer keeps
    open, e.g. a pytest session).
    """

    from mu2py.processes.child import die_with_parent

    global _parent
    lead_group()  # what a unit starts and leaves running is swept with this worker (see `supervisor`)
    die_with_parent()  # a worker whose parent was killed must not run on as an orphan
    _parent = conn
    # the parent alone writes the command's output (`--json` on stdout, progress on stderr): what a unit prints
    # outside a test's capture (a module body re-run in place, a mutated CLI's usage text), and what an exit
    # handler a test registered writes when this worker ends, goes nowhere.  mu2py's own failures in a worker
    # come back through the pipe (a traceback, the exit status)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)

    def serve() -> None:
        send(conn, ("ready", -1, None))
        while True:
            message = receive(conn)
            if message is None:
                return
            index, fn, unit = message
            try:
                result = fn(unit)
            except Exception:  # noqa: BLE001 - shipped to the parent, which raises WorkerError
                send(conn, ("error", index, traceback.format_exc()))
                continue
            # "restart" tells the parent to replace this worker before giving it more work
            send(conn, ("restart" if _restart_requested else "ok", index, result))
            if _restart_requested:
                conn.close()
                exit_worker()

    initializer, initargs = unpack(init)
    try:
        if initializer is None:
            serve()
        elif hosting:
            initializer(*initargs, serve)
        else:
            initializer(*initargs)
            serve()
    finally:
        _end()


@dataclass
class _Worker:
    child: Child
    ready: bool = False
    unit: int | None = None  # its deadline and memory cap: `child.watch`
    stale: bool = False  # killed with a unit in flight when a call was left: replaced before the next call


class Processes:
    """Worker processes with crash and hang recovery (see the module docstring)."""

    def __init__(self, workers: int, *, initializer: Callable[..., None] | None = None,
                 initargs: tuple[Any, ...] = (), retries: int = 1, context: str = "spawn",
                 hosting: bool = False) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.workers = workers
        self.retries = retries
        self.restarts = 0
        # bytes of resident memory a worker may hold while it runs a unit (None: no limit); past it the worker
        # is killed like one past its deadline: a unit stuck in C code may be filling memory as fast as it can
        self.memory_limit: int | None = None
        self._ctx = mp.get_context(context)
        # pickled once, by the C pickler where it can: multiprocess pickles a process's arguments with dill, in
        # Python, at every start and restart (a score run's catalog of mutants: a tenth of a second each)
        self._init = (pack((initializer, initargs)), hosting)
        self._pool: list[_Worker] = [self._start() for _ in range(workers)]

    def _start(self) -> _Worker:
        # not daemonic: a worker may start processes of its own (a campaign's mutant host); close() ends it
        return _Worker(Child.start(self._ctx, _worker_main, self._init, daemon=False))

    def _replace(self, worker: _Worker, grace: float = 0.0) -> _Worker:
        if grace:
            worker.child.finish(grace)
        else:
            worker.child.end()
        self.restarts += 1
        fresh = self._start()
        self._pool[self._pool.index(worker)] = fresh
        return fresh

    def map_unordered(
        self, fn: Callable[[Any], Any], units: Sequence[Any], *, deadline: float | Callable[[Any], float] | None = None,
        on_wait: Callable[[], None] | None = None,
    ) -> Iterator[tuple[int, Any]]:
        """Yield `(index, result)` per unit; a unit whose worker dies or overruns `deadline` (seconds, or
        a function of the unit) is retried, then `Lost`.

        Invariant: a result is the reply to the unit it is yielded for.  A call left before its end (an exception,
        a generator closed early, Ctrl-C) kills the workers whose units are still in flight, and the next call
        starts by replacing them, so that their replies never reach it as the replies to its own units."""
        for worker in [w for w in self._pool if w.stale]:
            self._replace(worker)
        try:
            yield from self._map(fn, units, deadline, on_wait)
        finally:
            for worker in self._pool:
                if worker.unit is not None:
                    # not waited for here: the call may be ending with the whole run (reaped by `_replace`)
                    if worker.child.pid is not None:
                        end_group(worker.child.pid)
                    worker.child.process.kill()
                    worker.unit, worker.stale = None, True

    def _map(self, fn: Callable[[Any], Any], units: Sequence[Any],
             deadline: float | Callable[[Any], float] | None, on_wait: Callable[[], None] | None,
             ) -> Iterator[tuple[int, Any]]:
        pending = deque(range(len(units)))
        attempts = [0] * len(units)
        spent = [0.0] * len(units)  # per unit, the time its lost attempts took
        remaining = len(units)
        while remaining:
            for worker in self._pool:
                if worker.ready and worker.unit is None and pending:
                    next_unit = pending.popleft()
                    attempts[next_unit] += 1
                    worker.unit = next_unit
                    worker.child.watch.set(deadline(units[next_unit]) if callable(deadline)
                                           else math.inf if deadline is None else deadline)
                    worker.child.watch.memory_cap = self.memory_limit
                    # the C pickler first (`child.send`): multiprocess's dill pickles in Python, a large unit slowly
                    send(worker.child.conn, (next_unit, fn, units[next_unit]))
            waitables = [w.child.conn for w in self._pool] + [w.child.sentinel for w in self._pool]
            ready = set(wait(waitables, timeout=0.2))
            for worker in list(self._pool):
                lost_reason = None
                if worker.child.conn in ready:
                    try:
                        kind, index, payload = receive(worker.child.conn)
                    except (EOFError, OSError):
                        worker.child.process.join(1)
                        if not worker.ready:
                            raise WorkerError(f"a worker failed to start ({worker.child.exit_detail()})") from None
                        kind, index, payload = "died", worker.unit, None
                    if kind == "ready":
                        worker.ready = True
                        continue
                    if kind == "extend":  # the unit waited (see `extend_deadline`): that time is not its own
                        worker.child.watch.extend(payload)
                        continue
                    if kind == "cut":  # see `cut_deadline`
                        worker.child.watch.cut(payload)
                        continue
                    if kind in ("ok", "restart"):
                        worker.unit = None
                        remaining -= 1
                        if kind == "restart":
                            # it is ending by itself, once what it started is ended and reaped (`exit_worker`)
                            self._replace(worker, grace=RESTART_GRACE)
                        yield index, payload
                        continue
                    if kind == "error":
                        # the worker serves on: free it, or a later map on this pool would wait for it forever
                        worker.unit = None
                        raise WorkerError(f"unit {index} raised in a worker:\n{payload}")
                    lost_reason = f"worker died ({worker.child.exit_detail()})"
                elif worker.child.sentinel in ready:
                    worker.child.process.join(1)
                    if not worker.ready:
                        raise WorkerError(f"a worker failed to start ({worker.child.exit_detail()})")
                    lost_reason = f"worker died ({worker.child.exit_detail()})"
                elif worker.unit is not None:
                    overrun = worker.child.overrun()
                    lost_reason = overrun.detail if overrun is not None else None
                if lost_reason is None:
                    continue
                index = worker.unit
                if index is not None:
                    spent[index] += worker.child.watch.elapsed()
                self._replace(worker)
                if index is None:
                    continue
                if attempts[index] <= self.retries:
                    pending.appendleft(index)
                else:
                    remaining -= 1
                    yield index, Lost(lost_reason, attempts[index], round(spent[index], 4))
            if on_wait is not None:
                on_wait()

    def close(self) -> None:
        """Ask every worker to stop, then make sure it has, and that nothing its units started runs on."""
        for worker in self._pool:
            worker.child.ask_to_stop()  # all at once: they end side by side
        for worker in self._pool:
            worker.child.finish(2)
        self._pool = []

    def terminate(self) -> None:
        """Kill every worker now, whatever it is running (a deadline has come: no unit is waited for)."""
        for worker in self._pool:
            worker.child.end()
        self._pool = []

    def __enter__(self) -> Processes:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def executor(workers: int, **kwargs: Any) -> InProcess | Processes:
    """InProcess for one worker, Processes for more."""
    if workers <= 1:
        return InProcess(kwargs.get("initializer"), kwargs.get("initargs", ()))
    return Processes(workers, **kwargs)
