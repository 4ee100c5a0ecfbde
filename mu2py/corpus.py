"""The fuzzing corpus on disk: saved inputs as choice files plus readable renderings, written atomically.

Layout of an output directory::

    corpus/id_000003.bin   the realized choice sequence (replayable by mutate and repro)
    corpus/id_000003.txt   a readable rendering of the decoded value
    corpus/index.json      per entry: why it was saved (coverage, kills), its size, favored
    failures/...           inputs on which the original itself raised, one per (type, location)
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mu2py.source import Choice, InputSource
from mu2py.storage import write_atomic, write_json


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
    value: Any = None

    def meta(self) -> dict[str, Any]:
        """What index.json records about the entry."""
        data = asdict(self)
        data.pop("choices")
        data.pop("value")
        return data


class Corpus:
    """An ordered list of entries, mirrored to `directory` (when given) after every addition."""

    def __init__(self, source: InputSource, directory: Path | None, prefix: str = "id") -> None:
        self.source = source
        self.directory = directory
        self.prefix = prefix
        self.entries: list[Entry] = []

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, entry: Entry, text: str | None = None) -> Entry:
        """Append and persist: the .bin and .txt (`text`: the rendering, if already made) first,
        then the index that names them."""
        self.entries.append(entry)
        if self.directory is not None:
            write_atomic(self.directory / f"{entry.name}.bin", self.source.to_bytes(entry.choices))
            rendered = text if text is not None else self.source.render(entry.value)
            write_atomic(self.directory / f"{entry.name}.txt", rendered + "\n")
            self.write_index()
        return entry

    def next_name(self) -> str:
        """A fresh file stem for the next entry."""
        return f"{self.prefix}_{len(self.entries):06d}"

    def write_index(self) -> None:
        """Atomically rewrite index.json."""
        if self.directory is not None:
            write_json(self.directory / "index.json", [e.meta() for e in self.entries])

    def load(self) -> list[Entry]:
        """Read back a corpus directory written by `add` (entries listed in its index)."""
        if self.directory is None or not (self.directory / "index.json").is_file():
            return []
        metas = json.loads((self.directory / "index.json").read_text())
        loaded = []
        for meta in metas:
            path = self.directory / f"{meta['name']}.bin"
            if not path.is_file():
                continue
            choices = self.source.from_bytes(path.read_bytes())
            loaded.append(Entry(choices=choices, **{k: v for k, v in meta.items() if k in Entry.__dataclass_fields__}))
        return loaded
