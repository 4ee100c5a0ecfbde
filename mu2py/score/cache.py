"""The verdict cache: a verdict is reused while the mutated module's source and the tests are unchanged.

A verdict's key hashes the module's source, the mutant id and `tests_digest` (the test code,
the pytest arguments and the data files the suite reads), so that any edit to one of them
judges the mutant anew.

Invariant: the cache file is only ever replaced atomically; a crash loses at most the verdicts
of the units in flight (see `VerdictCache`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mu2py.score.sandbox import data_digest_parts
from mu2py.score.spec import SuiteSpec, test_files
from mu2py.score.verdicts import Verdict
from mu2py.store.atomic import write_atomic, write_json

CACHE_VERSION = 3  # 2: keys include the data files the suite reads; 3: tests' child processes meet the mutant


def digest(*parts: str) -> str:
    """A short hash of `parts` (a verdict's cache key: module source hash, mutant id, tests digest, interpreter)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()[:24]


def tests_digest(spec: SuiteSpec, data_files: Sequence[str] = ()) -> str:
    """A hash of the test code, the pytest arguments and the data files the suite opened (paths relative
    to the root, contents): verdicts are cached under it, so an edited data file judges every mutant anew."""
    root = Path(spec.root)
    parts = [json.dumps(spec.pytest_args)]
    for path in test_files(spec):
        parts.append(str(path.relative_to(root)) if path.is_relative_to(root) else str(path))
        parts.append(path.read_text(encoding="utf-8", errors="replace"))
    parts.extend(data_digest_parts(root, list(data_files)))
    return digest(*parts)


def make_folder(folder: Path) -> None:
    """Create the cache's folder, with a `.gitignore` holding `*` when this creates it (as pytest does for its
    cache): git then lists nothing inside, and the folder never shows up in `git status`."""
    if folder.is_dir():
        return  # made earlier (its .gitignore then, if by mu2py), or the user's own folder: left as it is
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / ".gitignore", "# created by mu2py automatically\n*\n")


class VerdictCache:
    """Verdicts keyed by (module source hash, mutant id, tests digest), kept as they come, so runs resume.

    The cache file is only ever replaced atomically (`save`); between saves, each verdict is
    appended to a journal next to it and flushed at once, so a crash or Ctrl-C loses at most
    the units in flight.  Loading replays the journal over the file; a torn last line (the
    process died while writing it) is ignored.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.journal = path.with_name(path.name + ".journal") if path is not None else None
        self.data: dict[str, dict[str, Any]] = {}
        self._out: Any = None
        if path is not None and path.is_file():
            try:
                raw = json.loads(path.read_text())
                if raw.get("version") == CACHE_VERSION:
                    self.data = raw["verdicts"]
            except (OSError, ValueError, KeyError, AttributeError):
                self.data = {}  # an unreadable cache is only lost time, never a wrong verdict
        if self.journal is not None and self.journal.is_file():
            with open(self.journal, encoding="utf-8", errors="replace") as lines:
                for line in lines:
                    try:
                        entry = json.loads(line)
                        if entry.get("version") == CACHE_VERSION:
                            self.data[entry["key"]] = entry["verdict"]
                    except (ValueError, KeyError, AttributeError, TypeError):
                        continue

    def get(self, key: str) -> Verdict | None:
        """The cached verdict for `key`, if any (an entry that does not read as a verdict is none)."""
        entry = self.data.get(key)
        if entry is None:
            return None
        try:
            return Verdict.from_json(entry)
        except (KeyError, TypeError, ValueError):
            return None  # only lost time: the mutant is judged again

    def put(self, key: str, judged: Verdict) -> None:
        """Remember a verdict, on disk at once (appended to the journal)."""
        self.data[key] = verdict = judged.to_json()
        if self.journal is None:
            return
        if self._out is None:
            make_folder(self.journal.parent)
            self._out = open(self.journal, "a", encoding="utf-8")  # noqa: SIM115 - open until `save`
        self._out.write(json.dumps({"version": CACHE_VERSION, "key": key, "verdict": verdict}) + "\n")
        self._out.flush()

    def save(self) -> None:
        """Atomically write the cache, then drop the journal it now includes."""
        if self.path is None:
            return
        if self._out is not None:
            self._out.close()
            self._out = None
        make_folder(self.path.parent)
        write_json(self.path, {"version": CACHE_VERSION, "verdicts": self.data})
        if self.journal is not None:
            self.journal.unlink(missing_ok=True)
