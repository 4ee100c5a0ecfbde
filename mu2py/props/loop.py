"""The fuzzing loop of one `@given` test, inside a score worker that hosts the project's pytest session.

Per trial: pick a kept buffer (favored ones, which killed mutants, twice as often), make a
havoc child, run the test on it with the probed original swapped in (line coverage, the
mutation sites reached and the mutants infected, `target()`/`event()` observations), then,
under mutation guidance, run it on every infected mutant still alive; keep the buffer when
it adds lines, raises a target, shows a new event or kills a mutant.  Under coverage
guidance no mutant runs while fuzzing; the kept buffers are judged once at the end.

Kill rule: the test passes on the original and fails on the mutant (any exception, or a
timeout).  An input on which the original fails is a bug in the code (or the property):
it is recorded once per exception type and location, and the loop goes on.

Invariant: between runs the live modules hold their original code; every random choice
comes from one `random.Random` seeded by (seed, the node id from its file name on).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mu2py.engine.oracle import kill_reason
from mu2py.engine.runs import RunResult, Status
from mu2py.engine.swap import SwapError
from mu2py.feedback.coverage import CoverageMap
from mu2py.feedback.schedule import Energy, donor, least_executed_first
from mu2py.props.feedback import LabelFeedback
from mu2py.props.handle import Input, PropertyHandle
from mu2py.score import hosted

if TYPE_CHECKING:  # units.py imports this module: the unit's type only
    from mu2py.props.units import Campaign

SEEDS = 8  # the first trials run fresh inputs: the corpus needs a few valid ones to mutate
MIN_TIMEOUT = 0.5
TIMEOUT_FACTOR = 20.0
ORIGINAL_TIMEOUT = 10.0
# the newest input gets a quarter of the energy (a property's inputs reach new code a step at a time), favored
# ones (which killed mutants) over a third
ENERGY = Energy(newest=0.25, favored=0.35)


@dataclass
class _Kept:
    buffer: Input
    infected: frozenset[int]
    representation: str


@dataclass
class _Kill:
    trial: int
    reason: str
    buffer: Input
    representation: str


@dataclass
class Plans:
    """Per worker: the swap plans of the probed original (per module) and of each mutant, computed once."""

    probed: dict[str, list[Any]] | None = None
    functions: dict[str, Any] = field(default_factory=dict)
    recorder: Any = None
    coverage: CoverageMap | None = None
    mutants: dict[int, list[Any] | None] = field(default_factory=dict)


_PLANS = Plans()


def mutant_plan(index: int) -> list[Any] | None:
    """The swap plan of function-level mutant `index` (None: it cannot be swapped in)."""
    if index not in _PLANS.mutants:
        state = hosted.state()
        program = state.program
        assert program is not None
        payload = program.payload(index)  # type: ignore[union-attr]  # a Program: props hosts get no catalog
        plan = None
        if payload.kind == "swap" and payload.module in state.swaps:  # not in swaps: it cannot be imported here
            original, mutated = payload.codes()
            try:
                plan = state.swaps[payload.module].plan(mutated, original)
            except SwapError:
                plan = None
        _PLANS.mutants[index] = plan
    return _PLANS.mutants[index]


def _probed(fresh: bool = False) -> tuple[dict[str, list[Any]], Any, CoverageMap]:
    """Plans that swap in the original instrumented with mutation probes and line coverage.

    Built again when `fresh`: slipcover reports each line once per instrumentation, and every
    test's campaign must see its own new lines.
    """
    if _PLANS.probed is None or fresh:
        state = hosted.state()
        program = state.program
        assert program is not None
        recorder = program.probe_recorder()  # type: ignore[union-attr]  # a Program: props hosts get no catalog
        functions = recorder.functions()
        coverage = CoverageMap(branch=False)
        sources = program.instrumented_sources()  # type: ignore[union-attr]  # a Program: props hosts get no catalog
        plans = {}
        for info in program.target.modules:
            swap = state.swaps.get(info.name)
            if swap is None:  # a module the tests cannot import on this platform
                continue
            plans[info.name], _ = swap.plan_swaps(coverage.compile(info, sources[info.name]), strict=False)
        _PLANS.probed, _PLANS.recorder, _PLANS.coverage, _PLANS.functions = plans, recorder, coverage, functions
    assert _PLANS.recorder is not None and _PLANS.coverage is not None
    return _PLANS.probed, _PLANS.recorder, _PLANS.coverage


@contextmanager
def swapped_in(index: int, plan: list[Any]) -> Iterator[None]:
    """Within the block, function-level mutant `index` is in its live module by its swap `plan` (see
    `mutant_plan`); the original's code is back however the block is left."""
    state = hosted.state()
    assert state.program is not None
    swap = state.swaps[state.program.mutants[index].module]
    swap.apply_plan(plan)
    try:
        yield
    finally:
        swap.restore()


