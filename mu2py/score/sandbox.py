"""A worker's scratch copy of the project: mutants write there, and every unit starts from the tree as found.

A mutant can delete, truncate or create files its tests read (`not keep` -> `keep` around an
`os.remove`).  Run in the project itself, such a change outlives the mutant: every later
mutant is then judged against a damaged tree, and the project is left damaged.  So each
score worker runs the suite in its own copy of the project (`ScratchCopy`), and after every
unit puts back whatever the unit changed there, by comparing the copy with the original.

Invariants: the original tree is only ever read; after `ScratchCopy.restore()` every file
of the copy has the original's contents and no file the original lacks is left over
(caches and hidden folders excepted, see `_skipped_dir`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

# folders never copied nor compared: version control, tool caches, virtual environments, byte code
_SKIP_NAMES = frozenset({"__pycache__", "node_modules"})


def _skipped_dir(path: str, name: str) -> bool:
    return name.startswith(".") or name in _SKIP_NAMES or name.endswith(".egg-info") \
        or os.path.exists(os.path.join(path, name, "pyvenv.cfg"))


def tree_state(root: str) -> dict[str, tuple[int, int]]:
    """Every file under `root` (skipped folders aside), as relative path -> (size, mtime in ns).

    As `os.walk` would list them (a link to a folder is not followed), with one `scandir` per folder and the
    relative paths built as they are found: this runs after every unit of a score worker.
    """
    found: dict[str, tuple[int, int]] = {}
    folders = [(root, "")]
    while folders:
        here, prefix = folders.pop()
        try:
            entries = list(os.scandir(here))
        except OSError:
            continue
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if not entry.is_symlink() and not _skipped_dir(here, entry.name):
                    folders.append((entry.path, prefix + entry.name + os.sep))
                continue
            try:
                st = entry.stat()
            except OSError:
                continue
            found[prefix + entry.name] = (st.st_size, st.st_mtime_ns)
    return found


class ScratchCopy:
    """A copy of `original` at `copy`, kept identical to it between units by `restore`."""

    def __init__(self, original: str, copy: str) -> None:
        self.original = os.path.realpath(original)
        self.copy = copy
        self.state = tree_state(self.original)
        self.written: dict[str, bytes] = {}  # files the copy holds other bytes in for now (see `write`)
        self.writes = 0  # how many `write`s so far
        for here, dirs, _ in os.walk(self.original):
            dirs[:] = [d for d in dirs if not _skipped_dir(here, d)]
            for d in dirs:  # empty folders too: pytest is told to collect from them
                os.makedirs(os.path.join(copy, os.path.relpath(os.path.join(here, d), self.original)), exist_ok=True)
        for rel in self.state:
            self._put_back(rel)
        # compared against the copy's own stamps: copy2 keeps the original's mtime, but not on every filesystem
        self.copied = tree_state(self.copy)

    def _put_back(self, rel: str) -> None:
        target = os.path.join(self.copy, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.isdir(target) and not os.path.islink(target):
            shutil.rmtree(target)
        if rel in self.written:
            with open(target, "wb") as fh:
                fh.write(self.written[rel])
            # a second of its own past the original's: a .pyc a child wrote of an earlier write (same size, same
            # second) would pass for this one's, and import the wrong code
            stamp = os.stat(os.path.join(self.original, rel)).st_mtime_ns + self.writes * 1_000_000_000
            os.utime(target, ns=(stamp, stamp))
        else:
            shutil.copy2(os.path.join(self.original, rel), target)

    def _reset(self, rel: str) -> None:
        self._put_back(rel)
        self.copied[rel] = _stamp(os.path.join(self.copy, rel))

    def write(self, rel: str, data: bytes) -> None:
        """The copy's file `rel` (relative to the root) holds `data` until `put_back(rel)`: in the meantime
        `restore` puts `data` back, not the original's bytes (a mutated module a child process imports)."""
        self.written[rel] = data
        self.writes += 1
        self._reset(rel)

    def put_back(self, rel: str) -> None:
        """The original's file `rel` copied over the copy's, and taken as the copy's own again (see `write`)."""
        self.written.pop(rel, None)
        self._reset(rel)

    def restore(self) -> list[str]:
        """Undo every change a unit made to the copy; returns the project's files it had deleted or changed
        (files it created are removed silently, and a file rewritten with the same contents is no damage)."""
        now = tree_state(self.copy)
        damaged = []
        for rel in now:
            if rel not in self.copied:
                try:
                    os.remove(os.path.join(self.copy, rel))
                except OSError:
                    pass
        for rel, stamp in self.copied.items():
            if now.get(rel) != stamp:
                if rel not in now or not self._intact(rel):
                    damaged.append(rel)
                self._reset(rel)
        return sorted(damaged)

    def _intact(self, rel: str) -> bool:
        """Whether the copy's `rel` holds what it should: the bytes `write` gave it, or the original's."""
        if rel in self.written:
            try:
                with open(os.path.join(self.copy, rel), "rb") as fh:
                    return fh.read() == self.written[rel]
            except OSError:
                return False
        return _same_bytes(os.path.join(self.copy, rel), os.path.join(self.original, rel))

    def remap(self, path: str) -> str:
        """The copy's counterpart of a path under the original (other paths unchanged)."""
        real = os.path.realpath(path)
        if real == self.original or real.startswith(self.original + os.sep):
            return os.path.join(self.copy, os.path.relpath(real, self.original))
        return path

    def relative(self, path: str) -> str | None:
        """`path` relative to the copy, when it lies inside it (else None)."""
        real = os.path.realpath(path)
        base = os.path.realpath(self.copy)
        if real.startswith(base + os.sep):
            return os.path.relpath(real, base)
        return None


def _same_bytes(a: str, b: str) -> bool:
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            return fa.read() == fb.read()
    except OSError:
        return False


def _stamp(path: str) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def data_digest_parts(root: Path, relative: list[str]) -> list[str]:
    """Path and contents of each of `relative` under `root` (a missing file counts as missing), in order."""
    parts = []
    for rel in sorted(set(relative)):
        parts.append(rel)
        try:
            parts.append(hashlib.sha256((root / rel).read_bytes()).hexdigest())
        except OSError:
            parts.append("<missing>")
    return parts
