"""The worker side of `mu2py score`: a pytest session collected once, whose tests run against mutants.

A worker process collects the suite with `pytest.main` and then serves work units from
inside pytest's run loop (see `host`), so that every unit reuses the collected items:

- `baseline`: run every test on the original with probes swapped in; per test, its
  outcome, time, the mutation sites it reached and the mutants it infected;
- `mutant`: swap one mutant's code in, run the given tests (fast first) until one fails;
- `reexec`: a module-level mutant, its module body re-run in the live namespace (`reload`);
- `isolated`: run the suite in a fresh interpreter with the mutated module imported from
  source (import-time mutants the reload has doubts about, and mutants whose code cannot be
  swapped), forked from a warm server (`forkserver`) where possible.

Each worker runs in its own scratch copy of the project (see `sandbox`), and before every
test puts back what earlier tests may have changed: module-level containers and per-thread
state, and the test's own parametrize values.

Invariants: after every unit the live modules hold their original code and the worker's copy
of the project holds the original files; a unit that cannot guarantee the first (a timeout
interrupting pytest itself) asks for its worker to be replaced.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from mu2py.engine.fresh import ContainerSnapshot
from mu2py.engine.runs import Timeout
from mu2py.engine.swap import CodeSwap, SwapError
from mu2py.engine.workers import request_restart
from mu2py.errors import UserError
from mu2py.mutants.catalog import Program
from mu2py.score import given, ports
from mu2py.score.forkserver import ForkServer
from mu2py.score.imports import ImportGraph, module_facts
from mu2py.score.reload import ReloadError, reload_in_place
from mu2py.score.sandbox import ScratchCopy
from mu2py.target.modules import Target, TargetModule


@dataclass(frozen=True)
class SuiteSpec:
    """What a worker needs to host the suite: where, which tests, which modules to mutate."""

    root: str
    pytest_args: tuple[str, ...]
    modules: tuple[str, ...]
    files: tuple[str, ...]
    sys_path: tuple[str, ...] = ()
    skip_patterns: tuple[str, ...] = ()
    scratch: str = ""  # a folder for each worker's copy of the project ("" runs in the project itself)

    def remapped(self, copy: ScratchCopy) -> SuiteSpec:
        """The same suite as seen in a scratch copy of the project: every path under the root moved there."""
        return replace(self, root=copy.copy, files=tuple(copy.remap(f) for f in self.files),
                       sys_path=tuple(copy.remap(p) for p in self.sys_path))


@dataclass
class _Host:
    spec: SuiteSpec
    session: Any = None
    items: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    program: Program | None = None
    swaps: dict[str, CodeSwap] = field(default_factory=dict)
    order: list[Any] = field(default_factory=list)
    graph: ImportGraph | None = None
    containers: ContainerSnapshot | None = None
    forks: ForkServer | None = None
    ran_at_collection: set[Any] = field(default_factory=set)
    executed: list[frozenset[Any]] | None = None  # per test (collection order): code under the root it ran
    modules: dict[str, ModuleType] = field(default_factory=dict)
    sandbox: ScratchCopy | None = None
    params: dict[str, dict[str, Any]] = field(default_factory=dict)  # per test: its parameters as collected
    opened: set[str] | None = None  # while recording: files under the root the suite opens
    locals_: list[tuple[Any, dict[str, Any]]] = field(default_factory=list)  # module-level threading.local state
    unimportable: dict[str, str] = field(default_factory=dict)  # module name -> why it cannot be imported here
    shrinking: dict[Any, Any] = field(default_factory=dict)  # @given function -> its settings with shrinking


# options of every pytest run score starts; the rewrite warning is pytest noticing modules this
# worker imported first (mu2py's own dependencies), which a suite with `filterwarnings = error`
# would turn into a failure before collecting anything
PYTEST_OPTIONS = ("-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
                  "-W", "ignore::DeprecationWarning", "-W", "ignore::pytest.PytestAssertRewriteWarning")



def plugin_options(pytest_args: tuple[str, ...] | list[str]) -> list[str]:
    """Options for installed plugins that would make every mutant slow without judging it better.

    pytest-benchmark calibrates and repeats each benchmark for about a second: with
    `--benchmark-disable` a benchmark test calls its function once and asserts the same.
    pytest-cov (`addopts = --cov=pkg`) traces every line of every mutant's run, and its tracer
    fails inside a worker whose mutant disturbed `sys.path`: `--no-cov` turns it off.
    """
    import importlib.util

    args = list(pytest_args)
    extra = []
    if importlib.util.find_spec("pytest_benchmark") is not None and "no:benchmark" not in args \
            and not any(a.startswith("--benchmark-") for a in args):
        extra.append("--benchmark-disable")
    if importlib.util.find_spec("pytest_cov") is not None and "no:cov" not in args and "--no-cov" not in args:
        extra.append("--no-cov")
    return extra


_HOST: _Host | None = None
_fired = False
_subtest_failed = False  # a subtest of the test `run_test` is running failed (see `_HostPlugin`)
_testing = False  # `run_test` is running a test
last_skipped = False  # the latest `run_test` passed by skipping (a skip or skipif mark, pytest.skip())
EXAMPLE_TIMEOUT = 1.0  # the least time one example of a @given test gets under a judged run


def test_files(spec: SuiteSpec) -> list[Path]:
    """The Python files of the suite: under the pytest paths (default: the root), plus a root conftest.py."""
    root = Path(spec.root)
    files: set[Path] = set(root.glob("conftest.py"))
    for arg in spec.pytest_args or (".",):
        path = root / arg
        if path.is_dir():
            # hidden folders hold caches and virtual environments, never the suite
            files.update(p for p in path.rglob("*.py")
                         if not any(part.startswith(".") for part in p.relative_to(path).parts))
        elif path.is_file() and path.suffix == ".py":
            files.add(path)
    return sorted(files)


def build_program(spec: SuiteSpec) -> Program:
    """The mutants of the spec's modules, as the parent and every worker see them (same order, same ids).

    Sources are read from the files, never imported: the parent process does not run user code.
    """
    modules = []
    for name, file in zip(spec.modules, spec.files, strict=True):
        try:
            source = Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"cannot read {file}: {exc}") from exc
        is_package = Path(file).name == "__init__.py"
        modules.append(TargetModule(name, file, source, is_package, (str(Path(file).parent),) if is_package else None))
    return Program(Target(driver=None, driver_module=None, modules=tuple(modules), prefixes=spec.modules),
                   skip_patterns=spec.skip_patterns)


class _HostPlugin:
    def __init__(self, host: _Host, serve: Callable[[], None]) -> None:
        self.host = host
        self.serve = serve
        self.served = False

    def pytest_runtestloop(self, session: Any) -> bool:
        host = self.host
        sys.setprofile(None)  # collection is over: see `host`
        host.session = session
        if session.testsfailed:
            host.error = f"pytest could not collect the suite ({session.testsfailed} collection errors)"
        elif not session.items:
            host.error = "no tests found"
        # nobody reads the failure reports of a mutant's tests; pytest's default long traceback re-parses
        # every source file on the way (over half of a mutant's time when its test fails)
        session.config.option.tbstyle = "value"
        host.items = {item.nodeid: item for item in session.items}
        host.order = list(session.items)
        # mutants are judged pass or fail: no shrinking, and a hang in one example is cut short there
        host.shrinking = given.without_shrinking(host.order)
        given.timed_examples(host.order)
        _keep_params(host)
        self.served = True
        self.serve()
        return True

    def pytest_runtest_logreport(self, report: Any) -> None:
        # `run_test` does not log its test's own reports: what is logged while it runs comes from inside the
        # test, a subtest (unittest's `self.subTest`, the `subtests` fixture) reported on its own.  pytest 9
        # leaves the test's call report passed when one fails; a plain run fails, and so must a judged run
        global _subtest_failed
        if report.failed and not hasattr(report, "wasxfail"):
            _subtest_failed = True


def host(spec: SuiteSpec, serve: Callable[[], None]) -> None:
    """Worker initializer: collect the suite, then run `serve` inside the session (never returns early)."""
    import pytest

    global _HOST
    sandbox = None
    if spec.scratch:
        # this worker's own copy of the project: a mutant's writes there are undone after each unit,
        # and never reach the project nor another worker (see `sandbox`)
        base = spec.scratch if os.path.isdir(spec.scratch) else None
        sandbox = ScratchCopy(spec.root, tempfile.mkdtemp(prefix="w", dir=base))
        spec = spec.remapped(sandbox)
    os.chdir(spec.root)
    sys.path[:0] = list(spec.sys_path)
    _HOST = _Host(spec, sandbox=sandbox)
    sys.addaudithook(_audit)
    plugin = _HostPlugin(_HOST, serve)
    args = [*spec.pytest_args, "-q", *PYTEST_OPTIONS, *plugin_options(spec.pytest_args)]
    # code under test that parses the command line (a CLI's main() called with no arguments) sees pytest's,
    # as in a plain run, not this tool's
    sys.argv = ["pytest", *args]
    files = {os.path.realpath(f) for f in spec.files} | set(spec.files)
    ran = _HOST.ran_at_collection

    def record(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename in files:
            # a call made by the importing of its own module is redone by the reload: only calls made
            # while another module was being imported (or by pytest itself) count
            outer = frame.f_back
            while outer is not None and outer.f_code.co_name != "<module>":
                outer = outer.f_back
            if outer is None or outer.f_code.co_filename != frame.f_code.co_filename:
                ran.add(frame.f_code)

    with open(os.devnull, "w") as quiet:
        saved = sys.stdout
        sys.stdout = quiet  # pytest's own terminal output is not ours to show
        # the functions under test that run while the suite is collected (parameters built at import):
        # what they computed then cannot be recomputed for an import-time mutant (see `reload`)
        sys.setprofile(record)
        try:
            code = pytest.main(args, plugins=[plugin])
        finally:
            sys.setprofile(None)
            sys.stdout = saved
    if not plugin.served:  # pytest stopped before its run loop (usage error, no tests): say so, then serve
        _HOST.error = f"pytest stopped before running tests (exit code {code}); check --tests and pytest arguments"
        serve()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "socket.bind":
        if _testing and ports.fixed_address(args[1]):
            ports.hold()  # until the test ends: no other worker's test binds meanwhile (see `ports`)
        return
    host = _HOST
    if event != "open" or host is None or host.opened is None or host.sandbox is None:
        return
    path = args[0]
    if isinstance(path, (str, bytes, os.PathLike)):
        rel = host.sandbox.relative(os.fsdecode(path))
        if rel is not None and not rel.endswith((".py", ".pyc")) and "__pycache__" not in rel:
            host.opened.add(rel)


def _keep_params(host: _Host) -> None:
    """Copy every test's parameters as collected, so that a test that changes them in place finds them as
    pytest made them on each run (see `_restore_params`)."""
    import copy

    for item in host.order:
        params = getattr(getattr(item, "callspec", None), "params", None)
        if not params:
            continue
        kept = {}
        for name, value in params.items():
            try:
                kept[name] = copy.deepcopy(value)
            except Exception:  # noqa: BLE001 - a generator cannot be copied: the repeatability check finds
                continue  # a test that needs it fresh (see `baseline`)
        host.params[item.nodeid] = kept


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


def _restore_params(host: _Host, item: Any) -> None:
    """Put back the parameters of `item` that an earlier run changed in place (unchanged ones keep their identity)."""
    import copy

    pristine = host.params.get(item.nodeid)
    if not pristine:
        return
    params = item.callspec.params
    for name, value in pristine.items():
        if not _same_state(params.get(name), value):
            params[name] = copy.deepcopy(value)


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


def _state() -> _Host:
    assert _HOST is not None, "units run only inside a hosted worker"
    if _HOST.program is None:
        _HOST.spec = replace(_HOST.spec, modules=names_as_imported(_HOST.spec))
        _HOST.program = build_program(_HOST.spec)
        for info in _HOST.program.target.modules:
            module = sys.modules.get(info.name)
            if module is None:
                try:
                    module = __import__(info.name, fromlist=["_"])
                except Exception as exc:  # noqa: BLE001 - a module for another platform (winreg): no test runs it
                    _HOST.unimportable[info.name] = f"{type(exc).__name__}: {exc}"
                    continue
            loaded = os.path.realpath(getattr(module, "__file__", "") or "")
            if loaded != os.path.realpath(info.file) and not _HOST.error:
                _HOST.error = (f"the tests import {info.name} from {loaded}, not from {info.file}: "
                               "install the package in editable mode or run from its source root")
            _HOST.swaps[info.name] = CodeSwap(module, compile(info.source, info.file, "exec", dont_inherit=True))
        given.pin_local_constants(swap.module for swap in _HOST.swaps.values())
        # taken before any test runs: what every test starts from (see `fresh`)
        _HOST.containers = ContainerSnapshot([swap.module for swap in _HOST.swaps.values()])
        # per-thread state at module level (a current locale): a test that leaves it set would hide a mutant
        # from the tests that run after it here, though in a plain pytest run they run first
        _HOST.locals_ = [(value, dict(vars(value))) for swap in _HOST.swaps.values()
                         for value in list(vars(swap.module).values()) if isinstance(value, threading.local)]
    return _HOST


def _fresh_start(state: _Host) -> None:
    """Before a test: the package's module-level containers and memo caches as right after import."""
    assert state.containers is not None
    state.containers.reset()
    for swap in state.swaps.values():
        swap.clear_caches()
    for value, contents in state.locals_:
        current = vars(value)
        if current != contents:
            current.clear()
            current.update(contents)


