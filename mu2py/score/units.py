"""The units a score worker serves against its hosted suite, and the verdict each returns.

- `baseline`: run every test on the original with probes swapped in; per test, its
  outcome, time, the mutation sites it reached and the mutants it infected;
- `mutant`: swap one mutant's code in, run the given tests (collection order) until one fails;
- `reexec`: a module-level mutant, its module body re-run in the live namespace (`reload`);
- `isolated`: the suite in a fresh interpreter with the mutated module imported from source
  (see `isolated`).

Invariants: after every unit the live modules hold their original code, the worker's copy
of the project holds the original files and the interpreter-wide state of the worker's ledger is
as before the first test (see `hosted.after_test`); a kill or a timeout stands only if its test
passes on the restored original, right after, in the same worker (else the unit asks to be retried
on a new worker); a unit that cannot guarantee the first (a timeout interrupting pytest itself) asks
for its worker to be replaced.
"""

from __future__ import annotations

import ast
import gc
import math
import os
import resource
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import replace
from typing import Any, cast

from mu2py.engine.closures import keep_closure_shape
from mu2py.engine.swap import CodeSwap, SwapError
from mu2py.processes import ledger
from mu2py.processes.workers import extend_deadline, request_restart
from mu2py.score import at_import, children, chunks, hosted, keyed, ports, runner
from mu2py.score.children import child_keys, code_objects, entered_code, sites_of
from mu2py.score.fresh_import import collection_error
from mu2py.score.isolated import isolated, warm_up
from mu2py.score.params import unswap
from mu2py.score.plan import ScoreUnit, TestSlot, UnitKind, scope_of
from mu2py.score.recorded import SuiteRecord, TestRecord
from mu2py.score.reload import ReloadError, reload_with_readers
from mu2py.score.runner import run_test
from mu2py.score.verdicts import Again, Redo, Result, Status, Verdict

HINT_SHARE = 0.25  # of its tests' time, what an import-time mutant the reload doubts runs in place (see `reexec`)
# a mutant is a `timeout` once this many of its tests timed out and none failed (see `_run_tests`)
HANGS = 3


def baseline(unit: ScoreUnit) -> SuiteRecord:
    """Run every test on the original under probes; per test: outcome, seconds, reached sites, infected mutants."""
    state = hosted.state()
    if state.error:
        return SuiteRecord(error=state.error)
    probes = hosted.probes(state)
    recorder = probes.probe_recorder()
    functions = recorder.functions()
    unprobed: list[str] = []
    sources = probes.instrumented_sources()
    assert state.program is not None
    modules = state.program.target.modules
    for info in modules:
        if info.name in state.unimportable:
            continue
        swap = state.swaps[info.name]
        vars(swap.module).update(functions)
        probed = compile(sources[info.name], info.file, "exec", dont_inherit=True)
        unprobed.extend(f"{info.name}:{q}" for q in swap.apply_best_effort(probed))
    tests: list[TestRecord] = []
    state.opened = set()
    # the probes' functions are bound in the modules: each test starts from these bindings
    started = state.children  # what the tests' child processes run
    module_of = {os.path.realpath(info.file): info.name for info in modules}
    if started:
        # the keys a child reads of the dicts module bodies bound (see `keyed`), in code a child's import compiles
        # as the swaps' original code is compiled
        importable = [state.swaps[info.name] for info in modules if info.name not in state.unimportable]
        started.watch({swap.original_code.co_filename: swap.original_code for swap in importable},
                      frozenset(name for swap in importable for name, value in vars(swap.module).items()
                                if type(value) is dict and not name.startswith("__")))
    try:
        with hosted.bindings_as_now(state), started.recording() if started else nullcontext(), \
                started.forks_recorded(recorder) if started else nullcontext():
            for position, (nodeid, item) in enumerate(state.items.items()):
                recorder.reset()
                start = time.perf_counter()
                outcome = run_test(item, None)
                seconds = time.perf_counter() - start
                after: list[str] = []
                if outcome == "failed" and position:
                    # from its fresh start it fails: maybe it needs what the tests before it leave (pytest's order)
                    outcome, seconds = _in_order(state, position, recorder)
                    if outcome == "passed":
                        after = list(state.items)[:position]
                ran = started.taken(module_of, recorder) if started else {}
                recorder.finish()
                tests.append(TestRecord(nodeid, outcome, seconds, sorted(recorder.reached), sorted(recorder.infected),
                                        runner.last_skipped, after, repeatable=not after,
                                        in_children=sites_of(ran, state.program.mutants),
                                        child_code=entered_code(ran), child_keys=child_keys(ran)))
    finally:
        for info in modules:
            if info.name in state.unimportable:
                continue
            swap = state.swaps[info.name]
            swap.restore()
            for name in functions:
                vars(swap.module).pop(name, None)
    # a test failing under probes is re-run plainly: only a failure on the true original stops the score
    for test in tests:
        if test.outcome != "passed":
            hosted.restore_tree(state)
            test.outcome = run_test(state.items[test.nodeid], None)
            test.probes_unreliable = True
    volatile = hosted.restore_tree(state)  # files the original suite itself changes: no sign of a mutant
    # every test once more on the original, in reverse order: a test that then fails cannot judge a mutant
    # in this process (it consumed a generator it was given, or leans on state an earlier test left); it
    # runs in a fresh interpreter instead (see `_judged_fresh`)
    for test in reversed(tests):
        if test.outcome == "passed" and run_test(state.items[test.nodeid], None) != "passed":
            test.repeatable = False
        volatile.extend(hosted.restore_tree(state))
    opened, state.opened = sorted(state.opened), None
    return SuiteRecord(tests, unprobed, _undefined(state, unprobed), opened, sorted(set(volatile)),
                       sorted((str(module), qualname, own) for module, qualname, own in state.ran_at_import),
                       dict(state.unimportable), list(state.spec.modules), peak_rss(),
                       importers=sorted((str(module), qualname, sorted(found))
                                        for (module, qualname), found in state.importers.items()))


