"""What every long command shares: plain progress lines at most every few seconds, and the --fail-under check."""

from __future__ import annotations

import time

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


def below_fail_under(score: float | None, fail_under: float | None) -> str | None:
    """The one line to print when a score (a percentage) is under --fail-under, else None.

    No score (no mutant was judged, e.g. a --since run whose change touches none) is no shortfall.
    """
    if fail_under is None or score is None or score >= fail_under:
        return None
    shown = f"{score:.1f}"
    if float(shown) >= fail_under:  # 94.96 is below 95, though it prints as 95.0: say so with the digits that show it
        shown = f"{score:.2f}"
    return f"mutation score {shown}% is below --fail-under {fail_under:g}%"
