"""On Python 3.12+ a worker records what each test runs with a sys.monitoring tool: the same code objects, per test,
as the trace function 3.11 records with; the tool is freed after, and the ledger never takes it for a test's.

The suite is hosted in a subprocess, as a score worker hosts it (`session.host`), and recorded both ways there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mu2py.score.conftest import write_tree

pytestmark = pytest.mark.skipif(sys.version_info < (3, 12), reason="sys.monitoring is Python 3.12+")

CORE = '''import threading


def ticker():
    n = 0
    while True:
        n += 1
        yield n


def catcher():
    caught = 0
    while True:
        try:
            yield caught
        except ValueError:
            caught += 1


TICKS = ticker()
next(TICKS)  # started at import: a test only resumes it
CAUGHT = catcher()
next(CAUGHT)  # started at import: a test only throws into it


class Box:
    def __init__(self, items):
        self.items = list(items)

    def total(self):
        return sum(x for x in self.items)

    @property
    def size(self):
        return len(self.items)


def scaled(k):
    def by(x):
        return x * k
    return by


def in_thread_only():
    return 1


def on_a_thread():
    found = []
    worker = threading.Thread(target=lambda: found.append(in_thread_only()))
    worker.start()
    worker.join()
    return found
'''
CONFTEST = '''import pytest

from rec_pkg.core import Box


@pytest.fixture
def box():
    return Box([1, 2, 3])
'''
TESTS = '''from hypothesis import given, settings, strategies as st

from rec_pkg import core


def test_box(box):
    assert box.total() == 6 and box.size == 3


def test_closure():
    assert core.scaled(3)(2) == 6


def test_resumed_generator():
    assert next(core.TICKS) > 1


def test_thrown_into_generator():
    assert core.CAUGHT.throw(ValueError) >= 1


def test_thread():
    assert core.on_a_thread() == [1]


def test_nothing_of_the_project():
    assert sorted([3, 1, 2]) == [1, 2, 3]


@settings(max_examples=20, database=None)
@given(st.lists(st.integers()))
def test_box_total(items):
    assert core.Box(items).total() == sum(items)
'''
# run in the subprocess: host the suite as a score worker does, and record it with and without the tool
SCRIPT = '''
import json, os, sys
from mu2py.processes import workers
from mu2py.score import hosted, session, units
from mu2py.score.spec import SuiteSpec

root, other, out = sys.argv[1], sys.argv[2] == "other", sys.argv[3]
spec = SuiteSpec(root=root, pytest_args=("tests",), modules=("rec_pkg.core",),
                 files=(os.path.join(root, "rec_pkg", "core.py"),))
monitoring = sys.monitoring
counts = {}


def started(code, offset):  # per code object (equal ones are distinct locations: mu2py's @given wrapper makes some)
    counts[id(code)] = (code, counts.get(id(code), (code, 0))[1] + 1)
    return monitoring.DISABLE


def serve():
    state = hosted.state()
    assert not state.error, state.error
    if other:  # another tool (a coverage tool), registered once the first record's first test is over
        run_test = units.run_test

        def registering(item, timeout):
            outcome = run_test(item, timeout)
            if monitoring.get_tool(monitoring.COVERAGE_ID) is None:
                monitoring.use_tool_id(monitoring.COVERAGE_ID, "other")
                monitoring.register_callback(monitoring.COVERAGE_ID, monitoring.events.PY_START, started)
                monitoring.set_events(monitoring.COVERAGE_ID, monitoring.events.PY_START)
            return outcome

        units.run_test = registering
    records, tools = {}, []
    for name, monitored in (("monitored", True), ("traced", False), ("monitored again", True)):
        units.MONITORED = monitored
        state.executed = None
        records[name] = units._executed(state)
        tools.append([monitoring.get_tool(k) for k in range(6)])
    if other:
        monitoring.set_events(monitoring.COVERAGE_ID, 0)
    twice = sorted(f"{c.co_filename}:{c.co_qualname}:{n}" for c, n in counts.values() if n > 1)
    names = {name: [sorted(f"{os.path.basename(c.co_filename)}:{c.co_qualname}" for c in seen) for seen in record]
             for name, record in records.items()}
    with open(out, "w") as f:  # the host quiets stdout
        json.dump({"names": names, "same": records["monitored"] == records["traced"] == records["monitored again"],
                   "tools": tools, "restart": workers._restart_requested, "restores": state.ledger.restores,
                   "nodeids": [item.nodeid for item in state.order],
                   "other_called": bool(counts), "twice": twice}, f)


session.host(spec, serve)
'''


def _recorded(tmp_path: Path, other: bool = False) -> dict:
    root = tmp_path / "project"
    write_tree(root, {"rec_pkg/__init__.py": "", "rec_pkg/core.py": CORE, "tests/conftest.py": CONFTEST,
                      "tests/test_core.py": TESTS})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[3]), str(root)])}
    out = tmp_path / "recorded.json"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(root), "other" if other else "alone", str(out)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and out.exists(), done.stderr[-3000:]
    return json.loads(out.read_text())


def test_the_monitoring_tool_records_what_the_trace_function_records(tmp_path: Path) -> None:
    found = _recorded(tmp_path)
    names = found["names"]
    assert found["same"], names
    by_test = dict(zip([n.split("::")[-1] for n in found["nodeids"]], names["monitored"], strict=True))
    assert by_test["test_box"] == ["conftest.py:box", "core.py:Box.__init__", "core.py:Box.size",
                                   "core.py:Box.total", "core.py:Box.total.<locals>.<genexpr>",
                                   "test_core.py:test_box"]
    assert "core.py:ticker" in by_test["test_resumed_generator"]
    assert "core.py:catcher" in by_test["test_thrown_into_generator"]
    # run on a thread the test starts: both ways see it (the trace function through `threading.settrace`)
    assert "core.py:on_a_thread" in by_test["test_thread"] and "core.py:in_thread_only" in by_test["test_thread"]
    assert by_test["test_nothing_of_the_project"] == ["test_core.py:test_nothing_of_the_project"]
    assert "core.py:Box.total" in by_test["test_box_total"]
    # freed after each record, and no check after a test took it for the test's own
    assert all(tools == [None] * 6 for tools in found["tools"])
    assert not found["restart"] and "sys.monitoring tools" not in found["restores"]


def test_another_tool_keeps_its_disabled_events(tmp_path: Path) -> None:
    """Restarting events would re-arm every tool's: while another one is registered (from the second test of the
    first record on), the tests are traced instead, and its disabled locations stay disabled."""
    found = _recorded(tmp_path, other=True)
    assert found["same"], found["names"]
    # each location called the other tool back once over all three records
    assert found["other_called"] and not found["twice"], found["twice"]
    assert all(tools == [None, "other", None, None, None, None] for tools in found["tools"])
