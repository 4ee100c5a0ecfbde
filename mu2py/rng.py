"""Every random stream of a run, derived from its one seed by name.

A stream is named by its role (`inputs`: the fuzzer's choices of parents and mutations; `filter`:
k-random mutant selection; `backoff`: thinning of mutants that never die) and any further parts
(a resumed run's trial count).  Named streams never coincide: a campaign's worker k runs with seed
`seed + k`, and were streams seeded `seed`, `seed + 1`, ... worker 1's inputs would replay worker
0's filter choices.

Invariant: the same (seed, role, parts) always gives the same sequence, on every platform and
Python version (`random.Random` seeded with a str hashes it with SHA-512).
"""

from __future__ import annotations

import random


def stream(seed: int, role: str, *parts: object) -> random.Random:
    """The random stream of `role` under `seed` (and `parts`): independent of every other role's and seed's."""
    return random.Random(":".join(str(p) for p in ("mu2py", seed, role, *parts)))
