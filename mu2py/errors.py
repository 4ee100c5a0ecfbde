"""Errors a user can fix: the CLI prints them as one line and exits non-zero, without a traceback."""

from __future__ import annotations

import errno
import os

# what an OSError means for an output, whatever call raised it: the storage cannot take the write
STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG})


class UserError(Exception):
    """Bad input from the user (missing module, bad driver, unreadable file...): shown as one line."""


class TargetImportError(UserError):
    """The target or driver module could not be imported (missing, syntax error, raised on import)."""


class OutputError(UserError):
    """An output file or directory could not be written: disk full, read-only, vanished, no permission.

    Writes are atomic (`mu2py.store.atomic`): what was written before the failure is left whole, so the
    message says so; a command that resumes adds how.
    """

    kept = False  # a write failed midway and what the run wrote before it is intact (see `of`)

    @classmethod
    def vanished(cls, directory: str | os.PathLike[str]) -> OutputError:
        """The error for a write below an output directory that was removed or unmounted during the run."""
        return cls(f"cannot write in {directory}: the output directory was removed (or unmounted) during the "
                   "run; nothing was written in its place")

    @staticmethod
    def said(message: str) -> bool:
        """Whether `message` is an OutputError's text (as a worker sends an error back: see `mu2py corpus`)."""
        return message.startswith(("cannot write ", "output directory "))

    @classmethod
    def of(cls, path: str | os.PathLike[str] | None, exc: OSError) -> OutputError:
        """The one-line error for `exc`, raised while writing `path` (default: the file the OSError names)."""
        where = path if path is not None else exc.filename
        reason = exc.strerror or str(exc) or type(exc).__name__
        error = cls(f"cannot write {where if where is not None else 'the output'}: {reason}; "
                    "files written before are intact")
        error.kept = True
        return error
