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
command as a subprocess leading its own session, swept however it ends.  The fork server
(`score.forkserver`), a script that must not import mu2py, does the same for each child it forks.

Invariant: after `Child.end()` returns, no process of that child's group is alive (but one that
made itself a group or session leader), and the child itself is reaped.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Any

from multiprocess.connection import wait

from mu2py.processes.child import send


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


@dataclass
class Child:
    """A supervised process (multiprocess) and the supervisor's end of its pipe (see the module docstring)."""

    process: Any
    conn: Any

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
