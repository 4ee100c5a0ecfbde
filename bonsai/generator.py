"""The bounded grammar generator: decodes choice sequences into derivation trees within bonsai bounds.

How choices are read and what they mean: `bonsai.expand`.  The key invariant: realized choices
decoded under bounds B give a tree T, and decoding them under any B' >= B gives T again.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from bonsai.bounds import Bounds, Measure, measure
from bonsai.codec import decode_varints, encode_varints
from bonsai.core import core_of
from bonsai.expand import SAMPLE_SPACE, Exhausted, Expansion
from bonsai.grammar import Grammar
from bonsai.tree import Tree, render
from mu2py.inputs.source import Decoded

__all__ = ["DEFAULT_NODE_BUDGET", "BoundedGenerator", "Sample"]

DEFAULT_NODE_BUDGET = 4000
"""Past this many nodes, *fresh* random decisions take the smallest option (prefix values still rule)."""


@dataclass(frozen=True)
class Sample:
    """One generated input: its derivation tree, its text and the realized choices that rebuild it."""

    tree: Tree
    text: str
    choices: tuple[int, ...]


class BoundedGenerator:
    """A parametric generator of grammar inputs within `bounds`; implements `mu2py.inputs.source.InputSource`.

    `decode(choices, rng).value` is the generated text; `decode_sample` also gives the tree.
    Invariants: every text parses with the grammar from `start`; the tree's measure is within
    `bounds` (items up to a grammar-forced `~ k`); realized choices re-decode to the same tree
    under any bounds >= `bounds`.
    """

    def __init__(
        self,
        grammar: Grammar,
        bounds: Bounds,
        *,
        start: str | None = None,
        node_budget: int = DEFAULT_NODE_BUDGET,
    ) -> None:
        if start is not None and start != grammar.start:
            grammar = grammar.with_start(start)
        self.grammar = grammar
        self.bounds = bounds
        self.node_budget = node_budget
        self.core = core_of(grammar)

    @property
    def start(self) -> str:
        """The start rule."""
        return self.grammar.start

    def with_bounds(self, bounds: Bounds) -> BoundedGenerator:
        """The same generator (sharing all caches) under other bounds."""
        return BoundedGenerator(self.grammar, bounds, node_budget=self.node_budget)

    def ident_terminals(self) -> frozenset[str]:
        """Names of the terminals the idents bound applies to."""
        return frozenset(n for n, t in self.grammar.terminals.items() if t.kind == "ident")

    def forced_items(self) -> int:
        """The largest repetition count the grammar itself forces (`x ~ k`, `x ~ k..l`): may exceed items."""
        return max((rep.lo for rep in self.grammar.repeat_table), default=0)

    def measure(self, tree: Tree) -> Measure:
        """What `tree` uses of the bounds (identifier terminals as configured for this grammar)."""
        return measure(tree, self.ident_terminals())

    def within_bounds(self, tree: Tree) -> bool:
        """Whether `tree` respects this generator's bounds (items up to a grammar-forced count)."""
        return self.measure(tree).within(self.bounds, forced_items=self.forced_items())

    def decode_sample(self, choices: Sequence[int], rng: random.Random | None = None) -> Sample:
        """Decode `choices` (then `rng`) into a Sample; raises ValueError if choices end and rng is None."""
        run = Expansion(self.core, self.bounds, self.node_budget, choices, rng)
        limit = sys.getrecursionlimit()
        need = 200 + 8 * self.bounds.depth * len(self.grammar.rules)
        if need > limit:
            sys.setrecursionlimit(min(need, 100_000))  # pure-Python recursion: no C stack growth
        try:
            tree = run.rule(self.grammar.start, self.core.frame(frozenset()), frozenset())
        except Exhausted:
            raise ValueError("choices exhausted and no rng given") from None
        finally:
            if need > limit:
                sys.setrecursionlimit(limit)
        return Sample(tree, render(tree, self.grammar), tuple(run.out))

    def decode_tree(self, choices: Sequence[int], rng: random.Random | None = None) -> Tree:
        """The derivation tree for `choices` (see `decode_sample`)."""
        return self.decode_sample(choices, rng).tree

    def generate(self, rng: random.Random) -> Sample:
        """A fresh random sample (decoding the empty choice sequence)."""
        return self.decode_sample((), rng)

    # --- InputSource -------------------------------------------------------------------------

    def decode(self, choices: Sequence[int], rng: random.Random) -> Decoded | None:
        """InputSource: the generated text and realized choices (None only if decoding fails)."""
        try:
            sample = self.decode_sample(choices, rng)
        except (RecursionError, ValueError, TypeError):
            return None
        return Decoded(sample.text, sample.choices)

    def mutate_choice(self, choice: int, rng: random.Random) -> int:
        """A different non-negative int: a small step, a jump, zero, or a fresh small value."""
        choice = int(choice)
        r = rng.random()
        if r < 0.35:
            new = choice + 1
        elif r < 0.6:
            new = choice - 1 if choice > 0 else choice + 1
        elif r < 0.75:
            new = choice + rng.randint(2, 8)
        elif r < 0.85:
            new = 0 if choice != 0 else 1
        else:
            new = rng.randrange(SAMPLE_SPACE)
        if new == choice or new < 0:
            new = choice + 1
        return new

    def render(self, value: object) -> str:
        """InputSource: the text itself (values are already texts)."""
        return value if isinstance(value, str) else str(value)

    def to_bytes(self, choices: Sequence[int]) -> bytes:
        """Serialize choices as unsigned LEB128 varints."""
        return encode_varints(choices)

    def from_bytes(self, data: bytes) -> tuple[int, ...]:
        """Inverse of `to_bytes`; raises ValueError on truncated data."""
        return decode_varints(data)
