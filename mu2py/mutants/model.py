"""The Mutant record: one syntactic change to one module, with a stable id."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Mutant:
    """One mutant of one module.

    `id` is stable: the same source text yields the same ids, in any process.  `site` is
    the index of the probed expression or statement the mutant lives in (several mutants
    share a site); `scope` is the qualified name of the enclosing function, or `<module>`
    at top level; `at_import` is True for code that runs when the module is imported
    (module and class bodies, default values), which is never pruned per input.
    """

    id: str
    module: str
    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    operator: str
    original: str
    mutated: str
    scope: str
    site: int
    at_import: bool

    def to_json(self) -> dict[str, Any]:
        """The JSON shape shared by `mu2py mutants --json`, `mutate --json` and mutants.json."""
        return asdict(self)
