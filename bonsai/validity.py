"""Every sample must parse: bonsai's samples of a grammar checked with the grammar's own Lark parser.

Shared by the test suite (lark's bundled grammars, a few hundred samples) and
`benchmarks/bonsai_validity.py` (tens of thousands).  `bundled_grammars` lists the grammars lark ships
that define rules (python.lark, lark.lark; common.lark and unicode.lark hold terminals only).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lark.exceptions import LarkError

from bonsai.bounds import Bounds
from bonsai.generator import BoundedGenerator
from bonsai.grammar import Grammar
from bonsai.lark_model import read_lark_grammar

__all__ = ["BUNDLED_STARTS", "Validity", "bundled_grammar", "bundled_grammars", "check_samples"]

BUNDLED_STARTS = {"python.lark": "file_input"}
"""Start rules of lark's bundled grammars that have no rule named `start`."""

PROGRESS_EVERY = 5.0
"""Seconds between two progress reports of `check_samples`."""


@dataclass
class Validity:
    """How many of `samples` samples of a grammar at `bounds` its parser rejected; the first few rejected texts."""

    grammar: str
    start: str
    bounds: Bounds
    samples: int = 0
    rejected: int = 0
    examples: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def line(self) -> str:
        """One line for a log: the grammar, start, bounds, rejected count and time."""
        return (f"{self.grammar} from {self.start} at {self.bounds}: {self.rejected} of {self.samples} samples "
                f"rejected by the grammar's parser ({self.seconds:.1f} s)")


def _lark_grammars() -> Path:
    import lark

    return Path(lark.__file__).parent / "grammars"


def bundled_grammar(name: str) -> Path:
    """The path of lark's bundled grammar `name` (e.g. ``python.lark``)."""
    return _lark_grammars() / name


def bundled_grammars() -> list[tuple[Path, str]]:
    """Lark's bundled grammars that define rules, each with its start rule (`BUNDLED_STARTS`, else ``start``)."""
    found = []
    for path in sorted(_lark_grammars().glob("*.lark")):
        # lark's own reading of the file: a grammar of terminals only (common.lark) is a library, not a language
        if read_lark_grammar(path.read_text(encoding="utf-8"), str(path), [str(path.parent)]).rule_defs:
            found.append((path, BUNDLED_STARTS.get(path.name, "start")))
    return found


def check_samples(grammar: Grammar, bounds: Bounds, samples: int, *, seed: int = 1, keep: int = 5,
                  progress: Callable[[Validity], None] | None = None) -> Validity:
    """Generate `samples` inputs of `grammar` at `bounds` and parse each with the grammar's own parser.

    Returns the count rejected and the first `keep` rejected texts; `progress` hears the running
    result every PROGRESS_EVERY seconds.  `Grammar.parse` checks: an LALR parser with shift/reduce
    conflicts gets a second opinion from Earley.
    """
    name = Path(grammar.source_path).name if grammar.source_path else "<grammar>"
    result = Validity(name, grammar.start, bounds)
    generator = BoundedGenerator(grammar, bounds)
    rng = random.Random(seed)
    started = last = time.perf_counter()
    for _ in range(samples):
        text = generator.generate(rng).text
        result.samples += 1
        try:
            grammar.parse(text)
        except LarkError:
            result.rejected += 1
            if len(result.examples) < keep:
                result.examples.append(text)
        now = time.perf_counter()
        result.seconds = now - started
        if progress is not None and now - last >= PROGRESS_EVERY:
            last = now
            progress(result)
    return result
