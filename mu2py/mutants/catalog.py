"""The mutants of a target, its probed original, and loading of mutant copies: one `Program`."""

from __future__ import annotations

import bisect
import functools
import time
import types
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from typing import Any

import libcst as cst

from mu2py.engine.copies import CopyLoadError, build_copies, compile_module, driver_function
from mu2py.engine.payload import ModuleLayout, Payload
from mu2py.errors import UserError
from mu2py.mutants.instrument import instrument
from mu2py.mutants.model import Mutant, one_line
from mu2py.mutants.operators import FoundMutation, ParsedModule, apply_mutation, find_mutations
from mu2py.mutants.probes import ProbeRecorder, SiteTable, binary_op, compare_op, inplace_ops
from mu2py.mutants.sites import Site, find_sites
from mu2py.processes.fresh import ContainerSnapshot
from mu2py.target.modules import Target, TargetModule


@dataclass
class _Entry:
    mutant: Mutant
    module: TargetModule
    found: FoundMutation


def _located(source: str, line_starts: list[int], found: FoundMutation) -> tuple[int, int, int, int, str, str]:
    """(line, column, end line, end column, original, mutated) as a report gives them: the node's verified text
    span without the whitespace around it (a comparison's operator carries the space before it), so that the
    original is exactly the source there; without a verified span, libcst's position and texts on one line."""
    if found.span is None:
        return (found.line, found.column, found.end_line, found.end_column, one_line(found.original_code),
                one_line(found.mutated_code))
    start, end = found.span
    text = source[start:end]
    lead, trail = len(text) - len(text.lstrip()), len(text) - len(text.rstrip())
    mutated = found.mutated_code
    # libcst keeps the node's own whitespace in the mutated code too: the same is cut from it
    if lead and mutated.startswith(text[:lead]):
        mutated = mutated[lead:]
    if trail and mutated.endswith(text[len(text) - trail:]):
        mutated = mutated[:len(mutated) - trail]
    start, end = start + lead, end - trail

    def at(offset: int) -> tuple[int, int]:
        row = bisect.bisect_right(line_starts, offset) - 1
        return row + 1, offset - line_starts[row]

    (line, column), (end_line, end_column) = at(start), at(end)
    return line, column, end_line, end_column, source[start:end], mutated


@functools.lru_cache(maxsize=64)
def _parse(source: str, file: str, skip_patterns: tuple[str, ...]) -> tuple[ParsedModule, list[Site]]:
    """A module's mutations and sites, parsed once per process (`corpus` builds a Program per function of a
    module: without this, each re-parsed the module with libcst, seconds apiece on a large one).

    Invariant: callers only read what is returned (it is shared between Programs).
    """
    pm = find_mutations(source, file, skip_patterns)
    return pm, find_sites(pm)


def discover(target: Target, skip_patterns: tuple[str, ...] = ()) -> tuple[
    list[Mutant], dict[str, ParsedModule], dict[str, list[Site]], list[_Entry]
]:
    """Parse every module under test and list its mutants in a stable order, with stable ids."""
    mutants: list[Mutant] = []
    parsed: dict[str, ParsedModule] = {}
    sites: dict[str, list[Site]] = {}
    entries: list[_Entry] = []
    site_base = 0
    for info in target.modules:
        try:
            pm, module_sites = _parse(info.source, info.file, skip_patterns)
        except cst.ParserSyntaxError as exc:
            raise UserError(f"syntax error in {info.file}: {str(exc).splitlines()[0]}") from exc
        parsed[info.name] = pm
        sites[info.name] = module_sites
        seen: dict[str, int] = {}
        site_of = {id(m): s for s in module_sites for m in s.mutations}
        line_starts = [0]
        for text in info.source.splitlines(keepends=True):
            line_starts.append(line_starts[-1] + len(text))
        for found in pm.mutations:
            base = f"{info.name}:{found.line}:{found.column}:{found.operator}"
            seen[base] = seen.get(base, 0) + 1
            mid = base if seen[base] == 1 else f"{base}#{seen[base]}"
            site = site_of[id(found)]
            # the id keeps libcst's position (ids are stable across versions of this code): the report's
            # location is the source text's
            line, column, end_line, end_column, original, mutated = _located(info.source, line_starts, found)
            mutant = Mutant(
                id=mid, module=info.name, file=info.file, line=line, column=column,
                end_line=end_line, end_column=end_column, operator=found.operator,
                original=original, mutated=mutated,
                scope=site.scope, site=site_base + site.index, at_import=not site.per_call,
            )
            mutants.append(mutant)
            entries.append(_Entry(mutant, info, found))
        site_base += len(module_sites)
    return mutants, parsed, sites, entries


