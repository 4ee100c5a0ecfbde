"""Input sources: parametric generators that decode a choice sequence into a structured input.

The fuzzing loop never sees a structured input directly: it keeps and mutates *choice
sequences*, and asks an `InputSource` to decode them.  Hypothesis strategies (mu2py) and
bounded grammar generators (bonsai) are both input sources.

Invariants every source keeps:

* `decode(choices, rng)` is deterministic given `choices` and the state of `rng`; it reads
  `choices` as a prefix and draws from `rng` only once the prefix is exhausted.
* The `Decoded.choices` it returns are *realized*: decoding them again (with any rng)
  gives the same value without touching the rng.
* `to_bytes`/`from_bytes` round-trip realized choices exactly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

Choice = Any
"""One element of a choice sequence (an int for grammar sources; a typed value for Hypothesis)."""


@dataclass(frozen=True)
class Decoded:
    """A structured input together with the realized choice sequence that produces it.

    `kinds`, when the source knows them, holds for each choice what it was drawn as (for a
    Hypothesis strategy: the choice type and its constraints, such as an integer's range), one
    per choice: havoc then changes a choice into another value it may take.
    """

    value: Any
    choices: tuple[Choice, ...]
    kinds: tuple[Any, ...] | None = None


@runtime_checkable
class InputSource(Protocol):
    """A parametric generator: choice sequence in, structured input out."""

    def decode(self, choices: Sequence[Choice], rng: random.Random) -> Decoded | None:
        """Decode `choices` (drawing from `rng` past their end); None when no valid input results."""
        ...

    def mutate_choice(self, choice: Choice, rng: random.Random) -> Choice:
        """Return a changed copy of one choice (the havoc mutator's per-element step)."""
        ...

    def render(self, value: Any) -> str:
        """A readable text rendering of a decoded value (what a person reads in the corpus)."""
        ...

    def to_bytes(self, choices: Sequence[Choice]) -> bytes:
        """Serialize realized choices."""
        ...

    def from_bytes(self, data: bytes) -> tuple[Choice, ...]:
        """Inverse of `to_bytes`; raises ValueError on malformed data."""
        ...
