"""The fresh interpreter's session: what it renders of failures (only its summary lines are read)."""

import json
import os

import pytest

from mu2py.score.forkserver import ForkServer
from mu2py.score.isolated import INJECT, _failed_test, _failure, write_spec

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the fork server needs fork")

# records the traceback style of every failure report the session builds, the interrupt's included
CONFTEST = '''
import json

import pytest

_CONFIG = []


def pytest_configure(config):
    _CONFIG.append(config)


def _note(kind, longrepr):
    style = getattr(getattr(longrepr, "reprtraceback", None), "style", None)
    with open("styles.jsonl", "a") as f:
        f.write(json.dumps([kind, style]) + "\\n")


def pytest_collectreport(report):
    if report.failed:
        _note("collect", report.longrepr)


def pytest_runtest_logreport(report):
    if report.failed:
        _note("test", report.longrepr)


@pytest.hookimpl(trylast=True)
def pytest_keyboard_interrupt(excinfo):
    _note("interrupt", _CONFIG[0].pluginmanager.get_plugin("terminalreporter")._keyboardinterrupt_memo)
'''


def _fresh(tmp_path, mutated_source):
    (tmp_path / "mod.py").write_text("VALUE = 1\n")
    (tmp_path / "test_mod.py").write_text("import mod\n\n\ndef test_value():\n    assert mod.VALUE == 1\n")
    (tmp_path / "conftest.py").write_text(CONFTEST)
    spec = tmp_path / "spec.json"
    write_spec(spec, "mod", str(tmp_path / "mod.py"), False, mutated_source, tmp_path / "failure.txt")
    server = ForkServer(["mod"], str(tmp_path), [str(tmp_path)])
    try:
        assert server.proc is not None
        code = server.run(["-x", "-q", "-p", "no:cacheprovider", "test_mod.py"], cwd=str(tmp_path),
                          env={"MU2PY_MUTANT_SPEC": str(spec)}, path=[str(tmp_path)], prelude=INJECT,
                          out=str(tmp_path / "out.txt"), timeout=30)
    finally:
        server.close()
    styles = [json.loads(line) for line in (tmp_path / "styles.jsonl").read_text().splitlines()]
    return code, (tmp_path / "out.txt").read_text(), styles


def test_a_module_body_that_raises_ends_the_session_without_rendering_pytest_s_frames(tmp_path):
    code, output, styles = _fresh(tmp_path, "VALUE = len(1)\n")
    # the interrupt's whole traceback (pytest's own frames, each source file parsed) was rendered for one line
    assert code == 2 and styles == [["collect", "value"], ["interrupt", "value"]]
    assert _failed_test(output) == "test_mod.py"
    assert "Interrupted: 1 error during collection" in output
    # the import the test module's collection ran, from its line
    assert (tmp_path / "failure.txt").read_text() == \
        "in collect: TypeError: object of type 'int' has no len() (mod.py:1, from test_mod.py:1)"


def test_a_failing_test_is_reported_without_its_source(tmp_path):
    code, output, styles = _fresh(tmp_path, "VALUE = 2\n")
    assert code == 1 and styles == [["test", "value"]]
    assert _failed_test(output) == "test_mod.py::test_value"
    # how it failed, as a worker says it in place: written by the session's hook, read by the verdict
    line = "AssertionError: assert 2 == 1 (test_mod.py:5)"
    assert (tmp_path / "failure.txt").read_text() == line
    assert _failure(tmp_path / "failure.txt", output) == line
    # without that line (mu2py not importable there), the summary's message: cut to the terminal's width
    assert _failure(tmp_path / "missing.txt", "FAILED test_mod.py::test_value - assert 2 == 1\n") == "assert 2 == 1"
