"""Coverage feedback through slipcover: which lines and branches of the target a run reached first.

Slipcover reports only locations it has never seen before (on 3.11 its probes are
removed once seen), which is exactly the question a fuzzer asks: did this input add
coverage?  It does not answer "what did this input reach" — mutation sites are answered
by the probes of `mu2py.mutants.probes` instead.
"""

from __future__ import annotations

import ast
import types

import slipcover
from slipcover import branch as sc_branch

from mu2py.target import TargetModule


class CoverageMap:
    """Instruments module code for coverage and accumulates the lines/branches seen."""

    def __init__(self, branch: bool = True) -> None:
        self.branch = branch
        self._sci = slipcover.Slipcover(branch=branch)
        self.seen: set[tuple[str, object]] = set()

    def compile(self, info: TargetModule, source: str | None = None) -> types.CodeType:
        """Compile a module's source (or a variant of it) with coverage probes."""
        tree = ast.parse(source if source is not None else info.source, filename=info.file)
        if self.branch:
            tree = sc_branch.preinstrument(tree)
        code = compile(tree, info.file, "exec", dont_inherit=True)
        return self._sci.instrument(code)

    def collect(self) -> int:
        """Absorb what ran since the last call; return how many locations are new."""
        fresh = 0
        for filename, items in self._sci._get_newly_seen().items():
            for item in items:
                key = (filename, item)
                if key not in self.seen:
                    self.seen.add(key)
                    fresh += 1
        return fresh

    def __len__(self) -> int:
        return len(self.seen)