_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.Name)


def _effect_free(node: cst.CSTNode | None) -> bool:
    """True for expressions whose evaluation cannot run user code: names, literals, and tuples/lists of them."""
    if isinstance(node, _LITERALS):
        return True
    if isinstance(node, (cst.Tuple, cst.List)):
        return all(_effect_free(e.value) for e in node.elements if isinstance(e, cst.Element))
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.expression, (cst.Integer, cst.Float, cst.Imaginary))
    return False


def _evaluator(site: Site, found: FoundMutation) -> Any:
    """How a probe tells whether this mutant is infected at its site (see SiteTable)."""
    node = found.mutated_node
    if site.kind == "bin" and isinstance(node, cst.BinaryOperation):
        return binary_op(type(node.operator)) or "always"
    if site.kind == "cmp":
        op = node.operator if isinstance(node, cst.ComparisonTarget) else node
        return compare_op(type(op)) or "always"
    if site.kind == "aug":
        if isinstance(node, cst.AugAssign):
            ops = inplace_ops(type(node.operator))
            return ops[1] if ops else "always"
        return "assign"
    if site.kind in ("ret", "val") and found.operator in ("return_value", "assign_value"):
        original_value = getattr(found.original_node, "value", None)
        is_none = isinstance(original_value, cst.Name) and original_value.value == "None"
        # `x = f()` -> `x = None` also skips the call: equal values prove nothing when evaluating
        # the original expression can have effects (calls, attribute and item access may run code)
        return "notnone" if not is_none and _effect_free(original_value) else "always"
    return "always"


