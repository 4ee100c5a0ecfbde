"""The mutant engine: the target loaded once as importlib copies, mutants swapped in, runs judged by the oracle.

One `Engine` per process that runs mutants (the supervised host, a shard worker).  The
modules under test and the driver are executed once as copies (`mutants.loader`), so the
user's own imports stay untouched.  A function-level mutant is applied by swapping the
mutated function's code object into the copy (`swap.CodeSwap`) and restored after the run;
an import-time mutant is a copy set of its own, built from the mutated source and kept in
an LRU bounded by `copy_cache` entries.

Invariants: every run, of the original or of a mutant, starts from the state just after
import (module-level dicts, lists and sets of the copies put back, and the interpreter-wide
state of the `ledger`, the modules the copies reach included), so a verdict depends only on
(mutant, input); after `judge` returns, the copies hold the original code again.  What cannot
be put back (a thread or a process a run left running, descriptors leaked past a margin) stops
`judge` after that run's verdict and sets `retired`, since no later run in this process could be
trusted.  Every verdict other than survived is confirmed: the original, run again on the same
input right after the mutant, must give the result it gave before; when it does not, the
verdict is dropped and the process retired, so that a fresh process judges that mutant first
(a mutant judged first in its process needs no confirmation: nothing ran before it).

Warnings are compared only where the original's repeat: when the original emits any on an input, it
runs a second time there, and if the two runs' warnings differ (a message naming a time, an id), the
batch is judged without them (`RunResult.warnings` None).  A verdict that rests on warnings alone
stands only if the original, run again right after the mutant, gives its warnings again, even in a
fresh process: one the original's rerun does not reproduce is no kill.
"""

from __future__ import annotations

import gc
import os
import time
import types
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from mu2py.budget import Deadline
from mu2py.engine.copies import (
    CopyLoadError,
    bound_to,
    build_copies,
    compile_module,
    driver_function,
    rebind_driver,
)
from mu2py.engine.oracle import KillReason, kill_reason, same_warnings, warning_difference
from mu2py.engine.payload import ModuleLayout, Payload
from mu2py.engine.runs import RunResult, Status, Timeout, Warned, leave_if_forked, quiet_timeouts, run, wall_alarm
from mu2py.engine.swap import CodeSwap, SwapError
from mu2py.processes.fresh import ContainerSnapshot
from mu2py.processes.ledger import Entry, Ledger
from mu2py.processes.outside import OutsideState
from mu2py.target.modules import Target

# a mutated module body may run this many times as long as the original copies took to build (at least
# MIN_BUILD_TIMEOUT seconds) before it counts as looping, as a mutant run may take 20x the original's time
BUILD_FACTOR = 20.0
MIN_BUILD_TIMEOUT = 1.0
# the ledger's full check (its entries that make system calls) runs after every this many runs, and after every
# run that ends in a verdict other than survived (before that verdict is confirmed)
FULL_CHECK_EVERY = 16


class Outcome(Enum):
    """How one mutant's run on one input ended: judged (killed or survived), or cut by its batch's deadline."""

    KILLED = "killed"
    SURVIVED = "survived"
    CUT = "cut"  # still running when its batch's deadline came, on less time than its own timeout: no verdict


@dataclass(frozen=True)
class Verdict:
    """One mutant judged on one input: why it is killed (None: it survived), and a short detail.

    Invariant: `outcome` is KILLED exactly when `reason` is set; a CUT verdict (made with
    `Verdict.cut_short`) is no verdict: the mutant neither survived nor timed out (see `Engine.judge`).
    """

    index: int
    reason: KillReason | None
    detail: str = ""
    outcome: Outcome | None = None  # given only for CUT; otherwise set from `reason` at construction

    def __post_init__(self) -> None:
        """Derive `outcome` from `reason` unless it was given (CUT)."""
        if self.outcome is None:
            object.__setattr__(self, "outcome", Outcome.SURVIVED if self.reason is None else Outcome.KILLED)
        assert (self.outcome is Outcome.KILLED) == (self.reason is not None)

    @classmethod
    def cut_short(cls, index: int) -> Verdict:
        """The verdict of mutant `index` whose run its batch's deadline stopped."""
        return cls(index, None, outcome=Outcome.CUT)

    @property
    def cut(self) -> bool:
        """Whether the mutant's run was stopped by its batch's end rather than judged."""
        return self.outcome is Outcome.CUT