def _undefined(state: hosted.Host, unprobed: list[str]) -> list[str]:
    """Of the functions no probe reached (`module:qualname`), those no function object in this interpreter runs:
    defined in a module or class body under a condition not met here (`if sys.version_info >= (3, 13):`), and
    never called while a module was imported.  Their mutants change nothing a test can run."""
    candidates = {u for u in unprobed if "<locals>" not in u}
    if not candidates:
        return []
    files = {info.file: info.name for info in state.program.target.modules} if state.program else {}
    live = set()
    for obj in gc.get_objects():
        if type(obj) is types.FunctionType:
            code = obj.__code__
            name = files.get(code.co_filename)
            if name is not None:
                live.add(f"{name}:{code.co_qualname}")
    ran = {f"{module}:{qualname}" for module, qualname, _ in state.ran_at_import}
    return sorted(candidates - live - ran)


def _in_order(state: hosted.Host, position: int, recorder: Any) -> tuple[str, float]:
    """The test at `position` run after every test before it in pytest's order, with no fresh start between them
    (as a plain pytest run leaves the package's state); its outcome and seconds, its reach in `recorder`.

    A test that passes only so depends on the tests before it: it judges mutants in a fresh interpreter,
    after those tests (see `plan`), never in place.
    """
    state.keep_state = True
    try:
        # each with the next as pytest's next item: fixtures they share (a session-scoped dict a test fills, doctests'
        # `doctest_namespace`) live on into the test, as in a plain run
        for item, nextitem in zip(state.order[:position], state.order[1:position + 1], strict=True):
            run_test(item, None, nextitem)
        hosted.restore_tree(state)
        recorder.reset()
        start = time.perf_counter()
        outcome = run_test(state.order[position], None)
        return outcome, time.perf_counter() - start
    finally:
        state.keep_state = False


def peak_rss() -> int:
    """This process's peak resident memory so far, in bytes."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # Linux counts kilobytes, macOS bytes


def _compiled(state: hosted.Host, index: int) -> tuple[Any, Any]:
    """The mutant record and its compiled module code, or a compile-error `Verdict` in place of the code."""
    program = state.program
    assert program is not None
    m = program.mutants[index]
    try:
        return m, compile(program.mutant_source(m.id), m.file, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return m, Verdict(Status.KILLED, f"<compile error: {exc.msg}>")


def _body(state: hosted.Host, index: int) -> tuple[Any, chunks.Body | Verdict]:
    """The mutant record and its mutated module's body (compiled statement by statement: see `chunks`), or a
    compile-error `Verdict` in its place."""
    program = state.program
    assert program is not None
    m = program.mutants[index]
    try:
        statements = chunks.Statements.of(program.module_of(m.id).source, m.file)
        return m, statements.body(program.mutant_source(m.id))
    except SyntaxError as exc:
        return m, Verdict(Status.KILLED, f"<compile error: {exc.msg}>")


def _apply(state: hosted.Host, swap: CodeSwap, m: Any, code: Any) -> None:
    """Swap the mutant's code in, closure shape kept if it lost a free variable (SwapError: nothing swapped)."""
    try:
        swap.apply(code)
    except SwapError:
        assert state.program is not None
        kept = keep_closure_shape(state.program.mutant_source(m.id), m.file, swap.original_code, code)
        if kept is None:
            raise
        swap.apply(kept)


