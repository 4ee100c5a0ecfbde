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

import gc
import inspect
import types
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


def live_functions(module: types.ModuleType) -> dict[str, list[types.FunctionType]]:
    """Every live function whose globals are the module's namespace, by qualname.

    Found through the garbage collector rather than by walking the namespace, so lambdas
    kept in containers (`{"%d": lambda ...}`), closures made at import time and functions
    hidden behind decorators or registries are all found: a function object always refers
    to its globals.
    """
    namespace = vars(module)
    found: dict[str, list[types.FunctionType]] = {}
    for obj in gc.get_referrers(namespace):
        if isinstance(obj, types.FunctionType) and obj.__globals__ is namespace:
            found.setdefault(obj.__code__.co_qualname, []).append(obj)
    return found


class CodeSwap:
    """Applies compiled replacement code to one live module's functions, and restores it."""

    def __init__(self, module: types.ModuleType, original: types.CodeType) -> None:
        self.module = module
        self.functions = live_functions(module)
        self.original_code = original  # the unmutated module's code
        self.original = code_index(original)
        self._taken: list[tuple[types.FunctionType, types.CodeType]] = []
        # memoized functions would answer a mutant from the original's cache (and vice versa)
        self._caches = [v for v in vars(module).values() if callable(getattr(v, "cache_clear", None))]

    def plan_swaps(self, replacement: types.CodeType, strict: bool, original: types.CodeType | None = None
                   ) -> tuple[list[tuple[Any, types.CodeType]], list[tuple[str, str]]]:
        """The (function, new code) pairs that turn the live module into `replacement`, and the (qualname,
        reason) of what cannot be swapped.

        Nested functions (`<locals>`) are made at call time from their enclosing function's
        code, which is swapped itself; their live instances made earlier (closures built at
        import) are swapped too.  Class bodies differ only through the methods they hold
        (class-level mutants are static, see the catalog).
        """
        plan: list[tuple[Any, types.CodeType]] = []
        missing: list[tuple[str, str]] = []
        index = self.original if original is None else code_index(original)
        for qualname, codes in code_index(replacement).items():
            originals = index.get(qualname, [])
            nested = "<locals>" in qualname
            if len(originals) != len(codes):
                # a nested function with no live instance (a lambda made at each call) comes with its enclosing
                # function's code, swapped itself: only live instances would need pairing one to one
                if not (nested and not self.functions.get(qualname)):
                    missing.append((qualname, "the mutant defines it a different number of times"))
                continue
            for original, code in zip(originals, codes, strict=True):
                if original == code or not code.co_flags & inspect.CO_OPTIMIZED:
                    continue
                live = [fn for fn in self.functions.get(qualname, ()) if fn.__code__ == original]
                fits = [fn for fn in live if len(fn.__code__.co_freevars) == len(code.co_freevars)]
                if len(fits) < len(live):
                    missing.append((qualname, "closure shape differs"))
                elif not live and not nested:
                    missing.append((qualname, "not reachable as a live function"))
                if strict and missing:
                    return [], missing
                plan.extend((fn, code) for fn in fits)
        return plan, missing

    def apply(self, replacement: types.CodeType, original: types.CodeType | None = None) -> int:
        """Swap in every function code of `replacement` that differs from the original; returns how many.

        `original` is the unmutated code `replacement` was compiled beside: the whole module
        by default, or one statement of it compiled at the same lines (see `engine.payload`).
        Functions sharing a qualified name (lambdas, a property's getter and setter) are told
        apart by their position in definition order.  Raises SwapError, with nothing swapped,
        when a changed function cannot be swapped.
        """
        plan, missing = self.plan_swaps(replacement, strict=True, original=original)
        if missing:
            qualname, why = missing[0]
            raise SwapError(f"{self.module.__name__}.{qualname}: {why}")
        self._swap(plan)
        return len(plan)

    def plan(self, replacement: types.CodeType, original: types.CodeType | None = None
             ) -> list[tuple[Any, types.CodeType]]:
        """The swaps `apply(replacement, original)` would make, to apply later with `apply_plan` (SwapError as
        `apply`).  A plan stays valid as long as the module's functions are not re-created."""
        plan, missing = self.plan_swaps(replacement, strict=True, original=original)
        if missing:
            qualname, why = missing[0]
            raise SwapError(f"{self.module.__name__}.{qualname}: {why}")
        return plan

    def apply_plan(self, plan: list[tuple[Any, types.CodeType]]) -> None:
        """Make the swaps of a `plan` (undone by `restore`)."""
        self._swap(plan)

    def apply_best_effort(self, replacement: types.CodeType) -> list[str]:
        """Swap in every function of `replacement` that can be swapped; returns the qualnames that could not."""
        plan, missing = self.plan_swaps(replacement, strict=False)
        self._swap(plan)
        return [qualname for qualname, _ in missing]

    def _swap(self, plan: list[tuple[Any, types.CodeType]]) -> None:
        for fn, code in plan:
            self._taken.append((fn, fn.__code__))
            fn.__code__ = code
        self.clear_caches()

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
