"""Tests that killed earlier mutants of the same line (or scope) run first in this worker.

The mutants of one line mostly die by the same test (a table row's pattern mutated three ways, a
comparison's operator swapped or negated), which the fastest-first order may reach only after
dozens of passing tests.  Each worker remembers, per line and per scope, the last few tests that
killed a mutant there, and moves those of a unit's tests to the front.  The set of tests a
mutant meets does not change, only their order: a survivor still runs every one of them.
"""

from __future__ import annotations

from typing import Any

from mu2py.score.verdicts import Result, Status, Verdict

KEEP = 3  # killers remembered per line and per scope, most recent first

Tests = list[tuple[str, float, int | None]]


def _keys(mutant: Any) -> tuple[tuple[str, str, int], tuple[str, str, int]]:
    # a scope is the enclosing function (`<module>` at top level); line -1 marks the scope's own key
    return (mutant.module, mutant.scope, mutant.line), (mutant.module, mutant.scope, -1)


def first(memory: dict[tuple[str, str, int], list[str]], mutant: Any, tests: Tests) -> Tests:
    """`tests` with those that killed a mutant of `mutant`'s line, then of its scope, moved to the front."""
    line, scope = _keys(mutant)
    wanted = [*memory.get(line, ()), *memory.get(scope, ())]
    if not wanted:
        return tests
    rank = {nodeid: r for r, nodeid in reversed(list(enumerate(wanted)))}
    front = sorted((t for t in tests if t[0] in rank), key=lambda t: rank[t[0]])
    if not front:
        return tests
    return front + [t for t in tests if t[0] not in rank]


def remember(memory: dict[tuple[str, str, int], list[str]], mutant: Any, verdict: Result) -> None:
    """Note the test that killed `mutant` (a verdict of a test run in this worker) for its line and scope."""
    if not isinstance(verdict, Verdict) or verdict.status is not Status.KILLED or not verdict.killed_by \
            or verdict.position is None:
        return
    for key in _keys(mutant):
        kept = memory.setdefault(key, [])
        if verdict.killed_by in kept:
            kept.remove(verdict.killed_by)
        kept.insert(0, verdict.killed_by)
        del kept[KEEP:]
