"""What a host needs to apply one mutant: the changed function code, compiled once from its top-level statement.

A mutant inside a function body changes only that function's code object.  Compiling the
whole mutated module for it (tens of milliseconds on a large module) is wasted work: the
mutated text of the enclosing *top-level statement* (a `def`, a `class`, an `if` block),
padded with blank lines so that every line number is the module's own and compiled with
the module's `__future__` flags, yields code objects equal to the module's for every
function the mutation did not touch.  Comparing the compiled original and mutated snippets
position by position names exactly the functions to swap.

A mutant inside a method of a class compiles that method alone, under a bare `class NAME:`
line per enclosing class: a class of hundreds of methods costs one method's compile.

Invariants: a `swap` payload's `original` snippet compiles to function code objects equal
(`==`) to the module's own for the same qualified names, so a host finds the live functions
to swap by equality; a mutant whose change reaches code that runs at import time (module or
class bodies, defaults, decorators) is a `copy` payload, applied by re-importing.
"""

from __future__ import annotations
import __future__

import ast
import bisect
import marshal
import re
import types
from dataclasses import dataclass

from mu2py.engine.swap import code_index
from mu2py.target.modules import TargetModule

_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag
_NEWLINE = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Payload:
    """How to apply mutant `index` of module `module` (see the module docstring).

    `kind` is `swap` (replace function code: `original` and `mutated` are marshalled snippet
    code objects), `copy` (re-import the module from the original source with `span`
    replaced by `text`; a `swap` payload carries these too, for when swapping is refused),
    or `error` (the mutated source does not compile: `text` says why).
    """

    index: int
    module: str
    kind: str
    original: bytes = b""
    mutated: bytes = b""
    span: tuple[int, int] | None = None
    text: str = ""

    def codes(self) -> tuple[types.CodeType, types.CodeType]:
        """The original and mutated snippet code objects of a `swap` payload."""
        return marshal.loads(self.original), marshal.loads(self.mutated)


