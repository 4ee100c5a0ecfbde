"""A score report's survivors grouped by the function that can kill them: what `mu2py kill` aims at.

A survivor here is any mutant the suite does not detect (`survived` or `no_coverage`). It is
aimed at through the function it lives in: its `scope` (`func`, `Class.method`, with any
`<locals>` part cut off, since a nested function is reached by calling its parent), or, for
an import-time mutant in a `def` line (a default value), the function whose definition holds
its line. A lambda bound to a name at module level or in a class body (`f = lambda x: ...`)
is a callable like a function, named by its binding (`f`, `Class.f`). Every other survivor
(module constants, class bodies, nested classes, lambdas bound to no name) is left out, with
the reason, in `Groups.left_out`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

UNDETECTED = ("survived", "no_coverage")


@dataclass
class Group:
    """The survivors of one function: `module`, `function` (`func` or `Class.method`), and their report entries."""

    module: str
    function: str
    mutants: list[dict[str, Any]] = field(default_factory=list)

    @property
    def qualname(self) -> str:
        """`module.function`."""
        return f"{self.module}.{self.function}"


@dataclass
class Groups:
    """Survivors by function, most survivors first (then by name), and the survivors no function holds."""

    groups: list[Group]
    left_out: list[tuple[dict[str, Any], str]]

    @property
    def aimed(self) -> int:
        """Survivors some group aims at."""
        return sum(len(g.mutants) for g in self.groups)


def function_of_scope(scope: str) -> str | None:
    """The callable a scope is reached through: `f.<locals>.g` -> `f`; None at module level or deeper than a method.

    >>> function_of_scope("Counter.bump.<locals>.inner")
    'Counter.bump'
    """
    parts = scope.split(".")
    cut = next((i for i, p in enumerate(parts) if p.startswith("<")), len(parts))
    parts = parts[:cut]
    if not parts or len(parts) > 2:
        return None  # `<module>`, or a method of a nested class (no driver builds those)
    return ".".join(parts)


def parsed(file: str) -> ast.Module | None:
    """The module in `file`, parsed; None when it cannot be read or parsed."""
    try:
        return ast.parse(Path(file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a block, those under its `if`s and `try`s included (a def written under a version check)."""
    found: list[ast.stmt] = []
    for node in body:
        found.append(node)
        if isinstance(node, ast.If):
            found += _statements(node.body) + _statements(node.orelse)
        elif isinstance(node, ast.Try):
            found += _statements(node.body) + _statements(node.orelse) + _statements(node.finalbody)
            for handler in node.handlers:
                found += _statements(handler.body)
    return found


def _lambda_bindings(body: list[ast.stmt]) -> list[tuple[str, ast.stmt, ast.Lambda]]:
    """(name, assignment, lambda) of each `name = lambda ...` (or `name: T = lambda ...`) in a block."""
    found: list[tuple[str, ast.stmt, ast.Lambda]] = []
    for node in _statements(body):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            target: ast.expr = node.targets[0]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Lambda):
            target = node.target
        else:
            continue
        if isinstance(target, ast.Name):
            found.append((target.id, node, node.value))
    return found


