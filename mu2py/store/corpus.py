"""The fuzzing corpus on disk: saved inputs as choice files plus readable renderings, written atomically.

Layout of an output directory::

    corpus/id_000003.bin   the realized choice sequence (replayable by mutate and repro)
    corpus/id_000003.txt   a readable rendering of the decoded value
    corpus/index.json      per entry: why it was saved (coverage, kills), its size, favored, the .bin's checksum
    failures/...           inputs on which the original itself raised, one per (type, location)

Names are never reused: the next one is numbered past every name in the index and every file on
disk, so a resumed run cannot overwrite a saved input, even one its index has lost.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from mu2py.errors import UserError
from mu2py.inputs.source import Choice, InputSource
from mu2py.store.atomic import write_atomic, write_json


def checksum(data: bytes) -> str:
    """The short content hash index.json keeps per .bin (a truncated or edited file no longer matches)."""
    return hashlib.sha256(data).hexdigest()[:16]


@dataclass
class Entry:
    """One saved input."""

    name: str
    choices: tuple[Choice, ...]
    size: int
    favored: bool = False
    new_coverage: int = 0
    kills: dict[str, str] = field(default_factory=dict)  # mutant id -> kill reason
    trial: int = 0
    checksum: str = ""  # of the .bin, once written; "" in indexes older than checksums
    judged: bool = False  # every mutant it could kill has run on it (mutation guidance); False in older indexes
    value: Any = None
    kinds: tuple[Any, ...] | None = None  # what each choice was drawn as (Decoded.kinds): not saved, decoded again

    def meta(self) -> dict[str, Any]:
        """What index.json records about the entry."""
        # field by field, not asdict: asdict deep-copies the value too (RecursionError on a 2,000-deep input)
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("choices", "value", "kinds")}
        data["kills"] = dict(self.kills)
        return data


class Corpus:
    """An ordered list of entries, mirrored to `directory` (when given) after every addition."""

    def __init__(self, source: InputSource, directory: Path | None, prefix: str = "id") -> None:
        self.source = source
        self.directory = directory
        self.prefix = prefix
        self.entries: list[Entry] = []
        self.warnings: list[str] = []  # what `load` repaired or skipped, for the command to print
        self._next = 0  # invariant: above the number of every name in entries, the index or on disk

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, entry: Entry, text: str | None = None) -> Entry:
        """Append and persist: the .bin and .txt (`text`: the rendering, if already made) first,
        then the index that names them."""
        self.entries.append(entry)
        self._next = max(self._next, self._number(entry.name) + 1)
        if self.directory is not None:
            raw = self.source.to_bytes(entry.choices)
            entry.checksum = checksum(raw)
            write_atomic(self.directory / f"{entry.name}.bin", raw)
            rendered = text if text is not None else self.source.render(entry.value)
            write_atomic(self.directory / f"{entry.name}.txt", rendered + "\n")
            self.write_index()
        return entry

    def next_name(self) -> str:
        """A fresh file stem for the next entry."""
        return f"{self.prefix}_{self._next:06d}"

    def _number(self, name: str) -> int:
        match = re.fullmatch(rf"{re.escape(self.prefix)}_(\d+)", name)
        return int(match.group(1)) if match else -1

    def write_index(self) -> None:
        """Atomically rewrite index.json."""
        if self.directory is not None:
            write_json(self.directory / "index.json", [e.meta() for e in self.entries])

    def load(self) -> list[Entry]:
        """Read back a corpus directory written by `add`; the next name is set past everything found.

        A missing index is rebuilt from the .bin files (their kill records are lost; a warning says so);
        an index entry whose .bin is gone is skipped with a warning.  A corrupt index, an unreadable
        .bin or one that no longer matches its checksum raises UserError naming the file: nothing
        is written over it.
        """
        if self.directory is None or not self.directory.is_dir():
            return []
        on_disk = sorted(self.directory.glob(f"{self.prefix}_*.bin"))
        for path in [*on_disk, *self.directory.glob(f"{self.prefix}_*.txt")]:
            self._next = max(self._next, self._number(path.stem) + 1)
        index = self.directory / "index.json"
        if index.is_file():
            metas = self._read_index(index)
        else:
            metas = [{"name": p.stem} for p in sorted(on_disk, key=lambda p: self._number(p.stem)) if
                     self._number(p.stem) >= 0]
            if metas:
                self.warnings.append(f"{index} is missing: rebuilt from {len(metas)} .bin files "
                                     "(which mutants each input killed is re-earned, not restored)")
        loaded = []
        for meta in metas:
            self._next = max(self._next, self._number(meta["name"]) + 1)
            path = self.directory / f"{meta['name']}.bin"
            if not path.is_file():
                self.warnings.append(f"{path} is listed in {index.name} but missing: skipped")
                continue
            raw = path.read_bytes()
            if meta.get("checksum") and checksum(raw) != meta["checksum"]:
                raise UserError(f"{path} does not match its checksum in {index}: it was truncated or changed "
                                "after it was saved; restore it, or delete it to resume without it")
            try:
                choices = self.source.from_bytes(raw)
            except Exception as exc:  # noqa: BLE001 - any decoding failure means the same thing: not a file we wrote
                raise UserError(f"{path} is not a saved input ({type(exc).__name__}: {exc}); "
                                "restore it, or delete it to resume without it") from None
            fields = {k: v for k, v in meta.items() if k in Entry.__dataclass_fields__ and k != "choices"}
            loaded.append(Entry(choices=choices, **{"size": len(raw), **fields}))
        return loaded

    def _read_index(self, index: Path) -> list[dict[str, Any]]:
        try:
            metas = json.loads(index.read_text())
            if not isinstance(metas, list) or not all(isinstance(m, dict) and isinstance(m.get("name"), str)
                                                      for m in metas):
                raise ValueError("not a list of entries with names")
        except (ValueError, UnicodeDecodeError) as exc:
            raise UserError(f"{index} is corrupt ({exc}); delete it to rebuild the index from the .bin files, "
                            "or move the output directory aside to start afresh") from None
        return metas