class ModuleLayout:
    """One module's top-level statements as line ranges, its line offsets and its `__future__` flags."""

    def __init__(self, info: TargetModule, module_code: types.CodeType) -> None:
        self.info = info
        self.flags = module_code.co_flags & _FUTURE_FLAGS
        source = info.source
        self.line_starts = [0] + [m.end() for m in _NEWLINE.finditer(source)]
        self.ranges: list[tuple[int, int]] = []
        self._strings: list[bool] = []
        tree = ast.parse(source, filename=info.file)
        for stmt in tree.body:
            first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
            self.ranges.append((first, stmt.end_lineno or stmt.lineno))
            self._strings.append(isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                                 and isinstance(stmt.value.value, str))
        self._firsts = [r[0] for r in self.ranges]
        self._imports = _import_line(tree)
        # statements sharing a line (`a = 1; b = 2`) cannot be cut apart by lines: merge their ranges
        merged: list[tuple[int, int]] = []
        strings: list[bool] = []
        for (lo, hi), is_string in zip(self.ranges, self._strings, strict=True):
            if merged and lo <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
                strings[-1] = False
            else:
                merged.append((lo, hi))
                strings.append(is_string)
        self.ranges, self._strings = merged, strings
        self._firsts = [r[0] for r in self.ranges]
        # per statement's line range: its original snippet compiled, and marshalled (see payload)
        self._originals: dict[tuple[int, int], tuple[types.CodeType, bytes]] = {}
        self._module_code = module_code
        self._module_index: dict[str, list[types.CodeType]] | None = None  # code_index of the module, when asked
        self._methods = sorted(_methods(tree))
        self._method_firsts = [m[0] for m in self._methods]
        self._narrow: dict[tuple[int, int], tuple[str, types.CodeType, bytes] | None] = {}

    def is_string(self, k: int) -> bool:
        """Whether top-level statement `k` is a bare string expression."""
        return self._strings[k]

    def text(self, first: int, last: int, span: tuple[int, int] | None = None, replacement: str = "") -> str:
        """The source of lines first..last, with characters `span` replaced by `replacement` when given."""
        lo, hi = self._offset(first), self._end_offset(last)
        source = self.info.source
        if span is None:
            return source[lo:hi]
        return source[lo:span[0]] + replacement + source[span[1]:hi]

    def _line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)

    def statement_index(self, start: int, end: int) -> int | None:
        """The index of the top-level statement holding characters [start, end), or None."""
        first, last = self._line_of(start), self._line_of(max(start, end - 1))
        k = bisect.bisect_right(self._firsts, first) - 1
        if k < 0:
            return None
        lo, hi = self.ranges[k]
        return k if lo <= first and last <= hi else None

    def statement(self, start: int, end: int) -> tuple[int, int] | None:
        """The (first, last) lines of the top-level statement holding characters [start, end), or None."""
        k = self.statement_index(start, end)
        return None if k is None else self.ranges[k]

    def _offset(self, line: int) -> int:
        return self.line_starts[line - 1]

    def _end_offset(self, line: int) -> int:
        return self.line_starts[line] if line < len(self.line_starts) else len(self.info.source)

    def compile_snippet(self, text: str, first_line: int, *, to_run: bool = False) -> types.CodeType:
        """Compile statement text that starts on `first_line`, with the module's file name and future flags.

        The compiler emits different (equivalent) code for `name.attr(...)` when `name` is bound by
        an import anywhere in the module, so, for a snippet whose function code objects must equal
        the module's, the module's import-bound names are declared too, by an import line after the
        statement.  That line must never run: pass `to_run=True` for code that is executed.
        """
        body = "\n" * (first_line - 1) + text
        if self._imports and not to_run:
            body += ("" if body.endswith("\n") else "\n") + self._imports
        return compile(body, self.info.file, "exec", flags=self.flags, dont_inherit=True)

    def payload(self, index: int, span: tuple[int, int] | None, text: str, per_call: bool) -> Payload:
        """The payload of a mutant replacing `span` of the source by `text` (see the module docstring)."""
        name = self.info.name
        copy = Payload(index, name, "copy", span=span, text=text)
        if span is None or not per_call:
            return copy
        lines = self.statement(*span)
        if lines is None:
            return copy
        narrow = self._method_snippet(*span)
        if narrow is not None:  # a method of a (large) class: compile the method alone, not the whole class
            header, first, last, original, original_bytes = narrow
            try:
                mutated = self.compile_snippet(header + self.text(first, last, span, text),
                                               first - header.count("\n"))
            except (SyntaxError, ValueError) as exc:
                return Payload(index, name, "error", text=f"{type(exc).__name__}: {exc}")
        else:
            original_text = self.text(*lines)
            mutated_text = self.text(*lines, span, text)
            try:
                mutated = self.compile_snippet(mutated_text, lines[0])
            except (SyntaxError, ValueError) as exc:
                return Payload(index, name, "error", text=f"{type(exc).__name__}: {exc}")
            found = self._originals.get(lines)
            if found is None:  # one compile per statement: its mutants (tens in a class) share the original
                code = self.compile_snippet(original_text, lines[0])
                found = self._originals[lines] = (code, marshal.dumps(code))
            original, original_bytes = found
        if not _changes_functions_only(original, mutated):
            return copy
        return Payload(index, name, "swap", original=original_bytes, mutated=marshal.dumps(mutated),
                       span=span, text=text)

    def _method_snippet(self, start: int, end: int
                        ) -> tuple[str, int, int, types.CodeType, bytes] | None:
        """For characters inside a method of a top-level class: (header, first, last line, original code, marshalled).

        The snippet is the method's own lines under one `class NAME:` line per enclosing class,
        on the lines just above it, so that every function code object in it equals the module's
        (same qualified names, lines, columns and name mangling); a method for which that does
        not hold, checked once against the module's code, is not narrowed (None).
        """
        first, last = self._line_of(start), self._line_of(max(start, end - 1))
        k = bisect.bisect_right(self._method_firsts, first) - 1
        if k < 0:
            return None
        lo, hi, classes = self._methods[k]
        if last > hi:
            return None
        if (lo, hi) not in self._narrow:
            self._narrow[(lo, hi)] = self._checked_method(lo, hi, classes)
        found = self._narrow[(lo, hi)]
        if found is None:
            return None
        header, code, marshalled = found
        return header, lo, hi, code, marshalled

    def _checked_method(self, lo: int, hi: int, classes: tuple[tuple[int, str], ...]
                        ) -> tuple[str, types.CodeType, bytes] | None:
        """A method's snippet (header, code, marshalled) if its function code objects equal the module's; else None."""
        header = "".join(f"{' ' * column}class {name}:\n" for column, name in classes)
        try:
            code = self.compile_snippet(header + self.text(lo, hi), lo - len(classes))
        except (SyntaxError, ValueError):
            return None
        if self._module_index is None:
            self._module_index = code_index(self._module_code)
        module = self._module_index
        same = all(any(c == m for m in module.get(q, ())) for q, codes in code_index(code).items()
                   for c in codes if c.co_flags & 0x1)  # CO_OPTIMIZED: the functions, not the class bodies
        return (header, code, marshal.dumps(code)) if same else None


