"""Havoc mutation of choice sequences: the fuzzer's input mutator, independent of the input type."""

from __future__ import annotations

import random
from collections.abc import Sequence

from mu2py.source import Choice, InputSource


def havoc(
    parent: Sequence[Choice],
    source: InputSource,
    rng: random.Random,
    donor: Sequence[Choice] | None = None,
) -> list[Choice]:
    """A child of `parent`: 1 to 8 stacked edits (change, delete, duplicate, truncate, splice).

    Truncation lets the decoder draw a fresh tail from the rng, which is how new
    structure appears; small changes keep most of the parent's structure.
    """
    child = list(parent)
    for _ in range(1 << rng.randrange(4)):
        n = len(child)
        op = rng.random()
        if n == 0 or op < 0.10:
            child = child[: rng.randint(0, n)] if n else []
            break
        if op < 0.55 or (op >= 0.85 and not donor):  # a splice without a donor changes a choice instead
            i = rng.randrange(n)
            child[i] = source.mutate_choice(child[i], rng)
        elif op < 0.70:
            i = rng.randrange(n)
            del child[i : i + rng.randint(1, min(8, n - i))]
        elif op < 0.85:
            i = rng.randrange(n)
            j = min(n, i + rng.randint(1, 8))
            k = rng.randint(0, n)
            child[k:k] = child[i:j]
        else:
            assert donor
            cut = rng.randint(0, n)
            start = rng.randint(0, len(donor))
            child = child[:cut] + list(donor[start:])
    return child