def _run_tests(state: hosted.Host, tests: list[TestSlot], first: Sequence[str] = ()) -> tuple[Result, float | None]:
    """Run the tests named in `first` (a retry's), then `tests` (node id, timeout, position; collection order)
    until one fails: the verdict (survived if none fails), and the deciding test's timeout (None: it failed, or
    none decided).

    Each test starts from the module bindings the mutant left (see `hosted.fresh_start`), but objects the tests
    share (one a test module holds) carry what each test left, as in a plain run.  So the verdict and the test
    that decides it are the same on every run, whatever a worker judged before (a test of `first` that passed
    runs again in its place).  A test that times out does not end the unit: a mutant that
    some tests hang on and others fail is `killed` whichever runs first, and the tests go on until one fails,
    `HANGS` have timed out (then it is a `timeout`: each hang costs a whole timeout, and a mutant that loops for
    ever hangs every test; a hung test is not run twice), or the worker is to be replaced (a timeout hit pytest's
    own bookkeeping).
    """
    by_id = {t[0]: t for t in tests}
    sequence = [by_id[nodeid] for nodeid in dict.fromkeys(first) if nodeid in by_id] + list(tests)
    hung: tuple[Verdict, float] | None = None
    hangs: list[str] = []
    ran: set[str] = set()  # the tests run so far (one of `first` run twice counts once)
    with hosted.bindings_as_now(state):
        for step, (nodeid, timeout, position) in enumerate(sequence):
            if nodeid in hangs:
                continue
            ran.add(nodeid)
            run = len(ran)
            outcome = run_test(hosted.item(state, nodeid, position), timeout)
            if outcome == "busy":
                return _busy(nodeid), None
            if outcome == "passed":
                continue
            # read now: the check on the original (`_checked`) runs the test again
            if outcome == "failed":
                return Verdict(Status.KILLED, nodeid, run, runner.last_failure, position), None
            hangs.append(nodeid)
            if hung is None:
                hung = Verdict(Status.TIMEOUT, nodeid, run, runner.last_failure, position), timeout
            if len(hangs) >= HANGS:
                break
            if runner.replacing:
                rest = [*dict.fromkeys(t[0] for t in sequence[step + 1:] if t[0] not in hangs)]
                if not rest:
                    break
                # the alarm hit pytest's own bookkeeping: no more tests here.  A new worker tries the others first
                # (one of them may fail), those that hung last
                return Redo(Again.RETRY, f"{nodeid} timed out in pytest's own code: the other tests go first",
                            first=[*rest, *hangs], tests_run=run - len(hangs)), None
        if hung is not None:
            return replace(hung[0], tests_run=len(ran)), hung[1]
        return Verdict(Status.SURVIVED, tests_run=len(ran)), None


def _checked(state: hosted.Host, judged: tuple[Result, float | None]) -> Result:
    """A kill or a timeout stands only if its test passes on the restored original, now, in this worker (a
    timeout within the same limit); else this worker's state decided it, and a new worker judges the mutant."""
    verdict, limit = judged
    if not isinstance(verdict, Verdict) or verdict.status not in (Status.KILLED, Status.TIMEOUT):
        return verdict
    assert verdict.killed_by is not None
    outcome = run_test(hosted.item(state, verdict.killed_by, verdict.position),
                       limit if verdict.status is Status.TIMEOUT else None)
    if outcome == "busy":
        return _busy(verdict.killed_by)
    if outcome != "passed":
        request_restart()
        return Redo(Again.RETRY, f"{verdict.killed_by} {'times out' if outcome == 'timeout' else 'fails'}"
                                 " on the original after this mutant")
    return verdict


def _busy(nodeid: str) -> Redo:
    """No verdict: the test waited past the unit's budget to bind a fixed address (the unit runs again later)."""
    return Redo(Again.RETRY, f"{nodeid} waited too long for another worker's test to let go of an address")


def mutant(unit: ScoreUnit) -> Result:
    """Run one mutant against `unit.tests` (node ids with timeouts) until a test fails or times out."""
    state = hosted.state()
    assert state.program is not None
    m = state.program.mutants[unit.index]
    swap = state.swaps[m.module]
    codes = hosted.snippet(state, unit.index)
    if codes is not None:
        try:
            swap.apply(*codes)
        except SwapError:
            codes = None  # nothing swapped: the whole mutated module decides below, as without a snippet
    if codes is None:
        _, code = _compiled(state, unit.index)
        if isinstance(code, Verdict):
            return code
        try:
            _apply(state, swap, m, code)
        except SwapError as exc:
            return Redo(Again.ISOLATE, str(exc))
    try:
        with _on_disk(state, unit, m, unit.tests):
            judged = _run_tests(state, unit.tests, unit.first)
    finally:
        swap.restore()
        damaged = hosted.restore_tree(state)
    verdict = _checked(state, judged)
    return _judged_fresh(unit, verdict, damaged)


