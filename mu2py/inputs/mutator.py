"""Havoc mutation of choice sequences: the fuzzer's input mutator, independent of the input type."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from mu2py.inputs.source import Choice, InputSource


def havoc(
    parent: Sequence[Choice],
    source: InputSource,
    rng: random.Random,
    donor: Sequence[Choice] | None = None,
    kinds: Sequence[Any] | None = None,
) -> list[Choice]:
    """A child of `parent`: 1 to 8 stacked edits (change, delete, duplicate, truncate, splice).

    Truncation lets the decoder draw a fresh tail from the rng, which is how new
    structure appears; small changes keep most of the parent's structure.  With `kinds` (what
    each parent choice was drawn as, see `Decoded.kinds`) and a source that can use them
    (`mutate_within`), a change keeps a choice within what its draw permits, up to the first
    position an edit moved (past it, choices no longer sit where they were drawn).
    """
    child = list(parent)
    within = getattr(source, "mutate_within", None) if kinds is not None else None
    aligned = min(len(kinds), len(child)) if within is not None and kinds is not None else 0
    for _ in range(1 << rng.randrange(4)):
        n = len(child)
        op = rng.random()
        if n == 0 or op < 0.10:
            child = child[: rng.randint(0, n)] if n else []
            break
        if op < 0.55 or (op >= 0.85 and not donor):  # a splice without a donor changes a choice instead
            i = rng.randrange(n)
            if i < aligned:
                assert within is not None and kinds is not None
                child[i] = within(child[i], kinds[i], rng)
            else:
                child[i] = source.mutate_choice(child[i], rng)
        elif op < 0.70:
            i = rng.randrange(n)
            del child[i : i + rng.randint(1, min(8, n - i))]
            aligned = min(aligned, i)
        elif op < 0.85:
            i = rng.randrange(n)
            j = min(n, i + rng.randint(1, 8))
            k = rng.randint(0, n)
            child[k:k] = child[i:j]
            aligned = min(aligned, k)
        else:
            assert donor
            cut = rng.randint(0, n)
            start = rng.randint(0, len(donor))
            child = child[:cut] + list(donor[start:])
            aligned = min(aligned, cut)
    return child
