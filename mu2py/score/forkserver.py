"""Fresh pytest sessions forked from a warm interpreter: a fresh import of the package without the start-up cost.

A mutant that must run in a fresh interpreter pays, every time, for starting Python,
importing pytest and importing every pytest plugin the environment installs (hypothesis
alone takes over half a second), before its suite is even collected.  The fork server is
a process that imports all of that once, and never the code under test; each request
forks it, and the child imports the package (with the mutant) and runs pytest from
scratch, as a new interpreter would.  What every child would redo on the server's own objects is done
once in the server: they are frozen out of the garbage collector (each pytest session ends in full
collections) and mapped to their files for `inspect.getmodule` (which renders a failure's traceback);
neither touches an object of the code under test, which every child creates itself.

Each child leads its own process group, swept when it ends or overruns its timeout: what its tests
started and left running ends with it (see `mu2py.processes.supervisor`).

Invariant: the server never imports a module of the package under test, so every child
imports them anew; if importing the plugins did import one, the server refuses to start
and callers fall back to plain subprocesses.  Only on POSIX (fork).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

_SERVER = r'''
import json, os, select, signal, sys, time
forbidden = json.loads(sys.argv[1])
import pytest
import tempfile
# one empty session configures every installed plugin, importing what they import at configure time
# (hypothesis: over half a second); an empty folder collects nothing, so no code under test is imported.
# Without assertion rewriting: pytest would rewrite every module of every plugin's distribution it imports
# (all of hypothesis), and where bytecode is not written (PYTHONDONTWRITEBYTECODE) redo it at each start,
# two thirds of it; a child's own session still rewrites the test modules, as a new interpreter's would
with tempfile.TemporaryDirectory() as empty, open(os.devnull, "w") as quiet:
    saved = sys.stdout
    sys.stdout = quiet
    try:
        pytest.main(["-q", "-p", "no:cacheprovider", "--assert=plain", "--rootdir", empty, empty])
    except BaseException:
        pass  # a broken plugin is reported by pytest in the child, as in a new interpreter
    finally:
        sys.stdout = saved
loaded = sorted(m for m in forbidden if m in sys.modules)
print(json.dumps({"ready": not loaded, "loaded": loaded}), flush=True)
if loaded:
    sys.exit(0)
import gc, inspect
# pytest renders a failure's traceback with `inspect.getmodule`, which first maps every loaded module to its
# file (cached per module name): done here once for the server's modules, each child maps only its own
inspect.getmodule(compile("0", os.path.join(os.getcwd(), "<mu2py warm-up>"), "eval"))
# every child's pytest session ends in two full collections (unraisableexception's `gc_collect_harder`):
# the server's own objects, frozen, are not walked again in each child
gc.collect()
gc.freeze()
def sweep(pid):
    # the child leads its group: what its tests started and left running ends with it (as `processes.supervisor`
    # does, written out here: the server must not import mu2py, which may be the package under test)
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
for line in sys.stdin:
    req = json.loads(line)
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            os.chdir(req["cwd"])
            os.environ.update(req["env"])
            sys.path[:0] = req["path"]
            fd = os.open(req["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            sys.argv = ["pytest"]
            if req.get("write_bytecode"):
                sys.dont_write_bytecode = False  # see `ForkServer.run`
            exec(compile(req["prelude"], "<mu2py prelude>", "exec"), {"__name__": "mu2py_prelude"})
            code = pytest.main(req["args"])
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(int(code))
        except BaseException:
            import traceback
            traceback.print_exc()
            sys.stderr.flush()
            os._exit(3)
    code = None
    try:
        # the child's end wakes this process (Linux): no polling, which costs the child a share of its core
        ended = os.pidfd_open(pid)
    except (AttributeError, OSError):
        ended = None
    if ended is not None:
        done = select.select([ended], [], [], req["timeout"])[0]
        os.close(ended)
        sweep(pid)  # the child too, if it overran; before the reap, while its pid (its group's id) is held
        status = os.waitpid(pid, 0)[1]
        print(json.dumps({"code": os.waitstatus_to_exitcode(status) if done else None}), flush=True)
        continue
    deadline = time.monotonic() + req["timeout"]
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            sweep(pid)  # after the reap: a group's id is not reused while a process of it lives
            break
        if time.monotonic() > deadline:
            sweep(pid)
            os.waitpid(pid, 0)
            break
        time.sleep(0.002)
    print(json.dumps({"code": code}), flush=True)
'''


class ForkServer:
    """One warm interpreter serving fresh pytest runs by fork; `run` is None-safe: it says when it cannot serve."""

    def __init__(self, forbidden: list[str], cwd: str, path: list[str]) -> None:
        """Start the server without waiting for it: it warms up while the caller works (see `proc`)."""
        self._proc: subprocess.Popen[str] | None = None
        self._greeted = True  # whether the server's first line (ready or not) has been read
        if not hasattr(os, "fork"):
            return
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([*path, os.environ.get("PYTHONPATH", "")]))
        try:
            self._proc = subprocess.Popen([sys.executable, "-c", _SERVER, json.dumps(forbidden)], cwd=cwd, env=env,
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                          text=True)
            self._greeted = False
        except OSError:
            return

    @property
    def proc(self) -> subprocess.Popen[str] | None:
        """The serving process, once it said it is ready (waits for that); None if it cannot serve."""
        if not self._greeted:
            self._greeted = True
            proc = self._proc
            assert proc is not None and proc.stdout is not None
            try:
                hello = json.loads(proc.stdout.readline() or "{}")
            except (OSError, ValueError):
                hello = {}
            if not hello.get("ready"):
                proc.kill()
                proc.wait()
                self._proc = None
        return self._proc

    def run(self, args: list[str], *, cwd: str, env: dict[str, str], path: list[str], prelude: str, out: str,
            timeout: float, write_bytecode: bool = False) -> int | None | str:
        """Run `pytest.main(args)` in a forked child: its exit code, "timeout", or None if the server is gone.

        With `write_bytecode` the child writes the bytecode of what it imports, pytest's rewritten test
        modules included, even under PYTHONDONTWRITEBYTECODE, so that the next child of a scratch copy of
        the project reads it instead of rewriting every test file again (a third of a child's time).
        """
        proc = self.proc
        if proc is None or proc.poll() is not None:
            self._proc = None
            return None
        request: dict[str, Any] = {"args": args, "cwd": cwd, "env": env, "path": path, "prelude": prelude,
                                   "out": out, "timeout": timeout, "write_bytecode": write_bytecode}
        try:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            reply = json.loads(proc.stdout.readline() or "null")
        except (OSError, ValueError):
            reply = None
        if reply is None:
            self.close()
            return None
        return "timeout" if reply["code"] is None else int(reply["code"])

    def close(self) -> None:
        """Stop the server (it also stops by itself when this process goes away: its stdin closes)."""
        if self._proc is not None:
            try:
                self._proc.kill()
                self._proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            self._proc = None
            self._greeted = True
