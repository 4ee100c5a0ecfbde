"""A score report's survivors grouped by the function that can kill them: what `mu2py kill` aims at.

A survivor here is any mutant the suite does not detect (`survived` or `no_coverage`). It is
aimed at through the function it lives in: its `scope` (`func`, `Class.method`, with any
`<locals>` part cut off, since a nested function is reached by calling its parent), or, for
an import-time mutant in a `def` line (a default value), the function whose definition holds
its line. Every other survivor (module constants, class bodies, nested classes) is left
out, with the reason, in `Groups.left_out`.
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


def definition_lines(file: str) -> list[tuple[int, int, str]]:
    """(first line, last line of the signature, `func` or `Class.method`) of every def of a module, top level
    and in top-level classes: where its defaults and annotations are written."""
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return []
    found = []

    def add(node: ast.AST, prefix: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            last = node.body[0].lineno - 1 if node.body[0].lineno > node.lineno else node.lineno
            found.append((first, last, prefix + node.name))

    for node in tree.body:
        add(node, "")
        if isinstance(node, ast.ClassDef):
            for inner in node.body:
                add(inner, node.name + ".")
    return found


def group_survivors(report: dict[str, Any]) -> Groups:
    """Group the undetected mutants of a `score` report (see the module docstring)."""
    by_key: dict[tuple[str, str], Group] = {}
    left_out: list[tuple[dict[str, Any], str]] = []
    lines: dict[str, list[tuple[int, int, str]]] = {}
    for entry in report["mutants"]:
        if entry["status"] not in UNDETECTED:
            continue
        function = function_of_scope(entry["scope"]) if not entry["at_import"] else None
        if entry["at_import"]:
            defs = lines.setdefault(entry["file"], definition_lines(entry["file"]))
            function = next((name for first, last, name in defs if first <= entry["line"] <= last), None)
        if function is None:
            why = "module level" if entry["at_import"] or entry["scope"] == "<module>" else "in a nested class"
            left_out.append((entry, why))
            continue
        group = by_key.setdefault((entry["module"], function), Group(entry["module"], function))
        group.mutants.append(entry)
    groups = sorted(by_key.values(), key=lambda g: (-len(g.mutants), g.module, g.function))
    return Groups(groups, left_out)
