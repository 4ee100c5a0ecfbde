"""Re-running a mutated module body in its live namespace, with the change carried to every live reference.

A module-level mutant (a constant, a default value, a class attribute, a lambda in a
table) changes what the module's body computes when it is imported.  A test suite holds
the original objects everywhere: `from m import f` bindings, subclasses, instances,
exception handlers.  `reload_in_place` runs the mutated body in the module's own
namespace, then:

- merges every re-created function into the original function object (code, defaults,
  closure cells, attributes) and every re-created class into the original class (its
  attributes and methods), so that identity-based references stay valid and see the mutant;
- rebinds every other changed value in the module and in each module that bound it with
  `from m import X` (see `imports.ImportGraph`), and re-classes instances of merged classes.

What it cannot carry over is reported as a *doubt*: a value another module computed from
the changed name while being imported, an original object still referenced from some place
it cannot patch, a class it cannot merge.  A mutant with doubts that survives must be
confirmed in a fresh interpreter; one without doubts behaves as if the mutated module had
been imported from the start.

Invariant: `restore()` returns every object touched (functions, classes, cells, other
modules' bindings) and the module namespace to exactly their original state.
"""

from __future__ import annotations

import abc
import gc
import re
import sys
import types
from dataclasses import dataclass, field
from typing import Any

from mu2py.score.imports import ImportGraph

_MISSING = object()
_ATOMS = (str, bytes, int, float, complex, bool, type(None), range, type(Ellipsis))
# class attributes that belong to one class object and must never be copied onto another
_CLASS_OWN = frozenset({"__dict__", "__weakref__", "_abc_impl", "__slots__"})
_PLAIN_METACLASSES = (type, abc.ABCMeta)
# what the import system puts in a module's namespace before running its body
_MODULE_ATTRIBUTES = frozenset({"__name__", "__doc__", "__package__", "__loader__", "__spec__", "__file__",
                                "__cached__", "__builtins__", "__path__"})


# module-level names in dunder form that hold plain data: nothing calls them implicitly, code reads them by
# name (`from m import *` reads `__all__` while importing, which the import graph sees)
_DATA_DUNDERS = frozenset({"__all__", "__version__", "__author__", "__license__", "__copyright__", "__email__",
                           "__status__", "__credits__", "__maintainer__", "__lazy_modules__"})


class ReloadError(Exception):
    """The mutated body ran, but its changes could not be carried over (everything is restored)."""


def is_atom(value: Any) -> bool:
    """Immutable values whose identity means nothing (equal ones are interchangeable)."""
    return isinstance(value, _ATOMS) or (
        isinstance(value, (tuple, frozenset)) and all(is_atom(v) for v in value))


