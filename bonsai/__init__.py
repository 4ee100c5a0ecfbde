"""Bonsai fuzzing: bounded grammar generation (and, on top of it, lattice corpus growth).

`bonsai.run`, `bonsai.sample` and `bonsai.source` (a grammar as a `mu2py` driver's input source) are the
Python API (`bonsai.api`), loaded on first use.
"""

from typing import Any

from bonsai.bounds import Bounds, Measure, measure
from bonsai.generator import BoundedGenerator, Sample
from bonsai.grammar import Grammar, GrammarLoadError, load_grammar
from bonsai.tree import RepeatNode, RuleNode, Token, render

__all__ = [
    "BoundedGenerator",
    "Bounds",
    "Grammar",
    "GrammarLoadError",
    "Measure",
    "RepeatNode",
    "RuleNode",
    "Sample",
    "Token",
    "load_grammar",
    "measure",
    "render",
    "run",
    "sample",
    "source",
]

# the Python API (bonsai.api), one function per command: loaded on first use, as mu2py's jobs are
_API = frozenset({"run", "sample", "source"})


def __getattr__(name: str) -> Any:
    """`run`, `sample` and `source` from `bonsai.api`, imported when first asked for."""
    if name in _API:
        from bonsai import api

        return getattr(api, name)
    raise AttributeError(f"module 'bonsai' has no attribute {name!r}")