class _Outside(Entry):
    """The ledger's entry for the modules the target's copies reach (`outside.OutsideState`)."""

    name = "modules the target uses"

    def __init__(self, outside: OutsideState) -> None:
        self.outside = outside

    def snapshot(self) -> None:
        return None

    def differs(self, saved: None) -> bool:
        # restoring is the check: it reads version tags and puts back only what moved
        return self.outside.restore() > 0

    def restore(self, saved: None) -> None:
        pass


class _Leftovers(Entry):
    """The ledger's entry for what a confined host's runs leave outside the interpreter (`confine.Confinement`)."""

    name = "threads, child processes and scratch files"
    restorable = False

    def __init__(self, leftovers: Callable[[], str | None]) -> None:
        self.leftovers = leftovers
        self.reason: str | None = None

    def snapshot(self) -> None:
        return None

    def differs(self, saved: None) -> bool:
        self.reason = self.leftovers()
        return self.reason is not None

    def why(self, saved: None) -> str:
        return self.reason or "left something running"


class _CopySet:
    """An import-time mutant's own copies: its driver function and the state to reset before each run."""

    def __init__(self, fn: Callable[[Any], Any], modules: Sequence[types.ModuleType]) -> None:
        self.fn = fn
        self.state = ContainerSnapshot(list(modules), bindings=True)


