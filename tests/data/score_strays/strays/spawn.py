"""A helper process per call: `wait_for` ends its own (a mutant of its loop hangs with it running), `leave` does not."""

import os
import subprocess

SECONDS = "300"  # read at call time: with --import-time fresh its mutants run in a fresh pytest session


def _start():
    proc = subprocess.Popen(["sleep", SECONDS])
    with open(os.environ["STRAY_PIDS"], "a") as noted:
        noted.write(f"{proc.pid}\n")
    return proc


def wait_for(n):
    proc = _start()
    total = 0
    while n > 0:
        total += n
        n -= 1
    proc.kill()
    proc.wait()
    return total


def leave():
    _start()
    return 2
