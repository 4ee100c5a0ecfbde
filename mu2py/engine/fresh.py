"""Module-level containers put back to their post-import contents before every test.

Packages fill caches lazily (`_REGEX_CACHE = {}` filled by the first parse).  In a long-lived
worker the first test fills them and every later test, and every later mutant, reads the
filled cache: a mutant in the code that fills it is then never run again, and a mutant
that filled it wrongly poisons the mutants after it.  A fresh interpreter starts empty.
Resetting these containers before each test makes every verdict (and every test's reach
in the baseline) the one that test gives when it runs first, whatever ran before it.

Invariant: after `reset()` every tracked container compares equal to its contents when the
snapshot was taken (the containers are the same objects; a changed one gets back the very
items it held, while an item replaced by an equal one may stay).
"""

from __future__ import annotations

import types
from typing import Any

_CONTAINERS = (dict, list, set, bytearray)


class ContainerSnapshot:
    """The contents of the dicts, lists and sets bound at module level or as class attributes of some modules."""

    def __init__(self, modules: list[types.ModuleType]) -> None:
        self.saved: list[tuple[Any, Any]] = []
        seen: set[int] = set()
        for module in modules:
            for name, value in list(vars(module).items()):
                if name.startswith("__") and name.endswith("__"):
                    continue  # __all__, __builtins__: not state the package changes
                self._track(value, seen)
                if isinstance(value, type) and value.__module__ == module.__name__:
                    for key, attr in list(vars(value).items()):
                        if not key.startswith("__"):
                            self._track(attr, seen)

    def _track(self, value: Any, seen: set[int]) -> None:
        if type(value) in _CONTAINERS and id(value) not in seen:
            seen.add(id(value))
            self.saved.append((value, value.copy()))

    def holders(self) -> list[Any]:
        """The snapshot's own objects that refer to the tracked containers (bookkeeping, not program state)."""
        return [self.saved, *self.saved]

    def reset(self) -> int:
        """Restore every container whose contents changed; returns how many were restored."""
        restored = 0
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
