"""A mutant judged by its suite in a fresh interpreter: the mutated module imported from source, pytest run anew.

For import-time mutants the reload has doubts about, mutants whose code cannot be swapped in,
and survivors that still face tests which cannot run twice in one process.  The session is
forked from the worker's warm fork server (`forkserver`) where possible, else a new interpreter;
`INJECT`, run before pytest there, imports the mutant (described by a file `write_spec` wrote)
in place of its module, and makes a test binding a fixed address take the workers' bind lock.

The verdict is read from the quiet session's summary lines (the failed test's node id, the count
of tests run): JUnit XML names a test by class and function, not by the node id a verdict reports.

Invariant: no mutant is killed without a test run; the worker's copy of the project is restored
after every session.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from mu2py.processes.supervisor import run_swept
from mu2py.processes.workers import ending
from mu2py.score import hosted, ports
from mu2py.score.children import on_disk
from mu2py.score.failures import FAILURE_CHARS
from mu2py.score.forkserver import ForkServer
from mu2py.score.plan import ScoreUnit
from mu2py.score.spec import PYTEST_OPTIONS, plugin_options
from mu2py.score.verdicts import Status, Verdict

# run before pytest in the fresh interpreter, with MU2PY_MUTANT_SPEC naming a file `write_spec` wrote
INJECT = '''
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
    def get_resource_reader(self, name):
        # the package's data files (importlib.resources.files) as a plain import's file loader reads them
        from importlib.machinery import SourceFileLoader
        return SourceFileLoader(name, _spec["file"]).get_resource_reader(name)
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
# only the summary lines are read (the failed test's node id, the counts): rendering a failure's traceback the
# default way parses every source file on its way, and the collection error that ends a session (pytest's
# `Interrupted`) has its whole traceback through pytest's own frames rendered for one line of it (the reprcrash,
# the same in every style): together over a third of a child's time when the mutated module body raises
class _Reports:
    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config):
        config.option.tbstyle = "value"
    def pytest_exception_interact(self, node, call, report):
        # the first failure, in one line, for the verdict (see mu2py.score.failures): made only when a test fails
        where = _spec.get("failure_file")
        if not where or os.path.exists(where):
            return
        try:
            from mu2py.score.failures import failure_line, subtest_label, under_root
            label = subtest_label(report) if getattr(report, "context", None) is not None else ""
            line = failure_line(call.excinfo, str(getattr(node, "path", "")), call.when, *under_root(os.getcwd()),
                                label)
            with open(where, "w", encoding="utf-8") as out:
                out.write(line)
        except Exception:
            pass  # the summary line of the session's output says less, but something
    def pytest_collection_modifyitems(self, items):
        # as in the score workers: no shrinking (the verdict is known) and no Hypothesis deadline, which a loaded
        # machine fails the original on (see mu2py.score.given)
        try:
            from mu2py.score.given import force_seed, without_shrinking
            without_shrinking(items)
            force_seed()
        except Exception:
            pass  # Hypothesis's own settings then: a verdict still, perhaps slower to reach
    @pytest.hookimpl(tryfirst=True)
    def pytest_keyboard_interrupt(self, excinfo):
        full = excinfo.getrepr
        try:
            excinfo.getrepr = lambda *args, **kwargs: full(*args, **{**kwargs, "style": "value"})
        except (AttributeError, TypeError):
            pass
_pytest_main = pytest.main
def _main(args=None, plugins=None):
    pytest.main = _pytest_main  # the session's own tests see pytest as it is
    return _pytest_main(args, [*(plugins or ()), _BindRelease(), _Reports()])
pytest.main = _main
'''


def write_spec(path: Path, module: str, file: str, is_package: bool, source: str,
               failure_file: Path | None = None) -> None:
    """Describe for `INJECT` the mutant to import in place of `module` (and where the workers' bind lock is, and
    where to write how the first failing test failed)."""
    path.write_text(json.dumps({"module": module, "file": file, "is_package": is_package, "source": source,
                                "bind_lock": ports.LOCK_FILE,
                                "failure_file": str(failure_file) if failure_file is not None else None}))


def options(state: hosted.Host) -> list[str]:
    """The options of every fresh pytest session (see `spec.PYTEST_OPTIONS`)."""
    return [*PYTEST_OPTIONS, *plugin_options(state.spec.pytest_args)]


def isolated(unit: ScoreUnit) -> Verdict:
    """Run the suite in a fresh interpreter that imports the mutated module (stops at the first failure).

    `unit.first` names tests to try alone first (the test that killed the mutant in
    place): when one fails there, that is the verdict, without collecting the whole suite.
    `unit.only` names the only tests left to judge it (those that cannot run twice in one
    process, after the others passed in place): they decide, unless the fresh session cannot
    select them, and then the whole suite does.
    """
    state = hosted.state()
    program = state.program
    assert program is not None
    m = program.mutants[unit.index]
    info = program.module_of(m.id)
    with tempfile.TemporaryDirectory(prefix="mu2py-isolated-") as tmp:
        spec_path, failure_file = Path(tmp) / "spec.json", Path(tmp) / "failure.txt"
        write_spec(spec_path, m.module, info.file, info.is_package, program.mutant_source(m.id), failure_file)
        before = unit.tests_run  # tests the mutant already passed in place
        selections: list[tuple[list[str], bool]] = []
        if unit.only:
            selections.append((list(unit.only), True))
        elif unit.first:
            selections.append((list(unit.first), False))
        # a tried-first test counts only when it ran and failed (exit 1): an id the fresh session does not
        # collect is a usage error there, and the whole suite decides
        selections.append((list(state.spec.pytest_args), True))
        try:
            for selection, decisive in selections:
                failure_file.unlink(missing_ok=True)  # a session's failure, never an earlier one's
                # a test's child process imports the module from disk (see `children`)
                with on_disk(state.sandbox if unit.children else None, m.file, program.mutant_source(m.id)):
                    code, output = _fresh_pytest(state, ["-x", "-q", *options(state), *selection], str(spec_path),
                                                 tmp, unit.timeout)
                ran = before + _count_run(output)
                if code == "timeout":
                    return Verdict(Status.TIMEOUT, "<suite in a fresh interpreter>", max(ran, 1),
                                   f"timed out after {unit.timeout:.3g} s")
                if code == 1 or (code != 0 and decisive and selection is selections[-1][0]):
                    return Verdict(Status.KILLED, _failed_test(output), max(ran, 1), _failure(failure_file, output))
                if code == 0 and decisive:
                    return Verdict(Status.SURVIVED, tests_run=ran)
        finally:
            hosted.restore_tree(state)
    return Verdict(Status.SURVIVED, tests_run=before)


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


def _failure(failure_file: Path, output: str) -> str | None:
    """How the session's first failing test failed: the line `INJECT` wrote, else the message the quiet session's
    summary gives it (`FAILED id - ...`: cut to the session's terminal width), else None."""
    try:
        return failure_file.read_text(encoding="utf-8")
    except OSError:
        pass  # mu2py not importable in the session, or no failure reached pytest's hook (a crash)
    for line in output.splitlines():
        if line.startswith(("FAILED ", "ERROR ", "SUBFAILED")) and " - " in line:
            return line.split(" - ", 1)[1].strip()[:FAILURE_CHARS] or None
    return None


def _count_run(output: str) -> int:
    """How many tests a quiet pytest session reports as run (passed, failed or errored) in its last line."""
    lines = [line for line in output.splitlines() if line.strip()]
    if not lines:
        return 0
    counts = re.findall(r"(\d+) (passed|failed|errors?)", lines[-1])
    return sum(int(n) for n, _ in counts)


def warm_up(state: hosted.Host) -> None:
    """Start this worker's fork server if it is not running yet, without waiting for it (see `ForkServer`).

    Called as soon as a unit asks for a fresh interpreter, so that the server warms up while the worker
    serves the rest of the first round (isolated units come in a later one).
    """
    if state.forks is None:
        state.forks = ForkServer(sorted({*state.spec.modules, *(m.split(".")[0] for m in state.spec.modules)}),
                                 state.spec.root, list(state.spec.sys_path))
        ending(state.forks.close)  # reaped by this worker: its children's CPU time counts in the command's


def _fresh_pytest(state: hosted.Host, args: list[str], spec_path: str, tmp: str, timeout: float) -> tuple[Any, str]:
    """`pytest args` in a fresh import of the package with the mutant injected: (exit code or "timeout", output).

    Forked from this worker's fork server when it runs, else a new interpreter.
    """
    warm_up(state)
    assert state.forks is not None
    out = os.path.join(tmp, "pytest.out")
    # in this worker's scratch copy of the project (never the project itself), the children share bytecode
    code = state.forks.run(args, cwd=state.spec.root, env={"MU2PY_MUTANT_SPEC": spec_path},
                           path=list(state.spec.sys_path), prelude=INJECT, out=out, timeout=timeout,
                           write_bytecode=state.sandbox is not None)
    if code is not None:
        return code, Path(out).read_text(errors="replace") if os.path.exists(out) else ""
    (Path(tmp) / "mu2py_inject_mutant.py").write_text(INJECT)
    env = dict(os.environ, MU2PY_MUTANT_SPEC=spec_path,
               PYTHONPATH=os.pathsep.join([tmp, *state.spec.sys_path, os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-c", "import mu2py_inject_mutant, sys, pytest; sys.exit(pytest.main(sys.argv[1:]))", *args]
    ran = run_swept(cmd, timeout=timeout, cwd=state.spec.root, env=env)
    return ("timeout", "") if ran.code is None else (ran.code, ran.stdout)
