"""The one way mu2py starts, watches and ends a process that runs a user's code, and sweeps what that process left.

Every such process (a fuzz campaign's mutant host, a score or props worker, a fresh pytest session
forked for one mutant or started as a new interpreter) leads a process group of its own
(`lead_group`, or `start_new_session` for a subprocess).  A test or a mutant may start processes
and never end them: a server left running, the helper a hanging mutant waited on.  They stay in
that group (unless they leave it themselves), so ending the process ends them with it
(`end_group`): when it is retired after a unit, replaced after a crash or a deadline, or closed
at the end of the command.  A process they started thus never outlives the command.

`Child` holds one such process and its pipe: `stop` asks it to end (None on the pipe) and waits a
grace period, then `end` sweeps its group, kills it if it is still there, and reaps it.  The group is swept before
the process is reaped: a process group id is not reused while its leader's pid is held.
`exit_detail` says how a process ended, for the verdict of a unit that ended it; `run_swept` runs a
command as a subprocess leading its own session, swept however it ends.

Each `Child` carries a `Watch`: the deadline and the memory cap on the work it is doing now (a score
or props unit, a phase of a fuzz host's batch).  The supervisor polls `Child.overrun()` while it waits
for an answer; a reason back means the process is ended and the work judged lost (or, for a mutant,
a timeout or a crash).  Both supervisors (the fuzz host's runner and the worker pool) use it, so a
deadline is moved, cut and checked, and memory is capped, in one place.  The fork server
(`score.forkserver`), a script that must not import mu2py, does the same for each child it forks.

Invariant: after `Child.end()` returns, no process of that child's group is alive (but one that
made itself a group or session leader), and the child itself is reaped.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from multiprocess.connection import wait

from mu2py.processes.child import memory_of, send


def lead_group() -> None:
    """Make this process the leader of a new process group (called first thing in a supervised child); quiet where
    it already leads one (a session leader) or cannot."""
    try:
        os.setpgid(0, 0)
    except (OSError, AttributeError):
        pass


def end_group(pid: int) -> None:
    """SIGKILL the process group led by `pid` (a supervised process and whatever it left running); quiet when the
    group is gone, or when `pid` never led one."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def exit_detail(code: int | None) -> str:
    """How a process ended, from its exit code as multiprocess or subprocess report it (negative: a signal)."""
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


@dataclass(frozen=True)
class Ran:
    """How a `run_swept` subprocess ended: its exit code (None: it overran its timeout and was killed) and what it
    wrote on the pipes asked for ("" for the others)."""

    code: int | None
    stdout: str = ""
    stderr: str = ""


def run_swept(args: list[str], *, timeout: float | None = None, stdout: Any = subprocess.PIPE,
              stderr: Any = subprocess.PIPE, **kwargs: Any) -> Ran:
    """Run `args` as a subprocess leading a new session, as `subprocess.run` would (`PIPE` gives the text); ended
    when it exits or overruns `timeout`, whatever it left running.

    Output asked for with `PIPE` goes through temporary files, not pipes: a process it left running holds a pipe
    open, and reading to the pipe's end would wait for that process (until the timeout, or forever without one).
    """
    with tempfile.TemporaryFile("w+", errors="replace") as out, tempfile.TemporaryFile("w+", errors="replace") as err:
        proc = subprocess.Popen(args, stdout=out if stdout is subprocess.PIPE else stdout,
                                stderr=err if stderr is subprocess.PIPE else stderr, text=True,
                                start_new_session=True, **kwargs)
        try:
            code: int | None = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
        # what it left running, and itself past its timeout (not reaped yet: its pid, the group's id, is held); after
        # an exit (reaped by `wait`) the group's id stays taken while any process of the group lives
        end_group(proc.pid)
        proc.kill()
        proc.wait()
        out.seek(0)
        err.seek(0)
        piped = (out.read() if stdout is subprocess.PIPE else "", err.read() if stderr is subprocess.PIPE else "")
        return Ran(code, *piped)


