"""A test's parametrize values as pytest collected them, put back before each run of the test.

A test that changes one of its parameters in place (sorts a list it was given) would meet the
changed value on its next run in the same worker, where a plain pytest run meets it once.

Invariant: before each run, every kept parameter holds the state it had at collection; one that
still does keeps its identity (nothing is copied needlessly).  A parameter that cannot be copied
(a generator) is not kept: the baseline's repeatability check finds the test that needs it fresh.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mu2py.score.merge import MISSING


def keep_params(items: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """Per test node id, a copy of its parameters as collected (see `restore_params`)."""
    kept_by_test: dict[str, dict[str, Any]] = {}
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", None)
        if not params:
            continue
        kept = {}
        for name, value in params.items():
            try:
                kept[name] = copy.deepcopy(value)
            except Exception:  # noqa: BLE001 - a generator cannot be copied: the repeatability check finds
                continue  # a test that needs it fresh (see `units.baseline`)
        kept_by_test[item.nodeid] = kept
    return kept_by_test


@dataclass
class Collected:
    """The parameter values of the collected tests, each as collected, and the containers pytest keeps them in.

    A module-level value a test module passed to `pytest.mark.parametrize` while it was imported
    lives on in these only: `holders` are no program state (see `reload`), and `swap` puts the
    value a re-run module body made in its place, in every test that was given it, as a fresh
    collection would (see `imports.ModuleFacts.params`).
    """

    given: list[tuple[Any, str, Any]]  # (test item, parameter name, value as collected)
    holders: list[Any]  # the parameters' dicts, the parametrize marks' value lists and their entries, `given`

    @classmethod
    def of(cls, items: Iterable[Any]) -> Collected:
        """The parameters of `items`, read before any test ran."""
        given, holders = [], []
        for item in items:
            params = getattr(getattr(item, "callspec", None), "params", None)
            if params:
                holders.append(params)
                given += [(item, name, value) for name, value in params.items()]
            for mark in getattr(item, "iter_markers", lambda name: ())("parametrize"):
                values = mark.args[1] if len(mark.args) > 1 else mark.kwargs.get("argvalues")
                holders.append(mark.args)  # `parametrize("name", TABLE)`: the mark's arguments hold the table
                if isinstance(values, (list, tuple)):
                    holders += [values, *(v for v in values if isinstance(v, (list, tuple)))]
        return cls(given, [*holders, given, *given])

    def swap(self, replaced: dict[int, Any], kept: dict[str, dict[str, Any]], undo: list[tuple[Any, ...]]) -> set[str]:
        """Give every test whose parameter was collected as an object of `replaced` (by id) its replacement, its
        kept copy too (see `restore_params`), each change noted in `undo` (for `unswap`) before it is made; the
        node ids of those tests."""
        given: set[str] = set()
        if not replaced:
            return given
        for item, name, value in self.given:
            new = replaced.get(id(value), MISSING)
            if new is MISSING:
                continue
            given.add(item.nodeid)
            params, pristine = item.callspec.params, kept.get(item.nodeid, {})
            undo.append((params, name, params.get(name, MISSING), pristine, pristine.get(name, MISSING)))
            params[name] = new
            if name in pristine:
                try:
                    pristine[name] = copy.deepcopy(new)
                except Exception:  # noqa: BLE001 - as `keep_params`: a value that cannot be copied is not kept
                    del pristine[name]
        return given


def unswap(undo: list[tuple[Any, ...]]) -> None:
    """Put back what `Collected.swap` changed."""
    for params, name, value, pristine, kept in reversed(undo):
        for target, previous in ((params, value), (pristine, kept)):
            if previous is MISSING:
                target.pop(name, None)
            else:
                target[name] = previous



def _same_state(a: Any, b: Any, depth: int = 6) -> bool:
    """Whether two parameter values hold the same state (identity aside); False when unsure."""
    if type(a) is not type(b):
        return False
    try:
        if isinstance(a, (list, tuple)):
            return depth > 0 and len(a) == len(b) and all(
                _same_state(x, y, depth - 1) for x, y in zip(a, b, strict=True))
        if isinstance(a, dict):
            return depth > 0 and a.keys() == b.keys() and all(_same_state(a[k], b[k], depth - 1) for k in a)
        state = getattr(a, "__dict__", None)
        if isinstance(state, dict) and type(a).__eq__ is object.__eq__:
            return depth > 0 and _same_state(state, vars(b), depth - 1)
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an __eq__ that fails or is ambiguous (arrays): copy anew
        return False


def restore_params(kept: dict[str, dict[str, Any]], item: Any) -> None:
    """Put back the parameters of `item` that an earlier run changed in place (unchanged ones keep their identity)."""
    pristine = kept.get(item.nodeid)
    if not pristine:
        return
    params = item.callspec.params
    for name, value in pristine.items():
        if not _same_state(params.get(name), value):
            params[name] = copy.deepcopy(value)
