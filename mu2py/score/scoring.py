"""Scoring a pytest suite by mutation: baseline, per-mutant test selection, fan-out, cache, report.

Per mutant, in this order: a cached verdict (same module source, same tests) is reused;
an import-time mutant re-runs its module body in place (`reload`) against every test,
in collection order, and only a survivor the reload has doubts about runs the suite in a fresh
interpreter; a mutant whose site no test reached is `no_coverage` without running
anything; with infection pruning, a reached mutant that no test infected is `survived`
(pruned) without running anything; otherwise it runs, swapped in, against the tests that
infected it, in collection order, until one fails.

Tests that fail when run twice on the original (the baseline checks) never judge in place;
a survivor meets them in a fresh interpreter.  A kill whose test then fails on the original
too is retried on a new worker, then judged in a fresh interpreter: no mutant is killed
without a test run.  Verdicts reach the cache journal as they come.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from mu2py.budget import Deadline
from mu2py.errors import UserError
from mu2py.processes.scratch import make_scratch
from mu2py.processes.workers import Lost, WorkerError
from mu2py.score import pools
from mu2py.score.cache import VerdictCache, digest, tests_digest
from mu2py.score.catalog import catalog_of
from mu2py.score.config import ScoreConfig, ScoreRun
from mu2py.score.plan import BASELINE, CUT_BY_BUDGET, OUT_OF_SCOPE, ScoreUnit, isolated_unit, plan
from mu2py.score.recorded import SuiteRecord
from mu2py.score.reports import identifiers
from mu2py.score.spec import SuiteSpec, build_program
from mu2py.score.units import run_unit
from mu2py.score.verdicts import Again, Redo, Status, Verdict

MEMORY_HEADROOM = 2**30
"""Bytes a worker may hold beyond twice the original suite's peak while it judges a mutant (local workers)."""


class _BudgetSpent(Exception):
    """The run's deadline came before every mutant was judged."""