def _on_alarm(signum: int, frame: Any) -> None:
    global _fired
    _fired = True
    given.on_alarm()
    raise Timeout()


def run_test(item: Any, timeout: float | None) -> str:
    """Run one collected test from its fresh start (`_fresh_start`): "passed", "failed" (any phase), "timeout",
    or "busy" when it gave up waiting to bind a fixed address (see `ports`: the run says nothing)."""
    from _pytest.runner import runtestprotocol

    state = _state()
    _fresh_start(state)
    _restore_params(state, item)
    global _fired, _subtest_failed, _testing, last_skipped
    _fired = _subtest_failed = last_skipped = ports.busy = False
    given.fired_outside = False
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    if timeout:
        # a @given test's examples: each at most a fifth of the whole (twice the original's full run)
        given.limit = max(EXAMPLE_TIMEOUT, timeout / 5)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    _testing = True
    try:
        reports = runtestprotocol(item, nextitem=None, log=False)
    except (Timeout, ports.Busy):
        reports = []
    except Exception:  # noqa: BLE001 - pytest's own reporting broke (a mutant disturbed what it relies on)
        request_restart()
        return "failed"  # checked on the original by the caller, then judged in a fresh interpreter
    finally:
        _testing = False
        given.limit = None
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        ports.release()
    if ports.busy:
        return "busy"
    if _fired:
        if given.fired_outside:
            request_restart()  # the alarm may have interrupted pytest's own bookkeeping
        return "timeout"
    failed = _subtest_failed or any(r.failed for r in reports)
    last_skipped = not failed and any(r.skipped for r in reports)
    return "failed" if failed else "passed"


