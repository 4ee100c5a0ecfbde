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

    Invariant: where the mutated node's text could be found in the source (nearly always), `original` is
    exactly the source text from (`line`, `column`) to (`end_line`, `end_column`) (lines from 1, columns
    from 0, end exclusive), its line breaks and the parentheses around the node included, and `mutated` is
    what replaces it there; `one_line` shows either on one line.
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


TABLE_CELL = 60
"""The longest mutant text a table cell shows (the rest of a long span, say a whole `__all__`, is in the JSON)."""


def one_line(code: str, limit: int | None = None) -> str:
    """A mutant's text on one line, as a table or a summary line shows it (whitespace runs as one space).

    With `limit`, a longer text keeps its first `limit - 1` characters and ends in "…" (a table cell: the
    whole text is in the JSON output and `mu2py show`)."""
    text = " ".join(code.split())
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"
