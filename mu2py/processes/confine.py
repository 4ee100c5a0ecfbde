"""What a mutant host confines the program to: a scratch directory, signals that spare mu2py, no leftovers.

A host runs thousands of mutants, any of which may delete files by relative paths, signal
its parent (the command's own process), or leave a thread or a child process running.
`Confinement`, installed once in a host process, answers each of these:

- files: the host works in a scratch directory that mirrors the user's working directory
  by symbolic links, so relative reads see the user's files; an audit hook refuses (as
  PermissionError) any write, truncation, deletion or rename that would land inside the
  user's directory tree outside the scratch directory, and notes which scratch entries a
  run touched, so that `leftovers()` puts them back (a deleted link returns, a new file goes);
- signals: `os.kill`/`os.killpg` aimed at the supervisor (its pid or process group) or at
  every process (-1) are dropped, as if delivered to a parent that ignores them;
- leftovers: `leftovers()`, called after every run, says why this process can no longer be
  trusted — a thread still running, or a child process still alive — so that the host is
  retired after that run's verdict (its process group is killed with it).

Invariant: while a `Confinement` is installed, no file event of this process changes an
entry in the user's directory tree outside the scratch directory, and after `leftovers()`
returns the scratch directory holds exactly its mirror again.
"""

from __future__ import annotations

import _thread
import errno
import os
import shutil
import signal
import sys
from typing import Any

from mu2py.processes.scratch import make_scratch

# audit events that change a path: which arguments are paths, and whether the change follows a final
# symlink (the file it points to changes) or not (the directory entry itself changes)
_ENTRY, _TARGET = 0, 1
_FILE_EVENTS: dict[str, tuple[tuple[int, int], ...]] = {
    "open": ((0, _TARGET),),
    "os.remove": ((0, _ENTRY),),
    "os.rmdir": ((0, _ENTRY),),
    "os.rename": ((0, _ENTRY), (1, _ENTRY)),
    "os.link": ((1, _ENTRY),),
    "os.symlink": ((1, _ENTRY),),
    "os.mkdir": ((0, _ENTRY),),
    "os.truncate": ((0, _TARGET),),
    "os.chmod": ((0, _TARGET),),
    "os.chown": ((0, _TARGET),),
    "os.utime": ((0, _TARGET),),
    "os.setxattr": ((0, _TARGET),),
    "os.removexattr": ((0, _TARGET),),
    "shutil.rmtree": ((0, _ENTRY),),
    "shutil.move": ((0, _ENTRY), (1, _ENTRY)),
}
# the dir_fd argument of each event that has one (paths relative to an open directory)
_DIR_FD = {"os.remove": 1, "os.rmdir": 1, "os.mkdir": 2, "os.symlink": 2, "os.chmod": 2, "os.chown": 3,
           "os.utime": 3, "shutil.rmtree": 1}
_SPAWN_EVENTS = frozenset({"os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.system", "subprocess.Popen"})
# Measured on a swapped insertion-sort mutant: the hook adds about a microsecond per audited event, and a
# swapped mutant's run raises three (reading and setting `__code__`, setting it back), five when it raises
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


_MIRROR_PREFIX = "mu2py-host-"


def make_mirror(source: str) -> str:
    """A new scratch directory holding a symbolic link to every entry of `source` (the user's directory).

    Its name carries this process's pid, so that a later mu2py removes it if this one dies first.
    """
    scratch = make_scratch(_MIRROR_PREFIX)
    try:
        names = os.listdir(source)
    except OSError:
        names = []
    for name in names:
        try:
            os.symlink(os.path.join(source, name), os.path.join(scratch, name))
        except OSError:
            pass  # an entry that vanished meanwhile: the mirror simply lacks it
    return scratch


def remove_mirror(scratch: str) -> None:
    """Delete a scratch directory (its links only: rmtree never follows them)."""
    shutil.rmtree(scratch, ignore_errors=True)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)


