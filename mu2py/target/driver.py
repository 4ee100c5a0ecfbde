"""The driver API: a plain function plus the input generator and output comparison that fuzz it.

A driver is written in an ordinary module::

    from hypothesis import strategies as st
    from mu2py import driver

    @driver(st.lists(st.integers()), targets=["mypkg.sorting"])
    def sort(xs: list[int]) -> list[int]:
        return mypkg.sorting.insertion_sort(list(xs))

`@driver` returns the function unchanged (calling it runs the program under test) and
attaches a `Driver` describing it under the attribute `__mu2py_driver__`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mu2py.errors import TargetImportError, UserError

DRIVER_ATTR = "__mu2py_driver__"

Compare = Callable[[Any, Any], bool]


@dataclass(frozen=True)
class Driver:
    """A function under test with its input source and output comparison.

    `source` is a Hypothesis strategy or an `mu2py.inputs.source.InputSource`; `compare(original,
    mutant)` returns True when the outputs count as equal (None: structural equality);
    `targets` are module-name prefixes to mutate (None: the driver's own package); with `messages`,
    an exception of the original's type but with another message kills a mutant (`mu2py kill`,
    whose tests assert the message).
    """

    fn: Callable[[Any], Any]
    source: Any
    compare: Compare | None = None
    targets: tuple[str, ...] | None = None
    name: str = ""
    module: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    messages: bool = False


def driver(
    source: Any,
    *,
    compare: Compare | None = None,
    targets: Sequence[str] | None = None,
) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """Decorate a one-argument function as a mu2py driver (see the module docstring)."""

    def wrap(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        spec = Driver(
            fn=fn,
            source=source,
            compare=compare,
            targets=tuple(targets) if targets is not None else None,
            name=fn.__name__,
            module=fn.__module__,
        )
        setattr(fn, DRIVER_ATTR, spec)
        return fn

    return wrap


def split_spec(spec: str) -> tuple[str, str]:
    """Split `module:function` into its parts, with a clear error when malformed."""
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise UserError(f"expected MODULE:FUNCTION, got {spec!r}")
    return module, name


def import_module(name: str) -> Any:
    """Import a module by name, turning every failure into a one-line TargetImportError."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            raise TargetImportError(f"no module named {exc.name!r}") from exc
        raise TargetImportError(f"importing {name!r} failed: {exc}") from exc
    except SyntaxError as exc:
        raise TargetImportError(
            f"syntax error in {exc.filename}:{exc.lineno}: {exc.msg}"
        ) from exc
    except BaseException as exc:  # a target may raise anything on import
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise TargetImportError(
            f"importing {name!r} raised {type(exc).__name__}: {exc}"
        ) from exc


def load_driver(spec: str) -> Driver:
    """Resolve `module:function` to its Driver (a plain function is accepted with no strategy)."""
    module_name, fn_name = split_spec(spec)
    module = import_module(module_name)
    fn = getattr(module, fn_name, None)
    if fn is None:
        raise UserError(f"driver {fn_name!r} not found in module {module_name!r}")
    found = getattr(fn, DRIVER_ATTR, None)
    if isinstance(found, Driver):
        return found
    if not callable(fn):
        raise UserError(f"{spec} is not callable")
    raise UserError(
        f"{spec} is not a mu2py driver: decorate it with @mu2py.target.driver(strategy) "
        "to give it an input generator"
    )
