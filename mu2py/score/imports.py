"""Who binds and who reads what at import time: the static facts that make an in-place module reload sound.

A module-level mutant is re-run in place (see `reload`).  Two things can still hold the
original after that: a binding another module made with `from M import X` (it can be
patched, once found), and a value another module computed from `X` while it was being
imported (a default argument, a class attribute, a parametrized test's arguments): that
one cannot be recomputed, so a survivor in that case must be confirmed in a fresh
interpreter.  This module finds both from the sources, without importing anything.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class ModuleFacts:
    """One module's import-time bindings and reads.

    `bindings` maps a name bound by `from S import N [as alias]` at import time to
    (S, N), with relative imports resolved; `star` lists the modules it star-imports;
    `loads` and `attrs` are the names and attribute names that its import-time code reads
    (module body, class bodies, decorators, default values, annotations; not function bodies);
    `params` are those of them it reads only as whole argument values of `pytest.mark.parametrize`
    (`[(CSS3, TABLE)]`: each read of `TABLE` an element of an entry's tuple, or an entry itself), or
    as the argument values themselves, which pytest iterates (`parametrize("name", TABLE)`: those in
    `iterated` too).
    """

    name: str
    bindings: dict[str, tuple[str, str]]
    star: tuple[str, ...]
    loads: frozenset[str]
    attrs: frozenset[str]
    params: frozenset[str] = frozenset()
    iterated: frozenset[str] = frozenset()


def _resolve(module: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    parts = module.split(".") if module else []
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, *([target] if target else [])])


class _ImportTime(ast.NodeVisitor):
    """Collects what a module's import-time code binds and reads; function bodies run later and are skipped."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.is_package = is_package
        self.bindings: dict[str, tuple[str, str]] = {}
        self.star: list[str] = []
        self.loads: set[str] = set()
        self.attrs: set[str] = set()
        self.other: set[str] = set()  # names and attribute names read other than as a parametrize value too
        self._values: set[int] = set()  # ids of the nodes that are parametrize values (see `visit_Call`)
        self.iterated: set[str] = set()  # names and attribute names given as parametrize's argument values

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        source = _resolve(self.module, self.is_package, node.level, node.module)
        for alias in node.names:
            if alias.name == "*":
                self.star.append(source)
            else:
                self.bindings[alias.asname or alias.name] = (source, alias.name)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.loads.add(node.id)
            if id(node) not in self._values:
                self.other.add(node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.ctx, ast.Load):
            self.attrs.add(node.attr)
            if id(node) not in self._values:
                self.other.add(node.attr)
        self.generic_visit(node)  # `module.TABLE`: `module` is read as any name is

    def visit_Call(self, node: ast.Call) -> None:
        # `pytest.mark.parametrize(names, [(a, TABLE), ...])`: pytest hands each argument value as it is to the
        # test (a re-created value can take its place among the collected tests' parameters)
        func = node.func
        if (func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else "") \
                == "parametrize":
            given = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "argvalues"), None)
            if isinstance(given, (ast.List, ast.Tuple)):
                for entry in given.elts:
                    for value in entry.elts if isinstance(entry, (ast.List, ast.Tuple)) else [entry]:
                        if isinstance(value, (ast.Name, ast.Attribute)):
                            self._values.add(id(value))
            elif isinstance(given, (ast.Name, ast.Attribute)):
                self._values.add(id(given))
                self.iterated.add(given.id if isinstance(given, ast.Name) else given.attr)
        self.generic_visit(node)

    def _signature(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        args = node.args
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self.visit(default)
        if not isinstance(node, ast.Lambda):
            for decorator in node.decorator_list:
                self.visit(decorator)
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None and arg.annotation is not None:
                    self.visit(arg.annotation)
            if node.returns is not None:
                self.visit(node.returns)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._signature(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._signature(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._signature(node)


def module_facts(name: str, source: str, is_package: bool = False) -> ModuleFacts:
    """The import-time facts of one module's source (an unparsable source has none)."""
    visitor = _ImportTime(name, is_package)
    try:
        visitor.visit(ast.parse(source))
    except (SyntaxError, ValueError, RecursionError):
        pass
    return ModuleFacts(name, visitor.bindings, tuple(visitor.star), frozenset(visitor.loads),
                       frozenset(visitor.attrs), frozenset((visitor.loads | visitor.attrs) - visitor.other),
                       frozenset(visitor.iterated))


class ImportGraph:
    """The `from M import X` bindings between a set of modules, followed through re-exports."""

    def __init__(self, facts: Iterable[ModuleFacts]) -> None:
        self.facts = {f.name: f for f in facts}
        # the graph never changes and every reload asks about the same few names: answers are kept
        self._bindings: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self._readers: dict[tuple[str, str], list[str]] = {}

    def origin(self, module: str, name: str) -> tuple[str, str]:
        """Where `module.name` comes from, following `from S import N` re-exports among the known modules."""
        seen = set()
        while (module, name) not in seen:
            seen.add((module, name))
            facts = self.facts.get(module)
            if facts is None:
                break
            if name in facts.bindings:
                module, name = facts.bindings[name]
                continue
            star = [s for s in facts.star if s in self.facts and self._defines(s, name)]
            if not star:
                break
            module = star[0]
        return module, name

    def _defines(self, module: str, name: str) -> bool:
        facts = self.facts[module]
        return name in facts.bindings or not name.startswith("_")

    def bindings_of(self, module: str, name: str) -> list[tuple[str, str]]:
        """Every (module, alias) outside `module` whose import-time binding comes from `module.name`."""
        if (module, name) not in self._bindings:
            self._bindings[module, name] = self._find_bindings(module, name)
        return self._bindings[module, name]

    def _find_bindings(self, module: str, name: str) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        for other in self.facts.values():
            if other.name == module:
                continue
            aliases = [a for a in other.bindings if self.origin(other.name, a) == (module, name)]
            if not name.startswith("_") and any(self.origin(s, name) == (module, name) or s == module
                                                for s in other.star):
                aliases.append(name)
            found.extend((other.name, alias) for alias in aliases)
        return found

    def read_at_import(self, module: str, name: str) -> str | None:
        """A module other than `module` whose import-time code reads `module.name`, if any (conservative).

        An attribute read `.name` anywhere at import time counts, whatever object it is read from.
        """
        readers = self.readers_at_import(module, name)
        return readers[0] if readers else None

    def readers_at_import(self, module: str, name: str) -> list[str]:
        """Every module other than `module` whose import-time code reads `module.name` (as `read_at_import`)."""
        if (module, name) not in self._readers:
            self._readers[module, name] = self._find_readers(module, name)
        return self._readers[module, name]

    def read_as_parameter(self, reader: str, module: str, name: str) -> str | None:
        """How `reader` reads `module.name` at import time when it reads it only for parametrize (see
        `ModuleFacts.params`): "iterated" when the argument values are it, else "value" (what it read lives on in
        the collected tests' parameters alone); None when it reads it otherwise, or not at all."""
        other = self.facts.get(reader)
        if other is None:
            return None
        read = ([name] if name in other.attrs else []) + [
            a for a in other.loads if self.origin(other.name, a) == (module, name)]
        if not read or not all(r in other.params for r in read):
            return None
        return "iterated" if any(r in other.iterated for r in read) else "value"

    def _find_readers(self, module: str, name: str) -> list[str]:
        found = []
        for other in self.facts.values():
            if other.name == module:
                continue
            if name in other.attrs or any(self.origin(other.name, alias) == (module, name) for alias in other.loads):
                found.append(other.name)
        return found
