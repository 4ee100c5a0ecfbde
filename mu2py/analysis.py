"""Mutation analysis of inputs: run the probed original, choose mutants to run, and judge kills.

This is Algorithm 4 of Mu2 (`progmuts_to_run`) plus the differential oracle, shared by
`mu2py mutate` (the independent evaluator of a corpus) and by the fuzzing loop.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from mu2py.executor import RunResult, Status, run
from mu2py.mutants.catalog import Program
from mu2py.mutants.loader import CopyLoadError
from mu2py.oracle import KillReason, kill_reason

PRUNING = ("none", "execution", "infection")


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
    timeout_factor: float = 20.0
    min_timeout: float = 0.25
    filter: Filter | None = None
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    kills: dict[int, Kill] = field(default_factory=dict)
    reached: set[int] = field(default_factory=set)
    executions: list[int] = field(default_factory=list)
    mutant_runs: int = 0

    def __post_init__(self) -> None:
        if self.pruning not in PRUNING:
            raise ValueError(f"pruning must be one of {PRUNING}")
        self.executions = [0] * len(self.program.mutants)
        self._probed, self._recorder = self.program.probed()
        self._site_of = [m.site for m in self.program.mutants]

    @property
    def compare(self) -> Callable[[Any, Any], bool] | None:
        """The driver's output comparison (None: structural equality)."""
        return self.program.target.driver.compare

    def run_original(self, value: Any) -> tuple[RunResult, set[int], set[int]]:
        """Run the probed original: its result, the sites it reached, the mutants it infected."""
        recorder = self._recorder
        recorder.reset()
        result = run(self._probed, value, None)
        recorder.finish()
        return result, recorder.reached, recorder.infected

    def select(self, reached_sites: set[int], infected: set[int]) -> Selection:
        """Algorithm 4: drop killed mutants, then execution- and infection-pruned ones, then filter."""
        static = self.program.static
        chosen: list[int] = []
        sel = Selection(run=chosen)
        for index, site in enumerate(self._site_of):
            if index in self.kills:
                sel.killed_before += 1
                continue
            if self.pruning != "none" and index not in static:
                if site not in reached_sites:
                    sel.pruned_execution += 1
                    continue
                if self.pruning == "infection" and index not in infected:
                    sel.pruned_infection += 1
                    continue
            chosen.append(index)
        if self.filter is not None:
            keep = self.filter.keep(len(chosen))
            if keep < len(chosen):
                if self.filter.kind == "random":
                    kept = self.rng.sample(chosen, keep)
                else:
                    kept = sorted(chosen, key=lambda i: (self.executions[i], i))[:keep]
                sel.filtered = len(chosen) - keep
                sel.run = sorted(kept)
        return sel

    def mutant_timeout(self, original: RunResult) -> float:
        """A run budget for a mutant: fixed, or a multiple of the original's time."""
        if self.timeout is not None:
            return self.timeout
        return max(self.min_timeout, self.timeout_factor * original.seconds)

    def run_mutant(self, index: int, value: Any, original: RunResult) -> tuple[RunResult, KillReason | None]:
        """Run one mutant on `value` and judge it against the original's result."""
        self.executions[index] += 1
        self.mutant_runs += 1
        fn = self.program.mutant(self.program.mutants[index].id)
        if isinstance(fn, CopyLoadError):
            result = RunResult(Status.EXCEPTION, exc_type="ImportError", exc_message=str(fn))
            return result, KillReason.EXCEPTION
        result = run(fn, value, self.mutant_timeout(original))
        return result, kill_reason(original, result, self.compare, differential=self.differential)

    def analyse(self, value: Any, label: str) -> tuple[RunResult, Selection, list[int]]:
        """Evaluate one input: original run, selection, mutant runs; returns the newly killed mutants."""
        original, reached, infected = self.run_original(value)
        self.reached.update(reached)
        sel = self.select(reached, infected)
        new: list[int] = []
        for index in sel.run:
            result, reason = self.run_mutant(index, value, original)
            if reason is not None:
                self.kills[index] = Kill(label, reason, result.exc_type or "")
                new.append(index)
        return original, sel, new

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

    def restore(self, entries: Iterable[dict[str, Any]]) -> int:
        """Reload kills from a previous report (resuming); returns how many matched current mutants."""
        restored = 0
        for entry in entries:
            index = self.program.index.get(entry.get("id", ""))
            if index is None:
                continue
            if entry.get("reached"):
                self.reached.add(self.program.mutants[index].site)
            if entry.get("status") == "killed" and entry.get("reason"):
                self.kills[index] = Kill(entry.get("input") or "?", KillReason(entry["reason"]))
                restored += 1
        return restored