def _on_disk(state: hosted.Host, unit: ScoreUnit, m: Any, tests: list[TestSlot]) -> AbstractContextManager[None]:
    """The mutated module in the worker's copy of the project while `tests` run, when some of them reach the
    mutant in a child process (see `children`); else nothing is written."""
    if not any(t[2] in unit.children for t in tests):
        return nullcontext()
    assert state.program is not None
    return children.on_disk(state.sandbox, m.file, state.program.mutant_source(m.id))


def _judged_fresh(unit: ScoreUnit, verdict: Result, damaged: list[str]) -> Result:
    """A survivor of the in-process tests still faces the tests that cannot run twice in one process; and one
    whose tests deleted or changed project files (which the next tests of a plain run would find so) faces
    the whole suite in a fresh interpreter."""
    if not isinstance(verdict, Verdict) or verdict.status is not Status.SURVIVED:
        return verdict
    damaged = [d for d in damaged if d not in unit.volatile]
    if damaged:
        return Redo(Again.ISOLATE, f"its tests changed {', '.join(damaged[:3])}", tests_run=verdict.tests_run)
    fresh = [nodeid for nodeid, _ in unit.fresh]
    if fresh:
        return Redo(Again.ISOLATE, f"{len(fresh)} tests cannot run twice in one process", only=fresh,
                    tests_run=verdict.tests_run)
    return verdict