@dataclass
class Reload:
    """A module whose body was re-run from mutated code; `restore()` undoes everything."""

    module: types.ModuleType
    saved: dict[str, Any]
    doubts: list[str] = field(default_factory=list)
    undo: list[tuple[Any, ...]] = field(default_factory=list)
    mapping: dict[int, Any] = field(default_factory=dict)  # id(re-created object) -> original kept in its place
    keep: list[Any] = field(default_factory=list)  # re-created objects mapped above, alive so their ids stay unique
    caches: list[Any] = field(default_factory=list)  # merged memoizing wrappers: their answers belong to one version
    bookkeeping: list[Any] = field(default_factory=list)  # the caller's holders of originals that do not count
    ran_at_import: set[types.CodeType] | None = None  # code that ran while importers were imported (None: unknown)
    data_changed: set[int] = field(default_factory=set)  # ids of merged classes whose data attributes changed
    changed_codes: set[types.CodeType] = field(default_factory=set)  # original code of functions that changed
    changed_names: set[str] = field(default_factory=set)  # names and attribute names bound to something new
    project: frozenset[str] = frozenset()  # the modules whose code `observed_by` is asked about (see below)
    read_elsewhere: set[str] = field(default_factory=set)  # changed attributes code outside `project` may read

    def observed_by(self, code: types.CodeType) -> bool:
        """Whether running `code` can see this reload's changes: it is a changed function's code, or reads by
        name (a global or an attribute) something that was rebound.  Reads through `getattr(obj, variable)`
        or `vars(module)[...]` are not seen; everything else reaches a changed object through a name."""
        return code in self.changed_codes or not self.changed_names.isdisjoint(code.co_names)

    @property
    def observable_by_name(self) -> bool:
        """False when some code that no name in the project's code reveals may read a change, so that every
        test may observe it: a special method or module hook (`__eq__ = None`, `__getattr__`), or an attribute
        of a class whose base class is not the project's (`allow_reuse_address` of a `TCPServer` subclass is
        read by socketserver's code, a csv dialect's `delimiter` by C code)."""
        return not self.read_elsewhere and not any(
            n.startswith("__") and n.endswith("__") and n not in _DATA_DUNDERS for n in self.changed_names)

    def restore(self) -> None:
        """Undo every merge and rebinding (in reverse), then put the module namespace back."""
        while self.undo:
            kind, target, key, previous = self.undo.pop()
            if kind == "attr":
                if previous is _MISSING:
                    delattr(target, key)
                else:
                    setattr(target, key, previous)
            elif kind == "item":
                if previous is _MISSING:
                    target.pop(key, None)
                else:
                    target[key] = previous
            else:  # a closure cell
                if previous is _MISSING:
                    del target.cell_contents
                else:
                    target.cell_contents = previous
        for cached in self.caches:
            cached.cache_clear()
        namespace = vars(self.module)
        namespace.clear()
        namespace.update(self.saved)
        # the originals must not stay referenced from here: a later reload would count this as a holder
        self.saved.clear()
        self.mapping.clear()
        self.keep.clear()
        self.caches.clear()

    # -- recording changes ------------------------------------------------------------

    def _set_attr(self, target: Any, key: str, value: Any) -> None:
        self.undo.append(("attr", target, key, _own(target, key)))
        setattr(target, key, value)

    def _del_attr(self, target: Any, key: str) -> None:
        self.undo.append(("attr", target, key, _own(target, key)))
        delattr(target, key)

    def _set_item(self, target: dict[str, Any], key: str, value: Any) -> None:
        self.undo.append(("item", target, key, target.get(key, _MISSING)))
        target[key] = value

    def _set_cell(self, cell: Any, value: Any) -> None:
        try:
            previous = cell.cell_contents
        except ValueError:
            previous = _MISSING
        self.undo.append(("cell", cell, None, previous))
        cell.cell_contents = value

    def _same(self, old: Any, new: Any) -> bool:
        return new is old or self.mapping.get(id(new)) is old or (
            is_atom(old) and type(old) is type(new) and old == new)

    def equivalent(self, old: Any, new: Any, depth: int = 4) -> bool:
        """Whether the re-created `new` is interchangeable with `old` (equal state, same or merged class)."""
        if self._same(old, new):
            return True
        if depth <= 0 or self.mapping.get(id(type(new)), type(new)) is not type(old):
            return False
        if isinstance(old, dict):
            return old.keys() == new.keys() and all(self.equivalent(old[k], new[k], depth - 1) for k in old)
        if isinstance(old, (list, tuple)):
            return len(old) == len(new) and all(self.equivalent(a, b, depth - 1) for a, b in zip(old, new, strict=True))
        if isinstance(old, (types.FunctionType, types.ModuleType, type)):
            return False
        state = getattr(old, "__dict__", None)
        if isinstance(state, dict) and not hasattr(type(old), "__slots__"):
            return self.equivalent(state, vars(new), depth - 1)
        slots = [n for klass in type(old).__mro__ for n in _slot_names(klass)]
        if slots and not isinstance(state, dict):  # e.g. dataclasses.Field
            return all(self.equivalent(getattr(old, n, _MISSING), getattr(new, n, _MISSING), depth - 1) for n in slots)
        if type(old).__eq__ is object.__eq__:
            return False
        try:
            return bool(old == new)
        except Exception:  # noqa: BLE001 - an __eq__ that fails says nothing
            return False

    # -- merging re-created objects into the originals --------------------------------

    def merge(self, old: Any, new: Any) -> bool:
        """Make `old` behave as `new` in place; False (nothing changed) when that is not possible."""
        if self._same(old, new):
            return True
        if type(old) is not type(new):
            return False
        if isinstance(old, types.FunctionType):
            return self._merge_function(old, new)
        if isinstance(old, type):
            return self._merge_class(old, new)
        if isinstance(old, (staticmethod, classmethod)):
            return self.merge(old.__func__, new.__func__)
        if isinstance(old, property):
            parts = [(getattr(old, p), getattr(new, p)) for p in ("fget", "fset", "fdel")]
            if any((o is None) != (n is None) for o, n in parts):
                return False
            return all(o is None or self.merge(o, n) for o, n in parts)
        wrapped_old, wrapped_new = getattr(old, "__wrapped__", None), getattr(new, "__wrapped__", None)
        if isinstance(wrapped_old, types.FunctionType) and isinstance(wrapped_new, types.FunctionType):
            # functools.lru_cache and the like: the wrapper calls the function it wraps
            parameters = getattr(old, "cache_parameters", None)
            if parameters is not None and parameters() != new.cache_parameters():
                return False
            if callable(getattr(old, "cache_clear", None)):
                old.cache_clear()
                self.caches.append(old)
            return self.merge(wrapped_old, wrapped_new)
        return False

    def _remember(self, old: Any, new: Any) -> None:
        self.mapping[id(new)] = old
        self.keep.append(new)

    def _merge_function(self, old: types.FunctionType, new: types.FunctionType) -> bool:
        if len(old.__code__.co_freevars) != len(new.__code__.co_freevars):
            return False
        if any(_is_empty(a) != _is_empty(b) for a, b in zip(old.__closure__ or (), new.__closure__ or (), strict=True)):
            return False  # decided before anything changes: a refused merge leaves `old` as it was
        self._remember(old, new)
        for old_cell, new_cell in zip(old.__closure__ or (), new.__closure__ or (), strict=True):
            try:
                value = new_cell.cell_contents
            except ValueError:
                value = _MISSING
            try:
                current = old_cell.cell_contents
            except ValueError:
                current = _MISSING
            if value is _MISSING:  # both empty (checked above)
                continue
            if not self.merge(current, value):
                self._set_cell(old_cell, value)
        changes = len(self.undo)
        original_code = old.__code__
        if old.__code__ != new.__code__:
            self._set_attr(old, "__code__", new.__code__)
        for name in ("__defaults__", "__kwdefaults__"):
            before, after = getattr(old, name), getattr(new, name)
            if before != after or (before is not None and after is not None and not all(
                    self._same(b, a) for b, a in zip(_values(before), _values(after), strict=True))):
                self._set_attr(old, name, after)
        for key, value in vars(new).items():
            if key == "__wrapped__":
                continue
            if not self._same(vars(old).get(key, _MISSING), value):
                self._set_attr(old, key, value)
        if len(self.undo) > changes:
            self.changed_codes.add(original_code)
        if len(self.undo) > changes and (self.ran_at_import is None or original_code in self.ran_at_import):
            # something called it while an importer was imported; that result holds the original
            self.doubts.append(f"{old.__qualname__} changed and ran while the tests were collected")
        return True

    def _merge_class(self, old: type, new: type) -> bool:
        if type(new) not in _PLAIN_METACLASSES:
            return False  # enums, dataclass-like metaclasses: instances made by the body belong to the new class
        if tuple(self.mapping.get(id(b), b) for b in new.__bases__) != old.__bases__:
            return False
        if vars(old).get("__slots__") != vars(new).get("__slots__"):
            return False
        self._remember(old, new)
        # inherited code from outside the project reads the class's attributes (by name, or from C): what it
        # runs is not recorded, so it reveals no reader
        foreign = any(base is not object and base.__module__ not in self.project for base in old.__mro__[1:])
        for key in (set(vars(old)) | set(vars(new))) - _CLASS_OWN:
            before, after = vars(old).get(key, _MISSING), vars(new).get(key, _MISSING)
            if after is _MISSING:
                self._del_attr(old, key)
                self.changed_names.add(key)
                if foreign:
                    self.read_elsewhere.add(key)
            elif before is _MISSING or not (self._same(before, after) or self.merge(before, after)
                                            or self.equivalent(before, after)):
                self.changed_names.add(key)
                if foreign:
                    self.read_elsewhere.add(key)
                if isinstance(after, (types.MemberDescriptorType, types.GetSetDescriptorType)):
                    return False
                if not callable(after) and not isinstance(after, (staticmethod, classmethod, property)):
                    self.data_changed.add(id(old))
                self._set_attr(old, key, after)
        return True