class Program:
    """A target with its mutants: their ids and sites, the probed original, and what applies each mutant.

    Mutants run in a `mu2py.engine` engine (in a supervised host or in this process), which
    receives each mutant as a `Payload`, made here once per mutant from one parse per module.
    """

    def __init__(self, target: Target, *, skip_patterns: tuple[str, ...] = ()) -> None:
        self.target = target
        self.mutants, self._parsed, self._sites, self._entries = discover(target, skip_patterns)
        self.index = {m.id: i for i, m in enumerate(self.mutants)}
        self._codes = {m.name: compile_module(m) for m in target.copied}
        self._entry_index = {id(e.found): i for i, e in enumerate(self._entries)}
        self._site_by_found = {id(f): s for sites in self._sites.values() for s in sites for f in s.mutations}
        self._probed: tuple[Callable[[Any], Any], ProbeRecorder] | None = None
        self.probe_seconds = 0.0  # what building the full probed original took (0 until `probed()` built it)
        self.static = frozenset(
            i for i, e in enumerate(self._entries) if self._site_by_found[id(e.found)].kind == "static"
        )
        self._payloads: dict[int, Payload] = {}

    def original(self) -> Callable[[Any], Any]:
        """The driver function bound to the real, unmutated modules."""
        return self.target.driver.fn  # type: ignore[union-attr]  # called only for a target with a driver

    def module_of(self, mutant_id: str) -> TargetModule:
        """The module a mutant belongs to (its original source and file)."""
        return self._entries[self.index[mutant_id]].module

    def mutant_source(self, mutant_id: str) -> str:
        """The full source of the mutated module."""
        entry = self._entries[self.index[mutant_id]]
        return apply_mutation(self._parsed[entry.module.name], entry.found, entry.module.source)

    def edits(self) -> list[tuple[int, int, str] | str]:
        """Per mutant, what makes its source: a splice (start, end, mutated text) of the module's, or the whole text."""
        return [(e.found.span[0], e.found.span[1], e.found.mutated_code) if e.found.span is not None
                else self.mutant_source(e.mutant.id) for e in self._entries]

    @functools.cached_property
    def _layouts(self) -> dict[str, ModuleLayout]:
        return {m.name: ModuleLayout(m, self._codes[m.name]) for m in self.target.modules}

    def payload(self, index: int) -> Payload:
        """What a mutant engine needs to apply mutant `index` (computed once, see `engine.payload`)."""
        found = self._payloads.get(index)
        if found is None:
            entry = self._entries[index]
            layout = self._layouts[entry.module.name]
            found = layout.payload(index, entry.found.span, entry.found.mutated_code, not entry.mutant.at_import)
            if entry.found.span is None:  # no verified span: the whole module's mutated text replaces it all
                found = replace(found, span=(0, len(entry.module.source)), text=self.mutant_source(entry.mutant.id))
            self._payloads[index] = found
        return found

    @functools.cached_property
    def by_site(self) -> dict[int, list[int]]:
        """Per global site id, its mutants (import-time mutants have no site and are in none), in index order."""
        found: dict[int, list[int]] = {}
        for index, mutant in enumerate(self.mutants):
            if index not in self.static:
                found.setdefault(mutant.site, []).append(index)
        return found

    @functools.cached_property
    def _instrumented(self) -> dict[str, str]:
        return self._instrument(None)

    def _instrument(self, only: AbstractSet[int] | None) -> dict[str, str]:
        """Each module's probed source: a probe at every site, or at the sites of global ids in `only`."""
        out: dict[str, str] = {}
        base = 0
        for info in self.target.modules:
            sites = self._sites[info.name]
            key = {s.index: base + s.index for s in sites}
            chosen = sites if only is None else [s for s in sites if key[s.index] in only]
            out[info.name] = instrument(self._parsed[info.name].module, chosen, key)
            base += len(sites)
        return out

    def instrumented_sources(self) -> dict[str, str]:
        """The probed source of every module under test, keyed by module name (computed once)."""
        return dict(self._instrumented)

    def site_tables(self) -> dict[int, SiteTable]:
        """Per global site id, what its probe needs (see SiteTable)."""
        tables: dict[int, SiteTable] = {}
        base = 0
        for info in self.target.modules:
            sites = self._sites[info.name]
            for site in sites:
                indices = []
                alts = []
                for found in site.mutations:
                    idx = self._entry_index[id(found)]
                    indices.append(idx)
                    alts.append((idx, _evaluator(site, found)))
                table = SiteTable(kind=site.kind, mutants=tuple(indices), alts=tuple(alts))
                anchor = site.anchor
                if site.kind == "bin" and isinstance(anchor, cst.BinaryOperation):
                    table.original = binary_op(type(anchor.operator))
                elif site.kind == "cmp" and isinstance(anchor, cst.Comparison):
                    table.original = compare_op(type(anchor.comparisons[0].operator))
                elif site.kind == "aug" and isinstance(anchor, cst.AugAssign):
                    ops = inplace_ops(type(anchor.operator))
                    assert ops is not None  # sites.py makes `aug` sites only for supported operators
                    table.original = ops[0]
                tables[base + site.index] = table
            base += len(sites)
        return tables

    def probe_recorder(self) -> ProbeRecorder:
        """A fresh recorder for this program's sites; its `functions()` are what probed code calls."""
        return ProbeRecorder(self.site_tables())

    def probed(self, transform: Callable[[TargetModule, str], types.CodeType] | None = None) -> tuple[
        Callable[[Any], Any], ProbeRecorder
    ]:
        """The driver bound to probed copies of the original, and the recorder its probes fill.

        `transform(module, probed_source)` may compile the probed source differently (e.g.
        with coverage instrumentation); by default it is compiled as is.
        """
        if transform is None and self._probed is not None:
            return self._probed
        started = time.perf_counter()
        fn, recorder = self._build_probed(self._instrumented, transform)
        if transform is None:
            self._probed = (fn, recorder)
            self.probe_seconds = time.perf_counter() - started
        return fn, recorder

    def probed_at(self, sites: AbstractSet[int]) -> tuple[Callable[[Any], Any], ProbeRecorder]:
        """Like `probed()`, but probing only the sites of global ids in `sites` (built anew at each call).

        Where no probe stands, nothing is recorded: a run reaches and infects none of those sites' mutants.
        Lines keep their numbers, as in every probed copy.
        """
        return self._build_probed(self._instrument(sites), None)

    def _build_probed(self, sources: dict[str, str], transform: Callable[[TargetModule, str], types.CodeType] | None
                      ) -> tuple[Callable[[Any], Any], ProbeRecorder]:
        recorder = ProbeRecorder(self.site_tables())
        functions = recorder.functions()
        codes = dict(self._codes)
        for info in self.target.modules:
            source = sources[info.name]
            codes[info.name] = transform(info, source) if transform else compile_module(info, source)
        extra = {m.name: functions for m in self.target.modules}
        try:
            copies = build_copies(self.target, codes, extra)
        except CopyLoadError as exc:
            raise UserError(f"the target raised while loading: {exc}") from exc
        fn = driver_function(self.target, copies)
        # every run of the probed original starts from the post-import state, as mutant runs do
        recorder.containers = ContainerSnapshot(list(copies.values()), bindings=True)
        return fn, recorder
