"""The likely-equivalent list: survivors that aimed fuzzing reached and infected many times and never killed.

A mutant whose mutated expression computed a different value on N inputs (infected) and yet
never changed an output, an exception or the time of any of them is probably equivalent: no
test can kill it. The list ranks the survivors still alive after re-scoring that fuzzing
reached, most infections first, then most reaching inputs; a survivor fuzzing never reached
is not evidence of anything and is only counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Likely:
    """One likely-equivalent survivor: the mutant, and the evidence (inputs reaching, infecting; runs survived)."""

    id: str
    file: str
    line: int
    original: str
    mutated: str
    reached: int
    infected: int
    runs: int

    def to_json(self) -> dict[str, Any]:
        """The JSON shape of one entry of `equivalents.json`."""
        return asdict(self)


def rank(alive: Iterable[dict[str, Any]], reached: Counter[str], infected: Counter[str],
         runs: Counter[str]) -> tuple[list[Likely], int]:
    """The reached survivors among `alive` (score report entries), ranked (see the module docstring), and how many
    were never reached by fuzzing."""
    found = []
    unreached = 0
    for m in alive:
        if not reached[m["id"]]:
            unreached += 1
            continue
        found.append(Likely(m["id"], m["file"], m["line"], m["original"], m["mutated"], reached[m["id"]],
                            infected[m["id"]], runs[m["id"]]))
    found.sort(key=lambda e: (-e.infected, -e.reached, e.id))
    return found, unreached
