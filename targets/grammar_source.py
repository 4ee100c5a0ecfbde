"""The bounded generator of a bundled grammar: a grammar target's input source (`bonsai.source`).

Drivers of grammar-shaped targets name it as their mu2py source, so that `mu2py fuzz` draws
the same bounded inputs as `bonsai run`.  `bonsai.source` builds each generator once per process:
a driver module is executed afresh for each mutant copy, and loading the grammar there would be
repeated for every copy.
"""

from __future__ import annotations

import bonsai
import grammars
from bonsai.generator import BoundedGenerator

__all__ = ["bounded_source"]


def bounded_source(name: str, bounds: str = "3,3,3") -> BoundedGenerator:
    """The bounded generator of bundled grammar `name` (e.g. "expr.lark") at `bounds` "m,n,d" (built once)."""
    generator: BoundedGenerator = bonsai.source(grammars.path(name), bounds=bounds)
    return generator
