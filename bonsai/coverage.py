"""The coverage of a whole corpus on a target: lines and branches reached by replaying it on a fresh copy."""

from __future__ import annotations

from collections.abc import Iterable

from mu2py.coverage import CoverageMap
from mu2py.executor import run
from mu2py.mutants.loader import build_copies, compile_module, driver_function
from mu2py.target import Target


def corpus_coverage(target: Target, texts: Iterable[str]) -> int:
    """Lines and branches of `target`'s modules reached by replaying `texts` on a fresh instrumented copy.

    The same unit as a node's coverage (module-level lines of the copies included), so corpora of
    different campaigns over one target compare directly.
    """
    coverage = CoverageMap()
    codes = {m.name: coverage.compile(m) for m in target.modules}
    assert target.driver_module is not None
    codes[target.driver_module.name] = compile_module(target.driver_module)
    copies = build_copies(target, codes)
    fn = driver_function(target, copies)
    coverage.collect()
    for text in texts:
        run(fn, text, None)
        coverage.collect()
    return len(coverage)
