"""Merging re-created module objects into the originals, with an undo log: the `Reload` record.

A mutated module body re-run in place (see `reload`) re-creates its functions and classes.
`Reload.merge` makes each original behave as its re-created twin in place (a function takes its
code, defaults, closure cells and attributes; a class its attributes and methods), so that every
identity-based reference to the original sees the mutant; `Reload.equivalent` tells a re-created
value that is interchangeable with the original (equal state, same or merged class).  Every change
is recorded before it is made, together with what was there.

Invariants: a refused merge changes nothing; `restore()` undoes every recorded change in reverse
and puts the module namespace back, leaving every object touched exactly as it was.
"""

from __future__ import annotations

import abc
import collections
import gc
import types
from dataclasses import dataclass, field
from typing import Any

MISSING = object()  # what an undo entry holds for "there was nothing here" (also read back from namespaces)
_ATOMS = (str, bytes, int, float, complex, bool, type(None), range, type(Ellipsis))
# class attributes that belong to one class object and must never be copied onto another (`__slotnames__`: copyreg's
# cache of the slot names, which a merge keeps right: it refuses classes whose or whose bases' `__slots__` differ)
_CLASS_OWN = frozenset({"__dict__", "__weakref__", "_abc_impl", "__slots__", "__slotnames__"})
_PLAIN_METACLASSES = (type, abc.ABCMeta)
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement, not by C code
_TUPLEGETTER = getattr(collections, "_tuplegetter", None)  # a namedtuple's field accessor (C), when there is one
# module-level names in dunder form that hold plain data: nothing calls them implicitly, code reads them by
# name (`from m import *` reads `__all__` while importing, which the import graph sees)
_DATA_DUNDERS = frozenset({"__all__", "__version__", "__author__", "__license__", "__copyright__", "__email__",
                           "__status__", "__credits__", "__maintainer__", "__lazy_modules__",
                           # package metadata (rfc3986's `__title__`, `__author_email__`): read by name or not at all
                           "__title__", "__author_email__", "__maintainer_email__", "__url__", "__uri__", "__summary__",
                           "__description__", "__date__", "__docformat__", "__contact__", "__homepage__", "__release__",
                           "__revision__", "__build__", "__keywords__"})


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
    data_changed: dict[int, set[str]] = field(default_factory=dict)  # merged class id -> its changed data names
    changed_codes: set[types.CodeType] = field(default_factory=set)  # original code of functions that changed
    changed_names: set[str] = field(default_factory=set)  # names and attribute names bound to something new
    project: frozenset[str] = frozenset()  # the modules whose code `observed_by` is asked about (see below)
    read_elsewhere: set[str] = field(default_factory=set)  # changed attributes code outside `project` may read
    # a doubt that is only about other modules' import-time reads -> those readers: re-running their bodies in
    # place after this one settles it (see `reload.reload_with_readers`)
    reads: dict[str, frozenset[str]] = field(default_factory=dict)
    # names in `changed_names` bound only to a dict replaced by one that differs at these keys (see `keyed`)
    keyed: dict[str, frozenset[Any]] = field(default_factory=dict)
    # id(original) -> the re-created value bound in its place: what a test given the original as a parameter gets
    replaced: dict[int, Any] = field(default_factory=dict)

    def observed_by(self, code: types.CodeType, apart: frozenset[str] = frozenset()) -> bool:
        """Whether running `code` can see this reload's changes: it is a changed function's code, or reads by
        name (a global or an attribute) something that was rebound, names in `apart` aside (the caller looks at
        the keys read under those).  Reads through `getattr(obj, variable)` or `vars(module)[...]` are not
        seen; everything else reaches a changed object through a name."""
        names = self.changed_names - apart if apart else self.changed_names
        return code in self.changed_codes or not names.isdisjoint(code.co_names)

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
                if previous is MISSING:
                    delattr(target, key)
                else:
                    setattr(target, key, previous)
            elif kind == "item":
                if previous is MISSING:
                    target.pop(key, None)
                else:
                    target[key] = previous
            else:  # a closure cell
                if previous is MISSING:
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

    def set_item(self, target: dict[str, Any], key: str, value: Any) -> None:
        """Bind `target[key]` to `value` (a module namespace's entry), undone by `restore`."""
        self.undo.append(("item", target, key, target.get(key, MISSING)))
        target[key] = value

    def _set_cell(self, cell: Any, value: Any) -> None:
        try:
            previous = cell.cell_contents
        except ValueError:
            previous = MISSING
        self.undo.append(("cell", cell, None, previous))
        cell.cell_contents = value

    def _same(self, old: Any, new: Any) -> bool:
        # (MISSING: an unmapped value is not the same as an original None)
        return new is old or self.mapping.get(id(new), MISSING) is old or (
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
            return all(self.equivalent(getattr(old, n, MISSING), getattr(new, n, MISSING), depth - 1) for n in slots)
        if _TUPLEGETTER is not None and isinstance(old, _TUPLEGETTER):
            # a namedtuple's field accessor: its field number and docstring are all its state
            return bool(old.__reduce__() == new.__reduce__())
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
                value = MISSING
            try:
                current = old_cell.cell_contents
            except ValueError:
                current = MISSING
            if value is MISSING:  # both empty (checked above)
                continue
            if not self.merge(current, value):
                self._set_cell(old_cell, value)
        changes = len(self.undo)
        original_code = old.__code__
        if old.__code__ != new.__code__ and _without_lines(old.__code__) != _without_lines(new.__code__):
            # (a mutant that changed the number of lines above moved the function: that alone changes nothing)
            self._set_attr(old, "__code__", new.__code__)
        for name in ("__defaults__", "__kwdefaults__"):
            before, after = getattr(old, name), getattr(new, name)
            if not self._same_defaults(before, after):
                self._set_attr(old, name, after)
        for key, value in vars(new).items():
            if key == "__wrapped__":
                continue
            if not self._same(vars(old).get(key, MISSING), value):
                self._set_attr(old, key, value)
        if len(self.undo) > changes:
            self.changed_codes.add(original_code)
        if len(self.undo) > changes and (self.ran_at_import is None or original_code in self.ran_at_import):
            # something called it while an importer was imported; that result holds the original
            self.doubts.append(f"{old.__qualname__} changed and ran while the tests were collected")
        return True

    def _same_defaults(self, before: Any, after: Any) -> bool:
        """Whether two functions' defaults (a tuple, a dict of keyword-only ones, or None) are interchangeable:
        the same positions or keys, each the same object, the original a re-created one was merged into, or an
        equal atom (`cache_setitem=Cache.__setitem__` of a merged `Cache` is the same default)."""
        if before is None or after is None:
            return before is after
        if isinstance(before, dict):
            return before.keys() == after.keys() and all(self._same(before[k], after[k]) for k in before)
        return len(before) == len(after) and all(self._same(b, a) for b, a in zip(before, after, strict=True))

    def _stands_for(self, old: Any, new: Any, new_class: type) -> bool:
        """Whether the class attribute `old` may stand for its re-created `new`, from now on (as a merged function
        does): an instance of a merged class holding no state (`__size = _DefaultSize()` under `__slots__ = ()`),
        which nothing but the re-created class holds, so that no other re-created object (a default, a table)
        could tell the two apart."""
        if not _stateless(old) or self.mapping.get(id(type(new))) is not type(old) or not _held_only_by(new, new_class):
            return False
        self._remember(old, new)
        return True

    def _merge_unnamed_base(self, old: Any, new: Any) -> bool:
        """Merge a base class that the class statement re-created without binding it to a name
        (`class ParseResult(namedtuple("ParseResult", FIELDS), Mixin)`): no name of the module reaches it, so the
        class naming it as a base merges it (a base bound to a name was merged, or refused, as that name)."""
        name = self.module.__name__
        if not (isinstance(old, type) and isinstance(new, type)) or old.__qualname__ != new.__qualname__ \
                or old.__module__ != name or new.__module__ != name or any(v is old for v in self.saved.values()):
            return False
        return self.merge(old, new)

    def _merge_class(self, old: type, new: type) -> bool:
        if type(new) not in _PLAIN_METACLASSES:
            return False  # enums, dataclass-like metaclasses: instances made by the body belong to the new class
        if vars(old).get("__slots__") != vars(new).get("__slots__"):
            return False
        if len(new.__bases__) != len(old.__bases__) or not all(
                self.mapping.get(id(n), n) is o or self._merge_unnamed_base(o, n)
                for o, n in zip(old.__bases__, new.__bases__, strict=True)):
            return False
        self._remember(old, new)
        # inherited code from outside the project reads the class's attributes (by name, or from C): what it
        # runs is not recorded, so it reveals no reader
        foreign = any(base is not object and base.__module__ not in self.project for base in old.__mro__[1:])
        for key in (set(vars(old)) | set(vars(new))) - _CLASS_OWN:
            before, after = vars(old).get(key, MISSING), vars(new).get(key, MISSING)
            if isinstance(before, types.MemberDescriptorType) and isinstance(after, types.MemberDescriptorType) \
                    and before.__name__ == after.__name__:
                continue  # a slot of the same name under the same `__slots__` (checked above): the class's own
            if after is MISSING:
                self._del_attr(old, key)
                self.changed_names.add(key)
                if foreign:
                    self.read_elsewhere.add(key)
            elif before is MISSING or not (self._same(before, after) or self.merge(before, after)
                                            or self.equivalent(before, after) or self._stands_for(before, after, new)):
                self.changed_names.add(key)
                if foreign:
                    self.read_elsewhere.add(key)
                if isinstance(after, (types.MemberDescriptorType, types.GetSetDescriptorType)):
                    return False
                if not callable(after) and not isinstance(after, (staticmethod, classmethod, property)):
                    self.data_changed.setdefault(id(old), set()).add(key)
                self._set_attr(old, key, after)
        return True


def _without_lines(code: types.CodeType) -> types.CodeType:
    """`code` with its line numbers (and its nested code's) left out: equal for a function only moved up or down."""
    consts = tuple(_without_lines(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_firstlineno=1, co_linetable=b"", co_consts=consts)


def _held_only_by(value: Any, klass: type) -> bool:
    """Whether nothing but the namespace of `klass` holds `value` (frames aside)."""
    own = vars(klass)
    for holder in gc.get_referrers(value):
        if isinstance(holder, types.FrameType):
            continue
        if not (isinstance(holder, dict) and holder.keys() == own.keys() and all(holder[k] is own[k] for k in own)):
            return False
    return True


def _stateless(value: Any) -> bool:
    """Whether `value` is an instance of a Python class that gives its instances no state at all: no `__dict__`,
    and `__slots__ = ()` all the way up to `object`."""
    klass = type(value)
    if klass is object or hasattr(value, "__dict__") or not klass.__flags__ & _HEAPTYPE:
        return False
    return klass.__mro__[-1] is object and all(vars(k).get("__slots__", None) == () for k in klass.__mro__[:-1])


def _slot_names(klass: type) -> tuple[str, ...]:
    slots = vars(klass).get("__slots__", ())
    return (slots,) if isinstance(slots, str) else tuple(slots)


def _own(target: Any, key: str) -> Any:
    """What `target` itself holds under `key`: a class's own dict entry (a staticmethod stays one, an
    inherited value is not copied down), a function's attribute."""
    if isinstance(target, type):
        return vars(target).get(key, MISSING)
    return getattr(target, key, MISSING)


def _is_empty(cell: Any) -> bool:
    try:
        return cell.cell_contents is MISSING  # never true: reading an empty cell raises
    except ValueError:
        return True