def baseline(unit: dict[str, Any]) -> dict[str, Any]:
    """Run every test on the original under probes; per test: outcome, seconds, reached sites, infected mutants."""
    state = _state()
    if state.error:
        return {"error": state.error}
    program = state.program
    assert program is not None
    recorder = program.probe_recorder()
    functions = recorder.functions()
    unprobed: list[str] = []
    sources = program.instrumented_sources()
    for info in program.target.modules:
        if info.name in state.unimportable:
            continue
        swap = state.swaps[info.name]
        vars(swap.module).update(functions)
        probed = compile(sources[info.name], info.file, "exec", dont_inherit=True)
        unprobed.extend(f"{info.name}:{q}" for q in swap.apply_best_effort(probed))
    tests = []
    state.opened = set()
    try:
        for nodeid, item in state.items.items():
            recorder.reset()
            start = time.perf_counter()
            outcome = run_test(item, None)
            seconds = time.perf_counter() - start
            recorder.finish()
            tests.append({"nodeid": nodeid, "outcome": outcome, "skipped": last_skipped, "seconds": seconds,
                          "reached": sorted(recorder.reached), "infected": sorted(recorder.infected)})
    finally:
        for info in program.target.modules:
            if info.name in state.unimportable:
                continue
            swap = state.swaps[info.name]
            swap.restore()
            for name in functions:
                vars(swap.module).pop(name, None)
    # a test failing under probes is re-run plainly: only a failure on the true original stops the score
    for test in tests:
        if test["outcome"] != "passed":
            _restore_tree(state)
            test["outcome"] = run_test(state.items[test["nodeid"]], None)
            test["probes_unreliable"] = True
    volatile = _restore_tree(state)  # files the original suite itself changes: no sign of a mutant
    # every test once more on the original, in reverse order: a test that then fails cannot judge a mutant
    # in this process (it consumed a generator it was given, or leans on state an earlier test left); it
    # runs in a fresh interpreter instead (see `_judged_fresh`)
    for test in reversed(tests):
        if test["outcome"] == "passed" and run_test(state.items[test["nodeid"]], None) != "passed":
            test["repeatable"] = False
        volatile.extend(_restore_tree(state))
    opened, state.opened = sorted(state.opened), None
    return {"tests": tests, "unprobed": unprobed, "opened": opened, "volatile": sorted(set(volatile)),
            "unimportable": dict(state.unimportable), "modules": list(state.spec.modules)}


