"""The supervisor: whatever a supervised process started and left running ends with it, and its watch ends work
that overran its deadline or its memory cap."""

from __future__ import annotations

import sys
import time

import multiprocess as mp

from mu2py.processes.supervisor import Child, Watch, exit_detail, lead_group, run_swept
from tests.conftest import running

# starts `sleep 300`, prints its pid, then exits (or hangs, with an argument)
LEAVER = ("import subprocess, sys, time\n"
          "p = subprocess.Popen(['sleep', '300'])\n"
          "print(p.pid, flush=True)\n"
          "if len(sys.argv) > 1: time.sleep(300)\n")


def _gone(pid: int) -> bool:
    for _ in range(50):  # SIGKILL is delivered at once; the reap by init may take a moment
        if not running(pid):
            return True
        time.sleep(0.02)
    return False


def test_a_subprocess_s_leftover_is_swept_when_it_exits():
    ran = run_swept([sys.executable, "-c", LEAVER], timeout=60)
    assert ran.code == 0
    assert _gone(int(ran.stdout))


def test_a_subprocess_past_its_timeout_is_killed_with_its_group(tmp_path):
    out = tmp_path / "out.txt"
    with out.open("w") as log:
        ran = run_swept([sys.executable, "-c", LEAVER, "hang"], timeout=2, stdout=log)
    assert ran.code is None
    assert _gone(int(out.read_text()))


def _leave_one(conn):
    lead_group()
    import subprocess

    conn.send(subprocess.Popen(["sleep", "300"]).pid)
    conn.recv_bytes()  # None, packed: asked to stop


def test_a_child_s_group_is_swept_when_it_stops():
    child = Child.start(mp.get_context("fork"), _leave_one, (), daemon=True)
    left = child.conn.recv()
    assert running(left)
    child.stop(5)
    assert _gone(left)
    assert child.exit_detail() == "exit code 0"


def test_exit_detail_names_the_signal():
    assert exit_detail(-9) == "killed by SIGKILL" and exit_detail(3) == "exit code 3"


def test_a_watch_s_deadline_moves_with_extend_and_cut():
    watch = Watch()
    watch.set(0.5)
    assert watch.overrun(None) is None
    watch.extend(-1.0)  # as if it began a second earlier
    overrun = watch.overrun(None)
    assert overrun is not None and not overrun.memory and overrun.detail == "overran the 0.5s deadline"
    watch.set(60.0)
    watch.cut(0.0)  # the work asked to end now, whatever its limit
    time.sleep(0.01)
    assert watch.allowed() < 1 and watch.overrun(None) is not None
    watch.cut(None)
    assert watch.allowed() == 60.0 and watch.overrun(None) is None


def _hold_memory(conn):
    lead_group()
    held = bytearray(200 * 2**20)  # written, so resident
    conn.send(len(held))
    conn.recv_bytes()


def test_a_child_holding_more_than_its_cap_is_overrun():
    child = Child.start(mp.get_context("fork"), _hold_memory, (), daemon=True)
    try:
        assert child.conn.recv() == 200 * 2**20
        child.watch.set(60.0)
        assert child.overrun() is None  # no cap
        child.watch.memory_cap = 100 * 2**20
        overrun = child.overrun()
        assert overrun is not None and overrun.memory and overrun.detail == "held over 100 MB of memory"
        child.watch.memory_cap = 2**40
        assert child.overrun() is None
    finally:
        child.end()
