"""The function under test as a mu2py Target: which modules' coverage counts, and why none might.

Every node of a lattice must measure the same modules: they are named once (`modules`) or resolved
after one warm-up call, so that modules the function imports lazily count alike in every process.

The target's own warnings (`compile` on generated Python text warns about every odd escape) never reach
the terminal: mu2py's `run` records each execution's warnings (they are outputs its oracle compares) and
`count_run_warnings` counts them by category; code calling the target outside `run` uses `captured_warnings`.
"""

from __future__ import annotations

import random
import sys
import types
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from bonsai.generator import BoundedGenerator
from mu2py.engine.runs import run
from mu2py.errors import UserError
from mu2py.target.driver import DRIVER_ATTR, Driver, import_module, split_spec
from mu2py.target.modules import Target, TargetModule, read_module, resolve_modules

__all__ = ["WARM_UP_TIMEOUT", "captured_warnings", "count_run_warnings", "format_warning_counts", "function_target",
           "invisible_code_warning"]

WARM_UP_TIMEOUT = 10.0
"""Seconds the one warm-up call of a target (see `function_target`) may take."""


@contextmanager
def captured_warnings(counts: Counter[str]) -> Iterator[None]:
    """Within the block every warning is recorded, not shown, and counted in `counts` by category name."""
    with warnings.catch_warnings(record=True) as caught:
        # "always": a warning repeated at one place is counted each time, not once per process as by default
        warnings.simplefilter("always")
        try:
            yield
        finally:
            for item in caught:
                counts[item.category.__name__] += 1


def count_run_warnings(result: Any, counts: Counter[str]) -> None:
    """Count the warnings a `mu2py.engine.runs.run` result recorded in `counts`, by category name."""
    for category, *_ in getattr(result, "warnings", None) or ():
        if category != "...":  # the entry that counts warnings past the ones a run keeps
            counts[category.rsplit(".", 1)[-1]] += 1


def format_warning_counts(counts: dict[str, int]) -> str:
    """``"SyntaxWarning 94, DeprecationWarning 2"``: most frequent category first."""
    return ", ".join(f"{name} {n}" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def function_target(spec: str, source: Any, prefixes: tuple[str, ...] | None = None,
                    modules: Sequence[str] | None = None, warning_counts: Counter[str] | None = None) -> Target:
    """A Target for a plain `module:function` taking the generated text (a driver's function works too).

    `modules` names the modules under test exactly (as `run_lattice` does for every node).  Without
    it they are the loaded modules matching `prefixes` (default: the driver's `targets`, else the
    function's own package), after one warm-up call of the function on a generated input (when
    `source` can generate one), so that modules the function imports lazily are loaded and counted
    the same way in every process.  The warm-up's warnings are counted in `warning_counts` (dropped
    without it), never shown.  Raises UserError (one line) when nothing measurable is named.
    """
    module_name, fn_name = split_spec(spec)
    module = import_module(module_name)
    fn = getattr(module, fn_name, None)
    if fn is None or not callable(fn):
        raise UserError(f"function {fn_name!r} not found in module {module_name!r}")
    inner = getattr(fn, DRIVER_ATTR, None)
    drv = Driver(fn=inner.fn if inner else fn, source=source, targets=inner.targets if inner else None,
                 name=fn_name, module=module_name)
    resolved: tuple[TargetModule, ...]
    if modules is not None:
        chosen = tuple(prefixes) if prefixes else tuple(modules)
        resolved = tuple(read_module(name) for name in modules)
    else:
        chosen = tuple(prefixes) if prefixes else _default_prefixes(drv)
        if isinstance(source, BoundedGenerator):
            # the outcome is irrelevant; the run's warnings (mu2py's run records them, shows none) are counted
            warm = run(drv.fn, source.generate(random.Random(0)).text, WARM_UP_TIMEOUT)
            if warning_counts is not None:
                count_run_warnings(warm, warning_counts)
        try:
            resolved = resolve_modules(chosen, exclude=module_name)
        except UserError as exc:
            raise UserError(_why_nothing_measurable(chosen, module_name, exc)) from None
    return Target(driver=drv, driver_module=read_module(module_name), modules=resolved, prefixes=chosen)


def _default_prefixes(drv: Driver) -> tuple[str, ...]:
    """The driver's `targets`, else its own package; outside a package the user must say (--targets)."""
    if drv.targets:
        return drv.targets
    package = drv.module.rpartition(".")[0]
    if not package:
        imported = _imported_python_modules(drv.module)
        hint = f"--targets {','.join(imported)}" if imported else "--targets json"
        raise UserError(
            f"target module {drv.module!r} is not in a package, so bonsai cannot guess whose coverage counts: "
            f"name the modules the function exercises with --targets MOD[,MOD...] (e.g. {hint})"
        )
    return (package,)


def _imported_python_modules(module_name: str) -> list[str]:
    """Top-level modules with Python source that `module_name` imported (names or their functions/classes)."""
    found: set[str] = set()
    for value in vars(sys.modules[module_name]).values():
        name = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
        top = name.partition(".")[0] if isinstance(name, str) else ""
        module = sys.modules.get(top)
        origin = getattr(getattr(module, "__spec__", None), "origin", None) or ""
        if top and top != module_name and origin.endswith(".py") and top not in ("builtins", "typing"):
            found.add(top)
    return sorted(found)[:5]


def _why_nothing_measurable(prefixes: tuple[str, ...], own: str, exc: UserError) -> str:
    """`exc`'s message, or a better one when a named module is compiled (slipcover sees Python only) or is the
    function's own module (run as the driver, never measured)."""
    if own in prefixes:
        return (f"--targets names only {own!r}, the module the target function is taken from, which runs as the "
                "driver and is not measured: name the modules the function calls (for a function defined in the "
                "module under test, write a one-line wrapper in a module of your own)")
    for prefix in prefixes:
        module = sys.modules.get(prefix)
        origin = getattr(getattr(module, "__spec__", None), "origin", None) if module else None
        if module is not None and not (origin or "").endswith(".py"):
            kind = "built into the interpreter" if origin in (None, "built-in", "frozen") else f"compiled ({origin})"
            return (f"module {prefix!r} is {kind}: coverage is measured by slipcover on Python source only; "
                    "name Python modules the function runs with --targets")
    return str(exc)


def invisible_code_warning(spec: str) -> str | None:
    """A warning when the target function itself is not Python code (a builtin or C function), else None.

    Such a function runs no line slipcover can see: coverage can come only from Python code it calls back.
    """
    module_name, fn_name = split_spec(spec)
    fn = getattr(sys.modules.get(module_name), fn_name, None)
    inner = getattr(fn, DRIVER_ATTR, None)
    fn = inner.fn if inner else fn
    if isinstance(fn, _BUILTIN_TYPES):
        return (f"{spec} is a builtin or C function: slipcover sees Python code only, so coverage can come only "
                "from Python code it calls; wrap it in a Python function or target a pure-Python implementation")
    return None


_BUILTIN_TYPES = (types.BuiltinFunctionType, types.BuiltinMethodType, types.MethodWrapperType,
                  types.WrapperDescriptorType, types.MethodDescriptorType, types.ClassMethodDescriptorType)
