"""A mu2py driver for the ChocoPy type checker: bonsai (3,3,3) programs in, the typed AST (or the error) out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bonsai.bounds import Bounds
from bonsai.generator import BoundedGenerator
from bonsai.grammar import load_grammar
from mu2py import driver
from targets.chocopy.parser import ChocoPySyntaxError, parse
from targets.chocopy.typecheck import check_program

GRAMMAR = Path(__file__).resolve().parents[2] / "grammars" / "chocopy.lark"
# the semantic analysis, as in the Mu2 and Bonsai papers' ChocoPy target
CHECKER = ["targets.chocopy.typecheck", "targets.chocopy.declarations", "targets.chocopy.scopes",
           "targets.chocopy.types"]


@driver(BoundedGenerator(load_grammar(str(GRAMMAR)), Bounds(3, 3, 3)), targets=CHECKER)
def check(source: str) -> Any:
    """Type-check a generated program; a syntax error is an output (its message), not a failure."""
    try:
        program = parse(source)
    except ChocoPySyntaxError as exc:
        return ("syntax", str(exc))
    check_program(program)
    return ("ok", program.to_json())