@dataclass(frozen=True)
class Overrun:
    """Why a supervised process's work was ended: its memory (`memory`) or its deadline, in words (`detail`)."""

    memory: bool
    detail: str


@dataclass
class Watch:
    """The deadline and the memory cap on what a supervised process is doing now (see the module docstring).

    The deadline runs on the monotonic clock: `limit` seconds from `since`, moved later by `extend` (time the
    work spent waiting on something not its own), and never past `cut_at` when the work asked to end by then
    (`cut`).  The cap is on resident memory as /proc reads it: none where /proc cannot tell, or when `memory_cap`
    is None.  Invariant: `overrun` names a reason exactly when one of the two is past.
    """

    memory_cap: int | None = None  # bytes
    since: float = 0.0
    limit: float = math.inf
    cut_at: float | None = None

    def set(self, limit: float, since: float | None = None) -> None:
        """Watch new work: `limit` seconds from `since` (now by default), no cut."""
        self.since = time.monotonic() if since is None else since
        self.limit = limit
        self.cut_at = None

    def extend(self, seconds: float) -> None:
        """Move the deadline `seconds` later."""
        self.since += seconds

    def cut(self, seconds: float | None) -> None:
        """The work must end within `seconds` from now, whatever its limit (None: its limit alone again)."""
        self.cut_at = None if seconds is None else time.monotonic() + seconds

    def allowed(self) -> float:
        """The seconds the work may take from `since`."""
        if self.cut_at is None:
            return self.limit
        return min(self.limit, round(self.cut_at - self.since, 3))

    def elapsed(self) -> float:
        """The seconds since the work began (extensions left out)."""
        return time.monotonic() - self.since

    def overrun(self, pid: int | None) -> Overrun | None:
        """Why the work of process `pid` must end now (its deadline passed, or it holds more than the cap), or
        None."""
        allowed = self.allowed()
        if self.elapsed() > allowed:
            return Overrun(False, f"overran the {allowed:g}s deadline")
        if self.memory_cap is not None and pid and memory_of(pid)[1] > self.memory_cap:  # 0 where /proc cannot tell
            return Overrun(True, f"held over {self.memory_cap // 2**20} MB of memory")
        return None


@dataclass
class Child:
    """A supervised process (multiprocess), the supervisor's end of its pipe, and the watch on its current work
    (see the module docstring)."""

    process: Any
    conn: Any
    watch: Watch = field(default_factory=Watch)

    @classmethod
    def start(cls, context: Any, target: Any, args: tuple[Any, ...], *, daemon: bool) -> Child:
        """Start `target(child_end, *args)` in a new process; `target` must call `lead_group()` first."""
        parent, child = context.Pipe()
        process = context.Process(target=target, args=(child, *args), daemon=daemon)
        process.start()
        child.close()
        return cls(process, parent)

    @property
    def pid(self) -> int | None:
        """The process id (None before the start)."""
        return self.process.pid

    @property
    def sentinel(self) -> Any:
        """Ready when the process has ended (for `multiprocess.connection.wait`)."""
        return self.process.sentinel

    def overrun(self) -> Overrun | None:
        """Why the process's current work must end now (see `Watch.overrun`), or None."""
        return self.watch.overrun(self.process.pid)

    def exit_detail(self) -> str:
        """How the process ended (see `exit_detail`)."""
        return exit_detail(self.process.exitcode)

    def ask_to_stop(self) -> None:
        """Send None on the pipe: the process ends once it reads it (after the unit it runs, if any)."""
        try:
            send(self.conn, None)
        except (OSError, BrokenPipeError):
            pass

    def finish(self, grace: float) -> None:
        """Give the process `grace` seconds to end, then `end` it."""
        wait([self.process.sentinel], timeout=grace)
        self.end()

    def stop(self, grace: float) -> None:
        """`ask_to_stop`, then `finish`."""
        self.ask_to_stop()
        self.finish(grace)

    def end(self) -> None:
        """Sweep the process's group, kill the process if it still runs, reap it and close the pipe."""
        if self.process.pid is not None:
            end_group(self.process.pid)
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()
