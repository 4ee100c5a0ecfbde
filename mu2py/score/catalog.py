"""The mutants of a suite's modules as plain data, built once by the parent and handed to every score worker.

Building a `Program` parses every module with libcst: about 2 seconds of CPU for a module of
a thousand lines, paid again by every worker a run starts or replaces.  A worker judging
mutants needs only the mutant records and each mutant's text edit, which the parent's
`Program` already holds; `Catalog` carries exactly those (no syntax tree), plus what the
baseline's probes need (`Probes`: the probed sources and the site tables), and the worker
uses it in place of its own `Program` when it describes the same sources under the same
module names.  A worker given a catalog never imports libcst.

Invariant: for each mutant, `Catalog.mutant_source` is the parent `Program.mutant_source`, and
`Catalog.probes` holds the parent `Program.instrumented_sources()` and `site_tables()`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from mu2py.mutants.model import Mutant
from mu2py.mutants.probes import ProbeRecorder, SiteTable
from mu2py.target.modules import Target, TargetModule

if TYPE_CHECKING:
    from mu2py.mutants.catalog import Program


@dataclass(frozen=True)
class Probes:
    """What the baseline's probes need: each module's probed source (by module name) and, per global site id,
    its table (see `mu2py.mutants.probes`)."""

    sources: dict[str, str]
    tables: dict[int, SiteTable]

    def instrumented_sources(self) -> dict[str, str]:
        """The probed source of every module under test, keyed by module name."""
        return dict(self.sources)

    def probe_recorder(self) -> ProbeRecorder:
        """A fresh recorder for these sites; its `functions()` are what the probed sources call."""
        return ProbeRecorder(self.tables)


@dataclass(frozen=True)
class Catalog:
    """A program's mutants, modules and per-mutant edits (a splice of the source, or the whole mutated text)."""

    target: Target
    mutants: list[Mutant]
    static: frozenset[int]
    edits: list[tuple[int, int, str] | str]
    probes: Probes | None = None
    index: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.index.update((m.id, i) for i, m in enumerate(self.mutants))

    def module_of(self, mutant_id: str) -> TargetModule:
        """The module a mutant belongs to (its original source and file)."""
        name = self.mutants[self.index[mutant_id]].module
        return next(m for m in self.target.modules if m.name == name)

    def mutant_source(self, mutant_id: str) -> str:
        """The full source of the mutated module."""
        edit = self.edits[self.index[mutant_id]]
        if isinstance(edit, str):
            return edit
        start, end, text = edit
        source = self.module_of(mutant_id).source
        return source[:start] + text + source[end:]

    def matches(self, modules: tuple[str, ...], sources: dict[str, str]) -> bool:
        """Whether this catalog describes these module names (in order) with these sources (by name)."""
        return tuple(m.name for m in self.target.modules) == modules and all(
            sources.get(m.name) == m.source for m in self.target.modules)

    def moved(self, files: dict[str, str]) -> Catalog:
        """The same catalog with each module's file (and its mutants') moved as `files` maps module names."""
        modules = tuple(replace(m, file=files[m.name], search_locations=(str(Path(files[m.name]).parent),)
                                if m.is_package else None) for m in self.target.modules)
        return Catalog(replace(self.target, modules=modules), [replace(m, file=files[m.module]) for m in self.mutants],
                       self.static, self.edits, self.probes)


def catalog_of(program: Program) -> Catalog:
    """The catalog of a `Program` (see the module doc): its mutants, per mutant the edit making it, and its probes."""
    return Catalog(program.target, list(program.mutants), program.static, program.edits(),
                   Probes(program.instrumented_sources(), program.site_tables()))