def _definitions(tree: ast.Module) -> list[tuple[int, int, str]]:
    found = []

    def add(node: ast.AST, prefix: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            last = node.body[0].lineno - 1 if node.body[0].lineno > node.lineno else node.lineno
            found.append((first, last, prefix + node.name))

    def add_lambdas(body: list[ast.stmt], prefix: str) -> None:
        # `f = lambda x, k=1: ...`: its defaults run at import, from the assignment to where the body starts
        found.extend((node.lineno, fn.body.lineno, prefix + name) for name, node, fn in _lambda_bindings(body))

    for node in tree.body:
        add(node, "")
        if isinstance(node, ast.ClassDef):
            for inner in node.body:
                add(inner, node.name + ".")
            add_lambdas(node.body, node.name + ".")
    add_lambdas(tree.body, "")
    return found


def definition_lines(file: str) -> list[tuple[int, int, str]]:
    """(first line, last line of the signature, `func` or `Class.method`) of every def of a module, top level
    and in top-level classes, and of every lambda bound to a name there: where its defaults and annotations
    are written."""
    tree = parsed(file)
    return _definitions(tree) if tree is not None else []


def _spans(node: ast.expr, line: int, column: int | None) -> bool:
    if not node.lineno <= line <= (node.end_lineno or node.lineno):
        return False
    if column is None:
        return True
    # columns decide only between two lambdas on one line
    after_start = line > node.lineno or column >= node.col_offset
    before_end = line < (node.end_lineno or node.lineno) or column < (node.end_col_offset or column + 1)
    return after_start and before_end


def _named(body: list[ast.stmt], name: str, line: int) -> ast.stmt | None:
    """The def or class `name` of a block: the one whose lines hold `line`, else the last (it is the one bound)."""
    named = [n for n in _statements(body)
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name]
    holding = [n for n in named if n.lineno <= line <= (n.end_lineno or n.lineno)]
    return (holding or named or [None])[-1]  # type: ignore[list-item]  # [None]: no such def or class


def callable_of(scope: str, line: int, column: int | None, tree: ast.Module | None) -> tuple[str | None, str]:
    """(`func`, `Class.method` or a lambda's binding name, "") for a per-call mutant in `scope` at `line`,
    or (None, why no driver reaches it).

    The scope is read against the module's source: a def's nested functions, classes and lambdas are
    reached through it; a lambda bound to a name at module level (`f = lambda x: ...`) or in a class
    body is a callable of its own, named by that binding. Without the source (or a scope the source
    does not show), `function_of_scope` decides.
    """
    if tree is not None:
        prefix: list[str]
        body, prefix = tree.body, []
        for part in scope.split("."):
            if part == "<lambda>":
                bound = [name for name, _, fn in _lambda_bindings(body) if _spans(fn, line, None)]
                exact = [name for name, _, fn in _lambda_bindings(body) if _spans(fn, line, column)]
                name = (exact or bound or [None])[0]  # type: ignore[list-item]  # [None]: no binding
                if name is None:
                    return None, "in a lambda bound to no name"
                return ".".join([*prefix, name]), ""
            node = _named(body, part, line)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return ".".join([*prefix, part]), ""
            if not isinstance(node, ast.ClassDef):
                break
            if prefix:
                return None, "in a nested class"
            prefix.append(part)
            body = node.body
    function = function_of_scope(scope)
    if function is not None:
        return function, ""
    if scope == "<module>":
        return None, "module level"
    return None, "in a lambda bound to no name" if scope.startswith("<lambda>") else "in a nested class"


def group_survivors(report: dict[str, Any]) -> Groups:
    """Group the undetected mutants of a `score` report (see the module docstring)."""
    by_key: dict[tuple[str, str], Group] = {}
    left_out: list[tuple[dict[str, Any], str]] = []
    trees: dict[str, ast.Module | None] = {}
    lines: dict[str, list[tuple[int, int, str]]] = {}
    for entry in report["mutants"]:
        if entry["status"] not in UNDETECTED:
            continue
        if entry["file"] not in trees:
            trees[entry["file"]] = parsed(entry["file"])
        tree = trees[entry["file"]]
        if entry["at_import"]:
            defs = lines.setdefault(entry["file"], _definitions(tree) if tree is not None else [])
            function = next((name for first, last, name in defs if first <= entry["line"] <= last), None)
            why = "module level"
        else:
            function, why = callable_of(entry["scope"], entry["line"], entry.get("column"), tree)
        if function is None:
            left_out.append((entry, why))
            continue
        group = by_key.setdefault((entry["module"], function), Group(entry["module"], function))
        group.mutants.append(entry)
    groups = sorted(by_key.values(), key=lambda g: (-len(g.mutants), g.module, g.function))
    return Groups(groups, left_out)