class Engine:
    """Applies and runs mutants of one target in this process (see the module docstring).

    `progress(position, phase)` is called before each mutant starts (phase 1: running, 2:
    building its copy), so a supervisor can tell which mutant a dead or stuck process was on.
    """

    def __init__(self, target: Target, *, copy_cache: int = 256,
                 progress: Callable[[int, int], None] | None = None) -> None:
        assert target.driver is not None
        self.target = target
        self.codes = {m.name: compile_module(m) for m in target.copied}
        started = time.perf_counter()
        self.copies = build_copies(target, self.codes)
        self.build_timeout = max(MIN_BUILD_TIMEOUT, BUILD_FACTOR * (time.perf_counter() - started))
        self.fn = driver_function(target, self.copies)
        self.compare = target.driver.compare
        self.messages = target.driver.messages
        self._infos = {m.name: m for m in target.modules}
        self.swaps = {m.name: CodeSwap(self.copies[m.name], self.codes[m.name]) for m in target.modules}
        self.state = ContainerSnapshot(list(self.copies.values()), bindings=True)
        self.payloads: dict[int, Payload] = {}
        self._layouts: dict[str, tuple[ModuleLayout, list[types.CodeType | None]]] = {}
        # per import-time mutant, its module as statement codes (all shared but the mutated statement's)
        self._mutated: dict[int, tuple[types.CodeType, ...] | types.CodeType] = {}
        assert target.driver_module is not None
        self._driver_module, self._driver_name = target.driver_module.name, target.driver.name
        self._base = {m.name: self.copies[m.name] for m in target.modules}
        self._plans: dict[int, list[tuple[Any, types.CodeType]]] = {}
        self._copy_sets: OrderedDict[int, _CopySet | CopyLoadError] = OrderedDict()
        self.copy_cache = copy_cache
        self.copies_built = 0
        self.pid = os.getpid()
        self.progress = progress or (lambda position, phase: None)
        self.retired: str | None = None  # set by `judge` when the ledger says the process must go
        self.last_original: RunResult | None = None
        quiet_timeouts()  # mu2py's own change to `sys`, made before the snapshot: no run is blamed for it
        self.outside = OutsideState(self.copies.values(), own=self.copies.keys())
        # interpreter-wide state every run starts from (see `ledger`); a host running threads of its own
        # (none here) would make `threads` useless, so the check holds for every engine
        self.ledger = Ledger()
        self.ledger.add(_Outside(self.outside))
        self.ledger.settle()
        self._runs = 0
        self._retire: str | None = None  # what the ledger found that cannot be put back, since the last judge
        self.mutants_judged = 0  # in this process's life: 0 means the next mutant runs in a fresh process
        self.confirmations = 0  # verdicts re-checked by running the original again
        self.unconfirmed = 0  # of those, how many the original did not reproduce (judged again afresh)
        self._again_warnings: tuple[Warned, ...] | None = None  # the warnings of the original's latest confirming run

    def watch(self, leftovers: Callable[[], str | None]) -> None:
        """Add a host's check of what runs leave outside the interpreter, and take the state now as the start."""
        self.ledger.add(_Leftovers(leftovers))
        self.settle()

    def settle(self) -> None:
        """Take the process state now (after a host's own set-up) as what every run starts from."""
        self.ledger.settle()
        self._retire = None

    def add(self, payloads: Sequence[Payload]) -> None:
        """Make mutants known to this engine (a host receives them from its supervisor once)."""
        for p in payloads:
            self.payloads[p.index] = p

    def _clean(self, state: ContainerSnapshot, full: bool = False) -> None:
        state.reset()
        self._runs += 1
        drift = self.ledger.check(full=full or self._runs % FULL_CHECK_EVERY == 0)
        if drift.retire is not None and self._retire is None:
            self._retire = drift.retire

    def run_original(self, value: Any, timeout: float | None = None) -> RunResult:
        """The original driver on `value`, from the post-import state.

        Every run cleans up after itself (`_clean` in `finally`), so the next one starts clean.
        """
        try:
            return run(self.fn, value, timeout, cpu=True)
        finally:
            self._clean(self.state)

    def _copy_set(self, payload: Payload) -> _CopySet | CopyLoadError:
        found = self._copy_sets.get(payload.index)
        if found is not None:
            self._copy_sets.move_to_end(payload.index)
            return found
        built = self._build(payload)
        self.copies_built += 1
        self._copy_sets[payload.index] = built
        if len(self._copy_sets) > self.copy_cache:
            self._copy_sets.popitem(last=False)
        return built

    def _statements(self, module: str) -> tuple[ModuleLayout, list[types.CodeType | None]]:
        """The module's layout and each top-level statement compiled on its own lines (None: a string to skip)."""
        found = self._layouts.get(module)
        if found is None:
            layout = ModuleLayout(self._infos[module], self.codes[module])
            codes: list[types.CodeType | None] = []
            for k, (first, last) in enumerate(layout.ranges):
                text = layout.text(first, last)
                # a bare string after the first statement is no docstring: compiled alone it would set __doc__
                codes.append(None if k and layout.is_string(k) else layout.compile_snippet(text, first, to_run=True))
            found = self._layouts[module] = (layout, codes)
        return found

    def _mutated_module(self, payload: Payload) -> tuple[types.CodeType, ...] | types.CodeType:
        """The mutated module as statement codes: only the mutated statement is compiled anew (once)."""
        found = self._mutated.get(payload.index)
        if found is None:
            found = self._mutated[payload.index] = self._compile_mutated(payload)
        return found

    def _compile_mutated(self, payload: Payload) -> tuple[types.CodeType, ...] | types.CodeType:
        layout, codes = self._statements(payload.module)
        span = payload.span
        k = layout.statement_index(*span) if span is not None else None
        if k is None:
            source = layout.info.source
            if span is not None:
                source = source[:span[0]] + payload.text + source[span[1]:]
            return compile_module(layout.info, source)
        first, last = layout.ranges[k]
        mutated = layout.compile_snippet(layout.text(first, last, span, payload.text), first, to_run=True)
        parts = list(codes)
        parts[k] = mutated
        return tuple(c for c in parts if c is not None)

    def _build(self, payload: Payload) -> _CopySet | CopyLoadError:
        try:
            code = self._mutated_module(payload)
        except (SyntaxError, ValueError) as exc:
            return CopyLoadError(exc)
        codes = dict(self.codes, **{payload.module: code})
        # a module body that loops is interrupted like a looping mutant run
        with wall_alarm(self.build_timeout, _build_alarm):
            try:
                copies = build_copies(self.target, codes, with_driver=False)
            except CopyLoadError as exc:
                return exc
            finally:
                leave_if_forked(self.pid)  # a module body that forked: its child must not go on as this process
        # the driver is not re-run: its namespace is rebound to the new copies (strategies stay shared)
        namespace = rebind_driver(self.copies[self._driver_module], self._base, copies)
        return _CopySet(bound_to(namespace[self._driver_name], copies), list(copies.values()))

    def run_mutant(self, index: int, value: Any, timeout: float | None) -> RunResult:
        """Mutant `index` on `value` (a build that fails or loops is an exception or timeout result)."""
        payload = self.payloads[index]
        if payload.kind == "error":
            return RunResult(Status.EXCEPTION, exc_type="SyntaxError", exc_message=payload.text)
        if payload.kind == "swap":
            swap = self.swaps[payload.module]
            plan = self._plans.get(index)
            if plan is None:
                original, mutated = payload.codes()
                try:
                    plan = self._plans[index] = swap.plan(mutated, original)
                except SwapError:
                    # not reachable as a live function (or a closure changed shape): re-import instead
                    payload = self.payloads[index] = replace(payload, kind="copy")
            if plan is not None:
                swap.apply_plan(plan)
                try:
                    return run(self.fn, value, timeout, cpu=True)
                finally:
                    swap.restore()
                    self._clean(self.state)
        self.progress(-1, 2)  # the supervisor allows `build_timeout` for this phase
        copy_set = self._copy_set(payload)
        if isinstance(copy_set, CopyLoadError):
            if isinstance(copy_set.original, Timeout):
                return RunResult(Status.TIMEOUT, exc_type="Timeout", exc_message="the module body did not finish")
            return RunResult(Status.EXCEPTION, exc_type="ImportError", exc_message=str(copy_set)[:200])
        self.progress(-1, 1)
        try:
            return run(copy_set.fn, value, timeout, cpu=True)
        finally:
            self._clean(copy_set.state)
            self.state.reset()  # the rebound driver shares the base copies' driver-level containers

    def judge(self, value: Any, indices: Sequence[int], timeout: float | None, *, differential: bool = True,
              deadline: Deadline = Deadline.never(), on_verdict: Callable[[int, Verdict], None] | None = None,
              original: RunResult | None = None) -> list[Verdict]:
        """Run the original (unless its `original` result is given), then each mutant of `indices` in order,
        on `value`; their verdicts.

        Stops early (fewer verdicts than indices) once `deadline` has passed, or when a run left
        something behind (`retired` is set; `last_original` holds the original's result, so that a
        new process can judge the rest without running it again).  A mutant's run never outlasts
        `deadline`: when less time is left than `timeout`, it gets what is left (`Deadline.clip`), and a
        timeout on that budget ends the batch with a CUT verdict, never a timeout kill (the full
        budget might have let it finish: a slow input must not turn slow mutants into kills).
        """
        self.retired = None
        if original is None:
            original = self.run_original(value)
        original = self._comparable(value, original)
        why = self._take_retire()
        if why is not None:
            self.retired, self.last_original = f"the original {why}", original
            return []
        self.last_original = original
        verdicts: list[Verdict] = []
        for position, index in enumerate(indices):
            if deadline.expired():
                break
            budget, cut = deadline.allot(timeout)
            self.progress(position, 1)
            result = self.run_mutant(index, value, budget)
            self.mutants_judged += 1
            if cut and result.status is Status.TIMEOUT:
                verdicts.append(Verdict.cut_short(index))
                if on_verdict is not None:
                    on_verdict(position, verdicts[-1])
                break
            if result.exc_type is not None and result.exc_type.endswith("MemoryError"):
                gc.collect()  # what the mutant allocated must not fail the next run
            reason = kill_reason(original, result, self.compare, differential=differential, messages=self.messages)
            if reason is not None:
                doubt = self._confirm(value, original, budget)
                if doubt is not None and self.mutants_judged > 1:
                    # the state this process was in may have decided the verdict: a fresh process judges it again
                    self.unconfirmed += 1
                    self.retired = f"mutant {index}'s verdict was not confirmed: {doubt}"
                    break
                if reason is KillReason.WARNING and not same_warnings(original.warnings, self._again_warnings):
                    reason = None  # the original's own warnings did not come again, even in a fresh process
            verdict = Verdict(index, reason, _detail(reason, original, result))
            verdicts.append(verdict)
            if on_verdict is not None:
                on_verdict(position, verdict)
            why = self._take_retire()
            if why is not None:
                self.retired = f"mutant {index} {why}"
                break
        self.progress(len(verdicts), 0)
        return verdicts

    def _comparable(self, value: Any, original: RunResult) -> RunResult:
        """`original`, its warnings set to None (not compared) when the original, run here once more, emits others.

        Only an original that emitted warnings runs again: one that emitted none has nothing to vary.
        """
        if not original.warnings:
            return original
        again = self.run_original(value)
        if same_warnings(original.warnings, again.warnings):
            return original
        return replace(original, warnings=None)

    def _take_retire(self) -> str | None:
        """Why this process must retire after the latest run (what the ledger could not put back), once."""
        why, self._retire = self._retire, None
        return why

    def _confirm(self, value: Any, original: RunResult, timeout: float | None) -> str | None:
        """Run the original on `value` again, now, in the state the mutant left (but for what the quick check put
        back); None when it gives the result it gave before the mutant and the full check finds nothing moved
        (the verdict stands), else what differs.

        A verdict other than survived must not come from the state the mutants before it left behind (a
        recursion limit lowered, descriptors used up, warnings turned into errors): the original, run in the
        same process state right after, must behave as it did, and the state must be the one every run starts
        from.
        """
        self.confirmations += 1
        again = self.run_original(value, timeout)
        self._again_warnings = again.warnings
        drift = self.ledger.check(full=True)
        why = self._retire or drift.retire
        if why is not None:
            return why
        if drift.restored:
            return f"{', '.join(drift.restored)} had changed"
        if kill_reason(original, again, self.compare, differential=True, messages=self.messages) is not None:
            return f"the original gave {again.status.name.lower()} {again.exc_type or ''}".rstrip()
        return None


