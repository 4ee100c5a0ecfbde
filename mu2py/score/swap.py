"""Mutants of a live module by swapping the code objects of its functions.

A test suite holds references to a package's functions everywhere (`from pkg import f`,
bound methods, registries), so a module copy would not be seen by it.  Swapping
`function.__code__` changes every reference at once and costs microseconds: the mutated
module is compiled (never executed), each of its function code objects is matched to the
live function with the same qualified name, and only the ones that differ are swapped.

Invariants: `restore()` puts back exactly the code objects taken; a swap either applies
completely or not at all (`SwapError`: a closure shape changed, or the function is not
reachable as a live object), in which case the mutant must run in a fresh process.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterator
from typing import Any


class SwapError(Exception):
    """The mutant cannot be applied by swapping code objects."""


def code_index(code: types.CodeType) -> dict[str, list[types.CodeType]]:
    """Every function code object nested in a module's code, by qualified name, in definition order."""
    index: dict[str, list[types.CodeType]] = {}

    def visit(current: types.CodeType) -> None:
        for const in current.co_consts:
            if isinstance(const, types.CodeType):
                index.setdefault(const.co_qualname, []).append(const)
                visit(const)

    visit(code)
    return index


def _functions_of(obj: Any, module_name: str, seen: set[int]) -> Iterator[types.FunctionType]:
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, (staticmethod, classmethod)):
        yield from _functions_of(obj.__func__, module_name, seen)
    elif isinstance(obj, property):
        for part in (obj.fget, obj.fset, obj.fdel):
            if part is not None:
                yield from _functions_of(part, module_name, seen)
    elif isinstance(obj, types.FunctionType):
        if obj.__module__ == module_name:
            yield obj
        wrapped = getattr(obj, "__wrapped__", None)  # functools.wraps decorators: swap the inner function
        if wrapped is not None:
            yield from _functions_of(wrapped, module_name, seen)
    elif isinstance(obj, type) and obj.__module__ == module_name:
        for value in list(vars(obj).values()):
            yield from _functions_of(value, module_name, seen)
    else:
        wrapped = getattr(obj, "__wrapped__", None)  # lru_cache and similar wrapper objects
        if isinstance(wrapped, types.FunctionType):
            yield from _functions_of(wrapped, module_name, seen)


def live_functions(module: types.ModuleType) -> dict[str, list[types.FunctionType]]:
    """The module's functions reachable from its namespace (incl. methods and wrapped functions), by qualname."""
    found: dict[str, list[types.FunctionType]] = {}
    seen: set[int] = set()
    for value in list(vars(module).values()):
        for fn in _functions_of(value, module.__name__, seen):
            found.setdefault(fn.__code__.co_qualname, []).append(fn)
    return found


class CodeSwap:
    """Applies compiled replacement code to one live module's functions, and restores it."""

    def __init__(self, module: types.ModuleType, original: types.CodeType) -> None:
        self.module = module
        self.functions = live_functions(module)
        self.original = code_index(original)
        self._taken: list[tuple[types.FunctionType, types.CodeType]] = []
        # memoized functions would answer a mutant from the original's cache (and vice versa)
        self._caches = [v for v in vars(module).values() if callable(getattr(v, "cache_clear", None))]

    def apply(self, replacement: types.CodeType) -> int:
        """Swap in every function code of `replacement` that differs from the original; returns how many.

        Functions sharing a qualified name (a property's getter and setter) are told apart
        by their position in definition order.  Raises SwapError, with nothing swapped,
        when a changed function cannot be swapped.
        """
        plan: list[tuple[types.FunctionType, types.CodeType]] = []
        for qualname, codes in code_index(replacement).items():
            originals = self.original.get(qualname, [])
            if len(originals) != len(codes):
                raise SwapError(f"{self.module.__name__}.{qualname}: the mutant defines it a different number of times")
            for original, code in zip(originals, codes, strict=True):
                if original == code or "<locals>" in qualname or not code.co_flags & inspect.CO_OPTIMIZED:
                    # nested functions are made at call time from their enclosing (swapped) code; class
                    # bodies differ only through the methods they hold (class-level mutants are static)
                    continue
                live = [fn for fn in self.functions.get(qualname, ()) if fn.__code__ == original]
                if not live:
                    raise SwapError(f"{self.module.__name__}.{qualname} is not reachable as a live function")
                for fn in live:
                    if len(fn.__code__.co_freevars) != len(code.co_freevars):
                        raise SwapError(f"{self.module.__name__}.{qualname}: closure shape differs")
                    plan.append((fn, code))
        for fn, code in plan:
            self._taken.append((fn, fn.__code__))
            fn.__code__ = code
        self.clear_caches()
        return len(plan)

    def apply_best_effort(self, replacement: types.CodeType) -> list[str]:
        """Swap in every function of `replacement` that can be swapped; returns the qualnames that could not."""
        skipped: list[str] = []
        for qualname, codes in code_index(replacement).items():
            originals = self.original.get(qualname, [])
            if "<locals>" in qualname or len(originals) != len(codes):
                continue
            for original, code in zip(originals, codes, strict=True):
                if original == code or not code.co_flags & inspect.CO_OPTIMIZED:
                    continue
                live = [fn for fn in self.functions.get(qualname, ()) if fn.__code__ == original]
                fits = [fn for fn in live if len(fn.__code__.co_freevars) == len(code.co_freevars)]
                if not fits:
                    skipped.append(qualname)
                for fn in fits:
                    self._taken.append((fn, fn.__code__))
                    fn.__code__ = code
        self.clear_caches()
        return skipped

    def clear_caches(self) -> None:
        """Empty the memo caches of the module's functions (they may hold a mutant's answers)."""
        for cached in self._caches:
            cached.cache_clear()

    def restore(self) -> None:
        """Put back every code object taken since the last restore (in reverse order)."""
        if not self._taken:
            return
        while self._taken:
            fn, code = self._taken.pop()
            fn.__code__ = code
        self.clear_caches()
