"""What every long command shares: its progress display (`Meter`: a live rich bar on a terminal, plain lines at most
every few seconds elsewhere), and the --fail-under check."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from rich.console import Console, RenderableType

# the --fail-under line is the API's (its results carry it); the commands import it from here
from mu2py.api import below_fail_under as below_fail_under

if TYPE_CHECKING:
    from mu2py.cli.live import LiveProgress

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


def duration(seconds: float) -> str:
    """A short human duration: `8s`, `2m05s`, `1h02m` (rounded down to the unit shown)."""
    whole = max(int(seconds), 0)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


def budget_seconds(seconds: float) -> str:
    """A time budget as a user writes one (`20s`, `1.5s`, `5m`, `1h`): not rounded, since it is the user's own."""
    if seconds != int(seconds):
        return f"{seconds:g}s"
    whole = int(seconds)
    if whole and whole % 3600 == 0:
        return f"{whole // 3600}h"
    if whole and whole % 60 == 0:
        return f"{whole // 60}m"
    return f"{whole}s" if whole < 60 else duration(whole)


class Meter:
    """A long command's progress: on a terminal a live `rich.progress` line (description, bar, done/total, elapsed,
    the budget and the time left, or rich's ETA for a known total), a note and an optional renderable below it;
    elsewhere (a pipe, a CI log) only the plain lines the command gives, throttled to one per phase change and then
    one every PROGRESS_EVERY seconds.

    `clock` gives the seconds elapsed (default: since the meter was made); `seconds` is a time budget counted on that
    clock (its display: "budget 20s, 12s left"); `out`, when given, takes the plain lines instead of the console
    (stderr, when stdout carries a JSON report). Use it as a context manager: the live display is transient, so what
    the command prints after it stands alone.
    """

    def __init__(self, console: Console, description: str = "", *, unit: str = "", total: int | None = None,
                 seconds: float | None = None, budget_label: str = "budget", clock: Callable[[], float] | None = None,
                 live: bool | None = None, out: TextIO | None = None, plain_at_once: bool = True) -> None:
        self.console, self.out = console, out
        self.live = console.is_terminal if live is None else live
        started = time.monotonic()
        self.clock = clock or (lambda: time.monotonic() - started)
        self.seconds, self.budget_label = seconds, budget_label
        self._budget_clock: Callable[[], float] | None = None  # the budget's own, when not the meter's
        self.throttle = Throttle()
        if not plain_at_once:
            self.throttle.due()  # the first plain line comes after PROGRESS_EVERY seconds, not at once
        self._progress: LiveProgress | None = None
        self._task: Any = None
        if self.live:
            from mu2py.cli.live import LiveProgress  # rich.progress, only for a live display

            self._progress = LiveProgress(self, console)
            self._task = self._progress.add_task(description, total=total, unit=unit, note="")

    def __enter__(self) -> Meter:
        """Start the live display (nothing to start for plain lines)."""
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        """Stop the live display, whatever ended the block."""
        self.stop()

    def start(self) -> None:
        """Show the live display (idempotent)."""
        if self._progress is not None and not self._progress.live.is_started:
            self._progress.start()

    def stop(self) -> None:
        """Take the live display off the screen (idempotent)."""
        if self._progress is not None and self._progress.live.is_started:
            self._progress.stop()

    @property
    def elapsed(self) -> float:
        """Seconds elapsed on the meter's clock."""
        return self.clock()

    def set_budget(self, seconds: float | None, label: str = "budget",
                   clock: Callable[[], float] | None = None) -> None:
        """Show a time budget of `seconds` from now on (None: none, then rich's ETA for a known total); `clock`, if
        given, is the budget's own (seconds spent of it), else the meter's."""
        self.seconds, self.budget_label = seconds, label
        self._budget_clock = clock

    def budget_text(self) -> str:
        """`budget 20s, 12s left` for a time budget, else the empty string."""
        if self.seconds is None:
            return ""
        spent = self.budget_spent()
        return f"{self.budget_label} {budget_seconds(self.seconds)}, {duration(math.ceil(self.seconds - spent))} left"

    def budget_spent(self) -> float:
        """Seconds spent of the time budget (on its own clock, else the meter's)."""
        return (self._budget_clock or self.clock)()

    def stamp(self) -> str:
        """`elapsed 8s` with `; budget 20s, 12s left` under a time budget: what a plain line adds to say when."""
        budget = self.budget_text()
        return f"elapsed {duration(self.elapsed)}" + (f"; {budget}" if budget else "")

    def update(self, *, completed: float | None = None, total: float | None = None, description: str | None = None,
               note: str | None = None, unit: str | None = None, detail: RenderableType | None = None,
               advance: float | None = None) -> None:
        """Change what the live display shows (the counts, the description, the note after it, the renderable under
        it); nothing without a terminal. `total` 0 means no known total."""
        if self._progress is None:
            return
        fields: dict[str, Any] = {}
        if note is not None:
            fields["note"] = note
        if unit is not None:
            fields["unit"] = unit
        if detail is not None:
            self._progress.detail = detail
        if total == 0:  # rich's update takes None for "unchanged": no total is set on the task itself
            self._progress.tasks[0].total = None
        shown = self._progress.tasks[0].description
        self._progress.update(self._task, completed=completed, total=total or None, description=description,
                              advance=advance, **fields)
        if description is not None and description != shown:
            # a new phase is drawn now, not at the next tick: a phase shorter than the refresh interval is seen too
            self._progress.refresh()

    def plain(self, line: Callable[[], str] | str, phase: object = None) -> None:
        """Print a plain progress line (built only when printed) if it is due; nothing on a terminal."""
        if self.live or not self.throttle.due(phase):
            return
        self._print(line() if callable(line) else line)

    def say(self, text: str, stamp: bool = False) -> None:
        """Print a line for good: above the live display on a terminal, as a plain line elsewhere (`stamp`: with
        `stamp()` after it, in a plain line only: on a terminal the live display says when)."""
        if self._progress is not None:
            self._progress.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            self._print(f"{text} ({self.stamp()})" if stamp else text)

    def _print(self, text: str) -> None:
        if self.out is not None:
            print(text, file=self.out, flush=True)
        else:
            self.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def renderable(self) -> RenderableType:
        """What the live display shows now (for a test, or a caller drawing it itself)."""
        assert self._progress is not None, "a plain meter draws nothing"
        from rich.console import Group

        return Group(*self._progress.get_renderables())
