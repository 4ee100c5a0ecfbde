"""What judging a mutant gives: a `Verdict` (its status and what decided it), or a `Redo` (no verdict yet).

A worker's unit ends in one of the two.  A `Verdict` is final: every status but `survived`
was confirmed on the original in the same worker right after (see `units._checked`), or
came from a fresh interpreter.  A `Redo` says the unit could not decide here and where the
mutant goes next: `retry` on a new worker (this worker's state is suspect), `isolate` in a
fresh interpreter.  Verdicts are the verdict cache's entries and the report's per-mutant
fields, as JSON (`to_json`, `from_json`: the same keys as before these types).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    """A mutant's status in the report (`skipped`: not scored in this run, see `Verdict.mode`)."""

    KILLED = "killed"
    SURVIVED = "survived"
    TIMEOUT = "timeout"
    NO_COVERAGE = "no_coverage"
    SKIPPED = "skipped"


class Again(StrEnum):
    """Where a mutant without a verdict is judged next."""

    RETRY = "retry"  # the same unit, on a new worker
    ISOLATE = "isolate"  # the whole suite (or `only` / `first`) in a fresh interpreter


@dataclass(frozen=True)
class Verdict:
    """A mutant's verdict.  `killed_by` names the test that killed it or timed out, or a reason in angle brackets
    (`<compile error: ...>`, `<overran the 12s deadline>`); it is None for every other status."""

    status: Status
    killed_by: str | None = None
    tests_run: int = 0
    failure: str | None = None  # how the deciding test failed, one line
    position: int | None = None  # the deciding test's place in pytest's order (None: not a test of this session)
    why: str | None = None  # a kill by collection: what importing the test module raised
    mode: str | None = None  # how it was judged: a `UnitKind`'s value, `pruned`, or why it was skipped
    pruned: str | None = None  # why no test ran (`infection`, `never defined here`)
    isolated_because: str | None = None
    seconds: float | None = None  # the worker time it cost, lost attempts and deadlines included
    record_seconds: float = 0.0  # a worker's one-off record of what each test runs, made during this unit
    cached: bool = False

    def to_json(self) -> dict[str, Any]:
        """The verdict as the cache stores it: only the fields that differ from their defaults, but for the
        three every entry has (`status`, `killed_by`, `tests_run`)."""
        out: dict[str, Any] = {"status": self.status.value, "killed_by": self.killed_by, "tests_run": self.tests_run}
        for f in fields(self)[3:]:
            value = getattr(self, f.name)
            if value != f.default:
                out[f.name] = value
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Verdict:
        """A verdict `to_json` wrote (keys it does not know, from an older cache, are left out)."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        return cls(**{**values, "status": Status(data["status"])})

    def marked(self, **changes: Any) -> Verdict:
        """A copy with `changes` (frozen: one verdict object may be shared, `OUT_OF_SCOPE` by every mutant out of
        scope)."""
        return replace(self, **changes)


SURVIVED = Verdict(Status.SURVIVED)
"""What a mutant no test judged counts as in the report (never stored: a fresh one is made from it)."""


@dataclass(frozen=True)
class Redo:
    """No verdict from this unit: judge the mutant `again`, because of `why`.

    `first` (tests to try first in the fresh interpreter) and `only` (the only tests left to judge it there) are
    node ids; `tests_run` counts the tests the mutant already passed in place."""

    again: Again
    why: str
    first: list[str] = field(default_factory=list)
    only: list[str] = field(default_factory=list)
    tests_run: int = 0
    seconds: float = 0.0
    record_seconds: float = 0.0


Result = Verdict | Redo
"""What a mutant's unit returns in a worker."""
