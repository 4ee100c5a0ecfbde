"""Re-running a mutated module body in its live namespace, with the change carried to every live reference.

A module-level mutant (a constant, a default value, a class attribute, a lambda in a
table) changes what the module's body computes when it is imported.  A test suite holds
the original objects everywhere: `from m import f` bindings, subclasses, instances,
exception handlers.  `reload_in_place` runs the mutated body in the module's own
namespace, then:

- first gives a re-created bare `object()` sentinel its original identity wherever the body put it
  (see `sentinels`): it differs from the original only by identity, and every reader holds the original;
- merges every re-created function into the original function object (code, defaults,
  closure cells, attributes) and every re-created class into the original class (its
  attributes and methods), so that identity-based references stay valid and see the mutant;
- rebinds every other changed value in the module and in each module that bound it with
  `from m import X` (see `imports.ImportGraph`), and re-classes instances of merged classes.

What it cannot carry over is reported as a *doubt*: a value another module computed from
the changed name while being imported, an original object still referenced from some place
it cannot patch, a class it cannot merge.  A mutant with doubts that survives must be
confirmed in a fresh interpreter; one without doubts behaves as if the mutated module had
been imported from the start.  `reload_with_readers` settles the first kind where it can: the
package modules that read a changed name while being imported have their original bodies re-run
in place after it (in a fresh import they run after it too), their own changes carried over alike.

Invariant: if the body raises or the carrying over fails, everything is restored before the
exception propagates; otherwise `restore()` of the returned `Reload` (see `merge`) returns every
object touched (functions, classes, cells, other modules' bindings) and the module namespace to
exactly their original state.
"""

from __future__ import annotations

import gc
import re
import sys
import sysconfig
import types
from collections import Counter
from collections.abc import Callable
from typing import Any

from mu2py.score import chunks
from mu2py.score.imports import ImportGraph
from mu2py.score.keyed import changed_keys
from mu2py.score.merge import MISSING, Reload, is_atom
from mu2py.score.sentinels import keep_sentinels

# what the import system puts in a module's namespace before running its body
_MODULE_ATTRIBUTES = frozenset({"__name__", "__doc__", "__package__", "__loader__", "__spec__", "__file__",
                                "__cached__", "__builtins__", "__path__"})
_WARNING_REGISTRY = "__warningregistry__"  # set by `warnings.warn` in the module whose code warned


class ReloadError(Exception):
    """The mutated body ran, but its changes could not be carried over (everything is restored)."""


def _ignored_referrers() -> list[Any]:
    # the regular-expression module caches compiled patterns, and typing its subscripted generics
    # (`Mapping[str, str]`, compared by value): an old one there is harmless
    typing = sys.modules.get("typing")
    generics = [getattr(clear, "__self__", None) for clear in getattr(typing, "_cleanups", ())]
    return [*(v for k, v in vars(re).items() if k.startswith("_cache") and isinstance(v, dict)),
            *(g for g in generics if g is not None)]


_PARAMETER_TYPES = (dict, list, tuple, set, frozenset)  # values whose parametrize ids are their positions


def _iterates_alike(old: Any, new: Any) -> bool:
    """Whether iterating `old` and `new` gives equal atoms in the same order (a dict's keys: its values may differ)."""
    if isinstance(old, (set, frozenset)):
        return False  # an order of its own: the same elements may be collected in another order
    try:
        before, after = list(old), list(new)
    except Exception:  # noqa: BLE001 - what cannot be iterated again is not the same
        return False
    return len(before) == len(after) and all(
        is_atom(a) and type(a) is type(b) and a == b for a, b in zip(before, after, strict=True))


Code = chunks.Body | types.CodeType
"""A module body's code: whole, or statement by statement (see `chunks`)."""
Run = Callable[[Code, dict[str, Any]], None]
"""Runs a module body's code in a namespace, as `chunks.execute` does."""


