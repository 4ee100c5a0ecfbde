"""A machine-wide lock that keeps tests binding a fixed address from running at once in two score workers.

Score workers run the suite in parallel; a plain pytest run runs one test at a time.  A test
that binds a fixed port (a server's test) then fails in one worker because another worker's
run of it holds the port, and the check that a killing test passes again on the original
runs after the other one let go: the collision counted as a kill.  So a test holds this lock
(an advisory lock on one file in the temporary folder, shared by every score worker and fresh
interpreter on the machine) from its first bind of a fixed address to its end; meanwhile another
test that binds one waits, its timeout paused.

A unit's wait has a budget: a bind still waiting when it runs out raises `Busy`, and the test's
outcome says nothing (`busy`).  The wait moves the unit's deadline in the parent as much
(`workers.extend_deadline`).

Invariant: a process holds the lock only while one of its tests runs (`release` at its end;
a process that dies releases it with its file descriptors).
"""

from __future__ import annotations

import fcntl
import math
import os
import signal
import tempfile
import threading
import time
from typing import Any

from mu2py.processes.workers import extend_deadline

LOCK_FILE = os.path.join(tempfile.gettempdir(), "mu2py-bind.lock")
WAIT_BUDGET = 20.0
"""Seconds one unit's tests may wait for the lock in all."""
CREDIT_EVERY = 1.0
"""Seconds of waiting between two messages moving the unit's deadline (well under `pools.SLACK`)."""

budget = math.inf  # seconds left to wait in the current unit (see `new_unit`)
busy = False  # the running test's bind gave up waiting (see `Busy`)
_held: int | None = None  # the lock file's descriptor while this process holds the lock
_guard = threading.Lock()  # two threads of one test binding at once: one takes the lock for both


class Busy(BaseException):
    """A bind gave up waiting for the lock; not an Exception, so that the test cannot take it for its own."""


def fixed_address(address: Any) -> bool:
    """Whether binding `address` takes something another process may bind too (port 0 asks for a free port)."""
    if isinstance(address, tuple) and len(address) >= 2 and isinstance(address[1], int):
        return address[1] != 0
    return bool(address)  # a Unix socket's path


def new_unit(seconds: float = WAIT_BUDGET) -> None:
    """Start a unit's budget of waiting (infinite for a unit without a deadline, such as the baseline)."""
    global budget
    budget = seconds


def hold() -> None:
    """Take the lock for the running test (once): wait for another process's test to end, within the budget.

    The wait is not the test's time: the interval timer that times tests out is paused meanwhile.
    Raises `Busy` (and sets `busy`) when the budget runs out first.
    """
    global _held, budget, busy
    with _guard:
        if _held is not None:
            return
        try:
            fd = os.open(LOCK_FILE, os.O_RDONLY | os.O_CREAT, 0o666)
        except OSError:
            return  # no shared file to lock: the test binds as it would have
        remaining, interval = signal.setitimer(signal.ITIMER_REAL, 0)
        start = credited = time.monotonic()
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    now = time.monotonic()
                    if now - start >= budget:
                        busy = True
                        raise Busy(f"waited {budget:.0f} s for another test's bind to end") from None
                    if now - credited >= CREDIT_EVERY:
                        # the unit's deadline in the parent pauses as its timer does, while the wait goes on
                        extend_deadline(now - credited)
                        credited = now
                    time.sleep(0.01)
        except BaseException:
            os.close(fd)
            raise
        finally:
            now = time.monotonic()
            budget = max(0.0, budget - (now - start))
            extend_deadline(now - credited)
            if remaining:
                signal.setitimer(signal.ITIMER_REAL, remaining, interval)
        _held = fd


def release() -> None:
    """Let go of the lock at the end of a test (nothing when it was not taken)."""
    global _held
    with _guard:
        if _held is not None:
            os.close(_held)  # closing the only descriptor of the file's lock releases it
            _held = None