def _slot_names(klass: type) -> tuple[str, ...]:
    slots = vars(klass).get("__slots__", ())
    return (slots,) if isinstance(slots, str) else tuple(slots)


def _own(target: Any, key: str) -> Any:
    """What `target` itself holds under `key`: a class's own dict entry (a staticmethod stays one, an
    inherited value is not copied down), a function's attribute."""
    if isinstance(target, type):
        return vars(target).get(key, _MISSING)
    return getattr(target, key, _MISSING)


def _is_empty(cell: Any) -> bool:
    try:
        return cell.cell_contents is _MISSING  # never true: reading an empty cell raises
    except ValueError:
        return True


def _values(defaults: Any) -> list[Any]:
    return list(defaults.values()) if isinstance(defaults, dict) else list(defaults)


def _ignored_referrers() -> list[Any]:
    # the regular-expression module caches compiled patterns; an old pattern there is harmless
    return [v for k, v in vars(re).items() if k.startswith("_cache") and isinstance(v, dict)]


def reload_in_place(module: types.ModuleType, code: types.CodeType, graph: ImportGraph,
                    modules: dict[str, types.ModuleType], bookkeeping: list[Any] | None = None,
                    ran_at_import: set[types.CodeType] | None = None) -> Reload:
    """Run `code` as `module`'s body in its live namespace and carry the changes over (see the module doc).

    `modules` are the live modules `graph` describes, by name; `bookkeeping` are the caller's
    objects whose references to an original do not count as program state; `ran_at_import` are
    the code objects that ran while the importers were imported (None: unknown, assume any).  If the body raises, the
    module is restored and the exception propagates; if carrying the changes over fails,
    everything is restored and `ReloadError` is raised.
    """
    namespace = vars(module)
    reload = Reload(module, dict(namespace), bookkeeping=list(bookkeeping or ()), ran_at_import=ran_at_import,
                    project=frozenset(modules))
    # the body runs in an emptied namespace, as on a fresh import: a name the mutant no longer binds
    # (`if sys.version_info >= (3,): unicode = str` negated) must be missing, not left over
    namespace.clear()
    namespace.update({k: v for k, v in reload.saved.items() if k in _MODULE_ATTRIBUTES})
    try:
        exec(code, namespace)
    except BaseException:
        reload.restore()
        raise
    for key, value in reload.saved.items():
        # submodules the import system set on a package when they were imported (by tests too)
        if key not in namespace and isinstance(value, types.ModuleType) \
                and sys.modules.get(f"{module.__name__}.{key}") is value:
            namespace[key] = value
    try:
        _carry_over(reload, graph, modules)
    except Exception as exc:
        reload.restore()
        raise ReloadError(f"{type(exc).__name__}: {exc}") from exc
    return reload