def _methods(tree: ast.Module) -> list[tuple[int, int, tuple[tuple[int, str], ...]]]:
    """(first line with decorators, last line, enclosing classes as (column, name)) of each method reached from a
    top-level class through class bodies only; classes with type parameters are left out (their methods see them
    through an annotation scope a bare `class NAME:` header lacks)."""
    found: list[tuple[int, int, tuple[tuple[int, str], ...]]] = []

    def visit(cls: ast.ClassDef, chain: tuple[tuple[int, str], ...]) -> None:
        if getattr(cls, "type_params", None):
            return
        chain = (*chain, (cls.col_offset, cls.name))
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([stmt.lineno, *(d.lineno for d in stmt.decorator_list)])
                found.append((first, stmt.end_lineno or stmt.lineno, chain))
            elif isinstance(stmt, ast.ClassDef):
                visit(stmt, chain)

    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef):
            visit(stmt, ())
    return found


def _import_line(tree: ast.Module) -> str:
    """One `import` statement binding every name the module binds by import at module scope."""
    names: list[str] = []

    def visit(body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for alias in stmt.names:
                    if alias.name != "*":
                        names.append(alias.asname or alias.name.partition(".")[0])
            elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                # imports nested in if/try/with/for blocks still bind at module scope
                for field in ("body", "orelse", "finalbody", "handlers"):
                    for part in getattr(stmt, field, ()):
                        visit(part.body if isinstance(part, ast.ExceptHandler) else [part])
                for case in getattr(stmt, "cases", ()):
                    visit(case.body)

    visit(tree.body)
    unique = list(dict.fromkeys(names))
    return f"import {', '.join(f'_ as {n}' for n in unique)}\n" if unique else ""


def _changes_functions_only(original: types.CodeType, mutated: types.CodeType) -> bool:
    """True when the two snippets define the same functions and differ in at least one of them only.

    The statement's own code differs whenever a function in it does (function code objects
    are its constants); what must not differ is anything else it computes at import time,
    which shows as a difference once function code objects are blanked out.
    """
    before, after = code_index(original), code_index(mutated)
    if {q: len(c) for q, c in before.items()} != {q: len(c) for q, c in after.items()}:
        return False
    if not any(a != b for q in before for a, b in zip(before[q], after[q], strict=True)):
        return False
    return _import_time(original) == _import_time(mutated)


def _import_time(code: types.CodeType) -> tuple[object, ...]:
    """What a code object runs at import time, with nested function bodies left out."""
    consts = tuple(
        ("<code>", c.co_qualname, c.co_argcount, c.co_kwonlyargcount, c.co_flags, c.co_freevars)
        if isinstance(c, types.CodeType) and c.co_flags & 0x1  # CO_OPTIMIZED: a function body, run per call
        else (_import_time(c) if isinstance(c, types.CodeType) else (type(c).__name__, c))
        for c in code.co_consts
    )
    return (code.co_code, consts, code.co_names)
