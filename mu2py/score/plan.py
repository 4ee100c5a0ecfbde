"""Each mutant's fate decided before anything runs: cached, skipped, no coverage, pruned, or which tests judge it.

From the baseline (per test: outcome, seconds, reached sites, infected mutants) a mutant is
`no_coverage` when no test reached its site; with infection pruning, `survived` (pruned) when
no test infected it; else a unit runs it against the tests that did (all tests for an
import-time mutant), in collection order.  Tests that cannot run twice in one process are set apart
(`fresh`): they judge only in a fresh interpreter.

Invariant: every mutant in the program gets either a verdict here or exactly one unit.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from mu2py.score.verdicts import Status, Verdict

if TYPE_CHECKING:
    from mu2py.score.cache import VerdictCache
    from mu2py.score.config import ScoreConfig, ScoreRun
    from mu2py.score.recorded import SuiteRecord, TestRecord

OUT_OF_SCOPE = Verdict(Status.SKIPPED, mode="out_of_scope")
# a mutant the run's deadline (a command's --time budget) came before it was judged: not scored, and counted apart
CUT_BY_BUDGET = Verdict(Status.SKIPPED, mode="budget")


class UnitKind(StrEnum):
    """What a score worker does with a unit (see `units`)."""

    BASELINE = "baseline"  # every test on the probed original
    MUTANT = "mutant"  # a function-level mutant swapped in, its tests run in place
    REEXEC = "reexec"  # an import-time mutant: its module body re-run in place
    ISOLATED = "isolated"  # the suite in a fresh interpreter importing the mutated module


TestSlot = tuple[str, float, int | None]
"""A test a unit runs: its node id, its timeout in seconds, and its position in the baseline's order."""


@dataclass(frozen=True)
class ScoreUnit:
    """One piece of work for a score worker: the baseline, or one mutant judged one way.

    Invariants: `index` is a mutant's (-1 only for the baseline); `tests` are in pytest's collection order, so
    that a survivor is one whatever ran before in its worker (a test may fail only after another left an object
    damaged, as in a plain run), save that the tests reaching the mutant only in a child process come last;
    `first` names tests to try first, before that order (a retry's: the test that failed in place, tried first in
    a fresh interpreter); `fresh` (tests that judge only in a fresh interpreter, each after
    those it needs) and `tests` share no test; `timeout` (> 0) is set for `ISOLATED` units only, as are `why`,
    `only` and `tests_run`.
    """

    kind: UnitKind
    index: int = -1
    tests: list[TestSlot] = field(default_factory=list)
    fresh: list[tuple[str, int]] = field(default_factory=list)
    volatile: list[str] = field(default_factory=list)  # project files the suite itself changes on every run
    record: float = 0.0  # REEXEC: seconds recording what each test runs may add, a worker's first time
    timeout: float = 0.0  # ISOLATED: the fresh session's whole budget
    why: str = ""  # ISOLATED: why not in place
    first: list[str] = field(default_factory=list)  # tests to try first (ISOLATED: alone, e.g. a kill in place)
    only: list[str] = field(default_factory=list)  # ISOLATED: the only tests left to judge it
    tests_run: int = 0  # ISOLATED: tests it already passed in place
    # positions of the tests that reach the mutant in a child process they start (ISOLATED: that import its module):
    # while the unit's tests run, the mutated module is on disk for those children to import (see `children`)
    children: list[int] = field(default_factory=list)
    # REEXEC: per position of `children`, (module, first line, name) of the code objects its children entered
    child_code: dict[int, list[tuple[str, int, str]]] = field(default_factory=dict)
    # REEXEC: per position of `children`, the keys its children read by a variable key (`TestRecord.child_keys`)
    child_keys: dict[int, dict[tuple[str, int, str], dict[str, frozenset[Any] | None]]] = field(default_factory=dict)
    site_in_children: list[int] = field(default_factory=list)  # REEXEC: tests whose children ran the mutant's site
    # REEXEC of a function mutant: the modules under test whose import ran the function, re-run in place after the
    # mutated module (their import computed something with it)
    rerun: list[str] = field(default_factory=list)

    def tried_first(self, first: list[str]) -> ScoreUnit:
        """This unit with the tests named in `first` tried first, in that order (its `tests` still all run after
        them, in collection order, unless one decides)."""
        return replace(self, first=list(first)) if first else self


BASELINE = ScoreUnit(UnitKind.BASELINE)

