"""The suite hosted in this worker: its collected tests, the live modules under test and what resets them.

`session.host` collects the suite once and sets `HOST`; every unit then reads it through
`state()`, which on first use compiles the program and prepares, per module under test, the
code swap, the module-level container snapshot and the per-thread state to put back.

Invariants: `fresh_start` leaves the modules under test as right after import (containers, memo
caches, per-thread state); `restore_tree` leaves the worker's copy of the project as found.
"""

from __future__ import annotations

import errno
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from mu2py.engine.payload import ModuleLayout
from mu2py.engine.swap import CodeSwap
from mu2py.processes.fresh import ContainerSnapshot
from mu2py.processes.ledger import Ledger
from mu2py.processes.outside import Bindings
from mu2py.processes.workers import request_restart
from mu2py.score import given
from mu2py.score.catalog import Catalog, Probes
from mu2py.score.children import Children
from mu2py.score.forkserver import ForkServer
from mu2py.score.imports import ImportGraph, module_facts
from mu2py.score.params import Collected
from mu2py.score.sandbox import ScratchCopy
from mu2py.score.spec import SuiteSpec, build_program

if TYPE_CHECKING:
    from mu2py.mutants.catalog import Program  # imports libcst, which a worker given a catalog never needs


@dataclass
class Host:
    """One worker's hosted suite: the session, its tests in collection order, and per module its swap."""

    spec: SuiteSpec
    session: Any = None
    items: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    program: Program | Catalog | None = None  # the parent's catalog when it matches, else built here
    catalog: Catalog | None = None  # the parent's list of the mutants (see `catalog`)
    swaps: dict[str, CodeSwap] = field(default_factory=dict)
    order: list[Any] = field(default_factory=list)
    graph: ImportGraph | None = None
    containers: ContainerSnapshot | None = None
    forks: ForkServer | None = None
    ran_at_collection: set[Any] = field(default_factory=set)
    # (module, qualified name) of each function under test that ran while a module was being imported
    ran_at_import: set[tuple[Any, str, bool]] = field(default_factory=set)
    # (module, qualname) of a function under test -> the modules whose import ran it while the suite was
    # collected ("": pytest itself, with no module being imported)
    importers: dict[tuple[Any, str], set[str]] = field(default_factory=dict)
    executed: list[frozenset[Any]] | None = None  # per test (collection order): code under the root it ran
    ran_by_any: frozenset[Any] = frozenset()  # the code objects of `executed`, all tests together
    record_seconds: float = 0.0  # how long recording `executed` took in this worker (see `units._executed`)
    # per test, recorded with `executed`: the keys it read under each of `key_names` (see `keyed.KeyRecord`)
    keys_read: list[dict[str, frozenset[Any] | None]] = field(default_factory=list)
    key_names: frozenset[str] = frozenset()  # the names of the dicts whose keys were recorded
    modules: dict[str, ModuleType] = field(default_factory=dict)
    sandbox: ScratchCopy | None = None
    children: Children | None = None  # what the tests' child processes reach, and where they import from
    params: dict[str, dict[str, Any]] = field(default_factory=dict)  # per test: its parameters as collected
    collected: Collected | None = None  # the parameter values as collected, and what holds them (see `params`)
    opened: set[str] | None = None  # while recording: files under the root the suite opens
    locals_: list[tuple[Any, dict[str, Any]]] = field(default_factory=list)  # module-level threading.local state
    unimportable: dict[str, str] = field(default_factory=dict)  # module name -> why it cannot be imported here
    shrinking: dict[Any, Any] = field(default_factory=dict)  # @given function -> its settings with shrinking
    layouts: dict[str, ModuleLayout] = field(default_factory=dict)  # per module: its statements (see `snippet`)
    edits: list[tuple[int, int, str] | str] | None = None  # per mutant: its edit of the module's source
    # interpreter-wide state every test starts from (see `processes.ledger`), settled before the first test; a
    # worker's threads are left unchecked: a package's lazily started pool would retire every worker, and a
    # kill a thread caused is caught when its test runs again on the original (see `units._checked`)
    ledger: Ledger = field(default_factory=lambda: Ledger(threads=False))
    keep_state: bool = False  # while set, tests run on from the state the one before left (see `units._in_order`)
    # the modules under test's bindings every test starts from: as imported, or as a unit's mutant left them (a
    # re-run module body rebinds names); a test that rebinds a global (`global logger`) leaves it to no other
    imported: list[Bindings] = field(default_factory=list)
    bindings: list[Bindings] | None = None  # a unit's own, while it runs its tests (see `units._run_tests`)


