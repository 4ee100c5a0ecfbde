"""The differential oracle: does a mutant's run differ observably from the original's on one input?

Outputs are compared by `==` first, then by structure (`compare`): an iterative walk over both
values at once, so nesting deeper than the recursion limit, cycles and shared parts cost one
visit each, and at most MAX_NODES pairs are visited. When that bound is reached the answer is
"undecided", which the oracle counts as "not different": a mutant is never killed because its
output was too big to compare.

Warnings are outputs too: the ones a run emits (`RunResult.warnings`: category, message, the file and
line they are attributed to, which `stacklevel` decides) are compared in order, memory addresses left
out of messages, whenever the original's are comparable (not None: a caller sets None when two runs of
the original on the input emit different ones).
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
from collections.abc import Callable
from enum import Enum, StrEnum
from typing import Any

from mu2py.engine.runs import RunResult, Status, Warned


class KillReason(StrEnum):
    """Why a mutant counts as killed (the `reason` field of the JSON reports)."""

    OUTPUT = "output"
    EXCEPTION = "exception"
    TIMEOUT = "timeout"
    CRASH = "crash"  # the process running the mutant died (os._exit, a signal, a fatal error)
    WARNING = "warning"  # the same outcome, with other warnings (category, message or where they point)


# pairs of values `compare` visits before it gives up with "undecided"
MAX_NODES = 1_000_000
_ATOMS = (str, bytes, int, bool, type(None), complex)
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_CALLABLES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.MethodWrapperType,
              types.WrapperDescriptorType, types.MethodDescriptorType, types.ClassMethodDescriptorType)


def identity_free_repr(value: Any) -> str:
    """`repr(value)` without memory addresses (they differ between runs); the type's name if repr fails."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken or too deep __repr__ leaves the type as the only fact
        cls = type(value)
        return f"<{cls.__module__}.{cls.__qualname__}>"
    return _ADDRESS.sub("", text)


def _qualified(obj: Any) -> str:
    return f"{getattr(obj, '__module__', None)}.{getattr(obj, '__qualname__', None) or getattr(obj, '__name__', '?')}"


def shallow(value: Any) -> tuple[tuple[Any, ...], list[Any]]:
    """One level of a value's structure: a label (plain data, equal for equal values) and its parts.

    Two values are structurally equal when their labels are equal and their parts are,
    pairwise. Classes are named by module and qualified name, since copies of a module
    define distinct classes with the same name (a mutant's instances never `==` the
    original's). Objects without a value of their own (functions, methods, modules,
    classes) are labelled by name only; other objects without state by identity-free repr.
    """
    if isinstance(value, _ATOMS):
        return ("v", value), []
    if isinstance(value, float):
        return (("nan",) if math.isnan(value) else ("v", value)), []
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, len(value)), list(value)
    if isinstance(value, dict):
        parts: list[Any] = []
        for key, item in value.items():
            parts += (key, item)
        return ("dict", len(value)), parts
    if isinstance(value, (set, frozenset)):
        # unordered: members compared by their identity-free reprs, in sorted order
        return (type(value).__name__, tuple(sorted(identity_free_repr(v) for v in value))), []
    if isinstance(value, BaseException):
        return ("exc", type(value).__qualname__), [value.args]
    if isinstance(value, types.ModuleType):
        return ("module", value.__name__), []
    if isinstance(value, type):
        return ("class", _qualified(value)), []
    if isinstance(value, _CALLABLES):
        inner = getattr(value, "__func__", value)
        return ("callable", type(value).__name__, _qualified(inner)), []
    cls = type(value)
    name = _qualified(cls)
    if isinstance(value, Enum):
        return (name, value.name), []
    if dataclasses.is_dataclass(value):
        fields = dataclasses.fields(value)
        return (name, tuple(f.name for f in fields)), [getattr(value, f.name, None) for f in fields]
    state = getattr(value, "__dict__", None)
    slots = [s for c in cls.__mro__ for s in getattr(c, "__slots__", ()) if s not in ("__dict__", "__weakref__")]
    if isinstance(state, dict) or slots:
        return (name, tuple(slots)), [state if isinstance(state, dict) else None,
                                      *(getattr(value, s, None) for s in slots)]
    return (name, identity_free_repr(value)), []


