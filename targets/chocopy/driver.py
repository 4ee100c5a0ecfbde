"""Fuzzing entry point: `typecheck(source)` returns the typed AST of a ChocoPy program as plain data."""

from __future__ import annotations

from typing import Any

# both imported at module level: mu2py copies bind module-level imports to the mutant's
# modules, while an import run inside `typecheck` would reach the original type checker
from targets.chocopy.parser import ChocoPySyntaxError, parse
from targets.chocopy.typecheck import check_program

__all__ = ["ChocoPySyntaxError", "typecheck"]


def typecheck(source: str) -> dict[str, Any]:
    """Parse and type-check `source`; return the typed AST JSON as dicts (raise ChocoPySyntaxError)."""
    program = parse(source)
    check_program(program)
    return program.to_json()
