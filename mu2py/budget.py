"""What a command may spend: a `Budget` of trials and/or seconds, and the `Deadline`s it hands down.

One clock only: `time.monotonic()`.  On Linux (and macOS) it is the same clock in every process of
the machine, so a `Deadline` sent to another process (the mutant host) means the same moment there.

A `--time` budget is turned into one `Budget` where the command starts; every layer below it (the
fuzzing loop, a batch of mutant runs, the host, the engine) receives a `Deadline` and asks it how
long a run may take (`Deadline.clip`): no layer keeps a clock or a raw end time of its own.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace


def now() -> float:
    """The budget clock's reading (`time.monotonic()`)."""
    return time.monotonic()


@dataclass(frozen=True)
class Deadline:
    """A moment on the budget clock by which work must end; `at` None is no deadline at all.

    Invariants: `remaining()` is never negative, and is `math.inf` exactly when there is no
    deadline; `clip(t)` is never more than `t` nor more than `remaining()`.
    """

    at: float | None = None

    @classmethod
    def never(cls) -> Deadline:
        """The deadline that never comes."""
        return cls(None)

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        """The deadline `seconds` from now."""
        return cls(now() + seconds)

    @property
    def bounded(self) -> bool:
        """Whether there is a deadline at all."""
        return self.at is not None

    def remaining(self, since: float | None = None) -> float:
        """Seconds left from `since` (default: now) until the deadline, at least 0; inf without a deadline."""
        if self.at is None:
            return math.inf
        return max(self.at - (now() if since is None else since), 0.0)

    def expired(self) -> bool:
        """Whether the deadline has passed."""
        return self.at is not None and now() >= self.at

    def clip(self, timeout: float | None, since: float | None = None) -> float | None:
        """`timeout` shortened to what is left of the deadline (from `since`, default now); None stays None
        without a deadline."""
        left = self.remaining(since)
        if timeout is None:
            return None if math.isinf(left) else left
        return min(timeout, left)

    def cuts(self, timeout: float | None, since: float | None = None) -> bool:
        """Whether the deadline leaves less than `timeout` (a run given `clip(timeout)` may be cut short)."""
        left = self.remaining(since)
        return not math.isinf(left) and (timeout is None or left < timeout)

    def earlier(self, other: Deadline) -> Deadline:
        """The earlier of this deadline and `other`."""
        if self.at is None:
            return other
        if other.at is None or self.at <= other.at:
            return self
        return other

    def sooner_by(self, seconds: float) -> Deadline:
        """This deadline moved `seconds` earlier (no deadline stays none)."""
        return self if self.at is None else Deadline(self.at - seconds)


@dataclass(frozen=True)
class Budget:
    """Trials, seconds or both; the clock starts when the budget is made (`started`).

    Invariants: at least one of `trials` and `seconds` is set and positive; `spent` is the time charged to
    it before `started` (a resumed campaign's earlier runs), so `elapsed()` counts the whole campaign and
    `deadline()` is `started + seconds - spent`, fixed for the budget's life.
    """

    trials: int | None = None
    seconds: float | None = None
    spent: float = 0.0
    started: float = field(default_factory=now)

    def __post_init__(self) -> None:
        """Refuse a budget of nothing."""
        if self.trials is None and self.seconds is None:
            raise ValueError("a budget needs trials or seconds")
        if (self.trials is not None and self.trials < 0) or (self.seconds is not None and self.seconds < 0):
            raise ValueError("a budget cannot be negative")

    @property
    def timed(self) -> bool:
        """Whether seconds bound it."""
        return self.seconds is not None

    def resumed(self, spent: float) -> Budget:
        """The same budget, with `spent` seconds charged to it before its start (a resumed campaign's)."""
        return replace(self, spent=spent)

    def elapsed(self) -> float:
        """Seconds charged to the budget so far, `spent` included."""
        return self.spent + now() - self.started

    def deadline(self) -> Deadline:
        """When the seconds run out (never, without seconds)."""
        if self.seconds is None:
            return Deadline.never()
        return Deadline(self.started + self.seconds - self.spent)

    def remaining(self) -> float:
        """Seconds left (inf without seconds; never negative)."""
        return self.deadline().remaining()

    def done(self, trials: int = 0) -> bool:
        """Whether the budget is spent after `trials` trials: all its trials run, or its seconds gone."""
        if self.trials is not None and trials >= self.trials:
            return True
        return self.deadline().expired()

    def split(self, n: int) -> list[Budget]:
        """`n` budgets sharing this one evenly: trials as equal as integers allow (the first ones get the
        remainder; their sum is `trials`), seconds each an n-th of what is left, all starting now."""
        if n < 1:
            raise ValueError("split into at least one part")
        start = now()
        seconds = None if self.seconds is None else self.remaining() / n
        if self.trials is None:
            return [Budget(None, seconds, started=start) for _ in range(n)]
        base, extra = divmod(self.trials, n)
        return [Budget(base + (k < extra), seconds, started=start) for k in range(n)]