def _restore_tree(state: _Host) -> list[str]:
    """Put the worker's copy of the project back as found (see `sandbox`); the paths a unit had changed."""
    return state.sandbox.restore() if state.sandbox is not None else []


def _compiled(state: _Host, index: int) -> tuple[Any, Any]:
    """The mutant record and its compiled module code, or a compile-error verdict in place of the code."""
    program = state.program
    assert program is not None
    m = program.mutants[index]
    try:
        return m, compile(program.mutant_source(m.id), m.file, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return m, {"status": "killed", "killed_by": f"<compile error: {exc.msg}>", "tests_run": 0}


def _run_tests(state: _Host, tests: list[tuple[str, float]], survived: dict[str, Any]) -> dict[str, Any]:
    """Run `tests` (node id, timeout) until one fails or times out; `survived` is the verdict if none does."""
    for run, (nodeid, timeout, position) in enumerate(tests, start=1):
        outcome = run_test(_item(state, nodeid, position), timeout)
        if outcome == "busy":
            return _busy(nodeid)
        if outcome != "passed":
            return {"status": "killed" if outcome == "failed" else "timeout", "killed_by": nodeid, "tests_run": run,
                    "position": position}
    return dict(survived, tests_run=len(tests))


def _checked(state: _Host, verdict: dict[str, Any]) -> dict[str, Any]:
    """A kill stands only if its test passes on the restored original; else this worker's state is corrupt."""
    if verdict["status"] != "killed":
        return verdict
    outcome = run_test(_item(state, verdict["killed_by"], verdict.get("position")), None)
    if outcome == "busy":
        return _busy(verdict["killed_by"])
    if outcome != "passed":
        request_restart()
        return {"status": "retry", "why": f"{verdict['killed_by']} fails on the original after this mutant"}
    return verdict


def _busy(nodeid: str) -> dict[str, Any]:
    """No verdict: the test waited past the unit's budget to bind a fixed address (the unit runs again later)."""
    return {"status": "retry", "why": f"{nodeid} waited too long for another worker's test to let go of an address"}


def mutant(unit: dict[str, Any]) -> dict[str, Any]:
    """Run one mutant against `unit["tests"]` (nodeids with timeouts) until a test fails or times out."""
    state = _state()
    m, code = _compiled(state, unit["index"])
    if isinstance(code, dict):
        return code
    swap = state.swaps[m.module]
    try:
        swap.apply(code)
    except SwapError as exc:
        return {"status": "isolate", "why": str(exc)}
    try:
        verdict = _run_tests(state, unit["tests"], {"status": "survived", "killed_by": None})
    finally:
        swap.restore()
        damaged = _restore_tree(state)
    return _judged_fresh(unit, _checked(state, verdict), damaged)


def _judged_fresh(unit: dict[str, Any], verdict: dict[str, Any], damaged: list[str]) -> dict[str, Any]:
    """A survivor of the in-process tests still faces the tests that cannot run twice in one process; and one
    whose tests deleted or changed project files (which the next tests of a plain run would find so) faces
    the whole suite in a fresh interpreter."""
    damaged = [d for d in damaged if d not in unit.get("volatile", ())]
    if verdict["status"] == "survived" and damaged:
        return {"status": "isolate", "why": f"its tests changed {', '.join(damaged[:3])}",
                "tests_run": verdict.get("tests_run", 0)}
    fresh = [nodeid for nodeid, _ in unit.get("fresh", [])]
    if verdict["status"] == "survived" and fresh:
        return {"status": "isolate", "why": f"{len(fresh)} tests cannot run twice in one process",
                "only": fresh, "tests_run": verdict.get("tests_run", 0)}
    return verdict


def reexec(unit: dict[str, Any]) -> dict[str, Any]:
    """A module-level mutant in-process: the mutated module body re-run in place, changes carried over.

    See `reload`: without doubts the live state is the one a fresh import of the mutant
    gives, and the verdict stands; with a doubt (something computed from the original at
    import time that cannot be redone) the mutant runs in a fresh interpreter instead.
    """
    state = _state()
    m, code = _compiled(state, unit["index"])
    if isinstance(code, dict):
        return code
    graph, modules = _import_graph(state)
    executed = _executed(state)  # recorded on the original, before any reload in this worker
    if executed is None:
        return _busy("a test")
    try:
        assert state.containers is not None
        reloaded = reload_in_place(sys.modules[m.module], code, graph, modules,
                                   [*state.containers.holders(), state.locals_, *state.locals_],
                                   state.ran_at_collection)
    except ReloadError as exc:
        return {"status": "isolate", "why": f"cannot reload in place ({exc})"}
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a module body that raises (or exits) fails every importer
        # no verdict without a test run: the suite, importing the mutant afresh, says how it fails
        return {"status": "isolate", "why": f"its module body raised {type(exc).__name__}"}
    try:
        tests = unit["tests"]
        if reloaded.observable_by_name:
            # only the tests that ran code able to see a change: a changed function, or a read by name
            # of something rebound (see `Reload.observed_by`); every test clears the memo caches itself
            observers = {c for c in frozenset().union(*executed) if reloaded.observed_by(c)}
            tests = [t for t in tests if t[2] is None or t[2] >= len(executed) or executed[t[2]] & observers]
            unit = dict(unit, fresh=[f for f in unit.get("fresh", []) if f[1] >= len(executed)
                                     or executed[f[1]] & observers])
        verdict = _run_tests(state, tests, {"status": "survived", "killed_by": None})
    finally:
        reloaded.restore()
        damaged = _restore_tree(state)
    verdict = _checked(state, verdict)
    if reloaded.doubts and verdict["status"] in ("killed", "survived", "timeout"):
        # the live state mixed original and mutant objects: neither verdict is the mutant's own, but the
        # test that failed here is the likeliest to fail in the fresh interpreter, so it goes first there
        first = [verdict["killed_by"]] if verdict["status"] == "killed" and verdict.get("tests_run") else []
        return {"status": "isolate", "why": f"cannot reload in place: {reloaded.doubts[0]}", "first": first}
    return _judged_fresh(unit, verdict, damaged)


def _executed(state: _Host) -> list[frozenset[Any]] | None:
    """Per test, in collection order, the code objects from under the project root it runs (recorded once per
    worker, each test from its fresh start, by running the suite on the original under a profile hook); None
    when a test gave up waiting to bind (a record cut short would hide the code the test runs)."""
    if state.executed is None:
        _, modules = _import_graph(state)
        files = {f for m in modules.values() for f in (m.__file__, os.path.realpath(m.__file__ or ""))}
        executed = []
        for item in state.order:
            seen: set[Any] = set()

            def record(frame: Any, event: str, arg: Any, seen: set[Any] = seen) -> None:
                if event == "call" and frame.f_code.co_filename in files:
                    seen.add(frame.f_code)

            sys.setprofile(record)
            try:
                outcome = run_test(item, None)
            finally:
                sys.setprofile(None)
            if outcome == "busy":
                _restore_tree(state)
                return None
            executed.append(frozenset(seen))
        state.executed = executed
        _restore_tree(state)
    return state.executed


def _import_graph(state: _Host) -> tuple[ImportGraph, dict[str, ModuleType]]:
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


def _item(state: _Host, nodeid: str, position: int | None = None) -> Any:
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


_INJECT = '''
import importlib.abc, importlib.util, json, os, sys
_spec = json.load(open(os.environ["MU2PY_MUTANT_SPEC"]))
class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name != _spec["module"]:
            return None
        return importlib.util.spec_from_loader(name, self, origin=_spec["file"],
                                               is_package=_spec["is_package"])
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        module.__file__ = _spec["file"]
        if _spec["is_package"]:
            module.__path__ = [os.path.dirname(_spec["file"])]
        exec(compile(_spec["source"], _spec["file"], "exec"), module.__dict__)
sys.meta_path.insert(0, _Finder())
# a test that binds a fixed address holds the score workers' bind lock until it ends (see mu2py.score.ports)
import fcntl, threading, pytest
_bind = {"fd": None, "guard": threading.Lock()}
def _on_bind(event, args):
    if event != "socket.bind":
        return
    address = args[1]
    fixed = address[1] != 0 if isinstance(address, tuple) and len(address) >= 2 \
        and isinstance(address[1], int) else bool(address)
    with _bind["guard"]:
        if fixed and _bind["fd"] is None:
            fd = os.open(_spec["bind_lock"], os.O_RDONLY | os.O_CREAT, 0o666)
            fcntl.flock(fd, fcntl.LOCK_EX)
            _bind["fd"] = fd
sys.addaudithook(_on_bind)
class _BindRelease:
    def pytest_runtest_logfinish(self, nodeid, location):
        with _bind["guard"]:
            if _bind["fd"] is not None:
                os.close(_bind["fd"])
                _bind["fd"] = None
_pytest_main = pytest.main
def _main(args=None, plugins=None):
    pytest.main = _pytest_main  # the session's own tests see pytest as it is
    return _pytest_main(args, [*(plugins or ()), _BindRelease()])
pytest.main = _main
'''


def isolated(unit: dict[str, Any]) -> dict[str, Any]:
    """Run the suite in a fresh interpreter that imports the mutated module (stops at the first failure).

    `unit["first"]` names tests to try alone first (the test that killed the mutant in
    place): when one fails there, that is the verdict, without collecting the whole suite.
    `unit["only"]` names the only tests left to judge it (those that cannot run twice in one
    process, after the others passed in place): they decide, unless the fresh session cannot
    select them, and then the whole suite does.
    """
    state = _state()
    program = state.program
    assert program is not None
    m = program.mutants[unit["index"]]
    info = program.module_of(m.id)
    with tempfile.TemporaryDirectory(prefix="mu2py-isolated-") as tmp:
        spec_path = Path(tmp) / "spec.json"
        spec_path.write_text(json.dumps({"module": m.module, "file": info.file, "is_package": info.is_package,
                                         "source": program.mutant_source(m.id), "bind_lock": ports.LOCK_FILE}))
        before = unit.get("tests_run", 0)  # tests the mutant already passed in place
        selections: list[tuple[list[str], bool]] = []
        if unit.get("only"):
            selections.append((list(unit["only"]), True))
        elif unit.get("first"):
            selections.append((list(unit["first"]), False))
        # a tried-first test counts only when it ran and failed (exit 1): an id the fresh session does not
        # collect is a usage error there, and the whole suite decides
        selections.append((list(state.spec.pytest_args), True))
        try:
            for selection, decisive in selections:
                options = [*PYTEST_OPTIONS, *plugin_options(state.spec.pytest_args)]
                code, output = _fresh_pytest(state, ["-x", "-q", *options, *selection], str(spec_path), tmp,
                                             unit["timeout"])
                ran = before + _count_run(output)
                if code == "timeout":
                    return {"status": "timeout", "killed_by": "<suite in a fresh interpreter>",
                            "tests_run": max(ran, 1)}
                if code == 1 or (code != 0 and decisive and selection is selections[-1][0]):
                    return {"status": "killed", "killed_by": _failed_test(output), "tests_run": max(ran, 1)}
                if code == 0 and decisive:
                    return {"status": "survived", "killed_by": None, "tests_run": ran}
        finally:
            _restore_tree(state)
    return {"status": "survived", "killed_by": None, "tests_run": before}


def _failed_test(output: str) -> str:
    """The first failing test a quiet pytest session's summary names (a failed subtest names its test)."""
    for line in output.splitlines():
        head = line.split(" - ")[0]
        if line.startswith(("FAILED ", "ERROR ")):
            return head.split(" ", 1)[1]
        if line.startswith("SUBFAILED"):
            # `SUBFAILED[msg] (i=2) path::Class::test`: the subtest's description comes first; a node id has
            # no space in it unless a parameter id does, which a subtest line cannot tell apart
            return head.rsplit(" ", 1)[-1]
    return "<suite in a fresh interpreter>"


def _count_run(output: str) -> int:
    """How many tests a quiet pytest session reports as run (passed, failed or errored) in its last line."""
    import re

    lines = [line for line in output.splitlines() if line.strip()]
    if not lines:
        return 0
    counts = re.findall(r"(\d+) (passed|failed|errors?)", lines[-1])
    return sum(int(n) for n, _ in counts)


def _fresh_pytest(state: _Host, args: list[str], spec_path: str, tmp: str, timeout: float) -> tuple[Any, str]:
    """`pytest args` in a fresh import of the package with the mutant injected: (exit code or "timeout", output).

    Forked from this worker's fork server when it runs, else a new interpreter.
    """
    if state.forks is None:
        state.forks = ForkServer(sorted({*state.spec.modules, *(m.split(".")[0] for m in state.spec.modules)}),
                                 state.spec.root, list(state.spec.sys_path))
    out = os.path.join(tmp, "pytest.out")
    code = state.forks.run(args, cwd=state.spec.root, env={"MU2PY_MUTANT_SPEC": spec_path},
                           path=list(state.spec.sys_path), prelude=_INJECT, out=out, timeout=timeout)
    if code is not None:
        return code, Path(out).read_text(errors="replace") if os.path.exists(out) else ""
    (Path(tmp) / "mu2py_inject_mutant.py").write_text(_INJECT)
    env = dict(os.environ, MU2PY_MUTANT_SPEC=spec_path,
               PYTHONPATH=os.pathsep.join([tmp, *state.spec.sys_path, os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-c", "import mu2py_inject_mutant, sys, pytest; sys.exit(pytest.main(sys.argv[1:]))", *args]
    try:
        proc = subprocess.run(cmd, cwd=state.spec.root, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    return proc.returncode, proc.stdout


UNITS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "baseline": baseline, "mutant": mutant, "reexec": reexec, "isolated": isolated,
}


def run_unit(unit: dict[str, Any]) -> dict[str, Any]:
    """Dispatch a unit by its `kind` (the function every score worker runs); the result says how long it took."""
    start = time.perf_counter()
    # the baseline has no deadline; every other unit's allows its tests' timeouts and 30 s more
    ports.new_unit(math.inf if unit["kind"] == "baseline" else ports.WAIT_BUDGET)
    try:
        result = UNITS[unit["kind"]](unit)
    finally:
        if _HOST is not None:
            _restore_tree(_HOST)
    result.setdefault("seconds", round(time.perf_counter() - start, 4))
    return result
