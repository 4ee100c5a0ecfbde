"""Tests that killed earlier mutants of the same line (or scope) are tried first in this worker.

The mutants of one line mostly die by the same test (a table row's pattern mutated three ways, a
comparison's operator swapped or negated), which collection order may reach only after dozens of
passing tests.  Each worker remembers, per line and per scope, the last few tests that killed a
mutant there, and tries those of a unit's tests first, as probes.  A probe's kill stands once its
test passes on the original; when no probe fails, every test still runs in collection order (the
probes again among them), so what a worker ran before never decides a survivor.
"""

from __future__ import annotations

from typing import Any

from mu2py.score.plan import TestSlot
from mu2py.score.verdicts import Result, Status, Verdict

KEEP = 3  # killers remembered per line and per scope, most recent first

def _keys(mutant: Any) -> tuple[tuple[str, str, int], tuple[str, str, int]]:
    # a scope is the enclosing function (`<module>` at top level); line -1 marks the scope's own key
    return (mutant.module, mutant.scope, mutant.line), (mutant.module, mutant.scope, -1)


def probes(memory: dict[tuple[str, str, int], list[str]], mutant: Any, tests: list[TestSlot]) -> list[str]:
    """The node ids of `tests` that killed a mutant of `mutant`'s line, then of its scope, most recent first."""
    line, scope = _keys(mutant)
    wanted = [*memory.get(line, ()), *memory.get(scope, ())]
    if not wanted:
        return []
    have = {t[0] for t in tests}
    return [nodeid for nodeid in dict.fromkeys(wanted) if nodeid in have]


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
