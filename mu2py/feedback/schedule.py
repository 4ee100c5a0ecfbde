"""Which work comes next: the kept input a child is made from (energy), and the mutants an input runs first.

Both fuzzing loops (`mu2py.fuzz.fuzzer` over a driver's choice sequences, `mu2py.props.loop` over a
`@given` test's buffers) draw their parents and order their mutant runs here, so the two loops
differ only in what one run of the program is.

Invariant: every choice is drawn from the `random.Random` passed in, a fixed number of draws per
call given the lengths of the lists, so the same seed gives the same sequence of parents.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Energy:
    """How a parent is drawn: the newest kept input with probability `newest`, a favored one (it killed mutants)
    with probability `favored` when there is one, else any kept input, all equally likely."""

    newest: float = 0.0
    favored: float = 0.5

    def parent(self, rng: random.Random, kept: Sequence[T], favored: Sequence[T]) -> T | None:
        """The parent of the next child (None while nothing is kept)."""
        if not kept:
            return None
        r = rng.random()
        if r < self.newest:
            # what just reached new code is the likeliest step towards code behind it (a condition that needs
            # several bytes right, one at a time)
            return kept[-1]
        if favored and r < self.newest + self.favored:
            return rng.choice(favored)
        return rng.choice(kept)


def donor(rng: random.Random, kept: Sequence[T]) -> T | None:
    """A kept input to splice from (None unless two or more are kept: a child of one input needs no donor)."""
    return rng.choice(kept) if len(kept) > 1 else None


def least_executed_first(indices: Iterable[int], executions: Sequence[int] | Counter[int]) -> list[int]:
    """`indices` ordered by how often each mutant ran so far (`executions[i]`), fewest first, ties by index
    (Mu2-OPT's least-executed order: a mutant left out of one input's runs is among the first in line on the next)."""
    return sorted(indices, key=lambda i: (executions[i], i))
