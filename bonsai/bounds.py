"""Bonsai size bounds (idents m, items n, depth d) and measuring a derivation tree against them."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from bonsai.tree import RepeatNode, Token, Tree

__all__ = ["Bounds", "Measure", "measure"]


@dataclass(frozen=True)
class Bounds:
    """The three bonsai bounds.

    `idents` m: at most m distinct values per identifier terminal; `items` n: at most n iterations
    of any repetition; `depth` d: no non-terminal expanded more than d times on a root-to-leaf path.
    Ordered componentwise (a partial order): `a <= b` iff every bound of `a` is at most `b`'s.
    """

    idents: int
    items: int
    depth: int

    def __post_init__(self) -> None:
        for name in ("idents", "items", "depth"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"bound {name} must be a non-negative int, got {value!r}")
        if self.idents < 1 or self.depth < 1:
            raise ValueError(f"bounds idents and depth must be >= 1, got {self}")

    @classmethod
    def parse(cls, text: str) -> Bounds:
        """Parse ``"m,n,d"`` (e.g. ``"2,2,3"``); raises ValueError with a one-line reason."""
        parts = [p.strip() for p in text.split(",")]
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            raise ValueError(f"bounds must be three non-negative integers 'm,n,d', got {text!r}")
        return cls(*(int(p) for p in parts))

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Bounds):
            return NotImplemented
        return self.idents <= other.idents and self.items <= other.items and self.depth <= other.depth

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Bounds):
            return NotImplemented
        return other <= self

    def __str__(self) -> str:
        return f"{self.idents},{self.items},{self.depth}"


@dataclass(frozen=True)
class Measure:
    """What a tree actually uses: max distinct idents per terminal, max repetition count, max depth."""

    idents: int
    items: int
    depth: int

    def within(self, bounds: Bounds, *, forced_items: int = 0) -> bool:
        """True when this measure respects `bounds` (items may reach `forced_items`, a grammar's `~ k`)."""
        return (
            self.idents <= bounds.idents
            and self.items <= max(bounds.items, forced_items)
            and self.depth <= bounds.depth
        )


def measure(tree: Tree, ident_terminals: Collection[str]) -> Measure:
    """Measure `tree`: distinct values of each terminal in `ident_terminals`, repetitions, depth.

    Depth counts, for each non-terminal, its expansions on one root-to-leaf path; the tree's
    depth is the maximum of those counts (0 for a tree without rules).
    """
    values: dict[str, set[str]] = {}
    items = 0
    depth = 0
    counts: dict[str, int] = {}
    # Iterative walk: generated trees can be deeper than Python's default recursion limit allows.
    # Any, not Tree: the `kind is ...` dispatch below narrows nothing for mypy
    stack: list[tuple[Any, bool]] = [(tree, False)]
    while stack:
        node, leaving = stack.pop()
        kind = type(node)
        if kind is Token:
            if node.terminal in ident_terminals:
                values.setdefault(node.terminal, set()).add(node.text)
            continue
        if kind is RepeatNode:
            items = max(items, node.count)
            stack.extend((c, False) for c in reversed(node.children))
            continue
        rule = node.rule
        if leaving:
            counts[rule] -= 1
            continue
        counts[rule] = counts.get(rule, 0) + 1
        depth = max(depth, counts[rule])
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(node.children))
    idents = max((len(v) for v in values.values()), default=0)
    return Measure(idents, items, depth)
