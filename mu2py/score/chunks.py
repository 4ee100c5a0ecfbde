"""A mutated module body compiled one top-level statement at a time: only the statements a mutant changes anew.

Re-running a module body with an import-time mutant needs the mutated module's code.  Compiled
whole, a module of 3,000 lines takes about 11 ms (most of it parsing), and such a module has
thousands of import-time mutants.  `Statements.of(source, file)` splits a module's original source
into its top-level statements (by line) and compiles each once, when first needed;
`Statements.body(mutated)` compiles only the statements whose lines the mutant changed, and
returns a `Body`: the statements' code objects, run in order in the module's namespace (`execute`).
A statement that lost lines (an argument on a line of its own removed) is padded after: the
statements after it keep their line numbers, and their code objects are the original's.

Invariant: running a `Body` does what running the whole mutated module's code does, statement by
statement: each statement's code (and the functions and classes it makes) is what compiling the
whole module makes of it, with the same file and line numbers (the original's, after a statement
that lost lines), and it raises what the whole code raises, at the same place; a trace of it sees
the lines its statements run, and lines past the module's end, never another line.  A module whose
top-level statements share a line, a mutant that adds lines, or one whose lost lines span
statements, is compiled whole (a `Body` of one code object).
"""

from __future__ import annotations
import __future__

import ast
import sys
import types
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Body:
    """A module body's code: its statements' code objects, in order."""

    codes: tuple[types.CodeType, ...]
    co_filename: str


def execute(body: Body | types.CodeType, namespace: dict[str, Any]) -> None:
    """Run `body` in `namespace`, as `exec` runs a module's code."""
    if isinstance(body, types.CodeType):
        exec(body, namespace)
        return
    for code in body.codes:
        exec(code, namespace)


class Statements:
    """One module's original source, split into its top-level statements (see the module docstring)."""

    def __init__(self, source: str, file: str) -> None:
        self.source, self.file = source, file
        self.lines = _lines(source)
        tree = ast.parse(source)
        # each statement's lines, a decorated definition's from its first decorator
        self.spans = [range(min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))]),
                            (node.end_lineno or node.lineno) + 1) for node in tree.body]
        # statements sharing a line (`a = 1; b = 2`), or a lone carriage return the parser counts as a line end
        self.whole = "\r" in source or any(a.stop > b.start for a, b in zip(self.spans, self.spans[1:], strict=False))
        # a string statement after the first would be taken for the module's docstring if compiled alone
        self.bare = [isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                     and isinstance(node.value.value, str) for node in tree.body]
        # the compiler calls a function of an imported module differently (no LOAD_METHOD): a statement compiled
        # alone must know every name the module's imports bind, from a line past the module's end (see `_statement`)
        imports = [ast.unparse(node) for node in _module_scope(tree)
                   if isinstance(node, ast.Import) or isinstance(node, ast.ImportFrom) and node.module != "__future__"
                   and not any(alias.name == "*" for alias in node.names)]
        self.prelude = "if 0: " + "; ".join(imports) if imports else ""
        self.flags = 0  # what `from __future__ import ...` at the top gives every later statement
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                for alias in node.names:
                    feature = getattr(__future__, alias.name, None)
                    # a feature this Python always has (`division`, `unicode_literals`): its statement leaves the
                    # code's flags as they are, but its flag given to `compile` sets them, and every function
                    # of the statement would differ from the original's
                    if feature is not None and not (feature.mandatory and sys.version_info >= feature.mandatory):
                        self.flags |= feature.compiler_flag
        self._codes: list[types.CodeType | None] = [None] * len(self.spans)

    @classmethod
    def of(cls, source: str, file: str) -> Statements:
        """The statements of `source` (a module under test, which parses), from `file`; made once per source."""
        found = _MADE.get((file, source))
        if found is None:
            found = _MADE[(file, source)] = cls(source, file)
        return found

    def body(self, mutated: str) -> Body:
        """The code of `mutated` (this source with the lines of some statements changed, or fewer lines in one):
        the statements holding a changed line compiled anew, the others as compiled once from the original.
        Raises SyntaxError as `compile` would."""
        lines = _lines(mutated)
        delta = len(lines) - len(self.lines)
        if self.whole or delta > 0:
            return Body((self._compile(mutated),), self.file)
        # the changed lines: from the first that differs to the last, counted from the end (original numbers)
        first = next((n for n, (a, b) in enumerate(zip(self.lines, lines, strict=False)) if a != b), len(lines)) + 1
        same_tail = next((n for n, (a, b) in enumerate(zip(reversed(self.lines), reversed(lines), strict=False))
                          if a != b), len(lines))
        # the lines gone lie at `first` or after (where neighbours are equal, either may be taken for the one gone)
        last = max(len(self.lines) - same_tail, first - 1 - delta)
        touched = [index for index, span in enumerate(self.spans) if span.start <= last and first < span.stop]
        if first <= last and (not touched or self.spans[touched[0]].start > first
                              or self.spans[touched[-1]].stop <= last or (delta and len(touched) > 1)):
            # a change between statements, or lines gone across statements: the whole decides
            return Body((self._compile(mutated),), self.file)
        codes = []
        for index, span in enumerate(self.spans):
            if index in touched:
                # a statement that lost lines is padded after: the statements after it keep their lines, and their
                # code is the original's (compiled whole, it would be the same but for its line numbers)
                text = "".join(lines[span.start - 1:span.stop - 1 + delta]) + "\n" * -delta
                codes.append(self._statement(text, index))
            else:
                code = self._codes[index]
                if code is None:
                    code = self._codes[index] = self._statement("".join(self.lines[span.start - 1:span.stop - 1]),
                                                                index)
                codes.append(code)
        return Body(tuple(codes), self.file)

    def _statement(self, text: str, index: int) -> types.CodeType:
        """Statement `index` of the module, whose lines are `text`, compiled with its own line numbers."""
        span = self.spans[index]
        # blank lines before it give the statement its own line numbers; a string statement after the first would
        # be taken for the module's docstring if compiled alone: a `global` declaration before it (no code, no line
        # event) keeps it a statement
        padding = "\n" * (span.start - 1)
        if index and self.bare[index]:
            padding = "\n" * (span.start - 2) + "global __mu2py_statement__\n"
        source = padding + text + ("" if text.endswith("\n") else "\n")
        if self.prelude:
            # the prelude past the module's last line: the lines it makes code for (a NOP for its `if 0:`, the
            # implicit return) are lines of no statement, which the trace of a re-run body may see run
            source += "\n" * (len(self.lines) + 1 - source.count("\n")) + self.prelude + "\n"
        return self._compile(source)

    def _compile(self, source: str) -> types.CodeType:
        return compile(source, self.file, "exec", flags=self.flags, dont_inherit=True)


def _module_scope(tree: ast.Module) -> list[ast.AST]:
    """The statements of the module's own scope, at any depth (`if`, `try`, `with` bodies), not in a function or
    class."""
    found: list[ast.AST] = []
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            pending.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))
    return found


def _lines(source: str) -> list[str]:
    """`source`'s lines, each with its newline: split where the parser counts a new line (`str.splitlines` also
    splits at a form feed, which the parser does not)."""
    parts = source.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


_MADE: dict[tuple[str, str], Statements] = {}  # per (file, source): the statements, in this process
