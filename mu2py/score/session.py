"""The worker's pytest session: the suite collected once by `pytest.main`, units served from inside its run loop.

`host` is the worker initializer: it moves into the worker's scratch copy of the project (see
`sandbox`), runs pytest with a plugin whose `pytest_runtestloop` takes the collected items and
calls `serve` instead of running them, so that every unit reuses the same collected items.
While the suite is collected a profile hook records which functions under test ran (the
import-time calls a reload cannot redo, see `reload`); an audit hook watches binds (see `ports`)
and, while the baseline records, the data files the suite opens.

Invariant: `serve` is called exactly once, whether or not pytest reached its run loop; when it
did not, or collection failed, `hosted.HOST.error` says why and every unit reports it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from typing import Any

from mu2py.score import given, hosted, runner
from mu2py.score.catalog import Catalog
from mu2py.score.children import Children
from mu2py.score.params import Collected, keep_params
from mu2py.score.sandbox import ScratchCopy
from mu2py.score.spec import PYTEST_OPTIONS, SuiteSpec, plugin_options


class _HostPlugin:
    """Hands the collected session to the hosted state, then serves units in place of the run loop."""

    def __init__(self, host: hosted.Host, serve: Callable[[], None]) -> None:
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
        given.force_seed()  # the same examples on every run (see `given`)
        given.timed_examples(host.order)
        host.params = keep_params(host.order)
        host.collected = Collected.of(host.order)
        self.served = True
        self.serve()
        return True

    def pytest_runtest_logreport(self, report: Any) -> None:
        runner.note_report(report)

    def pytest_exception_interact(self, node: Any, call: Any, report: Any) -> None:
        # called for a phase that raised (not a skip, not an expected failure): a passing test costs nothing
        runner.note_failure(node, call, report)


def host(spec: SuiteSpec, serve: Callable[[], None], catalog: Catalog | None = None) -> None:
    """Worker initializer: collect the suite, then run `serve` inside the session (never returns early)."""
    import pytest

    os.environ.update(dict(spec.env))
    sandbox = None
    children = None
    if spec.scratch:
        # this worker's own copy of the project: a mutant's writes there are undone after each unit,
        # and never reach the project nor another worker (see `sandbox`)
        base = spec.scratch if os.path.isdir(spec.scratch) else None
        sandbox = ScratchCopy(spec.root, tempfile.mkdtemp(prefix="w", dir=base))
        spec = spec.remapped(sandbox)
        # a child process a test starts imports the package from this copy, where a mutant its tests reach that way
        # is written while they run (see `children`): set before the ledger's snapshot, so every test inherits it
        children = Children(tempfile.mkdtemp(prefix="boot", dir=base), spec.files, spec.sys_path)
        os.environ.update(children.environment(dict(os.environ)))
        if base is not None:
            # the temporary files a test or a mutant leaves (one per run of a test that never removes its own) go
            # with the run's scratch folder, not into the system's: set before the ledger's snapshot, as above
            os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="t", dir=base)
            tempfile.tempdir = None  # computed again from TMPDIR
    os.chdir(spec.root)
    sys.path[:0] = list(spec.sys_path)
    hosted.HOST = state = hosted.Host(spec, sandbox=sandbox, catalog=catalog)
    state.children = children
    sys.addaudithook(_audit)
    plugin = _HostPlugin(state, serve)
    args = [*spec.pytest_args, "-q", *PYTEST_OPTIONS, *plugin_options(spec.pytest_args)]
    # code under test that parses the command line (a CLI's main() called with no arguments) sees pytest's,
    # as in a plain run, not this tool's
    sys.argv = ["pytest", *args]
    files = {os.path.realpath(f) for f in spec.files} | set(spec.files)
    ran, at_import, importers = state.ran_at_collection, state.ran_at_import, state.importers

    known: dict[str, bool] = {}  # per code file name, whether it is a file under test (`./pkg/m.py` included)

    def under_test(filename: str) -> bool:
        found = known.get(filename)
        if found is None:
            found = known[filename] = filename in files or os.path.realpath(filename) in files
        return found

    def record(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and under_test(frame.f_code.co_filename):
            # a call made by the importing of its own module is redone by the reload: only calls made
            # while another module was being imported (or by pytest itself) count
            outer = frame.f_back
            while outer is not None and outer.f_code.co_name != "<module>":
                outer = outer.f_back
            elsewhere = outer is None or outer.f_code.co_filename != frame.f_code.co_filename
            if elsewhere:
                ran.add(frame.f_code)
            while outer is not None and outer.f_globals.get("__name__") == "__main__":
                outer = outer.f_back  # the worker's own entry (`python -c ...`) is no import
                while outer is not None and outer.f_code.co_name != "<module>":
                    outer = outer.f_back
            key = (frame.f_globals.get("__name__"), frame.f_code.co_qualname)
            if outer is not None:
                # ran while a module was imported: what it did then, a swapped-in mutant never redoes; made by
                # its own module's body only, re-running that body with the mutant in place redoes it
                own = outer.f_code.co_filename == frame.f_code.co_filename
                at_import.add((*key, own))
                importers.setdefault(key, set()).add(str(outer.f_globals.get("__name__")))
            elif elsewhere:
                importers.setdefault(key, set()).add("")  # pytest itself, while no module was being imported

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
        state.error = f"pytest stopped before running tests (exit code {code}); check --tests and pytest arguments"
        serve()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "socket.bind":
        runner.note_bind(args[1])
        return
    host = hosted.HOST
    if event != "open" or host is None or host.opened is None or host.sandbox is None:
        return
    path = args[0]
    if isinstance(path, (str, bytes, os.PathLike)):
        rel = host.sandbox.relative(os.fsdecode(path))
        if rel is not None and not rel.endswith((".py", ".pyc")) and "__pycache__" not in rel:
            host.opened.add(rel)
