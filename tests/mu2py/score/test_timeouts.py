"""A mutant that hangs its test: a timeout in the test's own code keeps the worker, one elsewhere replaces it."""

import json
import sys
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


# `n - 1` -> `n + 1` (and the constants 1 -> 2, 1 -> 0) loop for ever: the unlimited call hangs, the limited one raises
MIXED = '''def countdown(n, limit=None):
    steps = 0
    while n:
        n = n - 1
        steps += 1
        if limit is not None and steps > limit:
            raise RuntimeError("too many steps")
    return n
'''
# the hanging test comes first in collection order, so it runs first; its hang is in the call, or in a fixture's
# teardown (where the alarm cuts pytest's own bookkeeping: no more tests in that worker)
HANG_FIRST = '''import time

import pytest

from loop_pkg.count import countdown


@pytest.fixture
def counted():
    yield
    if HANG_IN_TEARDOWN:
        assert countdown(3) == 0


def test_hangs(counted):
    if not HANG_IN_TEARDOWN:
        assert countdown(3) == 0


def test_raises():
    time.sleep(0.1)
    assert countdown(3, limit=10) == 0
'''


@pytest.mark.parametrize("in_teardown", [False, True])
def test_a_mutant_some_tests_hang_on_and_one_fails_is_killed_whichever_runs_first(tmp_path, capsys, in_teardown):
    """Killed, not a timeout: the status must not follow which test a worker happens to run first."""
    root = tmp_path / "project"
    test = f"HANG_IN_TEARDOWN = {in_teardown}\n" + HANG_FIRST
    write_tree(root, {"loop_pkg/__init__.py": "", "loop_pkg/count.py": MIXED, "tests/test_count.py": test})
    assert main(["score", "--root", str(root), "--paths", "loop_pkg", "--tests", "tests", "--no-cache",
                 "--json"]) == 0
    by_id = {m["id"]: m for m in json.loads(capsys.readouterr().out)["mutants"]}
    loops = [by_id[i] for i in ("loop_pkg.count:4:12:arithmetic", "loop_pkg.count:4:16:constant",
                                "loop_pkg.count:4:16:constant#2")]
    assert [(m["status"], m["killed_by"].split("::")[-1]) for m in loops] == [("killed", "test_raises")] * 3
    # the first judged runs the hanging test first (the faster); the killer then goes first for the others
    assert sorted(m["tests_run"] for m in loops)[-1] == 2 or in_teardown  # after a teardown hang: a new worker



DRAIN = '''def drain(items):
    while items != []:
        del items[:1]
    return items


def retried(items):
    """Drain, and drain again after a timeout: the alarm's exception is caught, as tenacity's loop catches it."""
    while True:
        try:
            return drain(items)
        except Exception:
            raise
        except BaseException:
            continue
'''
# twelve tests reach the loop: the unit's deadline is the sum of their timeouts and more
DRAINED = '''import pytest

from retry_pkg.retry import retried


@pytest.mark.parametrize("n", range(1, 13))
def test_retried(n):
    assert retried(list(range(n))) == []
'''


@pytest.mark.skipif(sys.version_info < (3, 13), reason="scored once, on 3.13: CI's time")
def test_a_test_that_swallows_its_timeout_costs_a_grace_not_the_unit_s_deadline(tmp_path, capsys):
    """`del items[:0]` drains for ever inside a loop that catches the alarm's exception: the worker is killed
    `SWALLOWED` seconds after the alarm, not at the unit's deadline (12 timeouts and `SLACK`), on both attempts."""
    from mu2py.score.pools import SLACK
    from mu2py.score.runner import SWALLOWED

    root = tmp_path / "project"
    write_tree(root, {"retry_pkg/__init__.py": "", "retry_pkg/retry.py": DRAIN, "tests/test_retry.py": DRAINED})
    assert main(["score", "--root", str(root), "--paths", "retry_pkg", "--tests", "tests", "--no-cache",
                 "--json", "--workers", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    (endless,) = [m for m in report["mutants"] if m["line"] == 3 and m["mutated"] == "0"]
    assert endless["status"] == "timeout" and endless["killed_by"].startswith("<overran"), endless
    timeout = max(t["seconds"] for t in report["tests"]) * 10 + 1.0  # the longest test timeout (factor 10, + 1 s)
    # two attempts, each cut SWALLOWED seconds after its alarm; the unit's deadline is 12 timeouts and SLACK
    assert endless["seconds"] < 2 * (timeout + SWALLOWED + 1) < 2 * (12 + SLACK), endless
