"""Ctrl-C that is never lost: SIGINT is noted in a flag as well as raised.

Python raises KeyboardInterrupt wherever the main thread happens to be.  When that is a
garbage-collector callback (Hypothesis installs one), a `__del__` or a weakref callback, the
exception is printed as "Exception ignored in ..." and dropped, and a loop would run on to
the end of its budget.  A loop that checks `NoteInterrupts.seen` after each step stops at
its next check whatever swallowed the exception.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType
from typing import Any


class NoteInterrupts:
    """Context manager: while active, SIGINT sets `seen` and raises KeyboardInterrupt (main thread only)."""

    def __init__(self) -> None:
        self.seen = False
        self._previous: Any = None
        self._installed = False

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        self.seen = True
        raise KeyboardInterrupt

    def check(self) -> None:
        """Raise KeyboardInterrupt if SIGINT arrived since entry (its own raise may have been swallowed)."""
        if self.seen:
            raise KeyboardInterrupt

    def __enter__(self) -> NoteInterrupts:
        # only the main thread may set handlers; elsewhere (a test runner's thread) Python's default stays
        if threading.current_thread() is threading.main_thread():
            previous = signal.getsignal(signal.SIGINT)
            if previous is signal.default_int_handler:  # leave a caller's own handler (or SIG_IGN) alone
                self._previous = previous
                signal.signal(signal.SIGINT, self._handler)
                self._installed = True
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False
