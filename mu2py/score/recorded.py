"""What the baseline unit records of the suite on the original: a `SuiteRecord`, with a `TestRecord` per test.

A worker runs every test once on the probed original, in pytest's order, each from its fresh
start (see `units.baseline`); the record is what the parent plans the mutants' units from
(`plan.plan`) and what the report's `tests` section shows.  Sites are the catalog's `site`
numbers, mutants their indices in the program.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class TestRecord:
    """One test on the original.  Invariant: `after` is empty unless the test failed from its fresh start and passed
    after the tests before it (an order-dependent test); such a test is never `repeatable`."""

    nodeid: str
    outcome: str  # "passed", "failed", "timeout" (plain pytest's verdict on the original, after `probes_unreliable`)
    seconds: float
    reached: list[int] = field(default_factory=list)  # the mutant sites it ran
    infected: list[int] = field(default_factory=list)  # the mutants whose values it would change
    skipped: bool = False  # it passed by skipping (a skipif mark here)
    after: list[str] = field(default_factory=list)  # the tests it needs run before it
    repeatable: bool = True  # it passes again on the original in this process (else it judges in a fresh one)
    probes_unreliable: bool = False  # it failed under probes and passed plainly: its reach is not known
    in_children: list[int] = field(default_factory=list)  # the mutant sites its Python child processes ran
    # (module, first line, name) of the code objects of the modules under test its Python child processes entered
    child_code: list[tuple[str, int, str]] = field(default_factory=list)
    # of those, the ones reading a module-level dict by a variable key: dict name -> the keys read (None: any)
    child_keys: dict[tuple[str, int, str], dict[str, frozenset[Any] | None]] = field(default_factory=dict)


@dataclass
class SuiteRecord:
    """The whole suite on the original, or why it could not be run (`error`: then nothing else is filled)."""

    tests: list[TestRecord] = field(default_factory=list)
    unprobed: list[str] = field(default_factory=list)  # `module:qualname` of functions no probe could enter
    undefined: list[str] = field(default_factory=list)  # of those, the ones never defined on this interpreter
    opened: list[str] = field(default_factory=list)  # data files the suite read, relative to the project
    volatile: list[str] = field(default_factory=list)  # project files the suite itself changes on every run
    # (module, qualname, by its own module's body) of functions under test that ran while a module was imported
    at_import: list[tuple[str, str, bool]] = field(default_factory=list)
    unimportable: dict[str, str] = field(default_factory=dict)  # module -> why no test can import it here
    modules: list[str] = field(default_factory=list)  # the modules under test, by the names the suite imports
    peak_rss: int = 0  # the worker's peak resident memory in bytes, after the suite ran
    error: str | None = None
    # (module, qualname, the modules whose import ran it; "": pytest itself) of the functions under test that ran
    # while the suite was collected
    importers: list[tuple[str, str, list[str]]] = field(default_factory=list)
