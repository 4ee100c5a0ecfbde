"""Coverage feedback through slipcover: which lines and branches of the target a run reached first.

Slipcover reports only locations it has never seen before, which is exactly the question
a fuzzer asks: did this input add coverage?  On Python < 3.12 it also de-instruments on
its own (a probe that keeps firing after its line was seen), *moving* everything seen
since the last collection into `all_seen`; `collect` reads both, so every location is
reported exactly once, whatever runs between two collections.  It does not answer "what
did this input reach" — mutation sites are answered
by the probes of `mu2py.mutants.probes` instead.
"""

from __future__ import annotations

import ast
import types
from collections.abc import Callable, Iterable
from typing import Any

import slipcover
from slipcover import branch as sc_branch

from mu2py.engine.copies import build_copies, compile_module, driver_function
from mu2py.engine.runs import run
from mu2py.processes.fresh import ContainerSnapshot
from mu2py.target.modules import Target, TargetModule


class CoverageMap:
    """Instruments module code for coverage and accumulates the lines/branches seen."""

    def __init__(self, branch: bool = True) -> None:
        self.branch = branch
        self._sci = slipcover.Slipcover(branch=branch)
        self.seen: set[tuple[str, object]] = set()
        self.containers: ContainerSnapshot | None = None

    def compile(self, info: TargetModule, source: str | None = None) -> types.CodeType:
        """Compile a module's source (or a variant of it) with coverage probes."""
        tree = ast.parse(source if source is not None else info.source, filename=info.file)
        if self.branch:
            tree = sc_branch.preinstrument(tree)
        code = compile(tree, info.file, "exec", dont_inherit=True)
        return self._sci.instrument(code)

    def driver(self, target: Target) -> Callable[[Any], Any]:
        """The target's driver bound to fresh copies of its modules carrying this map's probes."""
        codes = {m.name: self.compile(m) for m in target.modules}
        assert target.driver_module is not None
        codes[target.driver_module.name] = compile_module(target.driver_module)
        copies = build_copies(target, codes)
        # runs start from the post-import state, as the probed original's and the mutants' do
        self.containers = ContainerSnapshot(list(copies.values()), bindings=True)
        return driver_function(target, copies)

    def collect(self) -> int:
        """Absorb what ran since the last call (de-instrumented locations included); return how many are new."""
        sci = self._sci
        found = [(f, item) for f, items in sci._get_newly_seen().items() for item in items]
        moved = getattr(sci, "all_seen", None)
        if moved:
            with sci.lock:
                found.extend((f, item) for f, items in moved.items() for item in items)
                # this map owns its Slipcover and never asks it for a report: `all_seen` is only a hand-over
                moved.clear()
        fresh = 0
        for key in found:
            if key not in self.seen:
                self.seen.add(key)
                fresh += 1
        return fresh

    def __len__(self) -> int:
        return len(self.seen)


def corpus_coverage(target: Target, inputs: Iterable[Any]) -> int:
    """Lines and branches of `target`'s modules reached by replaying `inputs` on a fresh instrumented copy.

    Module-level lines of the copies count too, as in a campaign's coverage, so corpora of
    different campaigns over one target compare directly.
    """
    coverage = CoverageMap()
    fn = coverage.driver(target)
    coverage.collect()
    for value in inputs:
        if coverage.containers is not None:
            coverage.containers.reset()
        run(fn, value, None)
        coverage.collect()
    return len(coverage)