HOST: Host | None = None  # set once per worker by `session.host`


def names_as_imported(spec: SuiteSpec) -> tuple[str, ...]:
    """The spec's module names, each replaced by the name the collected suite imported its file under, if other.

    A file in a folder without `__init__.py` (a src layout's namespace package) is named from that folder
    (`frames`), while the tests import it from higher up (`framepkg.frames`): two module objects, and the
    one the tests run would never see a mutant.
    """
    by_file: dict[str, str] = {}
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str) and file.endswith(".py"):
            by_file.setdefault(os.path.realpath(file), name)
    names = []
    for name, file in zip(spec.modules, spec.files, strict=True):
        loaded = getattr(sys.modules.get(name), "__file__", None)
        if isinstance(loaded, str) and os.path.realpath(loaded) == os.path.realpath(file):
            names.append(name)
        else:
            names.append(by_file.get(os.path.realpath(file), name))
    return tuple(names)


def state() -> Host:
    """The hosted suite, prepared for units on first use (program, swaps, snapshots)."""
    assert HOST is not None, "units run only inside a hosted worker"
    if HOST.program is None:
        HOST.spec = replace(HOST.spec, modules=names_as_imported(HOST.spec))
        HOST.program = _program(HOST.spec, HOST.catalog)
        for info in HOST.program.target.modules:
            module = sys.modules.get(info.name)
            if module is None:
                try:
                    module = __import__(info.name, fromlist=["_"])
                except Exception as exc:  # noqa: BLE001 - a module for another platform (winreg): no test runs it
                    HOST.unimportable[info.name] = f"{type(exc).__name__}: {exc}"
                    continue
            loaded = os.path.realpath(getattr(module, "__file__", "") or "")
            if loaded != os.path.realpath(info.file) and not HOST.error:
                HOST.error = (f"the tests import {info.name} from {loaded}, not from {info.file}: "
                               "install the package in editable mode or run from its source root")
            HOST.swaps[info.name] = CodeSwap(module, compile(info.source, info.file, "exec", dont_inherit=True))
        given.pin_local_constants(swap.module for swap in HOST.swaps.values())
        # taken before any test runs: what every test starts from (see `mu2py.processes.fresh`)
        HOST.containers = ContainerSnapshot([swap.module for swap in HOST.swaps.values()])
        HOST.imported = [Bindings(vars(swap.module)) for swap in HOST.swaps.values()]
        # per-thread state at module level (a current locale): a test that leaves it set would hide a mutant
        # from the tests that run after it here, though in a plain pytest run they run first
        HOST.locals_ = [(value, dict(vars(value))) for swap in HOST.swaps.values()
                         for value in list(vars(swap.module).values()) if isinstance(value, threading.local)]
    return HOST


def _program(spec: SuiteSpec, catalog: Catalog | None) -> Program | Catalog:
    """The parent's catalog moved to this worker's files if it describes them under these names, else a Program."""
    if catalog is not None:
        try:
            sources = {name: Path(file).read_text(encoding="utf-8") for name, file in zip(spec.modules, spec.files,
                                                                                           strict=True)}
        except (OSError, UnicodeDecodeError):
            sources = {}
        if catalog.matches(spec.modules, sources):
            return catalog.moved(dict(zip(spec.modules, spec.files, strict=True)))
    return build_program(spec)


def probes(state: Host) -> Program | Probes:
    """What the baseline's probes need: the parent's, from its catalog, else the `Program` built here (once)."""
    program = state.program
    if isinstance(program, Catalog):
        if program.probes is not None:
            return program.probes
        state.program = program = build_program(state.spec)
    assert program is not None
    return program


