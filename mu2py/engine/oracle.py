"""The differential oracle: does a mutant's run differ observably from the original's on one input?"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from enum import Enum, StrEnum
from typing import Any

from mu2py.engine.runs import RunResult, Status


class KillReason(StrEnum):
    """Why a mutant counts as killed (the `reason` field of the JSON reports)."""

    OUTPUT = "output"
    EXCEPTION = "exception"
    TIMEOUT = "timeout"
    CRASH = "crash"  # the process running the mutant died (os._exit, a signal, a fatal error)


def _normalize(value: Any, depth: int = 0) -> Any:
    """Plain data for a value, with classes named by module and qualified name.

    Copies of a module define distinct classes with the same name, so instances made by
    a mutant never `==` the original's; comparing normalized forms compares structure.
    """
    if depth > 50:
        return repr(value)
    if isinstance(value, (str, bytes, int, bool, type(None))):
        return value
    if isinstance(value, float):
        return ("nan",) if math.isnan(value) else value
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_normalize(v, depth + 1) for v in value])
    if isinstance(value, dict):
        return ("dict", [(_normalize(k, depth + 1), _normalize(v, depth + 1)) for k, v in value.items()])
    if isinstance(value, (set, frozenset)):
        return (type(value).__name__, sorted(repr(_normalize(v, depth + 1)) for v in value))
    if isinstance(value, BaseException):
        return ("exc", type(value).__qualname__, _normalize(value.args, depth + 1))
    cls = type(value)
    name = f"{cls.__module__}.{cls.__qualname__}"
    if isinstance(value, Enum):
        return (name, value.name)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = [(f.name, _normalize(getattr(value, f.name), depth + 1)) for f in dataclasses.fields(value)]
        return (name, fields)
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict):
        return (name, _normalize(state, depth + 1))
    slots = [s for c in cls.__mro__ for s in getattr(c, "__slots__", ())]
    if slots:
        return (name, [(s, _normalize(getattr(value, s, None), depth + 1)) for s in slots])
    return (name, repr(value))


def default_compare(original: Any, mutant: Any) -> bool:
    """Equal by `==`, or else by structure (see `_normalize`)."""
    try:
        if original == mutant:
            return True
    except Exception:  # noqa: BLE001 - a broken __eq__ falls back to structure
        pass
    return bool(_normalize(original) == _normalize(mutant))


def kill_reason(
    original: RunResult,
    mutant: RunResult,
    compare: Callable[[Any, Any], bool] | None = None,
    *,
    differential: bool = True,
) -> KillReason | None:
    """Why `mutant` is killed on this input, or None when it survives.

    Killed when: it times out and the original did not; its exceptional behaviour differs
    (raises where the original returned, returns where it raised, or raises another type);
    or (differential oracle only) both returned and `compare` says the outputs differ.
    With `differential=False` this is the implicit, exceptions-only oracle.
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
        return None
    if not differential:
        return None
    try:
        equal = (compare or default_compare)(original.output, mutant.output)
    except Exception:  # noqa: BLE001 - a compare that raises on the mutant's output is a difference
        equal = False
    return None if equal else KillReason.OUTPUT