def _carry_over(reload: Reload, graph: ImportGraph, modules: dict[str, types.ModuleType]) -> None:
    module, namespace, saved = reload.module, vars(reload.module), reload.saved
    changed: list[tuple[str, Any, Any, bool]] = []  # name, original, re-created, merged into the original
    pending = []
    # functions and classes first: instances and tables made by the body are judged against the merged classes
    for name, new in list(namespace.items()):
        old = saved.get(name, _MISSING)
        if old is _MISSING:
            continue
        if not isinstance(old, (types.FunctionType, type)) and not hasattr(old, "__wrapped__"):
            pending.append((name, old, new))
            continue
        undone = len(reload.undo)
        if reload.merge(old, new):
            namespace[name] = old
            if len(reload.undo) > undone:
                changed.append((name, old, new, True))
        else:
            changed.append((name, old, new, False))
    for name, old, new in pending:
        if reload.equivalent(old, new):
            # the body made an equal value (`ZERO = timedelta(0)`, `UTC = Utc()` of a merged class): the
            # original stays, as importers and objects made from it at import time hold it
            namespace[name] = old
        else:
            changed.append((name, old, new, False))
    pending.clear()  # its tuples would count as holders of the originals below
    for name in saved:
        if name not in namespace:
            reload.changed_names.add(name)
        if name not in namespace and graph.bindings_of(module.__name__, name):
            # a fresh import would fail in the importer; here it keeps the original
            reload.doubts.append(f"{name} is no longer defined, but other modules import it")
    for name, old, new, merged in changed:
        # a merged function keeps its identity: a reader at import time holds the changed object, and a
        # call it made then is caught in `merge`; a merged class whose data changed may have been read
        if not merged or id(old) in reload.data_changed:
            reader = graph.read_at_import(module.__name__, name)
            if reader is not None:
                reload.doubts.append(f"{reader} reads {name} while it is imported")
        if merged:
            continue
        reload.changed_names.add(name)
        original_class = reload.mapping.get(id(type(new)))
        if original_class is not None:
            try:
                new.__class__ = original_class
            except TypeError:
                reload.doubts.append(f"{name} is an instance of a re-created class")
        for importer, alias in graph.bindings_of(module.__name__, name):
            target = modules.get(importer)
            if target is not None and vars(target).get(alias, _MISSING) is old:
                reload._set_item(vars(target), alias, new)
                reload.changed_names.add(alias)
        if not is_atom(old):
            _rebind_everywhere(reload, old, new, modules)
    replaced = [(name, old) for name, old, _, merged in changed if not merged and not is_atom(old)]
    if replaced:
        _check_unreferenced(reload, replaced, changed)
    _check_containers(reload, [new for _, _, new, merged in changed if not merged])


