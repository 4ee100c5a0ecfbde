"""A mutant that hangs its test: a timeout in the test's own code keeps the worker, one elsewhere replaces it."""

import json
from pathlib import Path

import pytest

from mu2py.cli.main import main
from tests.mu2py.score.conftest import write_tree

COUNT = '''def countdown(n):
    while n:
        n = n - 1
    return n
'''
# each worker collecting the suite appends its process id to the file PIDS names
RECORD = '''import os

import pytest

from loop_pkg.count import countdown

with open(os.environ["PIDS"], "a") as f:
    f.write(f"{os.getpid()}\\n")
'''
IN_CALL = RECORD + '''

def test_countdown():
    assert countdown(3) == 0
'''
IN_TEARDOWN = RECORD + '''

@pytest.fixture
def counted():
    yield
    assert countdown(3) == 0


def test_countdown(counted):
    pass
'''


# the loop spends its time in heapq's own Python code: that is where the alarm fires
SMALLEST = '''import heapq


def countdown(n):
    while n:
        heapq.nsmallest(2, range(3000))
        n = n - 1
    return n
'''


def _workers(tmp_path: Path, test: str, monkeypatch: pytest.MonkeyPatch,
             capsys: pytest.CaptureFixture[str], source: str = COUNT) -> tuple[int, dict[str, str]]:
    """Score the loop project with `test` as its suite: how many workers collected it, and the statuses by id."""
    root = tmp_path / "project"
    write_tree(root, {"loop_pkg/__init__.py": "", "loop_pkg/count.py": source, "tests/test_count.py": test})
    pids = tmp_path / "pids"
    monkeypatch.setenv("PIDS", str(pids))
    assert main(["score", "--root", str(root), "--paths", "loop_pkg", "--tests", "tests", "--no-cache",
                 "--json"]) == 0
    statuses = {m["id"]: m["status"] for m in json.loads(capsys.readouterr().out)["mutants"]}
    return len(pids.read_text().split()), statuses


def test_a_hang_in_the_test_call_keeps_the_worker(tmp_path, monkeypatch, capsys):
    workers, statuses = _workers(tmp_path, IN_CALL, monkeypatch, capsys)
    # `n - 1` -> `n + 1`, `1` -> `2` and `1` -> `0` loop forever inside countdown, called by the test itself
    assert sorted(i for i, s in statuses.items() if s == "timeout") == [
        "loop_pkg.count:3:12:arithmetic", "loop_pkg.count:3:16:constant", "loop_pkg.count:3:16:constant#2"]
    assert workers == 1


def test_a_hang_in_library_code_the_project_calls_keeps_the_worker(tmp_path, monkeypatch, capsys):
    workers, statuses = _workers(tmp_path, IN_CALL, monkeypatch, capsys, SMALLEST)
    assert statuses["loop_pkg.count:7:12:arithmetic"] == "timeout"
    assert workers == 1


def test_a_hang_in_a_fixture_teardown_replaces_the_worker(tmp_path, monkeypatch, capsys):
    workers, statuses = _workers(tmp_path, IN_TEARDOWN, monkeypatch, capsys)
    assert statuses["loop_pkg.count:3:12:arithmetic"] == "timeout"
    # pytest's teardown bookkeeping may have been cut short: every timeout costs the worker
    assert workers == 1 + sum(s == "timeout" for s in statuses.values())