def reexec(unit: ScoreUnit) -> Result:
    """A module-level mutant in-process: the mutated module body re-run in place, changes carried over.

    See `reload`: without doubts the live state is the one a fresh import of the mutant
    gives, and the verdict stands; with a doubt (something computed from the original at
    import time that cannot be redone) the mutant runs in a fresh interpreter instead, after only
    the cheapest tests in place (`HINT_SHARE`): one that fails there is tried first in the fresh one.
    """
    state = hosted.state()
    m, code = _body(state, unit.index)
    if isinstance(code, Verdict):
        return code
    graph, modules = hosted.import_graph(state)
    executed = _executed(state, unit.record)  # recorded on the original, before any reload here
    if executed is None:
        return _busy("a test")
    # execution analysis: the mutated body's lines traced while it re-runs, and only then (see `at_import`)
    statement = _statement_lines(state, m) if m.at_import else None
    traced: list[set[int] | None] = []

    def run_traced(body: chunks.Body | types.CodeType, namespace: dict[str, Any]) -> None:
        with at_import.lines_run(m.file) as lines:
            traced.append(lines)
            chunks.execute(body, namespace)

    originals = {name: swap.original_code for name, swap in state.swaps.items()}
    ran_at_import = state.ran_at_collection
    if unit.rerun:
        # a function the import of `unit.rerun` ran (see `plan`): re-running those bodies after the mutated one
        # redoes what it did then, so that it ran at import is no doubt
        if any(name not in modules or name not in originals for name in unit.rerun):
            return Redo(Again.ISOLATE, f"{m.scope} ran while a module was imported")
        file = os.path.realpath(getattr(sys.modules[m.module], "__file__", None) or m.file)
        ran_at_import = {c for c in ran_at_import
                         if scope_of(c.co_qualname) != m.scope or os.path.realpath(c.co_filename) != file}
    try:
        assert state.containers is not None
        # a module that read the mutated one's values at import is re-run after it, as a fresh import would
        reloaded = reload_with_readers(sys.modules[m.module], code, graph, modules, originals,
                                       [*state.containers.holders(), state.locals_, *state.locals_,
                                        state.imported, *(b.saved for b in state.imported),
                                        # the collected tests' parameters: given the re-created value below
                                        *(state.collected.holders if state.collected is not None else ()),
                                        # memo caches empty after import: every test starts with them cleared
                                        *(cache for cache, size in state.containers.caches if size == 0)],
                                       ran_at_import, run=run_traced if statement is not None else None,
                                       rerun=unit.rerun)
    except ReloadError as exc:
        return Redo(Again.ISOLATE, f"cannot reload in place ({exc})")
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a module body that raises (or exits) fails every importer
        # the test modules imported afresh with the mutant say whether the suite's collection fails; if some
        # importer caught it, the suite in a fresh interpreter decides
        failed = _collection_error(state, m, code, modules)
        if failed is not None:
            return Verdict(Status.KILLED, failed[0], 1, why=f"collecting it raised {failed[1]}")
        return Redo(Again.ISOLATE, f"its module body raised {type(exc).__name__}")
    ran = traced[0] if traced else None
    # the re-run body never reached the mutated code: it computed what the original computes here, and only a child
    # process that runs the module otherwise (as a script, `if __name__ == "__main__":`) may meet the mutant
    unreached = ran is not None and statement is not None and not ran.intersection(statement)
    # the tests whose child processes ran the mutated statement: they run it there, maybe with other results
    # (`__name__ == "__main__"` in a script), unless it computes alike in any process
    at_site = [t for t in unit.tests if t[2] in unit.site_in_children]
    scripted = at_site if unreached else []
    if unreached and not scripted:
        # every test passes as on the original (survived, as a fresh interpreter finds it, without running one)
        reloaded.restore()
        hosted.restore_tree(state)
        return Verdict(Status.SURVIVED, pruned=at_import.NOT_RUN)
    # a test given an original as a parameter (a test module passed it to parametrize) gets the re-created value,
    # as a fresh collection would give it, and judges the mutant
    swapped: list[tuple[Any, ...]] = []
    try:
        given = state.collected.swap(reloaded.replaced, state.params, swapped) if state.collected is not None else set()
        tests = scripted or unit.tests
        if reloaded.observable_by_name and not scripted:
            # only the tests that ran code able to see a change: a changed function, or a read by name
            # of something rebound (see `Reload.observed_by`); every test clears the memo caches itself
            # a name bound only to a replaced dict: only the tests that read one of its changed keys (see `keyed`)
            by_key = {name: keys for name, keys in reloaded.keyed.items() if name in state.key_names}
            observers = {c for c in state.ran_by_any if reloaded.observed_by(c, frozenset(by_key))}
            here = [t for t in tests if t[2] is None or t[2] >= len(executed) or executed[t[2]] & observers
                    or (by_key and keyed.reads_changed(state.keys_read[t[2]], by_key)) or t[0] in given]
            # those that see it only in a child process last, as in `plan` (they cost a process start each)
            alike = not at_site or _computes_alike(state, m)
            tests = here + [t for t in tests if t not in here and (
                (t in at_site and not alike) or _seen_in_children(state, unit, m, reloaded, by_key, t[2]))]
            # the tests that cannot run twice in one process all stay: what one runs when recorded here depends
            # on whether it ran in this worker before (a worker that ran the baseline, or a new one), so a
            # choice made from that record would differ between workers, and so between two runs of the score

        if reloaded.doubts:
            # the fresh interpreter will decide whatever happens here: the run in place only looks for a test
            # to try first there, among the cheapest
            tests = cheapest(tests, HINT_SHARE)
        with _on_disk(state, unit, m, tests):
            judged = _run_tests(state, tests, unit.first)
    finally:
        unswap(swapped)
        reloaded.restore()
        damaged = hosted.restore_tree(state)
    verdict = _checked(state, judged)
    if reloaded.doubts and isinstance(verdict, Verdict):
        # the live state mixed original and mutant objects: neither verdict is the mutant's own, but the
        # test that failed here is the likeliest to fail in the fresh interpreter, so it goes first there
        killed = verdict.status is Status.KILLED and verdict.killed_by and verdict.tests_run
        first = [verdict.killed_by] if killed and verdict.killed_by else []
        return Redo(Again.ISOLATE, f"cannot reload in place: {reloaded.doubts[0]}", first=first)
    return _judged_fresh(unit, verdict, damaged)


def _seen_in_children(state: hosted.Host, unit: ScoreUnit, m: Any, reloaded: Any,
                      by_key: dict[str, frozenset[Any]], position: int | None) -> bool:
    """Whether the child processes of the test at `position` ran code able to see the re-run body's change: a
    child imports the mutated module afresh, so its reads count as the test's own (the mutated module's own body
    aside: it is the change itself).  A dict changed at a few keys (`by_key`: name -> keys) is seen by code that
    reads it by a changed constant key, uses it opaquely, or read a changed key by a variable in those children
    (unknown there: any key)."""
    if position not in unit.children:
        return False
    if not _CODES:
        _CODES.update(code_objects({name: swap.original_code for name, swap in state.swaps.items()}))
    body = state.swaps[m.module].original_code
    own = (m.module, body.co_firstlineno, body.co_name)
    apart = frozenset(by_key)
    read = unit.child_keys.get(position, {})
    for key in map(tuple, unit.child_code.get(position, ())):
        if key == own or key not in _CODES:
            continue
        code = _CODES[key]
        if reloaded.observed_by(code, apart):
            return True
        if apart.isdisjoint(code.co_names):
            continue
        found = _SITES.get((code, apart))
        if found is None:  # a large function's bytecode takes milliseconds to read: once per worker
            found = _SITES[code, apart] = keyed.sites(code, apart)
        if found.opaque or keyed.reads_changed(found.consts, by_key):
            return True
        variables = {table for table, _ in found.variables.values()}
        if variables and keyed.reads_changed(
                {table: read.get(key, {}).get(table, keyed.ALL) for table in variables}, by_key):
            return True
    return False