def snippet(state: Host, index: int) -> tuple[Any, Any] | None:
    """The mutated and original code of the statement (or method) holding mutant `index`, compiled alone at the
    module's lines (see `engine.payload`), when the mutant changes function code only; else None.

    Swapping these in changes the same functions as swapping in the whole mutated module, for the
    compile of one method instead of the whole module's (4 ms for a module of 900 lines, per mutant).
    """
    program = state.program
    assert program is not None
    if state.edits is None:
        state.edits = program.edits if isinstance(program, Catalog) else program.edits()
    edit = state.edits[index]
    m = program.mutants[index]
    if not isinstance(edit, tuple) or m.module not in state.swaps:
        return None
    layout = state.layouts.get(m.module)
    if layout is None:
        layout = state.layouts[m.module] = ModuleLayout(program.module_of(m.id), state.swaps[m.module].original_code)
    payload = layout.payload(index, (edit[0], edit[1]), edit[2], not m.at_import)
    if payload.kind != "swap":
        return None
    original, mutated = payload.codes()
    return mutated, original


@contextmanager
def bindings_as_now(state: Host) -> Iterator[None]:
    """While inside: every test starts from the modules under test's bindings as they are now (a mutant's module
    re-run in place, the probes' functions bound in), not as imported (see `fresh_start`)."""
    state.bindings = [Bindings(vars(swap.module)) for swap in state.swaps.values()]
    try:
        yield
    finally:
        state.bindings = None


def fresh_start(state: Host) -> None:
    """Before a test: the package's module-level containers and memo caches as right after import."""
    assert state.containers is not None
    if state.keep_state:
        return
    state.containers.reset()
    for bindings in state.imported if state.bindings is None else state.bindings:
        bindings.restore()
    for swap in state.swaps.values():
        swap.clear_caches()
    for value, contents in state.locals_:
        current = vars(value)
        if current != contents:
            current.clear()
            current.update(contents)


def before_test(state: Host) -> None:
    """Before a test: the first one takes the worker's state between tests as what every test starts from."""
    if not state.ledger.saved:
        state.ledger.settle()


def after_test(state: Host, full: bool = True) -> None:
    """After a test: put back the interpreter-wide state it changed; what cannot be put back replaces the worker
    once its unit is done.  `full=False` leaves out the checks that make system calls (see `Ledger.check`)."""
    drift = state.ledger.check(full=full)
    if drift.retire is not None:
        request_restart()


def restore_tree(state: Host) -> list[str]:
    """Put the worker's copy of the project back as found (see `sandbox`); the paths a unit had changed.

    A unit that used up the descriptors must not fail the clean-up: the descriptors opened since the
    ledger's snapshot are closed, and the worker is replaced after the unit (see `Ledger.reclaim`).
    """
    if state.sandbox is None:
        return []
    try:
        return state.sandbox.restore()
    except OSError as exc:
        if exc.errno not in (errno.EMFILE, errno.ENFILE):
            raise
        state.ledger.reclaim()
        request_restart()
        return state.sandbox.restore()


def import_graph(state: Host) -> tuple[ImportGraph, dict[str, ModuleType]]:
    """The import-time facts of every module loaded from under the project root, and those modules (once).

    That is the modules under test, the rest of the package, the test modules and conftest
    files: whatever may bind or read a mutated module's names.  Installed packages are left out.
    """
    if state.graph is None:
        root = os.path.realpath(state.spec.root) + os.sep
        facts, modules = [], {}
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            if not isinstance(file, str) or not file.endswith(".py"):
                continue
            path = os.path.realpath(file)
            if not path.startswith(root) or "site-packages" in path:
                continue
            try:
                source = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            facts.append(module_facts(name, source, Path(path).name == "__init__.py"))
            modules[name] = module
        state.graph, state.modules = ImportGraph(facts), modules
    return state.graph, state.modules


def item(state: Host, nodeid: str, position: int | None = None) -> Any:
    """The collected test: by node id, or else by its position in the baseline's collection order.

    Parametrized ids are built from values at collection time, and may differ between workers
    (e.g. rendered from module state); the collection order does not.
    """
    item = state.items.get(nodeid)
    if item is None and position is not None and position < len(state.order):
        item = state.order[position]
    if item is None:
        raise RuntimeError(f"test {nodeid} is not collected in this worker: test ids differ between processes")
    return item