def _rebind_everywhere(reload: Reload, old: Any, new: Any, modules: dict[str, types.ModuleType]) -> None:
    """Rebind `old` to `new` under any name in the known modules (identity is reliable for objects that are not atoms).

    Only the modules under test and the test modules: an original that is not the module's
    own (`X = object`) is bound all over the interpreter, and must stay so.
    """
    for other in modules.values():
        found = vars(other)
        if found is not vars(reload.module):
            for key, value in list(found.items()):
                if value is old:
                    reload._set_item(found, key, new)
                    reload.changed_names.add(key)


def _check_unreferenced(reload: Reload, replaced: list[tuple[str, Any]], changed: list[Any]) -> None:
    """Any holder of a replaced original other than this bookkeeping (a default, a container) is a doubt."""
    # the originals in one tuple of ours, passed as is: `get_referrers(*generator)` builds an argument tuple
    # that Python 3.13 reports as a referrer of every original in it
    originals = tuple(old for _, old in replaced)
    ours = {id(reload.saved), id(reload.undo), id(reload.keep), id(changed), id(replaced), id(originals),
            *map(id, changed), *map(id, replaced), *map(id, reload.undo), *map(id, _ignored_referrers()),
            *(id(entry[3]) for entry in reload.undo), *(id(entry[1]) for entry in changed),
            id(reload.bookkeeping), *map(id, reload.bookkeeping)}
    for attempt in range(2):
        holders = [h for h in gc.get_referrers(*originals)
                   if id(h) not in ours and not isinstance(h, types.FrameType)]
        if not holders:
            return
        if attempt == 0:
            # garbage not yet collected (an earlier unit's cycles) may be the only holder: collect, look again
            del holders
            gc.collect()
            continue
        held = [name for name, old in replaced if _holds(holders[0], old)]
        reload.doubts.append(f"the original {', '.join(held) or 'value'} is still held by a "
                             f"{type(holders[0]).__name__}")


def _holds(holder: Any, value: Any) -> bool:
    try:
        if isinstance(holder, dict):
            return any(v is value for v in holder.values()) or any(k is value for k in holder)
        if isinstance(holder, (list, tuple, set, frozenset)):
            return any(v is value for v in holder)
    except Exception:  # noqa: BLE001 - a holder that cannot be iterated is named without the value
        return False
    return False


def _check_containers(reload: Reload, values: list[Any], depth: int = 3) -> None:
    """Re-created containers may hold re-created functions or classes: put the originals in their place."""
    if not reload.mapping:
        return
    seen: set[int] = set()

    def fix(value: Any, level: int) -> Any:
        mapped = reload.mapping.get(id(value))
        if mapped is not None:
            return mapped
        if level <= 0 or id(value) in seen or is_atom(value):
            return value
        seen.add(id(value))
        if isinstance(value, dict):
            items = [(fix(k, level - 1), fix(v, level - 1)) for k, v in value.items()]
            value.clear()
            value.update(items)
        elif isinstance(value, list):
            value[:] = [fix(v, level - 1) for v in value]
        elif isinstance(value, set):
            items = [fix(v, level - 1) for v in value]
            value.clear()
            value.update(items)
        elif isinstance(value, tuple) and any(fix(v, level - 1) is not v for v in value):
            reload.doubts.append("a re-created tuple holds re-created functions or classes")
        return value

    for value in values:
        fix(value, depth)

