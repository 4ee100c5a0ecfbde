"""Mutation analysis of inputs: run the probed original, choose mutants to run, and judge kills.

This is Algorithm 4 of Mu2 (`progmuts_to_run`) plus the differential oracle, shared by
`mu2py mutate` (the independent evaluator of a corpus) and by the fuzzing loop.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from mu2py.budget import Deadline
from mu2py.engine.engine import Verdict
from mu2py.engine.oracle import KillReason
from mu2py.engine.runs import RunResult, Status, run
from mu2py.feedback.focus import FocusedProbe
from mu2py.feedback.schedule import least_executed_first
from mu2py.mutants.catalog import Program
from mu2py.mutants.probes import ProbeRecorder

PRUNING = ("none", "execution", "infection")
ISOLATION = ("host", "none")


class Runner(Protocol):
    """Judges mutants on one input: `mu2py.engine.host.HostRunner` or `mu2py.engine.engine.LocalRunner`."""

    def judge(self, value: Any, indices: Sequence[int], timeout: float, *, differential: bool = True,
              deadline: Deadline = Deadline.never(), original: RunResult | None = None) -> list[Verdict]:
        """One verdict per mutant judged, in order (against `original` when given: the runner skips its own run)."""
        ...

    def close(self) -> None:
        """Release what the runner holds."""
        ...


@dataclass
class Kill:
    """Which input killed a mutant, and why."""

    input: str
    reason: KillReason
    detail: str = ""


@dataclass
class Selection:
    """The mutants chosen for one input, with the counts each pruning step removed."""

    run: list[int]
    killed_before: int = 0
    pruned_execution: int = 0
    pruned_infection: int = 0
    filtered: int = 0
    deferred_static: int = 0


@dataclass
class Filter:
    """An aggressive (unsound) filter: `least-executed` or `random`, keeping `k` or `percent`% mutants."""

    kind: str
    k: int | None = None
    percent: float | None = None

    @classmethod
    def parse(cls, text: str | None) -> Filter | None:
        """Parse `least-executed:10`, `random:5`, `random:20%`; None for `none` or empty."""
        if not text or text == "none":
            return None
        kind, _, amount = text.partition(":")
        if kind not in ("least-executed", "random") or not amount:
            raise ValueError(f"bad filter {text!r}: use least-executed:K, random:K or random:P%")
        if amount.endswith("%"):
            return cls(kind, percent=float(amount[:-1]))
        return cls(kind, k=int(amount))

    def keep(self, n: int) -> int:
        """How many of `n` candidates survive the filter."""
        if self.percent is not None:
            return max(1, round(n * self.percent / 100)) if n else 0
        return min(n, self.k or 0)


@dataclass
class Analysis:
    """Kill state of a mutation analysis over a growing set of inputs."""

    program: Program
    pruning: str = "infection"
    differential: bool = True
    timeout: float | None = None
    original_timeout: float | None = None  # the original's own budget per input (None: none)
    timeout_factor: float = 20.0
    min_timeout: float = 0.05  # CPU seconds (see engine.runs): a tight floor spends little on each looping mutant
    filter: Filter | None = None
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    probed: tuple[Callable[[Any], Any], ProbeRecorder] | None = None
    only: frozenset[int] | None = None  # a shard: run only these mutants (kills of others are not sought)
    # import-time mutants cannot be pruned per input; while fuzzing, run at most this many per input, in
    # rotation (None: all, as `mutate` does): a module-level table of thousands would otherwise cost seconds
    static_per_input: int | None = None
    kills: dict[int, Kill] = field(default_factory=dict)
    reached: set[int] = field(default_factory=set)
    executions: list[int] = field(default_factory=list)
    mutant_runs: int = 0
    cut_runs: int = 0  # mutant runs stopped by their batch's end, without a verdict (see engine.Verdict.cut)
    isolation: str = "host"
    memory_mb: int = 4096
    _runner: Runner | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        """`probed` is the probed original to run (default: the program's own, built once)."""
        if self.isolation not in ISOLATION:
            raise ValueError(f"isolation must be one of {ISOLATION}")
        if self.pruning not in PRUNING:
            raise ValueError(f"pruning must be one of {PRUNING}")
        self.executions = [0] * len(self.program.mutants)
        self._probed, self._recorder = self.probed or self.program.probed()
        static = self.program.static
        self._static = sorted(static)
        # per site, its mutants: selection then costs what the input reached, not all mutants
        self._by_site = self.program.by_site
        self._alive_probed = len(self.program.mutants) - len(static)
        self._static_cursor = 0

    def add_kill(self, index: int, kill: Kill) -> None:
        """Record that `kill` killed mutant `index` (the one place kill state changes)."""
        if index in self.kills:
            return
        self.kills[index] = kill
        if index not in self.program.static:
            self._alive_probed -= 1

    @property
    def compare(self) -> Callable[[Any, Any], bool] | None:
        """The driver's output comparison (None: structural equality)."""
        return self.program.target.driver.compare  # type: ignore[union-attr]  # a fuzzed target has a driver

    def run_original(self, value: Any, focus: FocusedProbe | None = None) -> tuple[RunResult, set[int], set[int]]:
        """Run the probed original: its result, the sites it reached, the mutants it infected.

        With `focus`, its copy runs instead (once built): what it records is exact for the open
        mutants only, so only a caller that never selects a closed mutant passes it.
        """
        probed, recorder = focus.probe if focus is not None and focus.probe is not None else (
            self._probed, self._recorder)
        recorder.reset()
        # the original runs in this process: an os._exit there is an outcome, not the end of the command
        result = run(probed, value, self.original_timeout, guard_exit=True)
        recorder.finish()
        self.reached.update(recorder.reached)
        return result, recorder.reached, recorder.infected

    def select(self, reached_sites: set[int], infected: set[int]) -> Selection:
        """Algorithm 4: drop killed mutants, then execution- and infection-pruned ones, then filter."""
        kills = self.kills
        sel = Selection(run=[], killed_before=len(kills))
        if self.pruning == "none":
            sel.run = [i for i in range(len(self.program.mutants)) if i not in kills]
        else:
            reachable = sorted(i for site in reached_sites for i in self._by_site.get(site, ()) if i not in kills)
            sel.pruned_execution = self._alive_probed - len(reachable)
            if self.pruning == "infection":
                chosen = [i for i in reachable if i in infected]
                sel.pruned_infection = len(reachable) - len(chosen)
                reachable = chosen
            static_alive = [i for i in self._static if i not in kills]
            if self.static_per_input is not None and len(static_alive) > self.static_per_input:
                # in rotation: every import-time mutant gets its turn, one window of them per input
                start = self._static_cursor % len(static_alive)
                window = (static_alive + static_alive)[start:start + self.static_per_input]
                self._static_cursor = start + self.static_per_input
                sel.deferred_static = len(static_alive) - len(window)
                static_alive = window
            sel.run = sorted(reachable + static_alive) if static_alive else reachable
        if self.only is not None:
            sel.run = [i for i in sel.run if i in self.only]
        chosen = sel.run
        if self.filter is not None:
            keep = self.filter.keep(len(chosen))
            if keep < len(chosen):
                if self.filter.kind == "random":
                    kept = self.rng.sample(chosen, keep)
                else:
                    kept = least_executed_first(chosen, self.executions)[:keep]
                sel.filtered = len(chosen) - keep
                sel.run = sorted(kept)
        return sel

    def mutant_timeout(self, original: RunResult) -> float:
        """A run budget for a mutant: fixed, or a multiple of the original's time."""
        if self.timeout is not None:
            return self.timeout
        return max(self.min_timeout, self.timeout_factor * original.seconds)

    @property
    def runner(self) -> Runner:
        """Where mutants run: a supervised host process (isolation `host`) or this process (`none`)."""
        if self._runner is None:
            if self.isolation == "host":
                from mu2py.engine.host import make_runner

                self._runner = make_runner(self.program, memory_mb=self.memory_mb)
            else:
                from mu2py.engine.engine import LocalRunner

                self._runner = LocalRunner(self.program)
        return self._runner

    def run_selected(self, sel: Selection, value: Any, original: RunResult, label: str,
                     deadline: Deadline = Deadline.never(), share_original: bool = False) -> list[int]:
        """Run the selected mutants on `value`; record and return the ones it kills.

        With a `deadline` the batch stops there: mutants not run
        are neither counted as executed nor judged.  With `share_original`, mutants are judged
        against `original` itself and the runner does not run the original again: the caller
        vouches that `original` is what a run from the post-import state gives (see
        `MutantRuns.run`); otherwise the runner runs its own original first.
        """
        # an input the original hangs on kills nothing (see oracle.kill_reason), and each of its mutants could
        # take the full timeout, a multiple of the original's own: nothing is run
        if not sel.run or original.status is Status.TIMEOUT:
            return []
        verdicts = self.runner.judge(value, sel.run, self.mutant_timeout(original), differential=self.differential,
                                     deadline=deadline, original=original if share_original else None)
        new: list[int] = []
        for verdict in verdicts:
            # a cut run counts as an execution all the same: least-executed-first then moves on to other mutants
            # instead of giving the same slow one every batch (the final judging runs it on its full budget)
            self.executions[verdict.index] += 1
            if verdict.cut:
                self.cut_runs += 1
                continue
            self.mutant_runs += 1
            if verdict.reason is not None and verdict.index not in self.kills:
                self.add_kill(verdict.index, Kill(label, verdict.reason, verdict.detail))
                new.append(verdict.index)
        return new

    def close(self) -> None:
        """Stop the mutant host, if one was started."""
        if self._runner is not None:
            self._runner.close()
            self._runner = None

    def analyse(self, value: Any, label: str,
                deadline: Deadline = Deadline.never()) -> tuple[RunResult, Selection, list[int]]:
        """Evaluate one input: original run, selection, mutant runs (up to `deadline`); the newly killed mutants."""
        original, reached, infected = self.run_original(value)
        sel = self.select(reached, infected)
        return original, sel, self.run_selected(sel, value, original, label, deadline=deadline)

    def status(self, index: int) -> str:
        """killed, alive, or not_reached (its site was never executed by any input)."""
        if index in self.kills:
            return "killed"
        if index not in self.program.static and self.program.mutants[index].site not in self.reached:
            return "not_reached"
        return "alive"

    def report(self) -> dict[str, Any]:
        """The JSON report shared by `mutate --json` and mutants.json."""
        entries = []
        for i, mutant in enumerate(self.program.mutants):
            kill = self.kills.get(i)
            entry = mutant.to_json()
            entry.update(
                status="killed" if kill else "alive",
                reached=self.status(i) != "not_reached",
                reason=kill.reason.value if kill else None,
                input=kill.input if kill else None,
            )
            entries.append(entry)
        killed = len(self.kills)
        return {
            "mutants": entries,
            "summary": {
                "total": len(entries),
                "killed": killed,
                "alive": len(entries) - killed,
                "not_reached": sum(1 for i in range(len(entries)) if self.status(i) == "not_reached"),
                "score": round(killed / len(entries), 4) if entries else None,
                "mutant_runs": self.mutant_runs,
            },
        }
