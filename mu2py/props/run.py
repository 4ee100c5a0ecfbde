"""`mu2py props` in the parent process: plan the units, fan them out to score workers, and build the report.

Order: score's baseline (per test: outcome, the sites and mutants its default run reached
and infected); the tests props can drive (`@given`, not skipped here by pytest); per
fuzzable test, its default run against every mutant it infected (`killed_default`; under `--time`, within
half the test's budget, the mutants not reached by then left to the fuzzing: `default_runs_cut`); then
per test a campaign (`loop.PropertyFuzzer`) seeded by (seed, node id), told which mutants
the default run kills already so that fuzzing looks for the others.  Only function-level mutants are judged
(those applied by swapping code objects, as fuzzing needs them thousands of times).

Invariants: a test's `killed` includes its `killed_default`; `survivors` are the mutants
it reached (by its default run or any fuzzed input) and never killed; the same seed and
trial budget give the same report.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from mu2py.errors import UserError
from mu2py.mutants.catalog import Program
from mu2py.processes.workers import Lost, Processes, WorkerError
from mu2py.props.units import (
    STORAGE,
    Bug,
    Campaign,
    CampaignRun,
    DefaultRuns,
    Defaults,
    FindBug,
    Listed,
    ListTests,
    shipped_saved,
)
from mu2py.score.plan import BASELINE
from mu2py.score.pools import ShardedPool, host_entry
from mu2py.score.recorded import SuiteRecord, TestRecord
from mu2py.score.spec import SuiteSpec, build_program
from mu2py.steps import Step
from mu2py.target.project import load_config, modules_to_mutate

FUZZ_LEAST_SHARE = 0.25  # under --time, fuzzing gets at least this share of a test's budget
DEFAULT_SHARE = 0.5  # under --time, a test's default runs over its mutants take at most this share of its budget
DEFAULT_SLICE = 4  # the fewest mutants of one test's default runs sent to a worker at once


@dataclass
class PropsConfig:
    """Budget (per test: `trials` or `seconds`), seed, guidance, workers, and whether kills are saved."""

    trials: int | None = None
    seconds: float | None = None
    seed: int = 0
    guidance: str = "mutation"
    workers: int = 1
    cluster: str | None = None  # a Dask address: the units run on its workers, in a shipped copy of the project
    save: bool = True
    timeout_factor: float = 10.0
    min_timeout: float = 1.0
    per_input: int | None = 8  # mutants run per fuzzed input, least-executed first (None: every infected one)
    default_runs: bool = True  # False: skip the default runs (killed_default 0; a benchmark reusing them)

    def __post_init__(self) -> None:
        if self.trials is None and self.seconds is None:
            raise UserError("give a budget per test: --trials N or --time DURATION")


@dataclass
class PropertyEntry:
    """One property's line of the report (see the module docstring for what the counts mean).

    Invariants: `killed` >= `killed_default`; `survivors`, `default_kills` and the mutants of `new_kills` are
    mutant ids, the survivors those reached and never killed; a lost campaign (`lost`: why) reached nothing.
    """

    test: str
    reached: int = 0
    killed_default: int = 0
    killed: int = 0
    survivors: list[str] = field(default_factory=list)
    default_kills: list[str] = field(default_factory=list)
    new_kills: list[dict[str, Any]] = field(default_factory=list)  # per mutant: its id and `FuzzKill.to_json()`
    examples: list[str] = field(default_factory=list)
    trials: int | None = None
    valid: int = 0
    corpus: int = 0
    mutant_runs: int = 0
    seconds: float = 0.0
    events: list[str] = field(default_factory=list)
    targets: dict[str, float] = field(default_factory=dict)
    bugs: list[dict[str, Any]] = field(default_factory=list)  # failures on the original its campaign found
    no_database: bool = False  # its kills could not be saved to Hypothesis's example database
    lost: str | None = None
    default_runs_cut: int = 0  # mutants its default runs left to the fuzzing, their share of --time spent

    def to_json(self) -> dict[str, Any]:
        """The entry as the report gives it (a lost campaign: its counts and why; its bugs go to the report's)."""
        if self.lost is not None:
            return {"test": self.test, "reached": 0, "killed_default": 0, "killed": 0, "survivors": [],
                    "lost": self.lost}
        return {"test": self.test, "reached": self.reached, "killed_default": self.killed_default,
                "killed": self.killed, "survivors": self.survivors, "default_kills": self.default_kills,
                "new_kills": self.new_kills, "examples": self.examples, "trials": self.trials, "valid": self.valid,
                "corpus": self.corpus, "mutant_runs": self.mutant_runs, "seconds": self.seconds,
                "events": self.events, "targets": self.targets, "default_runs_cut": self.default_runs_cut}


def _run(pool: Processes | ShardedPool, fn: Callable[[Any], Any], units: list[Any],
         done: Callable[[int], None] | None = None) -> list[Any]:
    """Run `units` on the pool; their results in order (`done` hears how many have finished, after each): a props
    unit's result, score's `SuiteRecord` for its baseline, or `Lost` for a unit whose worker died on it."""
    results: list[Any] = [None for _ in units]
    for finished, (index, result) in enumerate(pool.map_unordered(fn, units), 1):
        results[index] = result
        if done is not None:
            done(finished)
    return results


def props(spec: SuiteSpec, config: PropsConfig, only: list[str] | None = None,
          on_progress: Callable[[str], None] | None = None, *,
          judged: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Score and strengthen the `@given` tests of `spec` (see the module docstring); the JSON report.

    `on_progress` hears each phase as a `mu2py.steps.Step` (its text the phase's name), and while fuzzing each test
    fuzzed (the tests done of all).  `judged`, when given, is filled with the entries (mu2py's JSON shape) of every
    mutant the run judged, reached or not (the report lists only survivors): what `--mte` needs to place them."""
    start = time.perf_counter()
    os.environ.setdefault("PYTHONHASHSEED", "0")  # test ids and set orders the same in every worker
    say = on_progress or (lambda text: None)
    # Hypothesis places its default database under the directory it is imported in, and workers run in copies of
    # the project: every worker (a replaced one too, one on a cluster machine) points it at the project's, where a
    # plain `pytest` run at the root looks, unless the user chose one
    storage = os.environ.get(STORAGE) or os.path.join(spec.root, ".hypothesis")
    seeded = replace(spec, pytest_args=(*spec.pytest_args, f"--hypothesis-seed={config.seed}"),
                     env=(*spec.env, (STORAGE, storage)))
    return _props(spec, seeded, storage, config, only, say, start, judged)


def _props(spec: SuiteSpec, seeded: SuiteSpec, storage: str, config: PropsConfig, only: list[str] | None,
           say: Callable[[str], None], start: float, judged: list[dict[str, Any]] | None) -> dict[str, Any]:
    from mu2py.props.units import run_unit

    program = build_program(seeded)
    swappable = {i for i in range(len(program.mutants)) if i not in program.static}
    pool = _open_pool(seeded, storage, config)
    workers = pool.workers
    if isinstance(pool, ShardedPool):
        say(Step(f"Dask dashboard: {pool.dashboard}"))
    try:
        say(Step("baseline", "baseline"))
        try:
            [recorded, found] = _run(pool, run_unit, [BASELINE, ListTests()])
        except WorkerError as exc:
            raise UserError(f"pytest could not start in a worker ({exc}); run the suite with plain pytest") from exc
        for result in (recorded, found):
            if isinstance(result, Lost):
                raise UserError(f"the test suite crashed the worker on the original code: {result.reason}")
        base, listed = cast(SuiteRecord, recorded), cast(Listed, found)
        for error in (base.error, listed.error):
            if error is not None:
                raise UserError(error)
        if tuple(base.modules) != seeded.modules:  # the suite imports a file under another name (src layout)
            program = build_program(replace(seeded, modules=tuple(base.modules)))
        tests = {t.nodeid: (position, t) for position, t in enumerate(base.tests)}
        chosen = [(nodeid, why) for nodeid, why in listed.tests if _selected(nodeid, only)]
        # a test pytest skips here (a skipif mark) is not run by fuzzing either: its body may not work here
        chosen = [(n, "skipped by pytest here" if why is None and tests[n][1].skipped else why)
                  for n, why in chosen]
        fuzzable = [n for n, why in chosen if why is None]
        skipped = {n: why for n, why in chosen if why is not None and why != "not a @given test"}
        if not fuzzable:
            raise UserError("no @given test to fuzz among the selected tests"
                            + (f" ({len(skipped)} skipped: {next(iter(skipped.values()))})" if skipped else ""))
        failing = [n for n in fuzzable if tests[n][1].outcome != "passed"]
        passing = [n for n in fuzzable if n not in failing]
        say(Step("default runs", "default runs"))
        defaults = _defaults(pool, run_unit, [
            _default_runs(n, tests[n][0], tests[n][1], tuple(sorted(set(tests[n][1].infected) & swappable))
                          if config.default_runs else (), config)
            for n in passing], workers)
        bugs: list[Bug | Lost] = _run(pool, run_unit, [FindBug(n, tests[n][0]) for n in failing])
        say(Step("fuzzing", "fuzzing", 0, len(passing), "tests fuzzed"))
        campaigns: list[CampaignRun | Lost] = _run(pool, run_unit, [
            Campaign(n, tests[n][0], config.seed, config.guidance, tuple(sorted(swappable)), trials=config.trials,
                     seconds=fuzz_seconds(config.seconds, d.seconds), budget=config.seconds, save=config.save,
                     per_input=config.per_input, killed_before=tuple(sorted(d.killed)), timeout=config.min_timeout,
                     ship_saves=bool(config.cluster))
            for n, d in zip(passing, defaults, strict=True)],
            lambda n: say(Step(f"fuzzing: {n}/{len(passing)} tests fuzzed", "fuzzing", n, len(passing),
                               "tests fuzzed")))
    finally:
        pool.close()
    for campaign in campaigns:
        save_shipped(campaign, storage)
    entries = [_entry(program, n, tests[n][1], d, c, swappable)
               for n, d, c in zip(passing, defaults, campaigns, strict=True)]
    if judged is not None:  # a module that cannot be imported here is not judged (the summary names it)
        unimportable = base.unimportable
        judged += [program.mutants[i].to_json() for i in sorted(swappable)
                   if program.mutants[i].module not in unimportable]
    return {
        "properties": [e.to_json() for e in entries],
        "bugs": [{"test": n, **_bug_json(b)} for n, b in zip(failing, bugs, strict=True)]
                + [{"test": e.test, **b} for e in entries for b in e.bugs],
        "skipped": [{"test": n, "why": why} for n, why in skipped.items()],
        "summary": {**_summary(entries, config, time.perf_counter() - start, len(failing)),
                    "unimportable": base.unimportable},
        "mutants": _mutant_table(program, entries),
    }


def _bug_json(bug: Bug | Lost) -> dict[str, Any]:
    """A failure on the original as the report gives it (its worker lost: why)."""
    return {"lost": bug.reason} if isinstance(bug, Lost) else {"error": bug.error, "example": bug.example}


def _open_pool(seeded: SuiteSpec, storage: str, config: PropsConfig) -> Processes | ShardedPool:
    """Score workers hosting the suite: local processes, or one per Dask worker (`config.cluster`), each test's
    unit a shard of its own (a campaign is long: the cluster balances them as a local pool does); `storage` is
    Hypothesis's storage folder the workers are given."""
    if not config.cluster:
        return Processes(max(1, config.workers), initializer=host_entry, initargs=(seeded, None), hosting=True,
                         retries=0)
    from mu2py.processes.cluster import DaskExecutor
    from mu2py.score.shipping import pack_project

    # the example database goes too: the default runs on the workers replay it, as they do here (a folder outside
    # the root is the workers' own)
    project = pack_project(seeded, also=(os.path.join(storage, "examples"),))  # over the size cap: fails at once
    outer = DaskExecutor(config.cluster)
    try:
        return ShardedPool(outer, seeded, 1, project=project)
    except BaseException:
        outer.close()
        raise


def save_shipped(campaign: CampaignRun | Lost, storage: str) -> None:
    """Save the kills a cluster worker shipped back instead of saving them (a `Campaign` with `ship_saves`: their
    database lay in its copy of Hypothesis's storage folder) into the same folder of `storage`, the storage every
    worker of this run was given, and mark them saved."""
    from hypothesis.database import DirectoryBasedExampleDatabase

    if isinstance(campaign, Lost):
        return
    for folder, key, value in shipped_saved(campaign):
        DirectoryBasedExampleDatabase(os.path.join(storage, folder)).save(bytes.fromhex(key), bytes.fromhex(value))


def _default_runs(nodeid: str, position: int, base: TestRecord, mutants: tuple[int, ...],
                  config: PropsConfig) -> DefaultRuns:
    """One test's default-run unit: under `--time`, its runs over all its mutants may take `DEFAULT_SHARE` of the
    test's budget (a test reaching a thousand mutants would take that many runs of the test), and the fuzzing at
    least the rest (see `fuzz_seconds`)."""
    each = DEFAULT_SHARE * config.seconds / len(mutants) if config.seconds is not None and mutants else None
    return DefaultRuns(nodeid, position, round(config.timeout_factor * base.seconds + config.min_timeout, 3), mutants,
                       each)


def fuzz_seconds(budget: float | None, default_seconds: float) -> float | None:
    """A test's fuzzing time under `--time`: its budget less what its default runs took, at least a quarter of it.

    `--time` is what one test may take in all (default runs, fuzzing, then shrinking its kills, itself
    bounded by a share of the budget): wall time follows the budget instead of running about three
    times over it.
    """
    if budget is None:
        return None
    return round(max(FUZZ_LEAST_SHARE * budget, budget - default_seconds), 3)


def _defaults(pool: Processes | ShardedPool, fn: Callable[[Any], Any],
              units: list[DefaultRuns], workers: int = 1) -> list[Defaults]:
    """Run the default-run units; a unit cut short by a timeout goes on with its `rest` in a fresh worker.

    With several workers a test's mutants go out in a few slices each, so that one test with many
    mutants does not keep a single worker busy while the others wait for the next phase.
    """
    merged = [Defaults() for _ in units]
    todo: list[tuple[int, DefaultRuns]] = []
    for k, unit in enumerate(units):
        mutants = unit.mutants
        size = max(DEFAULT_SLICE, -(-len(mutants) // (2 * workers))) if workers > 1 else len(mutants) or 1
        todo += [(k, replace(unit, mutants=mutants[i:i + size])) for i in range(0, len(mutants), size)] or [(k, unit)]
    while todo:
        results: list[Defaults | Lost] = _run(pool, fn, [unit for _, unit in todo])
        again: list[tuple[int, DefaultRuns]] = []
        for (k, unit), result in zip(todo, results, strict=True):
            if isinstance(result, Lost):  # the worker died on some mutant of this unit: halve until it is found alone
                mutants = unit.mutants
                if len(mutants) == 1:
                    merged[k].killed[mutants[0]] = "crash"
                    continue
                half = len(mutants) // 2
                again += [(k, replace(unit, mutants=mutants[:half])), (k, replace(unit, mutants=mutants[half:]))]
                continue
            merged[k].killed.update(result.killed)
            merged[k].unswappable.extend(result.unswappable)
            merged[k].unjudged.extend(result.unjudged)
            merged[k].seconds += result.seconds
            if result.rest:
                again.append((k, replace(unit, mutants=result.rest)))
        todo = again
    return merged


def _selected(nodeid: str, only: list[str] | None) -> bool:
    return not only or any(nodeid == o or nodeid.startswith(o.rstrip("/") + "::") or o in nodeid for o in only)


def _entry(program: Program, nodeid: str, base: TestRecord, default: Defaults,
           campaign: CampaignRun | Lost, swappable: set[int]) -> PropertyEntry:
    """One property's line of the report (see the module docstring for what the counts mean)."""
    if isinstance(campaign, Lost):
        return PropertyEntry(nodeid, lost=campaign.reason)
    sites = set(base.reached)
    unswappable = set(default.unswappable)
    reached = ({i for i in swappable if program.mutants[i].site in sites} | set(campaign.reached)) - unswappable
    killed_default = set(default.killed)
    fuzz_kills = campaign.kills
    killed = (killed_default | set(fuzz_kills)) & reached
    ids = lambda indices: [program.mutants[i].id for i in sorted(indices)]  # noqa: E731 - local shorthand
    return PropertyEntry(
        nodeid, reached=len(reached), killed_default=len(killed_default & reached), killed=len(killed),
        survivors=ids(reached - killed), default_kills=ids(killed_default & reached),
        new_kills=[{"mutant": program.mutants[i].id, **k.to_json()} for i, k in sorted(fuzz_kills.items())],
        examples=sorted({k.example for k in fuzz_kills.values() if k.example}),
        trials=campaign.trials, valid=campaign.valid, corpus=campaign.corpus, mutant_runs=campaign.mutant_runs,
        seconds=campaign.seconds, events=campaign.events, targets=campaign.targets, bugs=campaign.bugs,
        no_database=campaign.no_database, default_runs_cut=len(default.unjudged))


def _summary(entries: list[PropertyEntry], config: PropsConfig, seconds: float, failing: int) -> dict[str, Any]:
    return {
        "properties": len(entries), "failing_on_original": failing,
        "reached": sum(e.reached for e in entries), "killed_default": sum(e.killed_default for e in entries),
        "killed": sum(e.killed for e in entries),
        "weak": [e.test for e in entries if e.survivors],
        "guidance": config.guidance, "per_input": config.per_input, "seed": config.seed, "trials": config.trials,
        "seconds_per_test": config.seconds,
        "seconds": round(seconds, 2),
        "not_saved": [e.test for e in entries if e.no_database and e.new_kills],
    }


def _mutant_table(program: Program, entries: list[PropertyEntry]) -> dict[str, Any]:
    """The survivors' descriptions (file, line, original, mutated), keyed by mutant id."""
    wanted = {m for e in entries for m in e.survivors}
    return {m.id: {"file": m.file, "line": m.line, "original": m.original, "mutated": m.mutated,
                   "operator": m.operator} for m in program.mutants if m.id in wanted}


def spec_for(root: Path, package: str | None, paths: list[str] | None, tests: list[str]) -> Any:
    """The SuiteSpec of a project: what to mutate from the options or `[tool.mu2py]`, pytest run at `root`."""
    config = load_config(root)
    modules, files, sys_path = modules_to_mutate(root, config, package, paths, list(config.get("skip", [])))
    # pytest collects the given test paths (a node id narrows to its file; props selects the tests itself)
    files_to_collect = sorted({t.split("::")[0] for t in tests}) or list(config.get("tests") or [])
    return SuiteSpec(root=str(root), pytest_args=(*files_to_collect, *config.get("pytest_args", [])),
                     modules=tuple(modules), files=tuple(files), sys_path=tuple(sys_path),
                     skip_patterns=tuple(config.get("skip_lines", [])))
