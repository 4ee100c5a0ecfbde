"""Fuzzing entry point: `typecheck(source)` returns the typed AST of a ChocoPy program as plain data."""

from __future__ import annotations

from typing import Any

from targets.chocopy.parser import ChocoPySyntaxError, parse

__all__ = ["ChocoPySyntaxError", "typecheck"]


def typecheck(source: str) -> dict[str, Any]:
    """Parse and type-check `source`; return the typed AST JSON as dicts (raise ChocoPySyntaxError)."""
    from targets.chocopy.typecheck import check_program

    program = parse(source)
    check_program(program)
    return program.to_json()