def compare(original: Any, mutant: Any, max_nodes: int = MAX_NODES) -> bool | None:
    """True when the values are equal (by `==` or by structure), False when they differ, None when undecided.

    Linear in the size of the values (each pair of parts is visited once, so cycles end),
    with no recursion (so no depth limit), and bounded by `max_nodes` visits.
    """
    try:
        if original == mutant:
            return True
    except Exception:  # noqa: BLE001 - a broken __eq__ or a RecursionError on deep values: compare by structure
        pass
    stack = [(original, mutant)]
    seen: set[tuple[int, int]] = set()
    keep: list[Any] = []  # the parts visited stay alive, so that their ids in `seen` are not reused
    visits = 0
    while stack:
        a, b = stack.pop()
        visits += 1
        if visits > max_nodes:
            return None
        label_a, parts_a = shallow(a)
        label_b, parts_b = shallow(b)
        try:
            same = bool(label_a == label_b)
        except Exception:  # noqa: BLE001 - an atom whose == raises (a str subclass...) decides: different
            same = False
        if not same or len(parts_a) != len(parts_b):
            return False
        if not parts_a:
            continue
        pair = (id(a), id(b))
        if pair in seen:
            continue  # shared or cyclic: already compared (or being compared) along another path
        seen.add(pair)
        keep.append((a, b))
        stack.extend(zip(reversed(parts_a), reversed(parts_b), strict=True))
    return True


def default_compare(original: Any, mutant: Any) -> bool:
    """Equal by `==` or by structure (see `compare`); undecided counts as equal (never a kill)."""
    return compare(original, mutant) is not False


def _plain(warned: Warned) -> Warned:
    category, message, file, line = warned
    return (category, _ADDRESS.sub("", message), file, line) if " at 0x" in message else warned


def same_warnings(original: tuple[Warned, ...] | None, mutant: tuple[Warned, ...] | None) -> bool:
    """Whether two runs emitted the same warnings, in the same order, memory addresses in messages left out; True
    when either is None (not comparable)."""
    if original is None or mutant is None or original == mutant:
        return True
    return len(original) == len(mutant) and all(
        a == b or _plain(a) == _plain(b) for a, b in zip(original, mutant, strict=True))


def warning_difference(original: tuple[Warned, ...] | None, mutant: tuple[Warned, ...] | None) -> str:
    """The first warning on which two runs differ, for a verdict's detail: `DeprecationWarning at pkg/mod.py:7`."""
    if original is None or mutant is None:
        return ""
    for k in range(max(len(original), len(mutant))):
        a = original[k] if k < len(original) else None
        b = mutant[k] if k < len(mutant) else None
        if a is None or b is None or _plain(a) != _plain(b):
            category, _, file, line = b if b is not None else a  # type: ignore[misc]  # one of a, b is set (see the if)
            return f"{'no ' if b is None else ''}{category.rpartition('.')[2]} at {file}:{line}"
    return ""


def kill_reason(
    original: RunResult,
    mutant: RunResult,
    compare: Callable[[Any, Any], bool] | None = None,
    *,
    differential: bool = True,
    messages: bool = False,
) -> KillReason | None:
    """Why `mutant` is killed on this input, or None when it survives.

    Killed when: it times out and the original did not; its exceptional behaviour differs
    (raises where the original returned, returns where it raised, or raises another type, or,
    with `messages`, the same type with another message); or (differential oracle only) both
    returned and `compare` says the outputs differ; or (differential oracle only), the outcome
    being the same, the warnings differ (`same_warnings`).  With `differential=False` this is
    the implicit, exceptions-only oracle.
    """
    if mutant.status is Status.TIMEOUT:
        return None if original.status is Status.TIMEOUT else KillReason.TIMEOUT
    if original.status is Status.TIMEOUT:
        return None
    if mutant.status is Status.EXCEPTION or original.status is Status.EXCEPTION:
        if not differential and original.status is Status.EXCEPTION:
            return None
        if mutant.status != original.status or mutant.exc_type != original.exc_type:
            return KillReason.EXCEPTION
        if messages and differential and mutant.exc_message != original.exc_message:
            return KillReason.EXCEPTION
        return _warnings_reason(original, mutant, differential)
    if not differential:
        return None
    try:
        equal = (compare or default_compare)(original.output, mutant.output)
    except Exception:  # noqa: BLE001 - a compare that raises on the mutant's output is a difference
        equal = False
    return _warnings_reason(original, mutant, differential) if equal else KillReason.OUTPUT


def _warnings_reason(original: RunResult, mutant: RunResult, differential: bool) -> KillReason | None:
    if not differential or same_warnings(original.warnings, mutant.warnings):
        return None
    return KillReason.WARNING
