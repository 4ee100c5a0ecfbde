"""Re-created bare `object()` sentinels given back their original identity before a reload's merge.

A module body re-run in place (see `reload`) makes a new `UseExisting = object()` (or a class's
`__marker = object()`).  Such an object has no state: only its identity tells it apart, and a
fresh import of the mutant makes exactly one, held by the module and by every reader (a default
`x=misc.UseExisting` another module computed at import).  `keep_sentinels` puts the original
back in each place the body put the new one (the module's names, function defaults and
closure cells, class attributes, containers and instance attributes the body made), so that the
live state again holds one sentinel everywhere, and nothing counts as changed.

Soundness: a pair is kept only when the name (or class attribute) holds a bare `object` on both
sides, the pairing is one to one, the new one is not an object the module held before, and its
reference count is fully explained by the places found (so nothing else, such as an object that
existed before the reload, holds it).  Otherwise that sentinel is left alone: the reload then
judges it as a changed value, as before.  Only objects the body made are changed, never an
original, so `Reload.restore` has nothing more to undo.
"""

from __future__ import annotations

import gc
import sys
import types
from typing import Any

_DEPTH = 5
_NOT_WALKED = (types.ModuleType, types.BuiltinFunctionType, types.CodeType, types.FrameType)


def _bare(value: Any) -> bool:
    return type(value) is object


def _pairs(namespace: dict[str, Any], saved: dict[str, Any]) -> tuple[dict[int, Any], dict[int, Any]]:
    """The one-to-one re-created -> original bare sentinels: by the module's names and its classes' attributes."""
    candidates: list[tuple[Any, Any]] = []
    for name, new in namespace.items():
        old = saved.get(name)
        if _bare(new) and _bare(old):
            candidates.append((new, old))
        elif isinstance(new, type) and isinstance(old, type) and new is not old:
            own = vars(old)
            candidates.extend((value, own[key]) for key, value in vars(new).items()
                              if _bare(value) and _bare(own.get(key)))
    before = {id(v) for v in saved.values()}
    olds: dict[int, set[int]] = {}
    news: dict[int, set[int]] = {}
    for new, old in candidates:
        news.setdefault(id(new), set()).add(id(old))
        olds.setdefault(id(old), set()).add(id(new))
    kept_new: dict[int, Any] = {}
    kept_old: dict[int, Any] = {}
    for new, old in candidates:
        if new is not old and id(new) not in before and len(news[id(new)]) == 1 and len(olds[id(old)]) == 1:
            kept_new[id(new)], kept_old[id(new)] = new, old
    return kept_new, kept_old


class _Finder:
    """Every place the body's objects hold a re-created sentinel: (kind, holder, key) per sentinel id."""

    def __init__(self, targets: dict[int, Any], saved: dict[str, Any]) -> None:
        self.targets = targets
        self.found: dict[int, list[tuple[str, Any, Any]]] = {key: [] for key in targets}
        self.unfixable: set[int] = set()
        self.seen = {id(v) for v in saved.values()}  # the originals: the body did not make them

    def slot(self, kind: str, holder: Any, key: Any, value: Any, depth: int) -> None:
        """Record `value` held at `holder[key]` if it is a target, else walk into it."""
        if id(value) in self.targets:
            self.found[id(value)].append((kind, holder, key))
        else:
            self.walk(value, depth)

    def walk(self, value: Any, depth: int) -> None:
        """Look through `value`, an object the body may have made, down to `depth` levels."""
        if depth <= 0 or id(value) in self.seen or isinstance(value, _NOT_WALKED) or value is None:
            return
        self.seen.add(id(value))
        if isinstance(value, dict):
            for key, item in list(value.items()):
                if id(key) in self.targets:
                    self.unfixable.add(id(key))
                self.slot("item", value, key, item, depth - 1)
        elif isinstance(value, list):
            for index, item in enumerate(list(value)):
                self.slot("item", value, index, item, depth - 1)
        elif isinstance(value, (set, frozenset, tuple)):
            for item in list(value):
                if id(item) in self.targets:
                    self.found[id(item)].append(("member" if isinstance(value, set) else "frozen", value, None))
                else:
                    self.walk(item, depth - 1)
        elif isinstance(value, types.FunctionType):
            for index, item in enumerate(value.__defaults__ or ()):
                self.slot("default", value, index, item, depth - 1)
            self.walk(value.__kwdefaults__, depth)
            for cell in value.__closure__ or ():
                try:
                    self.slot("cell", cell, None, cell.cell_contents, depth - 1)
                except ValueError:  # an empty cell
                    pass
            self.walk(vars(value), depth)
        elif isinstance(value, type):
            for key, item in list(vars(value).items()):
                self.slot("attr", value, key, item, depth - 1)
        elif isinstance(value, (staticmethod, classmethod)):
            self.walk(value.__func__, depth - 1)
            self.walk(getattr(value, "__dict__", None), depth)
        elif isinstance(value, property):
            for part in (value.fget, value.fset, value.fdel):
                self.walk(part, depth - 1)
        else:  # an instance, or a wrapper such as functools.lru_cache's (its `__wrapped__` is in its dict)
            try:
                state = object.__getattribute__(value, "__dict__")  # never a `__getattr__` hook
            except AttributeError:
                return
            if isinstance(state, dict):
                self.walk(state, depth)


def _count(box: dict[int, Any], key: int) -> int:
    return sys.getrefcount(box[key])


def _unexplained(news: dict[int, Any], finder: _Finder) -> set[int]:
    """The sentinels some reference holds that the walk did not find (compared with a probe held as they are)."""
    probe: dict[int, Any] = {0: object()}
    base = _count(probe, 0)
    return {key for key in news if _count(news, key) - base != len(finder.found[key])}


def _replace(kind: str, holder: Any, key: Any, new: Any, old: Any) -> None:
    if kind == "item":
        holder[key] = old
    elif kind == "member":
        holder.discard(new)
        holder.add(old)
    elif kind == "cell":
        holder.cell_contents = old
    elif kind == "attr":
        type.__setattr__(holder, key, old)
    else:  # a function default: its tuple is rebuilt with every sentinel of it at once (see below)
        raise AssertionError(kind)


def keep_sentinels(namespace: dict[str, Any], saved: dict[str, Any]) -> int:
    """Give re-created bare sentinels in `namespace` (the body just ran) their originals from `saved`; how many."""
    news, olds = _pairs(namespace, saved)
    if not news:
        return 0
    finder = _Finder(news, saved)
    finder.seen.discard(id(namespace))
    finder.walk(namespace, _DEPTH + 1)
    for key, places in finder.found.items():
        if any(kind == "frozen" for kind, _, _ in places):
            finder.unfixable.add(key)
    unexplained = _unexplained(news, finder)
    if unexplained:
        gc.collect()  # garbage the body left (a discarded class) may be the other holder
        unexplained = _unexplained(news, finder)
    kept = {key for key in news if key not in unexplained and key not in finder.unfixable}
    defaults: dict[int, types.FunctionType] = {}
    for key in kept:
        for kind, holder, slot in finder.found[key]:
            if kind == "default":
                defaults[id(holder)] = holder
            else:
                _replace(kind, holder, slot, news[key], olds[key])
    for function in defaults.values():
        function.__defaults__ = tuple(olds[id(v)] if id(v) in kept else v for v in function.__defaults__ or ())
    return len(kept)