_CODES: dict[tuple[str, int, str], types.CodeType] = {}  # this worker's code objects under test (`code_objects`)
_SITES: dict[tuple[types.CodeType, frozenset[str]], keyed.Sites] = {}  # `keyed.sites` of a code object, per names


def _statement_lines(state: hosted.Host, m: Any) -> range | None:
    """The lines of the statement holding mutant `m` when its module's body runs that code as it runs, else None
    (see `at_import.Layout`)."""
    assert state.program is not None
    info = state.program.module_of(m.id)
    layout = _LAYOUTS.get(info.source_hash)
    if layout is None:
        layout = _LAYOUTS[info.source_hash] = at_import.Layout.of(info.source)
    return layout.lines(m.line, m.end_line)


_LAYOUTS: dict[str, at_import.Layout] = {}  # per module source hash, in this worker


def _computes_alike(state: hosted.Host, m: Any) -> bool:
    """Whether the top-level statement holding mutant `m` computes the same in any process (see
    `at_import.computes_alike`): a child process that runs it judges the mutant by what the re-run body
    computed here."""
    assert state.program is not None
    info = state.program.module_of(m.id)
    found = _ALIKE.get((info.source_hash, m.line))
    if found is None:
        body = _STATEMENTS.get(info.source_hash)
        if body is None:
            body = _STATEMENTS[info.source_hash] = ast.parse(info.source).body
        node = next((n for n in body if n.lineno <= m.line <= (n.end_lineno or n.lineno)), None)
        found = node is not None and m.end_line <= (node.end_lineno or node.lineno) and at_import.computes_alike(
            node, vars(state.swaps[m.module].module), frozenset(state.swaps))
        _ALIKE[(info.source_hash, m.line)] = found
    return found


_STATEMENTS: dict[str, list[ast.stmt]] = {}  # per module source hash, its top-level statements
_ALIKE: dict[tuple[str, int], bool] = {}  # per module source hash and mutant line, `_computes_alike`


def _collection_error(state: hosted.Host, m: Any, code: Any, modules: dict[str, Any]) -> tuple[str, str] | None:
    """(test module's node id, exception) of the first test module a fresh import with the mutant fails to import
    (see `fresh_import`); the interpreter-wide state the re-run bodies changed is put back as after a test."""
    import pytest  # here, not at the top: the parent imports this module for `run_unit` and never runs a test

    assert state.program is not None
    info = state.program.module_of(m.id)
    tests: dict[str, tuple[str, str, str]] = {}
    for item in state.items.values():
        parent = item.getparent(pytest.Module)
        module = getattr(parent, "obj", None) if parent is not None else None
        if module is not None and module.__name__ not in tests and getattr(module, "__file__", None):
            tests[module.__name__] = (module.__name__, module.__file__, parent.nodeid)
    hosted.before_test(state)
    try:
        return collection_error(m.module, info.file, info.is_package, code, modules, list(tests.values()))
    finally:
        hosted.after_test(state)


def cheapest(tests: list[TestSlot], share: float) -> list[TestSlot]:
    """The fastest of `tests` whose timeouts add up to at most `share` of all of theirs (one at least), fastest
    first."""
    budget = share * sum(t[1] for t in tests)
    chosen: list[TestSlot] = []
    spent = 0.0
    for test in sorted(tests, key=lambda t: t[1]):
        spent += test[1]
        if chosen and spent > budget:
            break
        chosen.append(test)
    return chosen


