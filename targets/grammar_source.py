"""A bounded grammar generator over a bundled grammar, built once per process: a grammar target's input source.

Drivers of grammar-shaped targets name it as their mu2py source, so that `mu2py fuzz` draws
the same bounded inputs as `bonsai run`.  The generator is cached here, outside every mutated
target, because a driver module is executed afresh for each mutant copy: loading the grammar
there would be repeated for every copy.
"""

from __future__ import annotations

import functools

import grammars
from bonsai.bounds import Bounds
from bonsai.generator import BoundedGenerator
from bonsai.grammar import load_grammar

__all__ = ["bounded_source"]


@functools.cache
def bounded_source(name: str, bounds: str = "3,3,3") -> BoundedGenerator:
    """The bounded generator of bundled grammar `name` (e.g. "expr.lark") at `bounds` "m,n,d" (cached)."""
    return BoundedGenerator(load_grammar(grammars.path(name)), Bounds.parse(bounds))