def run_mutant(handle: PropertyHandle, index: int, buffer: Input, timeout: float) -> RunResult | None:
    """The test on `buffer` with mutant `index` swapped in (None: the mutant cannot be swapped)."""
    plan = mutant_plan(index)
    if plan is None:
        return None
    state = hosted.state()
    hosted.before_test(state)
    hosted.fresh_start(state)
    try:
        with swapped_in(index, plan):
            return handle.run(buffer, timeout)
    finally:
        # the quick check only: a mutant run takes microseconds, and the original's observed runs register
        # coverage's own tools, which the full check would take for a mutant's (see `ledger`)
        hosted.after_test(state, full=False)


def kills(original: RunResult, mutant: RunResult) -> str | None:
    """The kill rule: why `mutant` kills (`exception`, `timeout`) when the test passed on `original`; else None.

    The original must have passed on a valid input (its output is the buffer it used); a
    mutant that makes the input invalid (an `assume` now failing) does not kill.
    """
    if original.status is not Status.OK or original.output is None:
        return None
    reason = kill_reason(original, mutant, differential=False)
    return reason.value if reason is not None else None


class PropertyFuzzer:
    """One test's campaign (see the module docstring); `candidates` are the mutants it may kill."""

    def __init__(self, handle: PropertyHandle, unit: Campaign) -> None:
        self.handle = handle
        self.guidance = unit.guidance
        self.trials = unit.trials
        self.seconds = unit.seconds
        self.reserve = unit.reserve  # left for shrinking once there is something to shrink (see `_done`)
        self.candidates = set(unit.candidates)
        self.killed_before = set(unit.killed_before)
        self.per_input = unit.per_input or None
        self.executions: Counter[int] = Counter()  # runs per mutant (0 for one never run)
        # seeded by the node id from its file name on: the same wherever pytest puts its root directory
        self.rng = random.Random(f"{unit.seed}:{handle.item.nodeid.rsplit('/', 1)[-1]}")
        self.labels = LabelFeedback()
        self.corpus: list[_Kept] = []
        self.favored: list[_Kept] = []
        self.kills: dict[int, _Kill] = {}
        self.reached: set[int] = set()
        self.bugs: dict[tuple[str, str], dict[str, Any]] = {}
        self.bug_inputs: dict[tuple[str, str], Input] = {}  # per bug, the input that showed it
        self.lines = 0
        self.trial = 0
        self.valid = 0
        self.mutant_runs = 0
        program = hosted.state().program
        assert program is not None
        self.program = program
        _probed(fresh=True)
        self.site_mutants: dict[int, list[int]] = {}
        for i in self.candidates:
            self.site_mutants.setdefault(program.mutants[i].site, []).append(i)

    def _next_buffer(self) -> Input:
        if self.trial <= SEEDS or not self.corpus:
            return self.handle.fresh_input(self.rng)
        parent = ENERGY.parent(self.rng, self.corpus, self.favored)
        assert parent is not None
        splice = donor(self.rng, self.corpus)
        return self.handle.child(parent.buffer, self.rng, splice.buffer if splice else None)

    def _run_original(self, buffer: Input, seed: int) -> tuple[RunResult, set[int], set[int], int]:
        plans, recorder, coverage = _probed()
        state = hosted.state()
        hosted.fresh_start(state)
        recorder.reset()
        for module, plan in plans.items():
            # the probes call these by name (score's baseline removes them from the modules after its run)
            vars(state.swaps[module].module).update(_PLANS.functions)
            state.swaps[module].apply_plan(plan)
        try:
            result = self.handle.run(buffer, ORIGINAL_TIMEOUT, observe=True, seed=seed)
        finally:
            for module in plans:
                state.swaps[module].restore()
        recorder.finish()
        return result, set(recorder.reached), set(recorder.infected), coverage.collect()

    def _bug(self, buffer: Input, seed: int) -> None:
        plain = self.handle.run(buffer, ORIGINAL_TIMEOUT, observe=True, seed=seed)  # the probes must not be the cause
        if plain.status is Status.OK:
            return
        key = (plain.exc_type or "Timeout", plain.location or "?")
        if key not in self.bugs:
            failing = self.handle.last_input(buffer)
            self.bugs[key] = {"exception": key[0], "location": key[1], "message": plain.exc_message,
                              "example": self.handle.describe(failing, ORIGINAL_TIMEOUT), "trial": self.trial}
            self.bug_inputs[key] = failing

    def _judge(self, buffer: Input, original: RunResult, infected: set[int], cap: bool = True) -> list[int]:
        """Run `buffer` on its infected live mutants; the new kills (their representation is left to the caller)."""
        timeout = max(MIN_TIMEOUT, TIMEOUT_FACTOR * original.seconds)
        killed = []
        alive = [i for i in infected & self.candidates if i not in self.kills and i not in self.killed_before]
        executions = self.executions
        # Mu2-OPT's least-executed filter: at most `per_input` mutants per input, those run least so far first
        for index in least_executed_first(alive, executions)[: self.per_input if cap else None]:
            result = run_mutant(self.handle, index, buffer, timeout)
            if result is None:
                continue
            executions[index] += 1
            self.mutant_runs += 1
            reason = kills(original, result)
            if reason is not None:
                self.kills[index] = _Kill(self.trial, reason, buffer, "")
                killed.append(index)
        return killed

    def _done(self, start: float) -> bool:
        if self.trials is not None and self.trial >= self.trials:
            return True
        if self.seconds is None:
            return False
        # with a kill or a bug to shrink, the fuzzing leaves the shrinking its share of the budget
        return time.perf_counter() - start >= self.seconds - (self.reserve if self.kills or self.bugs else 0.0)

    def step(self) -> None:
        """One trial."""
        self.trial += 1
        buffer = self._next_buffer()
        seed = self.rng.getrandbits(64)  # what a choice sequence's run draws past its prefix
        original, reached, infected, lines = self._run_original(buffer, seed)
        self.lines += lines
        for site in reached:
            self.reached.update(self.site_mutants.get(site, ()))
        if original.status is not Status.OK:
            self._bug(buffer, seed)
            return
        if original.output is None:  # the buffer ran out, or assume()/filter rejected it
            return
        self.valid += 1
        used = original.output
        novel = self.labels.novel(self.handle.observation)
        killed = self._judge(used, original, infected) if self.guidance == "mutation" else []
        if lines or novel or killed:
            # the call's text only for what is kept: building it on every run costs a quarter of the run
            representation = self.handle.describe(used, ORIGINAL_TIMEOUT)
            for index in killed:
                self.kills[index].representation = representation
            kept = _Kept(used, frozenset(infected), representation)
            self.corpus.append(kept)
            if killed:
                self.favored.append(kept)

    def run(self) -> None:
        """Fuzz until the budget is spent; under coverage guidance, judge the kept buffers after it."""
        start = time.perf_counter()
        while not self._done(start):
            self.step()
        if self.guidance == "coverage":
            for kept in self.corpus:
                original = self.handle.run(kept.buffer, ORIGINAL_TIMEOUT)
                if original.status is Status.OK and original.output is not None:
                    # after the budget every infected mutant runs: the corpus is judged whole
                    for index in self._judge(kept.buffer, original, set(kept.infected), cap=False):
                        self.kills[index].representation = kept.representation
