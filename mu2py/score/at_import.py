"""Execution analysis for import-time mutants: whether the mutated code runs when its module body is re-run.

An import-time mutant changes a module (or class) body.  When the body re-run with the
mutant in place (`reload`) never reaches the mutated code (`if __name__ == "__main__":`, an
`except ImportError:` fallback, `if TYPE_CHECKING:`, a branch for another platform), the
body computes what the original's computes, and no test can tell them apart: the mutant
survived, as a fresh interpreter running the whole suite finds, and is pruned without running a
test (`pruned` says why, as infection analysis does for a function mutant).

Only code the body runs eagerly counts: a mutant inside a function or lambda body, or a
generator expression, changes code that runs later, when called or iterated, and is never
pruned here.  The lines asked about are those of the innermost statement holding the mutant,
not the mutant's own: the compiler may fold a constant into one instruction on its
statement's first line (a tuple of constants over several lines), but a statement that runs
always reports a line of its own.  Invariant: a mutant is pruned only when its statement's
lines were traced and none of them ran; where they cannot be traced (another trace function
is set), nothing is.
"""

from __future__ import annotations

import ast
import builtins
import functools
import inspect
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

NOT_RUN = "not run at import"
"""A pruned mutant's `pruned`: its module's body, re-run with it in place, never reached it."""


@dataclass(frozen=True)
class Layout:
    """A module's source as this analysis reads it, line by line: the lines of code that runs later (`deferred`:
    function and lambda bodies, generator expressions; a function's decorators, defaults and annotations run with
    its `def`), and the lines of every statement (a decorated definition's from its first decorator).

    Lines, not columns: a line shared with deferred code counts as deferred (the catalog counts columns in
    characters, the parser in bytes), which only ever keeps a mutant from being pruned."""

    deferred: list[range]
    statements: list[range]

    @classmethod
    def of(cls, source: str) -> Layout:
        """The layout of `source` (which parses: it is a module under test)."""
        deferred: list[range] = []
        statements: list[range] = []
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
                deferred.append(range(node.body[0].lineno, _last(node) + 1))
            elif isinstance(node, ast.Lambda):
                deferred.append(range(node.body.lineno, _last(node.body) + 1))
            elif isinstance(node, ast.GeneratorExp):
                deferred.append(range(node.lineno, _last(node) + 1))
            if isinstance(node, ast.stmt):
                first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
                statements.append(range(first, _last(node) + 1))
        return cls(deferred, statements)

    def lines(self, first: int, last: int) -> range | None:
        """The lines of the innermost statement holding lines `first`..`last` when that code runs eagerly, else None
        (code on a line of deferred code, or in no statement)."""
        if any(first < d.stop and last >= d.start for d in self.deferred):
            return None
        holding = [s for s in self.statements if s.start <= first and last < s.stop]
        if not holding:
            return None
        # statements holding the same lines nest: the innermost starts last, and of those ends first
        return max(holding, key=lambda s: (s.start, -s.stop))


def _last(node: ast.AST) -> int:
    return int(getattr(node, "end_lineno", None) or getattr(node, "lineno", 0) or 0)


@contextmanager
def lines_run(filename: str) -> Iterator[set[int] | None]:
    """The lines of `filename`'s module and class bodies that run in this thread while the block runs, or None when
    they cannot be known: a trace function is set already (a debugger, a coverage tool), and stays alone.

    Function frames are not traced line by line: the statements asked about (`Layout.lines`) run in a module or
    class body, which reports their lines itself, before calling anything (a comprehension, a function the body
    calls); a body calling a function of its own file in a loop (a table built at import) costs no more."""
    if sys.gettrace() is not None:
        yield None
        return
    ran: set[int] = set()

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            ran.add(frame.f_lineno)
        return local

    def called(frame: Any, event: str, arg: Any) -> Any:
        # a global trace function sees each new frame: only this file's bodies are traced line by line (a function's
        # code object is optimized: its locals are fast locals, a body's are its namespace)
        code = frame.f_code
        return local if code.co_filename == filename and not code.co_flags & inspect.CO_OPTIMIZED else None

    sys.settrace(called)
    try:
        yield ran
    finally:
        sys.settrace(None)


# builtins that compute from their arguments alone: a call of one computes the same in any process
_PURE_CALLS = (dict, list, tuple, set, frozenset, str, bytes, int, float, bool, complex, range, slice, len, sorted,
               reversed, min, max, sum, zip, enumerate, abs, round, any, all, chr, ord, isinstance, functools.partial)


def computes_alike(node: ast.stmt, namespace: dict[str, Any], project: frozenset[str]) -> bool:
    """Whether the module-level statement `node` computes the same in every process that runs its module's body (a
    child process running the module as a script or importing it, and a worker re-running the body): an
    assignment or an expression statement whose every name is bound (`namespace`, then the builtins) to a class
    or function of the `project`'s modules, a named tuple's class, or a builtin that computes from its arguments
    alone, and whose calls call only those builtins and named tuple classes.

    Anything else may depend on the process: `__name__` (`"__main__"` in a script), a module (`sys.argv`,
    `os.environ`), a value an earlier statement computed (from the environment, maybe), a project function
    called (it may read any of those).  Only ever False for such a statement; False for some that do not."""
    if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.Expr)):
        return False
    called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and not isinstance(n.func, ast.Name):
            return False  # a method or an attribute called: any code
        if isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.NamedExpr,
                          ast.Await, ast.Yield, ast.YieldFrom, ast.Starred)):
            return False
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            # an unbound name reads as None, which is alike in no process's sense
            value = namespace[n.id] if n.id in namespace else vars(builtins).get(n.id)
            if not _alike(value, id(n) in called, project):
                return False
    return True


def _alike(value: Any, called: bool, project: frozenset[str]) -> bool:
    if any(value is pure for pure in _PURE_CALLS):
        return True
    if isinstance(value, type) and value.__bases__ == (tuple,) and "_fields" in vars(value):
        return True  # a named tuple's class: its `__new__` keeps its arguments
    if called:
        return False
    return isinstance(value, (type, types.FunctionType)) and getattr(value, "__module__", None) in project
