"""What the fuzzing loop has tried already: realized inputs, and the choice prefixes that decoded them.

Two memories answer "was this child tried before?":

* `first_time(choices)`: a set of hashes of *realized* choice sequences (what a decode
  returned).  A child that decodes to realized choices tried before runs nothing.
* `predict(child)`: a trie over the *leading choices a decode read*.  A decode that read only
  its prefix (the rng untouched) is a function of the `n` choices it read, so every later
  child starting with those `n` choices decodes alike: to an input already tried, or to a
  rejection.  Such a child is answered without decoding, which is most of a trial's cost.

Invariant: `predict` answers only what decoding would have answered (same outcome, no rng
drawn either way), so a run with predictions keeps exactly the corpus of a run without.
The trie is cleared with the set (`SEEN_BOUND`), since a "tried" leaf stands for a hash in it,
and on its own at `TRIE_BOUND` nodes (which only makes it predict less).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from hypothesis.internal.floats import float_to_int

SEEN_BOUND = 1 << 21
"""Realized inputs remembered before both memories start afresh (a hash each: tens of MiB at most)."""
TRIE_BOUND = 1 << 17
"""Trie nodes (a small dict each, about 290 bytes measured) before the trie alone starts afresh: some 40 MiB."""

_END = object()  # a trie node's key for "a decode read exactly the choices on the way here"


def _element(choice: Any) -> Any:
    """A trie key telling apart choices that decode differently though `==` (1, True, 1.0; 0.0, -0.0)."""
    kind = type(choice)
    if kind is int or kind is str:
        return choice
    if kind is float:
        return (float, float_to_int(choice))
    return (kind, choice)


class Tried:
    """The loop's memory of tried inputs (see the module docstring)."""

    def __init__(self) -> None:
        self._seen: set[int] = set()
        self._trie: dict[Any, Any] = {}
        self._nodes = 0

    @staticmethod
    def key(choices: tuple[Any, ...]) -> int:
        """A hash of realized choices that tells apart what decodes differently (-0.0 from 0.0, unlike `==`)."""
        if any(type(c) is float for c in choices):
            return hash(tuple((c, math.copysign(1.0, c)) if type(c) is float else c for c in choices))
        return hash(choices)

    def first_time(self, choices: tuple[Any, ...]) -> bool:
        """Remember realized `choices`; False when they were tried already."""
        key = self.key(choices)
        seen = self._seen
        if key in seen:
            return False
        if len(seen) >= SEEN_BOUND:
            self.clear()
        seen.add(key)
        return True

    def clear(self) -> None:
        """Forget everything (both memories together: a trie leaf may stand for a hash in the set)."""
        self._seen.clear()
        self._trie = {}
        self._nodes = 0

    def predict(self, child: Sequence[Any]) -> bool | None:
        """True: `child` decodes to an input tried before; False: to a rejection; None: unknown, decode it."""
        node = self._trie
        for choice in child:
            outcome = node.get(_END)
            if outcome is not None:
                return outcome
            node = node.get(_element(choice))  # type: ignore[assignment]  # None: handled just below
            if node is None:
                return None
        return node.get(_END)

    def record(self, child: Sequence[Any], read: int | None, valid: bool) -> None:
        """After decoding `child`: it read its first `read` choices only (None: it drew from the rng too).

        Call after `first_time` for a valid decode, so that the leaf's input is in the set.
        """
        if read is None or read > len(child):
            return
        if self._nodes + read >= TRIE_BOUND:  # bound the trie on its own, too: a cleared trie only predicts less
            self._trie = {}
            self._nodes = 0
        node = self._trie
        for choice in child[:read]:
            if _END in node:  # a shorter read already decides every child below: nothing to add
                return
            key = _element(choice)
            below = node.get(key)
            if below is None:
                below = node[key] = {}
                self._nodes += 1
            node = below
        node[_END] = valid