RECORD_FACTOR = 5.0
"""How much slower than its timeout a test may run while a worker records the code it runs (a trace hook on every
Python call: Hypothesis's own machinery under it ran 3-4x slower).  On Python 3.12+ the record is a sys.monitoring
tool that costs far less (`benchmarks/record_cost.py`), but falls back to the trace hook while another tool is
registered: the allowance stays the trace hook's."""


def scope_of(qualname: str) -> str:
    """The scope a mutant names the code of this `co_qualname` by: a nested function's without `<locals>`
    (`locked.<locals>.decorator` is scope `locked.decorator`)."""
    return qualname.replace(".<locals>", "")


def _scope_key(module: str, scope: str) -> str:
    return f"{module}:{scope}"


def importing(tests: list[TestRecord], module: str) -> list[int]:
    """Positions of the tests whose child processes entered code of `module` (imported it)."""
    return [t for t, test in enumerate(tests) if any(code[0] == module for code in test.child_code)]


def isolated_unit(index: int, state: ScoreRun, config: ScoreConfig, why: str = "") -> ScoreUnit:
    """The unit judging mutant `index` in a fresh interpreter, its timeout from the whole suite's time."""
    total = sum(t.seconds for t in state.tests)
    module = state.program.mutants[index].module
    # the tests whose child processes import the mutated module: they meet the mutant on disk there too
    return ScoreUnit(UnitKind.ISOLATED, index, timeout=config.timeout_factor * total + 10 * config.min_timeout + 10.0,
                     why=why, children=importing(state.tests, module))