def _executed(state: hosted.Host, allowance: float = 0.0) -> list[frozenset[Any]] | None:
    """Per test, in collection order, the code objects from under the project root it runs (recorded once per
    worker, each test from its fresh start, by running the suite on the original under a hook: see `_recording`);
    None when a test gave up waiting to bind (a record cut short would hide the code the test runs).

    The record is no part of the unit's own time: its deadline in the parent moves by `allowance` before it starts
    (a single slow test under the hook must not pass for a hang: it did, and an equivalent mutant was reported as a
    timeout), and its seconds go to `state.record_seconds`, not to the unit's."""
    if state.executed is None:
        began = time.perf_counter()
        extend_deadline(allowance)
        credited = began
        _, modules = hosted.import_graph(state)
        files = {f for m in modules.values() for f in (m.__file__, os.path.realpath(m.__file__ or ""))}
        executed = []
        # the names of the dicts module bodies bound, whose keys each test reads are noted too (see `keyed`)
        names = frozenset(name for m in modules.values() for name, value in vars(m).items()
                          if type(value) is dict and not name.startswith("__"))
        keys = keyed.KeyRecord(names)
        reads = []
        # the state every test starts from is settled before the hook is set: settled with it, the ledger would
        # put a trace function back after every later test of this worker
        hosted.before_test(state)
        with _recording(files, keys) as record:
            for item in state.order:
                outcome, seen = record(item)
                reads.append(keys.take())
                now = time.perf_counter()
                # past the allowance (a worker much slower than the baseline's), as each test ends
                over = (now - began) - allowance
                if over > 0:
                    extend_deadline(now - max(credited, began + allowance))
                credited = now
                if outcome == "busy":
                    hosted.restore_tree(state)
                    state.record_seconds += time.perf_counter() - began
                    return None
                executed.append(seen)
        state.executed, state.keys_read, state.key_names = executed, reads, names
        state.ran_by_any = frozenset().union(*executed)
        hosted.restore_tree(state)
        state.record_seconds += time.perf_counter() - began
    return state.executed


MONITORED = sys.version_info >= (3, 12)  # whether `_recording` may use a sys.monitoring tool
# the record's tool id: one no tool takes by convention (0 debuggers, 1 coverage, 2 profilers, 5 optimizers;
# Hypothesis's explain phase takes 3, and warns when it finds 3 taken)
RECORD_TOOL = 4
RECORD_NAME = "mu2py record"


@contextmanager
def _recording(files: set[str | None], keys: keyed.KeyRecord) -> Iterator[Callable[[Any], tuple[str, frozenset[Any]]]]:
    """A function running one test (`run_test`, no timeout) that returns its outcome and the code objects whose
    `co_filename` is in `files` the test ran, on this thread and on the threads it runs code on: what a global
    trace function's call events see (a code object starting, a generator or coroutine resumed, or thrown into).
    Each code object that ran is noted in `keys`, and the instructions of those that read a dict by a variable
    key are watched as they run (an opcode trace; on 3.12+ the tool's local instruction events), so that
    `keys.take()` after the test gives the keys it read.
    A test whose threads read a class attribute (`self.WRITER` in a lock's reader threads) must be recorded as
    reading it, or an import-time mutant of that attribute is never run against it (a false survivor).  Under
    the trace function (3.11) threads the test starts are traced (`threading.settrace`), threads started before
    it are not; a `sys.monitoring` tool sees every thread.  Code a thread left running executes during a later
    test counts for that test too: more tests judge a mutant, never fewer.

    Python 3.11 has that trace function only (`sys.settrace`), called on every Python call of every library
    (Hypothesis-heavy suites run 2-4x slower under it).  On 3.12+ a `sys.monitoring` tool is registered instead,
    while no other tool is: its callbacks return DISABLE, so each code location calls back once per test, and
    `restart_events` re-arms them before the next.  Restarting re-arms every tool's disabled events: a test
    that finds another tool registered (a coverage tool, one a test left) is recorded under the trace function
    as well.  The tool is the ledger's own (`ledger.own_tool`): the checks after each test neither retire the
    worker for it nor report it; and it is freed on the way out, whatever ends the record.
    """
    seen: set[Any] = set()

    def opcode(frame: Any, event: str, arg: Any) -> Any:
        if event == "opcode":
            keys.at(frame.f_code, frame.f_lasti, frame)
        return opcode

    def traced(item: Any) -> str:
        def record(frame: Any, event: str, arg: Any) -> Any:
            # a global trace function called for Python calls only (a profile function is called for C calls
            # and returns too: twice the cost); returning None traces no lines, and only code reading a dict by
            # a variable key gets a local trace function, for its opcodes
            code = frame.f_code
            if code.co_filename in files:
                if code not in seen:
                    seen.add(code)
                    keys.ran(code)
                if keys.sites_of(code).variables:
                    # the local trace function first: 3.12+ turns opcode events on only for a frame that has one
                    frame.f_trace = opcode
                    frame.f_trace_lines = False
                    frame.f_trace_opcodes = True
                    return opcode
            return None

        sys.settrace(record)
        threading.settrace(record)
        try:
            return run_test(item, None)
        finally:
            sys.settrace(None)
            threading.settrace(None)

    monitoring = getattr(sys, "monitoring", None)
    if not MONITORED or monitoring is None or _tools(monitoring):

        def run_traced(item: Any) -> tuple[str, frozenset[Any]]:
            seen.clear()
            return traced(item), frozenset(seen)

        yield run_traced
        return

    disable, events = monitoring.DISABLE, monitoring.events

    armed: set[Any] = set()  # code objects whose instructions this tool watches (their reads by key)

    def started(code: Any, offset: int) -> Any:
        if code.co_filename in files and code not in seen:
            seen.add(code)
            if keys.ran(code) and code not in armed:
                armed.add(code)
                monitoring.set_local_events(RECORD_TOOL, code, events.INSTRUCTION)
        return disable

    def thrown(code: Any, offset: int, exc: BaseException) -> None:
        # no location of its own: the event cannot be disabled (a generator thrown into is rare)
        started(code, offset)

    def instruction(code: Any, offset: int) -> Any:
        # the frame running `code` is the caller's: a key is read from its variables before the load runs
        return None if keys.at(code, offset, sys._getframe(1)) else disable

    callbacks = {events.PY_START: started, events.PY_RESUME: started, events.PY_THROW: thrown,
                 events.INSTRUCTION: instruction}

    def run_monitored(item: Any) -> tuple[str, frozenset[Any]]:
        others = _tools(monitoring, RECORD_TOOL)
        if not others:
            monitoring.restart_events()
        seen.clear()
        # with another tool registered, no restart: what this tool disabled stays silent, the trace function sees it
        outcome = traced(item) if others else run_test(item, None)
        return outcome, frozenset(seen)

    with ledger.own_tool(RECORD_TOOL):
        monitoring.use_tool_id(RECORD_TOOL, RECORD_NAME)
        try:
            for event, callback in callbacks.items():
                monitoring.register_callback(RECORD_TOOL, event, callback)
            monitoring.set_events(RECORD_TOOL, events.PY_START | events.PY_RESUME | events.PY_THROW)
            yield run_monitored
        finally:
            monitoring.set_events(RECORD_TOOL, 0)
            for code in armed:
                monitoring.set_local_events(RECORD_TOOL, code, 0)
            for event in callbacks:
                monitoring.register_callback(RECORD_TOOL, event, None)
            monitoring.free_tool_id(RECORD_TOOL)


