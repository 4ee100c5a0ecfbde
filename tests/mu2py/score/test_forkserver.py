"""The fork server: fresh pytest sessions with their exit codes, output and timeouts, and its refusal rule."""

import os
import sys

import pytest

from mu2py.score.forkserver import ForkServer

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the fork server needs fork")

TESTS = '''
import time

import mod


def test_value():
    assert mod.VALUE == 1


def test_slow():
    if mod.VALUE == 2:
        time.sleep(30)
'''


@pytest.fixture
def project(tmp_path):
    (tmp_path / "mod.py").write_text("VALUE = 1\n")
    (tmp_path / "test_mod.py").write_text(TESTS)
    return tmp_path


def _run(server, project, prelude="", timeout=20.0):
    out = str(project / "out.txt")
    code = server.run(["-q", "-p", "no:cacheprovider", "test_mod.py"], cwd=str(project), env={},
                      path=[str(project)], prelude=prelude, out=out, timeout=timeout)
    return code, (project / "out.txt").read_text()


def test_each_run_imports_the_code_anew(project):
    server = ForkServer(["mod"], str(project), [str(project)])
    try:
        assert server.proc is not None
        assert _run(server, project)[0] == 0
        # the prelude runs in the child before pytest: here it stands in for the mutant's import hook
        code, output = _run(server, project, prelude="import sys, types\n"
                                                      "m = types.ModuleType('mod'); m.VALUE = 3\n"
                                                      "sys.modules['mod'] = m\n")
        assert code == 1 and "FAILED test_mod.py::test_value" in output
        assert _run(server, project)[0] == 0  # nothing of the previous child is left in the server
    finally:
        server.close()


def test_a_hanging_child_is_killed_at_its_timeout(project):
    server = ForkServer(["mod"], str(project), [str(project)])
    try:
        code, _ = _run(server, project, prelude="import sys, types\n"
                                                "m = types.ModuleType('mod'); m.VALUE = 2\n"
                                                "sys.modules['mod'] = m\n", timeout=2.0)
        assert code == "timeout"
        assert _run(server, project)[0] == 0
    finally:
        server.close()


def test_it_refuses_when_its_own_start_imports_code_under_test(project):
    server = ForkServer(["pytest", "mod"], str(project), [str(project)])  # pytest itself is always loaded
    assert server.proc is None
    assert server.run(["-q"], cwd=str(project), env={}, path=[], prelude="", out=str(project / "o"),
                      timeout=5.0) is None
    assert sys.modules.get("mod") is None


def test_children_start_with_the_server_objects_frozen_and_modules_mapped(project):
    """A child's pytest ends in full garbage collections and renders failures with `inspect.getmodule`: the
    server's own objects are frozen (not walked again per child) and its modules already mapped to files."""
    server = ForkServer(["mod"], str(project), [str(project)])
    try:
        code, output = _run(server, project, prelude="import gc, inspect, sys\n"
                                                      "print('frozen', gc.get_freeze_count())\n"
                                                      "print('mapped', len(inspect._filesbymodname))\n"
                                                      "print('modules', len(sys.modules))\n")
        assert code == 0
        seen = dict(line.split() for line in output.splitlines() if line.startswith(("frozen", "mapped", "modules")))
        assert int(seen["frozen"]) > 10_000
        assert int(seen["mapped"]) >= int(seen["modules"]) // 2
    finally:
        server.close()


def test_a_child_writes_bytecode_only_when_asked(project, monkeypatch):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    server = ForkServer(["mod"], str(project), [str(project)])
    try:
        assert _run(server, project)[0] == 0
        assert not (project / "__pycache__").exists()
        out = str(project / "out.txt")
        assert server.run(["-q", "-p", "no:cacheprovider", "test_mod.py"], cwd=str(project), env={},
                          path=[str(project)], prelude="", out=out, timeout=20.0, write_bytecode=True) == 0
        # pytest's rewritten test module, which the next child reads instead of rewriting it
        assert any("pytest" in p.name for p in (project / "__pycache__").iterdir())
    finally:
        server.close()


def _wakeups(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("voluntary_ctxt_switches"))


@pytest.mark.skipif(not os.path.exists("/proc/self/status") or not hasattr(os, "pidfd_open"),
                    reason="counts the server's wake-ups in /proc; the child's end wakes it through a pidfd")
def test_the_server_sleeps_while_a_child_runs(project):
    """Polling for the child's end every few milliseconds took the child's core from it (500 wake-ups a second)."""
    server = ForkServer(["mod"], str(project), [str(project)])
    try:
        before = _wakeups(server.proc.pid)
        code, _ = _run(server, project, prelude="import time\ntime.sleep(1)\n")
        assert code == 0 and _wakeups(server.proc.pid) - before < 50
    finally:
        server.close()
