"""A module's own literals as a fuzzing dictionary for its `str` and `int` parameters."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

# the fuzzing dictionary of a module: string literals up to this length, at most this many of each type
MAX_CONSTANT_LENGTH = 40
MAX_CONSTANTS = 1000


def module_constants(module: str) -> dict[type, tuple[Any, ...]]:
    """The short string literals and the integer literals (each with its neighbours) of a module's source, sorted.

    They are offered to `str` and `int` parameters next to random values (a fuzzing
    dictionary): a mutant of a module's own constant is killed only by an input containing it.
    """
    file = getattr(sys.modules.get(module), "__file__", None)
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8")) if file else None
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        tree = None
    if tree is None:
        return {}
    docstrings = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            docstrings.add(id(body[0].value))
    strings: set[str] = set()
    ints: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or id(node) in docstrings:
            continue
        if type(node.value) is str and 0 < len(node.value) <= MAX_CONSTANT_LENGTH:
            strings.add(node.value)
        elif type(node.value) is int and abs(node.value) < 2**63:
            ints.update((node.value - 1, node.value, node.value + 1, -node.value))
    return {str: tuple(sorted(strings))[:MAX_CONSTANTS], int: tuple(sorted(ints))[:MAX_CONSTANTS]}


def with_constants(strategy: SearchStrategy[Any], kind: Any, how: str,
                   constants: dict[type, tuple[Any, ...]]) -> tuple[SearchStrategy[Any], str]:
    """`strategy` or one of the module's constants of type `kind` (`str`, `int`), and `how` saying so."""
    pool = constants.get(kind) if kind in (str, int) else None
    if not pool:
        return strategy, how
    return st.one_of(strategy, st.sampled_from(pool)), f"{how} or one of {len(pool)} module constants"

