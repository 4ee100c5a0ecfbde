"""Atomic file writes: a reader never sees a half-written corpus entry or report."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from mu2py.errors import UserError


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write `data` to `path` through a temporary file in the same folder and `os.replace`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp creates 0600: give the file ordinary permissions
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, obj: Any) -> None:
    """Atomically write `obj` as indented JSON."""
    write_atomic(path, json.dumps(obj, indent=1, sort_keys=False) + "\n")


def ensure_writable(directory: Path) -> None:
    """Create `directory` if needed and check it can be written, with a one-line error otherwise."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / ".mu2py-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise UserError(f"output directory {directory} is not writable: {exc.strerror or exc}") from exc


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
