"""Module-level containers put back to their post-import contents before every test.

Packages fill caches lazily (`_REGEX_CACHE = {}` filled by the first parse).  In a long-lived
worker the first test fills them and every later test, and every later mutant, reads the
filled cache: a mutant in the code that fills it is then never run again, and a mutant
that filled it wrongly poisons the mutants after it.  A fresh interpreter starts empty.
Resetting these containers before each test makes every verdict (and every test's reach
in the baseline) the one that test gives when it runs first, whatever ran before it.

Module copies built by mu2py (`bindings=True`) get two more resets, as a fresh import
would start: their global names are bound again to what they held after import (`global
_table; _table = {...}` filled lazily from None), and their `functools` caches
(`lru_cache`, `cache`, on functions and class attributes) are emptied when they grew.
Without them a mutant in code that only runs to fill a table or a cache is never run after
the first input (urllib.parse's `_hextobyte` and `_byte_quoter_factory`), so its verdict
depends on which inputs ran before.  The user's own modules (`score`) keep their bindings:
other code may rebind them on purpose after import.

Invariant: after `reset()` every tracked container compares equal to its contents when the
snapshot was taken (the containers are the same objects; a changed one gets back the very
items it held, while an item replaced by an equal one may stay); with `bindings`, every
module global is bound to the object it held (names added since are gone, but modules),
and every tracked cache holds at most what it held.
"""

from __future__ import annotations

import types
from typing import Any

from mu2py.processes.outside import Bindings

_CONTAINERS = (dict, list, set, bytearray)


class ContainerSnapshot:
    """The contents of the dicts, lists and sets bound at module level or as class attributes of some modules."""

    def __init__(self, modules: list[types.ModuleType], *, bindings: bool = False) -> None:
        self.saved: list[tuple[Any, Any]] = []
        # the module namespaces' bindings after import and (cache, its size after import): with `bindings` only
        self.namespaces: list[Bindings] = []
        self.caches: list[tuple[Any, int]] = []
        seen: set[int] = set()
        for module in modules:
            namespace = vars(module)
            if bindings:
                self.namespaces.append(Bindings(namespace))
            for name, value in list(namespace.items()):
                if name.startswith("__") and name.endswith("__"):
                    continue  # __all__, __builtins__: not state the package changes
                self._track(value, seen, bindings)
                if isinstance(value, type) and value.__module__ == module.__name__:
                    for key, attr in list(vars(value).items()):
                        if not key.startswith("__"):
                            self._track(attr, seen, bindings)

    def _track(self, value: Any, seen: set[int], caches: bool) -> None:
        if type(value) in _CONTAINERS and id(value) not in seen:
            seen.add(id(value))
            self.saved.append((value, value.copy()))
        elif caches and id(value) not in seen:
            # staticmethod/classmethod wrap the cached function: look through them
            inner = getattr(value, "__func__", value)
            info = getattr(inner, "cache_info", None)
            if callable(info) and callable(getattr(inner, "cache_clear", None)):
                seen.add(id(value))
                self.caches.append((inner, info().currsize))

    def holders(self) -> list[Any]:
        """The snapshot's own objects that refer to the tracked containers or to what they held (bookkeeping, not
        program state): a copy of a table of the module's tables holds the originals a re-run body replaced."""
        return [self.saved, *self.saved, *(contents for _, contents in self.saved)]

    def reset(self) -> int:
        """Restore every container whose contents changed; returns how many were restored."""
        restored = 0
        for namespace in self.namespaces:
            restored += namespace.restore()
        for cache, size in self.caches:
            if cache.cache_info().currsize > size:
                restored += 1
                cache.cache_clear()
        for container, contents in self.saved:
            if _unchanged(container, contents):
                continue
            restored += 1
            if isinstance(container, (list, bytearray)):
                container[:] = contents
            else:
                container.clear()
                container.update(contents)
        return restored


def _unchanged(container: Any, contents: Any) -> bool:
    # compared in C (items are compared by identity first): this runs around every mutant run
    if len(container) != len(contents):
        return False
    try:
        return bool(container == contents)
    except Exception:  # noqa: BLE001 - an item whose __eq__ raises: put the contents back to be sure
        return False