def score(spec: SuiteSpec, config: ScoreConfig,
          on_progress: Callable[[ScoreRun, str], None] | None = None,
          deadline: Deadline = Deadline.never()) -> ScoreRun:
    """Score the suite of `spec` against every mutant of its modules (see the module docstring).

    The run stops at `deadline` (a command's --time budget): its workers are stopped at once, and the mutants
    without a verdict then are `CUT_BY_BUDGET` (not scored; the report counts them apart)."""
    start = time.perf_counter()
    # test ids must be the same in every worker: parametrizing over a set orders it by string hashes
    os.environ.setdefault("PYTHONHASHSEED", "0")
    program = build_program(spec)
    state = ScoreRun(program, test_names=identifiers(spec), scope=config.scope.describe())
    if not config.scope.everything:
        state.selected = config.scope.select(program.mutants)
        if not state.selected:
            # nothing to judge (no mutant on a changed line, an empty shard): no need to run the suite at all
            state.verdicts = dict.fromkeys(range(len(program.mutants)), OUT_OF_SCOPE)
            state.seconds = time.perf_counter() - start
            report = on_progress or (lambda s, phase: None)
            report(state, "done")
            return state
    cache = VerdictCache(config.cache)
    hashes = {m.name: m.source_hash for m in program.target.modules}
    told = (lambda phase: on_progress(state, phase)) if on_progress else (lambda phase: None)
    opened: list[Any] = []  # the pool, once open

    def progress(phase: str) -> None:
        """Tell `on_progress`, unless the deadline has come: then the workers are stopped at once (a unit in
        flight is given up, not waited for) and the run ends."""
        if deadline.expired():
            for pool in opened:
                getattr(pool, "terminate", pool.close)()
            raise _BudgetSpent
        told(phase)

    # each worker runs the suite in its own copy of the project, made under this folder (see `sandbox`); a run
    # killed outright leaves its folder behind, for the next run to remove
    scratch = make_scratch("mu2py-score-")
    spec = replace(spec, scratch=scratch)

    try:
        if deadline.expired():  # no worker is started for a budget already spent
            raise _BudgetSpent
        with pools.open_pool(spec, config, catalog_of(program)) as pool:
            opened.append(pool)
            if config.cluster:
                progress(f"Dask dashboard {pool.dashboard}")
            progress("baseline")
            base_start = time.perf_counter()
            try:
                [(_, base)] = list(pool.map_unordered(run_unit, [BASELINE],
                                                      on_wait=lambda: progress("baseline")))
            except WorkerError as exc:
                raise UserError(f"pytest could not start in a worker ({exc}); run the suite with plain pytest "
                                "to see why") from exc
            state.baseline_seconds = time.perf_counter() - base_start
            if isinstance(base, Lost):
                raise UserError(f"the test suite crashed the worker on the original code: {base.reason}")
            assert isinstance(base, SuiteRecord)
            if base.error is not None:
                raise UserError(base.error)
            state.tests = base.tests
            if hasattr(pool, "memory_limit"):
                # twice what the original suite needed at its peak, and a GiB more: a mutant past that is filling
                # memory (inside C, where no timeout reaches it) and its worker is killed before the machine suffers
                pool.memory_limit = 2 * base.peak_rss + MEMORY_HEADROOM
            if tuple(base.modules) != spec.modules:  # the suite imports a file under another name
                spec = replace(spec, modules=tuple(base.modules))
                program = state.program = build_program(spec)
                hashes = {m.name: m.source_hash for m in program.target.modules}
            tests_hash = tests_digest(spec, base.opened)
            # a verdict holds for one interpreter: code under `if sys.version_info >= ...` runs on some only
            interpreter = f"{sys.implementation.name}{sys.version_info[0]}.{sys.version_info[1]}"
            keys = [digest(hashes[m.module], m.id, tests_hash, interpreter) for m in program.mutants]
            failing = [t.nodeid for t in state.tests if t.outcome != "passed"]
            if failing:
                shown = ", ".join(failing[:5]) + (f" and {len(failing) - 5} more" if len(failing) > 5 else "")
                raise UserError(f"the suite fails on the original code; fix or deselect these tests first: {shown}")
            units = plan(state, config, base, keys, cache)
            progress("mutants")
            attempts: dict[int, int] = {}
            spent: dict[int, float] = {}  # worker seconds of a mutant's earlier units (in place, then isolated)
            while units:
                retry: list[ScoreUnit] = []
                for i, result in pool.map_unordered(run_unit, units, deadline=pools.deadline,
                                                    on_wait=lambda: progress("mutants")):
                    unit = units[i]
                    index = unit.index
                    if isinstance(result, Lost):
                        # the worker died (crash, os._exit) or hung past every test's timeout: the suite noticed
                        # (on two workers, the second fresh: see `pools`); its seconds are both attempts', deadlines
                        # included
                        result = Verdict(Status.TIMEOUT if "deadline" in result.reason else Status.KILLED,
                                         f"<{result.reason}>", len(unit.tests), seconds=result.seconds)
                    if isinstance(result, Redo) and result.again is Again.RETRY:
                        attempts[index] = attempts.get(index, 0) + 1
                        if attempts[index] <= 1:
                            # on a new worker (the mutant may have corrupted this one), the tests it names first
                            retry.append(unit.tried_first(result.first))
                            continue
                        # it happened again on a new worker: the test cannot judge this mutant in place
                        # (no verdict without a test run): the suite decides in a fresh interpreter
                        result = Redo(Again.ISOLATE, result.why)
                    if isinstance(result, Redo):
                        spent[index] = spent.get(index, 0.0) + result.seconds
                        retry.append(replace(isolated_unit(index, state, config, why=result.why),
                                             first=result.first, only=result.only, tests_run=result.tests_run))
                        continue
                    result = result.marked(mode=unit.kind.value, isolated_because=unit.why or None,
                                           seconds=round((result.seconds or 0.0) + spent.pop(index, 0.0), 4))
                    state.verdicts[index] = result
                    cache.put(keys[index], result)  # on disk at once: a crash loses only the units in flight
                    progress("mutants")
                units = retry
    except _BudgetSpent:
        # a unit in flight is given up: its worker ends now, not when the unit does
        state.verdicts.update({i: CUT_BY_BUDGET for i in range(len(program.mutants)) if i not in state.verdicts})
    finally:
        cache.save()  # also on Ctrl-C or an error: every verdict reached so far is kept for the next run
        shutil.rmtree(scratch, ignore_errors=True)
    state.seconds = time.perf_counter() - start
    told("done")
    return state
