"""Probe runtime: records, during one run of the instrumented original, reached sites and infected mutants.

Soundness contract (what pruning relies on): after a run, a mutant that is neither
`static` nor in `infected` would, on the same input, have computed the same value as the
original at every evaluation of its site; by induction over the run it behaves exactly
like the original, so it cannot be killed by that input.  Probes therefore mark a mutant
infected whenever they cannot *prove* equality: operand types outside a small set of
builtin immutable scalars, an exception while evaluating, results too large to compute
cheaply, or a site whose evaluation started but never finished (`pending`).
"""

from __future__ import annotations

import math
import operator
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# keyed by the libcst operator class's name, so that the probes (which score workers unpickle) need no libcst
_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "Add": operator.add, "Subtract": operator.sub, "Multiply": operator.mul,
    "Divide": operator.truediv, "FloorDivide": operator.floordiv, "Modulo": operator.mod,
    "Power": operator.pow, "LeftShift": operator.lshift, "RightShift": operator.rshift,
    "BitAnd": operator.and_, "BitOr": operator.or_, "BitXor": operator.xor,
    "MatrixMultiply": operator.matmul,
}
_INPLACE: dict[str, Callable[[Any, Any], Any]] = {
    "AddAssign": operator.iadd, "SubtractAssign": operator.isub, "MultiplyAssign": operator.imul,
    "DivideAssign": operator.itruediv, "FloorDivideAssign": operator.ifloordiv,
    "ModuloAssign": operator.imod, "PowerAssign": operator.ipow, "LeftShiftAssign": operator.ilshift,
    "RightShiftAssign": operator.irshift, "BitAndAssign": operator.iand, "BitOrAssign": operator.ior,
    "BitXorAssign": operator.ixor, "MatrixMultiplyAssign": operator.imatmul,
}
# for immutable operands the in-place operator equals the plain one
_PLAIN_OF_INPLACE = {
    "AddAssign": operator.add, "SubtractAssign": operator.sub, "MultiplyAssign": operator.mul,
    "DivideAssign": operator.truediv, "FloorDivideAssign": operator.floordiv,
    "ModuloAssign": operator.mod, "PowerAssign": operator.pow, "LeftShiftAssign": operator.lshift,
    "RightShiftAssign": operator.rshift, "BitAndAssign": operator.and_, "BitOrAssign": operator.or_,
    "BitXorAssign": operator.xor,
}


def _in(a: Any, b: Any) -> bool:
    return a in b


def _not_in(a: Any, b: Any) -> bool:
    return a not in b


_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "LessThan": operator.lt, "LessThanEqual": operator.le, "GreaterThan": operator.gt,
    "GreaterThanEqual": operator.ge, "Equal": operator.eq, "NotEqual": operator.ne,
    "Is": operator.is_, "IsNot": operator.is_not, "In": _in, "NotIn": _not_in,
}


_SAFE = frozenset({int, float, bool, complex, str, bytes, type(None)})
_MAX_SEQ = 100_000  # a str/bytes repetition longer than this is not computed, only assumed infected
_MAX_SHIFT = 4096


def binary_op(node: type) -> Callable[[Any, Any], Any] | None:
    """The function computing a libcst binary operator, or None."""
    return _BINARY.get(node.__name__)


def compare_op(node: type) -> Callable[[Any, Any], Any] | None:
    """The function computing a libcst comparison operator, or None."""
    return _COMPARE.get(node.__name__)


def inplace_ops(node: type) -> tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]] | None:
    """(in-place, plain) functions for a libcst augmented-assignment operator, or None."""
    name = node.__name__
    if name in _INPLACE and name in _PLAIN_OF_INPLACE:
        return _INPLACE[name], _PLAIN_OF_INPLACE[name]
    return None


class _Different(Exception):
    pass


def _guarded(fn: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
    """fn(a, b), unless that could be expensive: then raise _Different (assume infected)."""
    if fn is operator.mul:
        if isinstance(a, (str, bytes)) and isinstance(b, int) and len(a) * max(b, 0) > _MAX_SEQ:
            raise _Different
        if isinstance(b, (str, bytes)) and isinstance(a, int) and len(b) * max(a, 0) > _MAX_SEQ:
            raise _Different
    elif fn is operator.lshift and isinstance(b, int) and b > _MAX_SHIFT:
        raise _Different
    elif fn is operator.pow and isinstance(b, (int, float)) and abs(b) > 64:
        raise _Different
    return fn(a, b)


def same(x: Any, y: Any) -> bool:
    """True when two builtin scalar results are certainly indistinguishable."""
    if type(x) is not type(y):
        return False
    if isinstance(x, float):
        if math.isnan(x) or math.isnan(y):
            return False
        return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)
    if isinstance(x, complex):
        return same(x.real, y.real) and same(x.imag, y.imag)
    return bool(x == y)


