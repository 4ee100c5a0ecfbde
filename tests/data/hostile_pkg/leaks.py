"""Round-2 hazards: plausible code behind guards that plausible mutants open (`n > 1000` -> `n >= 1000`).

Every guarded call leaves something behind: a thread, a child process, a signal handler, output,
changed process state or a deleted file.  Inputs are at the guard's boundary (1000), where only
the guard's mutants open it.
"""

import decimal
import json
import os

from hostile_pkg import leak_helpers

_STATE = {"scale": 1}  # pragma: no mutate


def scaled(n):
    if n > 1000:
        leak_helpers.start_drifter(_STATE)
    leak_helpers.settle()  # pragma: no mutate
    return n * _STATE["scale"]


def archived(n):
    if n > 1000:
        leak_helpers.spawn_sleeper()
    return n + 1


def forked(n):
    pid = os.fork()
    if pid == 0:
        leak_helpers.child_work(n)
    os.waitpid(pid, 0)  # pragma: no mutate
    return n * 2


def countdown(n):
    leak_helpers.install_quiet_alarm()
    steps = 0
    while n > 0:
        n -= 7
        steps += 1
    return steps


def chatty(n):
    print("checking", n)  # pragma: no mutate
    if n > 1000:
        leak_helpers.chatter(n)
    return n - 1


def configured(n):
    if n > 1000:
        os.environ["HOSTILE_MODE"] = "fast"
        decimal.getcontext().prec = 3
        json.dumps = repr
    mode = os.environ.get("HOSTILE_MODE", "safe")  # pragma: no mutate
    third = decimal.Decimal(n) / 3  # pragma: no mutate
    return [mode, str(third), json.dumps({"n": n})]  # pragma: no mutate


def tidy(n):
    if n > 1000:
        os.remove("notes.txt")
    scratch = f"tidy-{n}.tmp"  # pragma: no mutate
    with open(scratch, "w") as f:  # pragma: no mutate
        f.write(str(n))  # pragma: no mutate
    os.remove(scratch)  # pragma: no mutate
    return n + 2


def hangs_up(n):
    if n > 1000:
        os.kill(os.getppid(), 1)
    return n + 3


def depth(tree):
    levels = 0
    while isinstance(tree, list):
        tree = tree[0]
        levels += 1
    return levels
