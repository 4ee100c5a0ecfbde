"""In-process module copies through importlib: how a mutant (or the probed original) is loaded.

A *copy set* is a fresh execution of every module of the target plus the driver module,
each from a given code object (the mutated one for the mutant's module), wired to each
other through a temporary meta-path finder so that `from pkg.mod import f` inside a copy
binds to the copy.  Third-party modules are shared.  Invariant: building a copy set
leaves `sys.modules`, `sys.meta_path` and the attributes of parent packages exactly as
they were, and never touches the original modules' globals.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import threading
import types
from collections.abc import Callable, Mapping
from typing import Any

from mu2py.target.modules import Target, TargetModule

_LOCK = threading.RLock()


class CopyLoadError(Exception):
    """A copy set could not be built: the mutated module raised while it was being imported."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__(f"{type(exc).__name__}: {exc}")
        self.original = exc


Code = types.CodeType | tuple[types.CodeType, ...]  # a module's code, or its statements' codes in order


class _Loader(importlib.abc.Loader):
    def __init__(self, code: Code, extra: Mapping[str, Any]) -> None:
        self.code = code
        self.extra = extra

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        module.__dict__.update(self.extra)
        if isinstance(self.code, tuple):
            for part in self.code:
                exec(part, module.__dict__)
        else:
            exec(self.code, module.__dict__)


class _CopyFinder(importlib.abc.MetaPathFinder):
    def __init__(self, modules: Mapping[str, TargetModule], codes: Mapping[str, Code],
                 extra: Mapping[str, Mapping[str, Any]]) -> None:
        self.modules = modules
        self.codes = codes
        self.extra = extra

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        info = self.modules.get(fullname)
        if info is None:
            return None
        loader = _Loader(self.codes[fullname], self.extra.get(fullname, {}))
        spec = importlib.machinery.ModuleSpec(fullname, loader, origin=info.file, is_package=info.is_package)
        spec.has_location = True
        if info.search_locations is not None:
            spec.submodule_search_locations = list(info.search_locations)
        return spec


def compile_module(info: TargetModule, source: str | None = None) -> types.CodeType:
    """Compile a module's (or a mutated variant's) source under the module's own file name."""
    return compile(source if source is not None else info.source, info.file, "exec", dont_inherit=True)


def build_copies(
    target: Target,
    codes: Mapping[str, Code],
    extra: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    with_driver: bool = True,
) -> dict[str, types.ModuleType]:
    """Execute a fresh copy of every module of `target` (code from `codes`) and return them by name.

    A module's code may be one code object or its top-level statements' code objects, run in
    order.  With `with_driver=False` only the modules under test are copied (see
    `rebind_driver`).  Raises CopyLoadError when a module raises while executing; the
    interpreter's state is restored in every case.
    """
    infos = {m.name: m for m in (target.copied if with_driver else target.modules)}
    names = list(infos)
    with _LOCK:
        saved = {n: sys.modules[n] for n in names if n in sys.modules}
        # importing a submodule sets it as an attribute of its parent package: remember
        # what the parents held so the originals can be put back
        parents: dict[tuple[str, str], Any] = {}
        for n in names:
            parent, _, child = n.rpartition(".")
            if parent and parent in sys.modules and parent not in infos:
                parents[(parent, child)] = getattr(sys.modules[parent], child, _MISSING)
        for n in names:
            sys.modules.pop(n, None)
        # `from pkg import mod` binds an existing attribute of pkg without importing: hide
        # the originals so that the import system asks the finder for the copies
        for (parent, child), value in parents.items():
            if value is not _MISSING:
                delattr(sys.modules[parent], child)
        finder = _CopyFinder(infos, codes, extra or {})
        sys.meta_path.insert(0, finder)
        try:
            try:
                if with_driver:
                    importlib.import_module(target.driver_module.name)  # type: ignore[union-attr]  # set with_driver
                for n in names:
                    if n not in sys.modules:
                        importlib.import_module(n)
            except BaseException as exc:
                if isinstance(exc, KeyboardInterrupt):
                    raise
                raise CopyLoadError(exc) from exc
            return {n: sys.modules[n] for n in names}
        finally:
            sys.meta_path.remove(finder)
            for n in names:
                sys.modules.pop(n, None)
            sys.modules.update(saved)
            for (parent, child), value in parents.items():
                if value is _MISSING:
                    if hasattr(sys.modules[parent], child):
                        delattr(sys.modules[parent], child)
                else:
                    setattr(sys.modules[parent], child, value)