@dataclass
class SiteTable:
    """What a probe needs about one site: its kind and, per mutant, how to tell infection.

    `alts` pairs a global mutant index with an evaluator: a function of the operands
    (`bin`, `cmp`, `aug`), the marker "notnone" (infected iff the value is not None),
    "assign" (`x op= v` becoming `x = v`) or "always".
    """

    kind: str
    mutants: tuple[int, ...]
    original: Callable[[Any, Any], Any] | None = None
    alts: tuple[tuple[int, Any], ...] = ()


class ProbeRecorder:
    """The per-run record of the probes, and the probe functions injected into instrumented modules."""

    def __init__(self, tables: dict[int, SiteTable]) -> None:
        self.tables = tables
        self.reached: set[int] = set()
        self.infected: set[int] = set()
        self._done: set[int] = set()
        self._pending: Counter[int] = Counter()
        # the probed copies' module-level containers, put back before every run (set by whoever built them)
        self.containers: Any = None

    def reset(self) -> None:
        """Forget the previous run, and put the probed copies back in their post-import state."""
        if self.containers is not None:
            self.containers.reset()
        self.reached = set()
        self.infected = set()
        self._done = set()
        self._pending = Counter()

    def finish(self) -> None:
        """Close a run: sites whose evaluation began but did not end count as infected."""
        for sid, count in self._pending.items():
            if count > 0:
                self.infected.update(self.tables[sid].mutants)
        self._pending = Counter()

    def _all(self, sid: int) -> None:
        self.reached.add(sid)
        self.infected.update(self.tables[sid].mutants)
        self._done.add(sid)

    def functions(self) -> dict[str, Callable[..., Any]]:
        """The probe functions, by the global names the instrumenter calls."""
        tables = self.tables

        def hit(sid: int) -> None:
            if sid not in self._done:
                self._all(sid)

        def stmt(*sids: int) -> None:
            for sid in sids:
                if sid not in self._done:
                    self._all(sid)

        # also the probe of `x op= v`: an in-place op may change a mutable `a` before the
        # alternatives are compared, but _compare_alts only computes them for immutable operands
        def binary(sid: int, a: Any, b: Any) -> Any:
            table = tables[sid]
            if sid in self._done:
                return table.original(a, b)  # type: ignore[misc]  # a callable field, not a method
            self.reached.add(sid)
            try:
                result = table.original(a, b)  # type: ignore[misc]  # a callable field, not a method
            except BaseException:
                self._all(sid)
                raise
            self._compare_alts(sid, table, a, b, result)
            return result

        def enter(sid: int) -> None:
            self.reached.add(sid)
            self._pending[sid] += 1

        def ret(sid: int, value: Any) -> Any:
            self._pending[sid] -= 1
            if sid not in self._done and value is not None:
                self._all(sid)
            return value

        def val(sid: int, value: Any) -> Any:
            self._pending[sid] -= 1
            if sid not in self._done:
                for index, how in tables[sid].alts:
                    if how == "always" or value is not None:
                        self.infected.add(index)
            return value

        return {
            "__mu2_hit__": hit,
            "__mu2_stmt__": stmt,
            "__mu2_bin__": binary,
            "__mu2_cmp__": binary,
            "__mu2_aug__": binary,
            "__mu2_enter__": enter,
            "__mu2_ret__": ret,
            "__mu2_val__": val,
        }

    def _compare_alts(self, sid: int, table: SiteTable, a: Any, b: Any, result: Any) -> None:
        if type(a) not in _SAFE or type(b) not in _SAFE:
            self._all(sid)
            return
        open_alts = False
        for index, how in table.alts:
            if index in self.infected:
                continue
            if how == "always":
                self.infected.add(index)
                continue
            if how == "assign":
                if not same(result, b):
                    self.infected.add(index)
                else:
                    open_alts = True
                continue
            try:
                mutated = _guarded(how, a, b)
            except BaseException:  # noqa: BLE001 - any difference in behaviour is an infection
                self.infected.add(index)
                continue
            if not same(result, mutated):
                self.infected.add(index)
            else:
                open_alts = True
        if not open_alts:
            self._done.add(sid)