def _detail(reason: KillReason | None, original: RunResult, mutant: RunResult) -> str:
    """A verdict's detail: the mutant's exception type, or the first warning that differs."""
    if reason is KillReason.WARNING:
        return warning_difference(original.warnings, mutant.warnings)
    return (mutant.exc_type or "") if reason is not None else ""


def _build_alarm(signum: int, frame: Any) -> None:
    raise Timeout()


class LocalRunner:
    """Judges mutants of a `Program` in this process, with no isolation (shard workers, benchmarks, tests)."""

    def __init__(self, program: Any, *, copy_cache: int = 256) -> None:
        self.program = program
        self.engine = Engine(program.target, copy_cache=copy_cache)

    @property
    def copies_built(self) -> int:
        """How many import-time mutant copy sets were built."""
        return self.engine.copies_built

    def judge(self, value: Any, indices: Sequence[int], timeout: float | None, *, differential: bool = True,
              deadline: Deadline = Deadline.never(), original: RunResult | None = None) -> list[Verdict]:
        """Verdicts for `indices` on `value` (see `Engine.judge`)."""
        missing = [i for i in indices if i not in self.engine.payloads]
        if missing:
            self.engine.add([self.program.payload(i) for i in missing])
        verdicts = self.engine.judge(value, indices, timeout, differential=differential, deadline=deadline,
                                     original=original)
        while self.engine.retired is not None and self.engine.last_original is not None \
                and len(verdicts) < len(indices) and not deadline.expired():
            # no fresh process here: the rest is judged in this one, the first of them taken as judged afresh
            self.engine.mutants_judged = 0
            verdicts += self.engine.judge(value, indices[len(verdicts):], timeout, differential=differential,
                                          deadline=deadline, original=self.engine.last_original)
        return verdicts

    def close(self) -> None:
        """Nothing to release."""
