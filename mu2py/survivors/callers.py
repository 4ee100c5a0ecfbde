"""The public callers of a private function: what a written test calls instead of the helper itself.

A test that calls `encode` asserts what users of the package see, and its one call runs every
helper `encode` reaches; a test of `_encode` pins a private interface a maintainer may change.
So `kill` aims at a private function's survivors through a public function or method of the
same module that reaches it by name first (see `public_callers`), and through the helper itself
only for what that leaves alive.

Reaching is by name, read from the module's source: a function (or method) reaches the names
its body mentions (`_encode(...)`, `self._encode(...)`), and so on through the private ones it
reaches.  A name is public when no part of it starts with `_`; a public class's `__init__` is
public too (`Class(...)` calls it).
"""

from __future__ import annotations

import ast


def _defs(tree: ast.Module) -> dict[str, set[str]]:
    """Per function of the module (`f`, or `Class.m` for a method of a top-level class), the names its body
    mentions: variables read and attributes (`self._helper` mentions `_helper`)."""
    found: dict[str, set[str]] = {}

    def mentioned(node: ast.AST) -> set[str]:
        names: set[str] = set()
        for part in ast.walk(node):
            if isinstance(part, ast.Name):
                names.add(part.id)
            elif isinstance(part, ast.Attribute):
                names.add(part.attr)
        return names

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found[node.name] = mentioned(node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found[f"{node.name}.{item.name}"] = mentioned(item)
    return found


def is_public(name: str) -> bool:
    """Whether a test may call `name` (`f` or `Class.m`) as a user would: no part private, or a public class's
    constructor."""
    parts = name.split(".")
    if len(parts) == 2 and parts[1] == "__init__":
        return not parts[0].startswith("_")
    return not any(part.startswith("_") for part in parts)


def public_callers(tree: ast.Module, function: str) -> list[str]:
    """The public functions and methods of the module in `tree` that reach `function` (`f` or `Class.m`) by name,
    nearest first (those calling it directly, then those reaching it through one private function, and so on),
    each once; in source order within a distance.  Empty for a public `function`."""
    if is_public(function):
        return []
    defs = _defs(tree)
    found: list[str] = []
    seen = {function}
    frontier = [function]
    while frontier:
        reached: list[str] = []
        for callee in frontier:
            short = callee.rpartition(".")[2]
            for caller, names in defs.items():
                if caller not in seen and short in names:
                    seen.add(caller)
                    # a public caller is where the search along this path ends: a test calls it
                    (found if is_public(caller) else reached).append(caller)
        frontier = reached
    return found
