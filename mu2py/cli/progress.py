"""What every long command shares: plain progress lines at most every few seconds, and the --fail-under check."""

from __future__ import annotations

import time

# the --fail-under line is the API's (its results carry it); the commands import it from here
from mu2py.api import below_fail_under as below_fail_under

PROGRESS_EVERY = 5.0  # seconds between plain progress lines (no terminal: a CI log, a pipe)


class Throttle:
    """Lets a progress line through when its phase changes or PROGRESS_EVERY seconds have passed since the last."""

    def __init__(self, every: float | None = None) -> None:
        self.every = PROGRESS_EVERY if every is None else every
        self.started = time.monotonic()
        self._last = -1e9
        self._phase: object = None

    def due(self, phase: object = None) -> bool:
        """Whether to print now; a `True` answer starts the next interval."""
        now = time.monotonic()
        if phase == self._phase and now - self._last < self.every:
            return False
        self._last, self._phase = now, phase
        return True

    @property
    def elapsed(self) -> float:
        """Seconds since the throttle was made (the command's start)."""
        return time.monotonic() - self.started