def reload_in_place(module: types.ModuleType, code: Code, graph: ImportGraph,
                    modules: dict[str, types.ModuleType], bookkeeping: list[Any] | None = None,
                    ran_at_import: set[types.CodeType] | None = None, run: Run | None = None) -> Reload:
    """Run `code` as `module`'s body in its live namespace and carry the changes over (see the module doc).

    `modules` are the live modules `graph` describes, by name; `bookkeeping` are the caller's
    objects whose references to an original do not count as program state; `ran_at_import` are
    the code objects that ran while the importers were imported (None: unknown, assume any); `run(code, namespace)`
    runs the body (`exec` when None: a caller may watch it run, and only it).  If the body raises, the
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
        (run or chunks.execute)(code, namespace)
    except BaseException:
        reload.restore()
        raise
    for key, value in reload.saved.items():
        # submodules the import system set on a package when they were imported (by tests too)
        if key not in namespace and isinstance(value, types.ModuleType) \
                and sys.modules.get(f"{module.__name__}.{key}") is value:
            namespace[key] = value
    if _WARNING_REGISTRY in reload.saved and _WARNING_REGISTRY not in namespace:
        # the warnings machinery's record of what this module's code warned about: bookkeeping, which outlives
        # a reload as it outlives every other unit in this worker (pytest's per-test filters outdate it anyway);
        # counted as a changed name, it made every test observe the reload
        namespace[_WARNING_REGISTRY] = reload.saved[_WARNING_REGISTRY]
    try:
        _carry_over(reload, graph, modules)
    except Exception as exc:
        reload.restore()
        raise ReloadError(f"{type(exc).__name__}: {exc}") from exc
    return reload


class Reloads:
    """A mutated module reloaded in place, then the modules whose import-time code read its changes, in the
    order they were re-run; `restore()` undoes them in reverse.  Reads like one `Reload` (doubts, observers)."""

    def __init__(self, first: Reload) -> None:
        self.records = [first]
        self.restored = False  # a second `restore` must not put back a state saved before the first

    @property
    def doubts(self) -> list[str]:
        """What no record could carry over, in the order found."""
        return [doubt for record in self.records for doubt in record.doubts]

    @property
    def observable_by_name(self) -> bool:
        """Whether every change of every record is seen only through names (see `Reload.observable_by_name`)."""
        return all(record.observable_by_name for record in self.records)

    def observed_by(self, code: types.CodeType, apart: frozenset[str] = frozenset()) -> bool:
        """Whether running `code` can see a change of any record, names in `apart` aside (see
        `Reload.observed_by`)."""
        return any(record.observed_by(code, apart) for record in self.records)

    @property
    def replaced(self) -> dict[int, Any]:
        """id(original) -> its replacement, over all records (see `Reload.replaced`)."""
        return {key: new for record in self.records for key, new in record.replaced.items()}

    @property
    def keyed(self) -> dict[str, frozenset[Any]]:
        """The changed names bound, in every record that changed them, only to a replaced dict, with the keys at
        which the replacements differ (see `Reload.keyed`)."""
        plain = set().union(*(record.changed_names - record.keyed.keys() for record in self.records))
        keys: dict[str, frozenset[Any]] = {}
        for record in self.records:
            for name, changed in record.keyed.items():
                keys[name] = keys.get(name, frozenset()) | changed
        return {name: changed for name, changed in keys.items() if name not in plain}

    def restore(self) -> None:
        """Undo the records, last first: each one's saved state is what the one before it left (the doubts stay:
        the caller reads them after the tests ran and the modules are put back)."""
        if not self.restored:
            for record in reversed(self.records):
                record.restore()
        self.restored = True


def reload_with_readers(module: types.ModuleType, code: Code, graph: ImportGraph,
                        modules: dict[str, types.ModuleType], originals: dict[str, types.CodeType],
                        bookkeeping: list[Any] | None = None, ran_at_import: set[types.CodeType] | None = None,
                        limit: int = 8, run: Run | None = None, rerun: list[str] | None = None) -> Reloads:
    """`reload_in_place`, then each module whose import-time code read a changed value re-run in place too.

    A fresh import of the mutant runs an importer's body after the mutated module's, on its values
    (`URI_MATCHER = re.compile(abnf.URL_RE)`): re-running the importer's original body (`originals`:
    the unmutated code of the modules that may be re-run) in place, after the reload, computes what
    that fresh import would, and its own changes are carried over like the mutant's.  A doubt is settled
    only when every module it names was re-run after the record that has it; an importer outside
    `originals` (a test module), one that ran before that record (the mutated module itself, or a reader
    re-run earlier: it read values from before), or more than `limit` re-runs leave the doubts standing.
    Raises as `reload_in_place` does (a reader's body too), everything restored.  `run` runs the mutated module's
    body only (see `reload_in_place`).  The modules in `rerun` (in `originals` and `modules`) are re-run right
    after the mutated one, whatever they read: their import ran a function the mutant changed.
    """
    reloads = Reloads(reload_in_place(module, code, graph, modules, bookkeeping, ran_at_import, run))
    position = {module.__name__: 0}  # module -> its record: the last re-run of it

    def again(name: str) -> None:
        # the earlier records hold originals in their own bookkeeping, which is no program state
        ours = [x for r in reloads.records for x in (r.saved, r.undo, *r.undo, r.keep)]
        reloads.records.append(reload_in_place(modules[name], originals[name], graph, modules,
                                               [*(bookkeeping or ()), *ours], ran_at_import))
        position[name] = len(reloads.records) - 1

    try:
        for name in rerun or ():
            if name not in position:
                again(name)
        for index, record in enumerate(reloads.records):  # grows as readers re-run: their doubts are settled in turn
            readers = sorted(set().union(*record.reads.values()))
            if not readers:
                continue
            # a reader re-run after this record read its new values already; one re-run before it did not
            if any(position.get(r, index + 1) <= index or r not in originals or r not in modules for r in readers) \
                    or len(reloads.records) + len(readers) > limit + 1:
                break  # a doubt stays: the mutant goes to a fresh interpreter anyway
            for reader in readers:
                if reader not in position:
                    again(reader)
            record.doubts = [d for d in record.doubts if d not in record.reads]
    except BaseException:
        reloads.restore()
        raise
    return reloads


def _carry_over(reload: Reload, graph: ImportGraph, modules: dict[str, types.ModuleType]) -> None:
    module, namespace, saved = reload.module, vars(reload.module), reload.saved
    # before any merge: merged functions and classes, and the module, must all keep the one original sentinel
    keep_sentinels(namespace, saved)
    changed: list[tuple[str, Any, Any, bool]] = []  # name, original, re-created, merged into the original
    pending = []
    # functions and classes first: instances and tables made by the body are judged against the merged classes
    for name, new in list(namespace.items()):
        old = saved.get(name, MISSING)
        if old is MISSING:
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
    plain = set(reload.changed_names)  # names changed by a merge or gone: none is a replaced dict's alone
    named: dict[str, list[str]] = {}  # a replaced value's name -> every name now bound to its replacement
    for name, old, new, merged in changed:
        # a merged function or class keeps its identity: a reader at import time holds the changed object,
        # and a call it made then is caught in `merge`; a merged class's changed data may have been read
        if not merged:
            readers = graph.readers_at_import(module.__name__, name)
            if readers and type(old) is type(new) and type(new) in _PARAMETER_TYPES:
                # a test module that passed it to parametrize, and only so: its tests are given the re-created value
                # (`params.Collected.swap`), under the same ids (pytest numbers a container's, never spells it); one
                # that gave it as the argument values collected the same tests when iterating it gives the same atoms
                settled = ("value", "iterated") if _iterates_alike(old, new) else ("value",)
                readers = [r for r in readers if graph.read_as_parameter(r, module.__name__, name) not in settled]
            if readers:
                _read_doubt(reload, f"{readers[0]} reads {name} while it is imported", readers)
        elif id(old) in reload.data_changed:
            doubt, readers = _data_read_at_import(reload, graph, module.__name__, reload.data_changed[id(old)])
            if doubt is not None and readers:
                _read_doubt(reload, doubt, readers)
            elif doubt is not None:
                reload.doubts.append(doubt)
        if merged:
            continue
        reload.changed_names.add(name)
        named[name] = [name]
        if not is_atom(old):
            reload.replaced[id(old)] = new
        original_class = reload.mapping.get(id(type(new)))
        if original_class is not None:
            try:
                new.__class__ = original_class
            except TypeError:
                reload.doubts.append(f"{name} is an instance of a re-created class")
        for importer, alias in graph.bindings_of(module.__name__, name):
            target = modules.get(importer)
            if target is not None and vars(target).get(alias, MISSING) is old:
                reload.set_item(vars(target), alias, new)
                reload.changed_names.add(alias)
                named[name].append(alias)
        if not is_atom(old):
            named[name] += _rebind_everywhere(reload, old, new, modules)
    replaced = [(name, old) for name, old, _, merged in changed if not merged and not is_atom(old)]
    old = new = None  # this frame's own references to the last original would fail `_held_only_by` below
    if replaced:
        _check_unreferenced(reload, replaced, changed)
    _check_containers(reload, [new for _, _, new, merged in changed if not merged])
    # a replaced dict that differs at a few keys is seen only by reading one of them (see `keyed`); a name also
    # bound to anything else that changed is seen by any read
    keyed: dict[str, set[Any]] = {}
    for name, original, replacement, merged in changed:
        if merged:
            continue
        keys = changed_keys(original, replacement, reload.equivalent)
        for bound in named[name]:
            if keys is None:
                plain.add(bound)
            else:
                keyed.setdefault(bound, set()).update(keys)
    reload.keyed = {name: frozenset(keys) for name, keys in keyed.items() if name not in plain}


def _read_doubt(reload: Reload, doubt: str, readers: list[str]) -> None:
    """A doubt that re-running `readers`' bodies in place would settle (see `reload_with_readers`)."""
    reload.doubts.append(doubt)
    reload.reads[doubt] = reload.reads.get(doubt, frozenset()) | frozenset(readers)


def _data_read_at_import(reload: Reload, graph: ImportGraph, module: str,
                         names: set[str]) -> tuple[str | None, list[str]]:
    """Why a merged class's changed data attributes `names` may have been read at import time, or None; and the
    modules whose import-time code reads them by name, when that is the only reason.

    Another module's import-time code naming one of them (`LIMIT = Cache.limit`), or code of the
    package that ran then and names one (`Cache.__init__` copying it into an instance made at
    import).  Holding the class itself (`Cache = base.Cache` in a test class) is no read: the held
    class is the merged one.  Reads by a computed name (`getattr(Cache, key)`) are not seen.
    """
    if reload.ran_at_import is None:
        return f"{', '.join(sorted(names))} changed, and what ran at import time is unknown", []
    bodies = []  # project modules whose own body read them while imported: re-running that body settles it
    for code in reload.ran_at_import:
        if not names.isdisjoint(code.co_names):
            body = _module_of_body(reload, code)
            if body is None:
                return (f"{code.co_qualname} reads {', '.join(sorted(names & set(code.co_names)))} and ran at "
                        "import time"), []
            bodies.append(body)
    readers = sorted({reader for key in names for reader in graph.readers_at_import(module, key)} | set(bodies))
    for key in sorted(names):
        found = graph.readers_at_import(module, key)
        if found:
            return f"{found[0]} reads {key} while it is imported", readers
    if bodies:
        return f"{bodies[0]} reads {', '.join(sorted(names))} while it is imported", readers
    return None, []


def _module_of_body(reload: Reload, code: types.CodeType) -> str | None:
    """The project module (other than the reloaded one) whose body `code` is, or None (a function's code)."""
    if code.co_name != "<module>":
        return None
    for name in reload.project:
        found = sys.modules.get(name)
        if found is not None and found is not reload.module and getattr(found, "__file__", None) == code.co_filename:
            return name
    return None


def _rebind_everywhere(reload: Reload, old: Any, new: Any, modules: dict[str, types.ModuleType]) -> list[str]:
    """Rebind `old` to `new` under any name in the known modules (identity is reliable for objects that are not atoms);
    the names rebound.

    Only the modules under test and the test modules: an original that is not the module's
    own (`X = object`) is bound all over the interpreter, and must stay so.
    """
    rebound = []
    for other in modules.values():
        found = vars(other)
        if found is not vars(reload.module):
            for key, value in list(found.items()):
                if value is old:
                    reload.set_item(found, key, new)
                    reload.changed_names.add(key)
                    rebound.append(key)
    return rebound


def _check_unreferenced(reload: Reload, replaced: list[tuple[str, Any]], changed: list[Any]) -> None:
    """Any holder of a replaced original other than this bookkeeping (a default, a container) is a doubt."""
    # the originals in one tuple of ours, passed as is: `get_referrers(*generator)` builds an argument tuple
    # that Python 3.13 reports as a referrer of every original in it
    originals = tuple(old for _, old in replaced)
    # each once: `_held_only_by` counts their references.  An original held by another original only (a table of
    # the module's tables, re-created with them) is no program state: each original's own holders are checked too
    mine = list({id(x): x for x in (reload.saved, reload.undo, reload.keep, changed, replaced, originals, *originals,
                                    *changed,
                                    *replaced, *reload.undo, *_ignored_referrers(),
                                    *(entry[3] for entry in reload.undo), *(entry[1] for entry in changed),
                                    reload.bookkeeping, *reload.bookkeeping)}.values())
    if _held_only_by(originals, mine):
        return
    ours = {id(mine), *map(id, mine)}
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


# up to 3.13 (with the GIL) every reference, a call's argument included, is counted: from 3.14 the interpreter
# may borrow references from its stack, and free-threaded builds defer some counts, so a count can be too low
_EXACT_REFCOUNTS = sys.version_info < (3, 14) and not sysconfig.get_config_var("Py_GIL_DISABLED")


def _held_only_by(originals: tuple[Any, ...], ours: list[Any]) -> bool:
    """Whether every reference to each of `originals` is one `ours` hold (their referents, counted): then nothing
    else holds one, and the heap need not be searched (`gc.get_referrers` walks every object, the most of a reload).

    Any other reference (a holder anywhere, a frame's local) makes the count higher: False, and the heap decides.
    """
    if not _EXACT_REFCOUNTS:
        return False
    wanted = {id(o) for o in originals}
    # the list `ours` holds some originals itself
    from_ours = Counter(id(r) for r in (*gc.get_referents(*ours), *ours) if id(r) in wanted)
    # getrefcount's argument is one reference more (a temporary: no local here holds an original)
    return all(sys.getrefcount(originals[i]) - 1 <= from_ours[id(originals[i])] for i in range(len(originals)))


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
    """Re-created containers may hold re-created functions or classes: put the originals in their place.

    A tuple cannot be changed: one inside a container is replaced by a new one around the originals, as the
    original class when its class was re-created (a named tuple: a table of formats holding the module's
    functions); a tuple bound to a name, or one of a class that cannot be rebuilt, stays a doubt.
    """
    if not reload.mapping:
        return
    done: dict[int, Any] = {}  # id -> what the value became (itself, or a rebuilt tuple): a value held twice

    def fix(value: Any, level: int) -> Any:
        mapped = reload.mapping.get(id(value))
        if mapped is not None:
            return mapped
        if id(value) in done:
            return done[id(value)]
        recreated = isinstance(value, tuple) and id(type(value)) in reload.mapping  # a named tuple's class
        if level <= 0 or (is_atom(value) and not recreated):
            return value
        done[id(value)] = value
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
        elif isinstance(value, tuple):
            fixed = [fix(v, level - 1) for v in value]
            if recreated or any(new is not old for new, old in zip(fixed, value, strict=True)):
                rebuilt = _rebuilt(reload, value, fixed) if level < depth else None
                if rebuilt is None:
                    reload.doubts.append("a re-created tuple holds re-created functions or classes")
                else:
                    done[id(value)] = rebuilt
                    return rebuilt
        return value

    for value in values:
        fix(value, depth)


def _rebuilt(reload: Reload, value: tuple[Any, ...], items: list[Any]) -> tuple[Any, ...] | None:
    """`value` made anew from `items`: a plain tuple, or a named tuple of the original class; None for others."""
    if type(value) is tuple:
        return tuple(items)
    cls = reload.mapping.get(id(type(value)), type(value))
    make = getattr(cls, "_make", None)
    if make is None or not hasattr(cls, "_fields"):
        return None
    try:
        rebuilt = make(items)
    except Exception:  # noqa: BLE001 - a named tuple whose `_make` was overridden: left to a fresh interpreter
        return None
    return rebuilt if isinstance(rebuilt, tuple) else None

