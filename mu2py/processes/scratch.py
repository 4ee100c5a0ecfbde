"""Scratch directories named after the process that made them, so that a later run removes those of dead ones.

A run killed with SIGKILL (or the machine's OOM killer) cannot remove its scratch directory;
a score run's holds a copy of the whole project per worker.  Each is named
`<prefix><pid>-<random>` in the system's temporary folder, and making a new one first removes
every directory of that prefix whose process is gone.

Invariant: a directory is removed only when its name's pid names no running process; a live
process's directory (or one whose owner cannot be told) is left alone.
"""

from __future__ import annotations

import os
import shutil
import tempfile


def sweep_stale(prefix: str) -> None:
    """Remove the directories `prefix<pid>-*` of processes that are no longer running (never follows links)."""
    folder = tempfile.gettempdir()
    try:
        names = [n for n in os.listdir(folder) if n.startswith(prefix)]
    except OSError:
        return
    for name in names:
        owner = name[len(prefix):].partition("-")[0]
        if not owner.isdigit():
            continue
        try:
            os.kill(int(owner), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
        except OSError:
            pass  # alive, someone else's


def make_scratch(prefix: str) -> str:
    """A new directory `prefix<this pid>-<random>` in the temporary folder, after sweeping dead runs' ones."""
    sweep_stale(prefix)
    return tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-")
