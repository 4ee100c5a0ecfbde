"""Helpers of the round-2 hazards (not mutated): threads, processes, handlers and output a program may leave behind.

Every process a helper starts appends its pid to `$HOSTILE_PIDS` (a file the tests read to find strays).
"""

import os
import signal
import subprocess
import sys
import threading
import time


def note_pid(pid):
    """Append `pid` to the pid file the test named in $HOSTILE_PIDS (if any)."""
    path = os.environ.get("HOSTILE_PIDS")
    if path:
        with open(path, "a") as f:
            f.write(f"{pid}\n")


def start_drifter(state):
    """A background thread that, after a moment, keeps setting state["scale"] to 7 (a metrics thread gone wrong)."""

    def drift():
        time.sleep(0.01)  # after the run that started it: that run's own result is not disturbed
        while True:
            state["scale"] = 7
            time.sleep(0.001)

    threading.Thread(target=drift, daemon=True).start()


def settle():
    """Wait a moment for a device to settle (a millisecond)."""
    time.sleep(0.001)


def spawn_sleeper():
    """A child process left running (a background archiver that was meant to be waited for)."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    note_pid(child.pid)


def child_work(n):
    """What the forked child of `leaks.forked` does: note its pid and leave at once."""
    note_pid(os.getpid())
    os._exit(0)


def quiet_alarm(signum, frame):
    """A program's own SIGALRM handler: its alarms only mean "check again later"."""


def install_quiet_alarm():
    """Install `quiet_alarm` for SIGALRM and cancel any pending alarm (a program with its own alarm-based polling)."""
    signal.signal(signal.SIGALRM, quiet_alarm)
    signal.setitimer(signal.ITIMER_REAL, 0)


def chatter(n):
    """A flood of progress output, at the Python level and on the file descriptors."""
    line = f"working on {n} " * 8 + "\n"
    for _ in range(20000):
        sys.stdout.write(line)
    os.write(1, line.encode() * 2000)
    os.write(2, line.encode() * 2000)