_MISSING = object()
_ATOMS = (str, bytes, int, float, complex, bool, type(None), tuple, frozenset, range)


def rebind_driver(driver_module: types.ModuleType, base: Mapping[str, types.ModuleType],
                  copies: Mapping[str, types.ModuleType]) -> dict[str, Any]:
    """A namespace for the driver that calls `copies` instead of `base`, without re-running the driver's body.

    Every global of the driver module that is a module of `base`, or an object a module of
    `base` binds by name, is rebound to the same name in `copies`; every function defined by
    the driver module is re-created over the new namespace (its helpers follow).  Values
    that are neither (strategies, constants) are shared, as the driver's body would have
    built them equally.
    """
    where: dict[int, tuple[str, str]] = {}
    for name, module in base.items():
        for attr, value in vars(module).items():
            # values compared by identity only: an equal number or string bound by the driver is not the module's
            if not attr.startswith("__") and not isinstance(value, _ATOMS):
                where.setdefault(id(value), (name, attr))
    by_module = {id(module): name for name, module in base.items()}
    old = vars(driver_module)
    namespace = dict(old)
    for key, value in old.items():
        if id(value) in by_module:
            namespace[key] = copies[by_module[id(value)]]
        elif id(value) in where:
            name, attr = where[id(value)]
            namespace[key] = getattr(copies[name], attr, value)
        elif isinstance(value, types.FunctionType) and value.__globals__ is old:
            fn = types.FunctionType(value.__code__, namespace, value.__name__, value.__defaults__, value.__closure__)
            fn.__kwdefaults__ = value.__kwdefaults__
            fn.__qualname__ = value.__qualname__
            fn.__dict__.update(value.__dict__)
            namespace[key] = fn
    return namespace


def driver_function(target: Target, copies: Mapping[str, types.ModuleType]) -> Callable[[Any], Any]:
    """The driver's function inside a copy set (bound to the copied modules, see `bound_to`)."""
    assert target.driver is not None and target.driver_module is not None
    return bound_to(getattr(copies[target.driver_module.name], target.driver.name), copies)


def bound_to(fn: Callable[[Any], Any], copies: Mapping[str, types.ModuleType]) -> Callable[[Any], Any]:
    """`fn` run with `sys.modules` naming `copies` for the duration of each call.

    Code that finds a module by name at run time sees the copy, as the program would see its
    one module: C accelerators above all (`_json.scanstring` raises the JSONDecodeError of
    whatever `sys.modules["json.decoder"]` holds, so the copy's `except JSONDecodeError` must
    find the copy's class), and `importlib.import_module` or `pickle` in the target.
    Invariant: after each call `sys.modules` names the modules it named when `bound_to` was called.
    """
    modules = sys.modules
    bound = dict(copies)
    # what the names meant when the copies were made (the program's own modules): restored after each call
    originals = {name: modules[name] for name in bound if name in modules}
    absent = tuple(name for name in bound if name not in originals)

    def call(arg: Any) -> Any:
        # two dict updates: binding per call costs a fraction of a microsecond, not a lookup per name
        modules.update(bound)
        try:
            return fn(arg)
        finally:
            modules.update(originals)
            for name in absent:
                modules.pop(name, None)

    call.__wrapped__ = fn  # type: ignore[attr-defined]  # functools' marker, set on a function
    return call
