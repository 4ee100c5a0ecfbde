"""The public functions, classes and methods a `PKG[.module][:function]` spec names, each inferred."""

from __future__ import annotations

import enum
import inspect
import sys
import types
from collections.abc import Callable
from typing import Any

from mu2py.errors import UserError
from mu2py.target.driver import import_module
from mu2py.testgen.signatures import CLASSMETHOD, METHOD, STATICMETHOD, FunctionSpec, infer, infer_method

# module names that are entry points or test code, not the package's API
_NOT_API = ("__main__", "conftest", "setup", "tests", "test")


def parse_spec(spec: str) -> tuple[str, str | None]:
    """Split `PKG[.module][:function]` (or `:Class`, `:Class.method`) into the module name and the rest."""
    module, sep, function = spec.partition(":")
    names = [*module.split("."), *(function.split(".") if sep else [])]
    if not all(part.isidentifier() for part in names):
        raise UserError(f"expected PKG[.module][:function], got {spec!r}")
    return module, function or None


def module_names(root: str) -> tuple[list[str], list[str]]:
    """The module and its submodules that hold API (sorted), and notes on the ones left out."""
    module = import_module(root)
    names = [root]
    notes: list[str] = []
    if hasattr(module, "__path__"):
        import pkgutil

        for info in pkgutil.walk_packages(module.__path__, prefix=root + "."):
            last = info.name.rpartition(".")[2]
            if last.startswith("_") or last in _NOT_API or last.startswith("test_"):
                notes.append(f"{info.name}: not API (private, entry point or tests), not fuzzed")
                continue
            names.append(info.name)
    return sorted(names), notes


def public_functions(module: types.ModuleType) -> list[tuple[str, Callable[..., Any]]]:
    """Module-level functions defined in `module` itself (not imported), not starting with `_`, by name."""
    found = []
    for name, obj in vars(module).items():
        if name.startswith("_") or isinstance(obj, type) or not callable(obj):
            continue
        inner = inspect.unwrap(obj)
        if not inspect.isfunction(inner) or getattr(obj, "__module__", None) != module.__name__:
            continue
        found.append((name, obj))
    return sorted(found)


def public_classes(module: types.ModuleType) -> list[tuple[str, type]]:
    """Classes defined in `module` itself, not starting with `_`, that a test can build and call methods of.

    Left out: exceptions, enums, protocols and abstract classes (no instance to build).
    """
    found = []
    for name, obj in vars(module).items():
        if name.startswith("_") or not isinstance(obj, type) or obj.__module__ != module.__name__ \
                or name != obj.__name__:  # an alias (semver's VersionInfo = Version) is the same class
            continue
        if issubclass(obj, (BaseException, enum.Enum)) or getattr(obj, "_is_protocol", False) \
                or inspect.isabstract(obj):
            continue
        found.append((name, obj))
    return sorted(found)


def public_methods(cls: type) -> list[tuple[str, str]]:
    """(name, kind) of the methods a class defines itself, not starting with `_` (properties left out)."""
    found = []
    for name, raw in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(raw, staticmethod):
            found.append((name, STATICMETHOD))
        elif isinstance(raw, classmethod):
            found.append((name, CLASSMETHOD))
        elif inspect.isfunction(inspect.unwrap(raw)):
            found.append((name, METHOD))
    return sorted(found)


def module_specs(module: types.ModuleType, *, constants: bool = True) -> list[FunctionSpec]:
    """The inferred specs of a module's public functions, then of its public classes' methods."""
    specs = [infer(module.__name__, name, fn, constants=constants) for name, fn in public_functions(module)]
    for _, cls in public_classes(module):
        specs += [infer_method(module.__name__, cls, attr, kind, constants=constants)
                  for attr, kind in public_methods(cls)]
    return specs


def discover(spec: str, *, constants: bool = True) -> tuple[list[FunctionSpec], list[str]]:
    """The functions `PKG[.module][:function]` names, each inferred, and notes on modules left out.

    Raises UserError for an unknown module or function; a named function that cannot be
    inferred is returned skipped (the caller decides whether that is an error).
    """
    root, function = parse_spec(spec)
    if function is not None and "." in function:
        owner, _, attr = function.partition(".")
        cls = getattr(import_module(root), owner, None)
        kinds = dict(public_methods(cls)) if isinstance(cls, type) else {}
        if attr not in kinds:
            raise UserError(f"no public method {function!r} in module {root!r}")
        return [infer_method(cls.__module__, cls, attr, kinds[attr], constants=constants)], []  # type: ignore[arg-type]  # a class: kinds is empty otherwise
    if function is not None and isinstance(getattr(import_module(root), function, None), type):
        cls = getattr(import_module(root), function)
        return [infer_method(cls.__module__, cls, attr, kind, constants=constants)
                for attr, kind in public_methods(cls)], []
    if function is not None:
        module = import_module(root)
        fn = getattr(module, function, None)
        if fn is None or not callable(fn) or isinstance(fn, type):
            raise UserError(f"no function {function!r} in module {root!r}")
        home = getattr(fn, "__module__", None) or root
        if home != root and getattr(sys.modules.get(home), function, None) is fn:
            # mutate where the function is written, not the module that re-exports it
            note = f"{root}:{function} is defined in {home}: fuzzing it there"
            return [infer(home, function, fn, constants=constants)], [note]  # type: ignore[arg-type]  # not None (checked above); mypy loses that at `is fn`
        return [infer(root, function, fn, constants=constants)], []
    names, notes = module_names(root)
    found = []
    for name in names:
        try:
            module = import_module(name)
        except UserError as exc:
            notes.append(f"{name}: not fuzzed, {exc}")
            continue
        found.extend(module_specs(module, constants=constants))
    return found, notes
