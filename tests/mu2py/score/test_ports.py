"""Two score workers running a test that binds a fixed port (tests/data/score_port; see mu2py.score.ports).

Every mutant there survives the test in a plain run.  Run at once in two workers, the test
failed in one with "address already in use"; the check that a killing test passes again on
the original came after the other worker let go of the port, so the collision stood as a kill.
"""

import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mu2py.cli.main import main
from mu2py.score import ports

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "score_port"


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(SAMPLE, root)
    with socket.socket() as probe:  # a port free now, fixed in the test from then on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    test_file = root / "tests" / "test_greet.py"
    test_file.write_text(test_file.read_text().replace("PORT = 8765", f"PORT = {port}"))
    return root


@pytest.mark.parametrize("import_time", ["reload", "fresh"])
def test_a_port_collision_between_workers_kills_no_mutant(project, capsys, import_time):
    assert main(["score", "--root", str(project), "--paths", "port_pkg", "--tests", "tests", "--no-cache", "--json",
                 "--workers", "2", "--import-time", import_time]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["total"] >= 6
    for m in report["mutants"]:
        assert m["status"] == "survived" and m["tests_run"] >= 1, m
    # the constant's mutants ran in place (reload) or in fresh interpreters, against in-place runs of the others
    assert {"reload": "reexec", "fresh": "isolated"}[import_time] in {m["mode"] for m in report["mutants"]}


def _hold_elsewhere(lock, seconds):
    """Another process holding the lock for `seconds`, once it has it."""
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(lock)!r}, os.O_RDONLY | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        f"time.sleep({seconds})\n")], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "held\n"
    return holder


def test_the_lock_waits_for_another_process_and_pauses_the_timeout(tmp_path, monkeypatch):
    assert not ports.fixed_address(("127.0.0.1", 0)) and not ports.fixed_address(("::1", 0, 0, 0))
    assert ports.fixed_address(("127.0.0.1", 8080)) and ports.fixed_address("/tmp/server.sock")
    assert not ports.fixed_address("")  # a Unix socket the system names
    lock = tmp_path / "bind.lock"
    monkeypatch.setattr(ports, "LOCK_FILE", str(lock))
    monkeypatch.setattr(ports, "budget", float("inf"))
    holder = _hold_elsewhere(lock, 1.0)
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(time.monotonic()))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)  # a test's timeout, shorter than the other's hold
        start = time.monotonic()
        ports.hold()
        waited = time.monotonic() - start
        remaining = signal.getitimer(signal.ITIMER_REAL)[0]
        assert waited > 0.5 and not fired  # it waited for the other process, and its timeout did not run
        assert 0.3 < remaining <= 0.5
        assert holder.wait(5) == 0
        ports.hold()  # once per test
        ports.release()
        fd = os.open(lock, os.O_RDONLY)  # released: another process takes it at once
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        holder.kill()
        holder.wait()


def test_a_wait_past_the_units_budget_gives_up(tmp_path, monkeypatch):
    """A unit's waits have a budget of their own: past it a bind gives up (`busy`), and
    the unit is judged again later, instead of its worker being killed as hung (a false timeout)."""
    lock = tmp_path / "bind.lock"
    monkeypatch.setattr(ports, "LOCK_FILE", str(lock))
    monkeypatch.setattr(ports, "busy", False)
    holder = _hold_elsewhere(lock, 5.0)
    try:
        ports.new_unit(0.3)
        start = time.monotonic()
        with pytest.raises(ports.Busy):
            ports.hold()
        assert 0.3 <= time.monotonic() - start < 3 and ports.busy
        assert ports.budget == 0
        with pytest.raises(ports.Busy):  # the budget is the unit's: the next bind gives up at once
            ports.hold()
        ports.release()  # nothing held: nothing to do
    finally:
        ports.new_unit(float("inf"))
        holder.kill()
        holder.wait()