def plan(state: ScoreRun, config: ScoreConfig, base: SuiteRecord, keys: list[str],
          cache: VerdictCache) -> list[ScoreUnit]:
    """Decide each mutant's fate before running anything: cached, isolated, no coverage, pruned, or which tests."""
    program = state.program
    unprobed = [scope_of(q) for q in base.unprobed]
    undefined = base.undefined
    reached_by: dict[int, list[int]] = {}
    infected_by: dict[int, list[int]] = {}
    unreliable: list[int] = []
    # the tests whose child processes ran a site, and per module those whose children imported it
    in_children: dict[int, list[int]] = {}
    importers = {module: importing(state.tests, module) for module in {m.module for m in program.mutants}}
    for t_index, test in enumerate(state.tests):
        if test.probes_unreliable:
            unreliable.append(t_index)
        for site in test.reached:
            reached_by.setdefault(site, []).append(t_index)
        for site in test.in_children:
            in_children.setdefault(site, []).append(t_index)
        for mutant in test.infected:
            infected_by.setdefault(mutant, []).append(t_index)
    # tests that fail when run a second time on the original judge mutants in a fresh interpreter only
    once = {t for t, test in enumerate(state.tests) if not test.repeatable}

    position = {test.nodeid: t for t, test in enumerate(state.tests)}

    def fresh(chosen: list[int]) -> list[tuple[str, int]]:
        """The tests of `chosen` that judge in a fresh interpreter only, each after the tests it needs (pytest's
        order: an order-dependent test passes only after them), in collection order."""
        needed = set()
        for t in chosen:
            if t in once:
                needed.add(t)
                needed.update(position[n] for n in state.tests[t].after if n in position)
        return [(state.tests[t].nodeid, t) for t in sorted(needed)]

    def split(kind: UnitKind, index: int, chosen: list[int], record: float = 0.0,
              children: list[int] | None = None) -> ScoreUnit:
        in_place = [t for t in chosen if t not in once]
        tests: list[TestSlot] = [(state.tests[t].nodeid, round(config.timeout_factor * state.tests[t].seconds
                                                               + config.min_timeout, 3), t) for t in in_place]
        spawning = [t for t in children or () if t not in once]
        return ScoreUnit(kind, index, tests, fresh(chosen), volatile, record, children=spawning,
                         child_code={t: state.tests[t].child_code for t in spawning} if kind is UnitKind.REEXEC else {},
                         child_keys={t: state.tests[t].child_keys for t in spawning if state.tests[t].child_keys}
                         if kind is UnitKind.REEXEC else {})

    volatile = list(base.volatile)
    # what recording the whole suite may take: every test's timeout, times what its hook costs at most
    record = round(RECORD_FACTOR * sum(config.timeout_factor * test.seconds + config.min_timeout
                                       for test in state.tests), 3)
    # functions that ran while some other module was imported (a decorator a test module applied to its classes),
    # and those only their own module's body called
    elsewhere = {(module, scope_of(qualname)) for module, qualname, own in base.at_import if not own}
    by_own_body = {(module, scope_of(qualname)) for module, qualname, own in base.at_import if own} - elsewhere
    ran_by: dict[tuple[str, str], set[str]] = {}  # per function, the modules whose import ran it ("": pytest)
    for module, qualname, found in base.importers:
        ran_by.setdefault((module, scope_of(qualname)), set()).update(found)
    under_test = {info.name for info in program.target.modules}

    unimportable = base.unimportable
    state.unimportable = dict(unimportable)
    units = []
    for index, m in enumerate(program.mutants):
        if m.module in unimportable:  # no test can import it on this platform: not part of this score
            state.verdicts[index] = Verdict(Status.SKIPPED, mode="unimportable")
            continue
        if index in program.static and config.import_time == "skip":
            state.verdicts[index] = Verdict(Status.SKIPPED, mode="skipped")
            continue
        if state.selected is not None and index not in state.selected:  # --since, --shard: another run's
            state.verdicts[index] = OUT_OF_SCOPE
            continue
        cached = cache.get(keys[index])
        if cached is not None:
            state.verdicts[index] = cached.marked(cached=True)
            continue
        rerun: list[str] = []
        if not m.at_import and (m.module, m.scope) in elsewhere:
            # its function ran while another module was imported: neither the tests' reach nor a swap in place
            # shows what it did then; a fresh interpreter importing the mutated module does, and so does, when
            # one other module under test ran it (a registry of instances built at import), re-running in place
            # the mutated module's body, then that module's
            others = ran_by.get((m.module, m.scope), {""}) - {m.module}
            if len(others) != 1 or not others <= under_test or config.import_time == "fresh":
                units.append(isolated_unit(index, state, config, why=f"{m.scope} ran while a module was imported"))
                continue
            rerun = sorted(others)
        redone = not m.at_import and (m.module, m.scope) in by_own_body
        if (index in program.static or redone) and config.import_time == "fresh":
            units.append(isolated_unit(index, state, config))
            continue
        if index in program.static or redone or rerun:
            # an import-time mutant, or one of a function its module's body called (`OPT = lambda x: ...` used to
            # build a table), or another module's (`rerun`): the mutated body re-run in place redoes what the
            # import computed
            everything = list(range(len(state.tests)))
            # a worker's first such unit records what each test runs, the whole suite under a hook, before
            # judging: its deadline moves by `record` seconds for that (see `units._executed`)
            units.append(replace(split(UnitKind.REEXEC, index, everything, record, importers[m.module]),
                                 site_in_children=[t for t in in_children.get(m.site, ()) if t not in once],
                                 rerun=rerun))
            continue
        scope = _scope_key(m.module, m.scope)
        if any(scope == u or scope.startswith(u + ".") for u in undefined):
            # its function is never defined on this interpreter (a `def` under a condition not met): no test runs it
            state.verdicts[index] = Verdict(Status.NO_COVERAGE, mode="pruned", pruned="never defined here")
            continue
        if any(scope == u or scope.startswith(u + ".") for u in unprobed):
            chosen = list(range(len(state.tests)))  # reach unknown: every test may kill it
        else:
            # a child process's reach is by line, with no probe to tell infection: those tests all judge
            spawned = set(in_children.get(m.site, ()))
            reaching = set(reached_by.get(m.site, ())) | set(unreliable) | spawned
            if not reaching:
                state.verdicts[index] = Verdict(Status.NO_COVERAGE, mode="pruned")
                continue
            if config.pruning == "infection":
                chosen = sorted(set(infected_by.get(index, ())) | set(unreliable) | spawned)
                if not chosen:
                    state.verdicts[index] = Verdict(Status.SURVIVED, mode="pruned", pruned="infection")
                    continue
            else:
                chosen = sorted(reaching)
        chosen.sort()  # collection order (see `ScoreUnit`)
        # a test that reaches the mutant only in a child process runs last: it costs a process start, and its
        # own part runs nothing the mutant changed (so it damages nothing another test shares)
        remote = spawned - set(reached_by.get(m.site, ())) - set(unreliable)
        chosen = [t for t in chosen if t not in remote] + [t for t in chosen if t in remote]
        units.append(split(UnitKind.MUTANT, index, chosen, children=in_children.get(m.site)))
    return units
