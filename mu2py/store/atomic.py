"""Atomic file writes: a reader never sees a half-written corpus entry or report."""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from mu2py.errors import OutputError, UserError

# the output directories of this process (each made or checked by `ensure_writable`, which DirectoryLock
# calls): a write below one that has vanished (deleted, unmounted) fails, instead of making a new, empty
# one in its place that a resume would take for the run's output
_roots: set[Path] = set()


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write `data` to `path` through a temporary file in the same folder and `os.replace`.

    Any failure (disk full, read-only file system, the folder gone) raises OutputError, a one-line
    UserError; the file `path` held before is untouched and no temporary file is left behind.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        _make_folder(path.parent)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputError.of(path, exc) from exc
    try:
        with os.fdopen(fd, "wb") as fh:  # owns fd from here: closed whatever fails below
            os.fchmod(fd, 0o666 & ~_umask())  # mkstemp creates 0600: give the file ordinary permissions
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            Path(tmp).unlink(missing_ok=True)
        except OSError:
            pass  # a file system gone read-only: the half-written temporary file is all there is to lose
        if isinstance(exc, OSError):
            raise OutputError.of(path, exc) from exc
        raise


def write_json(path: Path, obj: Any) -> None:
    """Atomically write `obj` as indented JSON."""
    write_atomic(path, json.dumps(obj, indent=1, sort_keys=False) + "\n")


def ensure_writable(directory: Path) -> None:
    """Create `directory` if needed and check it can be written, with a one-line error otherwise."""
    try:
        _make_folder(directory, own=True)
        probe = directory / ".mu2py-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OutputError:
        raise
    except OSError as exc:
        raise OutputError(f"output directory {directory} is not writable: {exc.strerror or exc}") from exc
    _roots.add(directory.absolute())


def _make_folder(folder: Path, own: bool = False) -> None:
    """Create `folder` and its parents, unless it lies in an output directory that vanished during the run.

    `own`: `folder` is itself an output directory being (re)started, which may be created afresh.
    """
    if folder.is_dir():
        return
    absolute = folder.absolute()
    for root in _roots:
        if (root in absolute.parents or (root == absolute and not own)) and not root.is_dir():
            raise OutputError.vanished(root)
    folder.mkdir(parents=True, exist_ok=True)


class DirectoryLock:
    """An exclusive lock on an output directory: one writer at a time, released when its holder exits or dies.

    It is an advisory `flock` on `DIR/.lock`, which holds the holder's pid for the error a second
    writer gets.  The kernel drops the lock with the last open descriptor, so a `kill -9` never leaves
    a stale lock behind; a forked child (the mutant host, a worker) keeps it while it lives, which is
    what keeps an orphan's directory from getting a second writer.
    """

    def __init__(self, directory: Path) -> None:
        self._fd: int | None = None
        ensure_writable(directory)
        self.path = directory / ".lock"
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise OutputError.of(self.path, exc) from exc
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(self._fd, 64, 0).decode(errors="replace").strip() or "unknown"
            self.release()
            raise UserError(f"{directory} is in use by another mu2py run (pid {holder}); "
                            "wait for it to end, stop it, or choose another --out") from None
        try:
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass  # a full disk: the lock holds all the same, only a second writer's error lacks the pid

    def release(self) -> None:
        """Drop the lock (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __del__(self) -> None:
        self.release()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
