"""What a command may spend: a `Budget` of trials and/or seconds, and the `Deadline`s it hands down.

One clock only: `time.monotonic()`.  On Linux (and macOS) it is the same clock in every process of
the machine, so a `Deadline` sent to another process (the mutant host) means the same moment there.

A `--time` budget is turned into one `Budget` where the command starts; every layer below it (the
fuzzing loop, a batch of mutant runs, the host, the engine) receives a `Deadline` and asks it how
long a run may take (`Deadline.clip`): no layer keeps a clock or a raw end time of its own.
"""

from __future__ import annotations

import math
import os
import re
import time
from dataclasses import dataclass, field, replace

from mu2py.errors import UserError

# the shortest time `Deadline.allot` gives a run: 0 would be no timeout at all to `signal.setitimer`
MIN_RUN = 1e-3


def now() -> float:
    """The budget clock's reading (`time.monotonic()`)."""
    return time.monotonic()


def process_started() -> float:
    """When this process started, on the budget clock (Linux: from /proc; elsewhere: now).

    A command's budget starts there, so that the interpreter's own start-up is in it too."""
    try:
        with open("/proc/self/stat") as stat:
            # the fields after the command name (which may hold spaces); starttime is the 22nd field
            ticks = int(stat.read().rpartition(")")[2].split()[19])
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now()
    return now() - min(max(age, 0.0), 60.0)  # a clock that jumped (a suspend) never costs a budget more than that


@dataclass(frozen=True)
class Deadline:
    """A moment on the budget clock by which work must end; `at` None is no deadline at all.

    Invariants: `remaining()` is never negative, and is `math.inf` exactly when there is no
    deadline; `clip(t)` is never more than `t`, nor more than `remaining()` unless that is below
    `MIN_RUN` (then it is `MIN_RUN`: a run is never given 0 s, which a timer would take as no limit).
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

    def allot(self, timeout: float | None, since: float | None = None) -> tuple[float | None, bool]:
        """The time a run may take from `since` (default: now): `timeout` shortened to what is left of the
        deadline, and whether the deadline shortened it (a timeout on the shortened time is no verdict).
        None (no timeout) stays None without a deadline."""
        left = self.remaining(since)
        if math.isinf(left):
            return timeout, False
        if timeout is None or left < timeout:
            return max(left, MIN_RUN), True
        return timeout, False

    def clip(self, timeout: float | None, since: float | None = None) -> float | None:
        """`timeout` shortened to what is left of the deadline (from `since`, default now): see `allot`."""
        return self.allot(timeout, since)[0]

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


def parse_duration(text: str) -> float:
    """`90`, `90s`, `5m`, `1h`, `1h30m` as seconds (a `UserError` naming the text otherwise)."""
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    parts = re.findall(r"(\d+(?:\.\d+)?)([hms])", text)
    if not parts or "".join(a + b for a, b in parts) != text:
        raise UserError(f"bad duration {text!r}: use e.g. 30s, 5m, 1h")
    return sum(float(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in parts)