def _tools(monitoring: Any, but: int | None = None) -> list[int]:
    """The sys.monitoring tool ids registered now, `but` aside."""
    return [k for k in range(6) if k != but and monitoring.get_tool(k) is not None]


UNITS: dict[UnitKind, Callable[[ScoreUnit], Any]] = {
    UnitKind.BASELINE: baseline, UnitKind.MUTANT: mutant, UnitKind.REEXEC: reexec, UnitKind.ISOLATED: isolated,
}


def run_unit(unit: ScoreUnit) -> Result | SuiteRecord:
    """Dispatch a unit by its `kind` (the function every score worker runs): a mutant's unit gives a `Verdict` or a
    `Redo`, with the seconds it took; the baseline gives its record of the suite (see `baseline`)."""
    start = time.perf_counter()
    recorded = hosted.HOST.record_seconds if hosted.HOST is not None else 0.0
    # the baseline has no deadline; every other unit's allows its tests' timeouts and `pools.SLACK` more
    ports.new_unit(math.inf if unit.kind is UnitKind.BASELINE else ports.WAIT_BUDGET)
    try:
        result = UNITS[unit.kind](unit)
    except Exception as exc:
        if unit.kind not in (UnitKind.MUTANT, UnitKind.REEXEC):
            raise  # the baseline fails the run with its reason; an isolated session runs in a process of its own
        # mu2py's own step raised, not a test (the runner catches theirs).  What the tests left in this worker can
        # cause it: a thread still running that parses source while this one does (CPython 3.11's AST
        # constructor keeps its depth in interpreter-wide state: gh-106905, "recursion depth mismatch"), or a
        # module of the standard library patched.  No verdict from here: a new worker judges the mutant, then,
        # if that fails too, a fresh interpreter (see `scoring`), and the reason stays in the report
        request_restart()
        result = Redo(Again.RETRY, f"mu2py's own step raised {type(exc).__name__}: {str(exc)[:200]}")
    finally:
        if hosted.HOST is not None:
            hosted.restore_tree(hosted.HOST)
    if unit.kind is UnitKind.BASELINE:
        return cast(SuiteRecord, result)
    if isinstance(result, Redo) and result.again is Again.ISOLATE and hosted.HOST is not None:
        warm_up(hosted.HOST)  # its fresh session comes in the next round: the server starts meanwhile
    # the worker's one-off record of what each test runs is its own line of the report, not this mutant's time
    record = max(0.0, (hosted.HOST.record_seconds if hosted.HOST is not None else 0.0) - recorded)
    seconds = round(time.perf_counter() - start - record, 4)
    if isinstance(result, Verdict):
        return result.marked(record_seconds=round(record, 4),
                             seconds=seconds if result.seconds is None else result.seconds)
    return replace(cast(Redo, result), record_seconds=round(record, 4), seconds=seconds)