class Confinement:
    """Installed once in a host process (see the module docstring); `root` is the user's directory."""

    def __init__(self, root: str, scratch: str, supervisor: int) -> None:
        self.root = os.path.realpath(root)
        self.scratch = os.path.realpath(scratch)
        # the whole filesystem as "the user's directory" would leave no place to write but the scratch
        self.protect = self.root != os.sep and not _inside(self.root, self.scratch)
        self.mirror = {name: os.readlink(os.path.join(self.scratch, name)) for name in os.listdir(self.scratch)
                       if os.path.islink(os.path.join(self.scratch, name))}
        self.supervisor = supervisor
        try:
            self.supervisor_group = os.getpgid(supervisor)
        except OSError:
            self.supervisor_group = -2
        self.touched: set[str] = set()
        self.spawned = False
        self.threads = 0
        self.pid = os.getpid()

    def install(self) -> None:
        """Change into the scratch directory, guard os.kill, add the audit hook (it cannot be removed)."""
        os.chdir(self.scratch)
        real_kill, real_killpg = os.kill, os.killpg

        def kill(pid: int, sig: int) -> None:
            """os.kill, except that a signal to mu2py's own process (or to every process) is dropped."""
            if pid in (self.supervisor, -1, -self.supervisor_group):
                return
            real_kill(pid, sig)

        def killpg(pgid: int, sig: int) -> None:
            """os.killpg, except that mu2py's own process group is spared."""
            if pgid == self.supervisor_group:
                return
            real_killpg(pgid, sig)

        kill.__wrapped__ = real_kill  # type: ignore[attr-defined]  # functools' marker, set on a function
        killpg.__wrapped__ = real_killpg  # type: ignore[attr-defined]  # functools' marker, set on a function
        os.kill, os.killpg = kill, killpg
        file_events, spawn_events, audit = _FILE_EVENTS, _SPAWN_EVENTS, self._audit

        def hook(event: str, args: tuple[Any, ...]) -> None:
            # a plain function with two set lookups: it runs for every audited event of the host (a swap's
            # `__code__` assignments included), so the events it ignores must cost as little as possible
            if event in file_events:
                audit(event, args)
            elif event in spawn_events:
                self.spawned = True

        sys.addaudithook(hook)
        self.threads = _thread._count()

    def settle(self) -> None:
        """Take the threads running now (the target's own, started at import) as this process's normal state."""
        self.threads = _thread._count()
        self.spawned = False
        if self.touched:
            self._resync()

    # -- the audit hook: every audited event of the process passes here, so the common case returns at once

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        spec = _FILE_EVENTS[event]
        if event == "open":
            path, mode, flags = args
            if isinstance(path, int):
                return
            writing = (any(c in mode for c in "wax+") if isinstance(mode, str)
                       else isinstance(flags, int) and bool(flags & _WRITE_FLAGS))
            if not writing:
                return
        dir_fd = args[_DIR_FD[event]] if event in _DIR_FD and len(args) > _DIR_FD[event] else None
        for position, kind in spec:
            if position < len(args):
                self._check(event, args[position], kind, dir_fd)

    def _check(self, event: str, path: Any, kind: int, dir_fd: Any) -> None:
        resolved = self._resolve(path, kind, dir_fd)
        if resolved is None:
            return
        if _inside(resolved, self.scratch):
            rest = resolved[len(self.scratch) + 1:]
            if rest:
                self.touched.add(rest.split(os.sep, 1)[0])
            return
        if self.protect and _inside(resolved, self.root):
            raise PermissionError(errno.EACCES, f"mu2py: {event} inside the user's directory is refused to "
                                                "code under test", os.fsdecode(path) if not isinstance(path, int)
                                  else str(path))

    @staticmethod
    def _resolve(path: Any, kind: int, dir_fd: Any) -> str | None:
        try:
            if isinstance(path, int):
                return os.readlink(f"/proc/self/fd/{path}")
            text = os.fsdecode(os.fspath(path))
            if not os.path.isabs(text):
                # dir_fd is -1 (or None) when the call gave none: relative to the working directory
                relative = isinstance(dir_fd, int) and dir_fd >= 0
                base = os.readlink(f"/proc/self/fd/{dir_fd}") if relative else os.getcwd()
                text = os.path.join(base, text)
            if kind == _TARGET:
                return os.path.realpath(text)
            head, tail = os.path.split(os.path.normpath(text))
            return os.path.join(os.path.realpath(head), tail)
        except (OSError, TypeError, ValueError):
            return None  # not a path we can place (a closed descriptor...): the OS decides

    # -- after each run ---------------------------------------------------------------

    def leftovers(self) -> str | None:
        """Put the scratch entries a run touched back; why this process is no longer trustworthy (None: it is)."""
        if self.touched:
            self._resync()
        if _thread._count() > self.threads:
            return "left a thread running"
        if self.spawned:
            self.spawned = False
            if self._children_alive():
                return "left a child process running"
        return None

    def _resync(self) -> None:
        touched, self.touched = self.touched, set()
        for name in touched:
            path = os.path.join(self.scratch, name)
            link = self.mirror.get(name)
            try:
                if link is not None and os.path.islink(path) and os.readlink(path) == link:
                    continue
                if os.path.islink(path) or os.path.isfile(path):
                    os.unlink(path)
                elif os.path.isdir(path):
                    shutil.rmtree(path, ignore_errors=True)
                if link is not None:
                    os.symlink(link, path)
            except OSError:
                pass
        self.touched.clear()  # the restoring itself was audited

    def _children_alive(self) -> bool:
        """Whether a child of this process is still running (zombies are reaped); True when unknown."""
        running = children()
        if running is None:
            return True
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:  # the zombies: nobody else will wait for them now
                pass
        except ChildProcessError:
            pass
        return bool(running)


def children() -> set[int] | None:
    """The pids of this process's running children (zombies left out); None where /proc cannot tell."""
    try:
        found: set[int] = set()
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children") as f:
                found.update(int(p) for p in f.read().split())
    except OSError:
        return None
    running = set()
    for pid in found:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rpartition(")")[2].split()[0] != "Z":
                    running.add(pid)
        except (OSError, IndexError):
            continue
    return running


def kill_children(before: set[int] | None) -> int:
    """SIGKILL the running children this process has now and did not have in `before`; how many.

    For the command's own process at its end: the program's original runs there, and a child
    process it started must not outlive mu2py (the command's hosts and workers are gone by then).
    """
    now = children()
    if before is None or now is None:
        return 0
    killed = 0
    for pid in now - before:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            killed += 1
        except (ProcessLookupError, ChildProcessError, PermissionError):
            pass
    return killed
