"""Scoring a pytest suite by mutation: baseline, per-mutant test selection, fan-out, cache, report.

Per mutant, in this order: a cached verdict (same module source, same tests) is reused;
an import-time mutant re-runs its module body in place (`reload`) against every test,
fastest first, and only a survivor the reload has doubts about runs the suite in a fresh
interpreter; a mutant whose site no test reached is `no_coverage` without running
anything; with infection pruning, a reached mutant that no test infected is `survived`
(pruned) without running anything; otherwise it runs, swapped in, against the tests that
infected it, fastest first, until one fails.

Tests that fail when run twice on the original (the baseline checks) never judge in place;
a survivor meets them in a fresh interpreter.  A kill whose test then fails on the original
too is retried on a new worker, then judged in a fresh interpreter: no mutant is killed
without a test run.  Verdicts reach the cache journal as they come.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mu2py.engine.workers import Lost, Processes, WorkerError
from mu2py.errors import UserError
from mu2py.mutants.catalog import Program
from mu2py.score.reports import assemble
from mu2py.score.sandbox import data_digest_parts
from mu2py.score.scope import Scope
from mu2py.score.suite import SuiteSpec, build_program, run_unit, test_files
from mu2py.store.atomic import write_json

CACHE_VERSION = 2  # 2: keys include the data files the suite reads


@dataclass
class ScoreConfig:
    """How to score: workers, pruning, timeouts, and where the verdict cache lives."""

    workers: int = 1
    pruning: str = "infection"
    timeout_factor: float = 10.0
    min_timeout: float = 1.0
    cache: Path | None = None
    cluster: str | None = None  # a Dask address (tcp://HOST:PORT or local:N): units travel in shards
    shard_size: int = 25
    import_time: str = "reload"  # import-time mutants: "reload" in place, "fresh" interpreter each, or "skip"
    scope: Scope = field(default_factory=Scope)  # --since and --shard: the mutants this run judges


@dataclass
class ScoreRun:
    """The state of one scoring run (also what progress callbacks see)."""

    program: Program
    verdicts: dict[int, dict[str, Any]] = field(default_factory=dict)
    tests: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    baseline_seconds: float = 0.0
    test_names: frozenset[str] = frozenset()  # identifiers the test files use (for the survivors' triage)
    unimportable: dict[str, str] = field(default_factory=dict)  # module -> why the tests cannot import it here
    selected: set[int] | None = None  # indices of the mutants in scope (None: every one)
    scope: dict[str, Any] = field(default_factory=dict)  # the scope as the report states it

    @property
    def cached(self) -> int:
        """Verdicts taken from the cache."""
        return sum(1 for v in self.verdicts.values() if v.get("cached"))

    @property
    def pruned_infection(self) -> int:
        """Survivors proved by infection analysis, without running."""
        return sum(1 for v in self.verdicts.values() if v.get("pruned") == "infection")


def _digest(*parts: str) -> str:
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
    return _digest(*parts)


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

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached verdict for `key`, if any."""
        return self.data.get(key)

    def put(self, key: str, verdict: dict[str, Any]) -> None:
        """Remember a verdict, on disk at once (appended to the journal)."""
        self.data[key] = verdict
        if self.journal is None:
            return
        if self._out is None:
            self.journal.parent.mkdir(parents=True, exist_ok=True)
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
        write_json(self.path, {"version": CACHE_VERSION, "verdicts": self.data})
        if self.journal is not None:
            self.journal.unlink(missing_ok=True)


_OUT_OF_SCOPE = {"status": "skipped", "killed_by": None, "tests_run": 0, "mode": "out_of_scope"}


def _scope_key(module: str, scope: str) -> str:
    return f"{module}:{scope}"


def score(spec: SuiteSpec, config: ScoreConfig,
          on_progress: Callable[[ScoreRun, str], None] | None = None) -> ScoreRun:
    """Score the suite of `spec` against every mutant of its modules (see the module docstring)."""
    start = time.perf_counter()
    # test ids must be the same in every worker: parametrizing over a set orders it by string hashes
    os.environ.setdefault("PYTHONHASHSEED", "0")
    program = build_program(spec)
    state = ScoreRun(program, test_names=_identifiers(spec), scope=config.scope.describe())
    if not config.scope.everything:
        state.selected = config.scope.select(program.mutants)
        if not state.selected:
            # nothing to judge (no mutant on a changed line, an empty shard): no need to run the suite at all
            state.verdicts = dict.fromkeys(range(len(program.mutants)), _OUT_OF_SCOPE)
            state.seconds = time.perf_counter() - start
            progress = on_progress or (lambda s, phase: None)
            progress(state, "done")
            return state
    cache = VerdictCache(config.cache)
    hashes = {m.name: m.source_hash for m in program.target.modules}
    progress = (lambda phase: on_progress(state, phase)) if on_progress else (lambda phase: None)
    # each worker runs the suite in its own copy of the project, made under this folder (see `sandbox`)
    scratch = tempfile.mkdtemp(prefix="mu2py-score-")
    spec = replace(spec, scratch=scratch)

    try:
        with _pool(spec, config) as pool:
            if config.cluster:
                progress(f"Dask dashboard {pool.dashboard}")
            progress("baseline")
            base_start = time.perf_counter()
            try:
                [(_, base)] = list(pool.map_unordered(run_unit, [{"kind": "baseline"}],
                                                      on_wait=lambda: progress("baseline")))
            except WorkerError as exc:
                raise UserError(f"pytest could not start in a worker ({exc}); run the suite with plain pytest "
                                "to see why") from exc
            state.baseline_seconds = time.perf_counter() - base_start
            if isinstance(base, Lost):
                raise UserError(f"the test suite crashed the worker on the original code: {base.reason}")
            if "error" in base:
                raise UserError(base["error"])
            state.tests = base["tests"]
            if tuple(base["modules"]) != spec.modules:  # the suite imports a file under another name
                spec = replace(spec, modules=tuple(base["modules"]))
                program = state.program = build_program(spec)
                hashes = {m.name: m.source_hash for m in program.target.modules}
            digest = tests_digest(spec, base.get("opened", []))
            keys = [_digest(hashes[m.module], m.id, digest) for m in program.mutants]
            failing = [t["nodeid"] for t in state.tests if t["outcome"] != "passed"]
            if failing:
                shown = ", ".join(failing[:5]) + (f" and {len(failing) - 5} more" if len(failing) > 5 else "")
                raise UserError(f"the suite fails on the original code; fix or deselect these tests first: {shown}")
            units = _plan(state, config, base, keys, cache)
            progress("mutants")
            attempts: dict[int, int] = {}
            spent: dict[int, float] = {}  # worker seconds of a mutant's earlier units (in place, then isolated)
            while units:
                retry: list[dict[str, Any]] = []
                deadline = _deadline
                for i, result in pool.map_unordered(run_unit, units, deadline=deadline,
                                                    on_wait=lambda: progress("mutants")):
                    unit = units[i]
                    index = unit["index"]
                    if isinstance(result, Lost):
                        # the worker died (crash, os._exit) or hung past every test's timeout: the suite noticed
                        result = {"status": "timeout" if "deadline" in result.reason else "killed",
                                  "killed_by": f"<{result.reason}>", "tests_run": len(unit["tests"])}
                    if result["status"] == "retry":
                        attempts[index] = attempts.get(index, 0) + 1
                        if attempts[index] <= 1:
                            retry.append(unit)  # on a new worker: the mutant may have corrupted this one
                            continue
                        # it happened again on a new worker: the test cannot judge this mutant in place
                        # (no verdict without a test run): the suite decides in a fresh interpreter
                        result = {"status": "isolate", "why": result["why"]}
                    if result["status"] == "isolate":
                        spent[index] = spent.get(index, 0.0) + result.get("seconds", 0.0)
                        retry.append(dict(_isolated_unit(index, state, config), why=result["why"],
                                          first=result.get("first", []), only=result.get("only", []),
                                          tests_run=result.get("tests_run", 0)))
                        continue
                    result["mode"] = unit["kind"]
                    result["seconds"] = round(result.get("seconds", 0.0) + spent.pop(index, 0.0), 4)
                    if "why" in unit:
                        result["isolated_because"] = unit["why"]
                    state.verdicts[index] = result
                    cache.put(keys[index], result)  # on disk at once: a crash loses only the units in flight
                    progress("mutants")
                units = retry
    finally:
        cache.save()  # also on Ctrl-C or an error: every verdict reached so far is kept for the next run
        shutil.rmtree(scratch, ignore_errors=True)
    state.seconds = time.perf_counter() - start
    progress("done")
    return state


def _pool(spec: SuiteSpec, config: ScoreConfig) -> Any:
    if config.cluster:
        from mu2py.engine.cluster import DaskExecutor

        return ShardedPool(DaskExecutor(config.cluster), spec, config.shard_size)
    return _local_pool(spec, config.workers)


def _local_pool(spec: SuiteSpec, workers: int) -> Processes:
    return Processes(max(1, workers), initializer=_host_entry, initargs=(spec,), hosting=True, retries=0)


_SHARD_POOLS: dict[SuiteSpec, Processes] = {}


def score_shard(shard: dict[str, Any]) -> list[Any]:
    """Run a shard of units on this machine, in a hosted worker kept for later shards (one cluster task)."""
    spec = shard["spec"]
    pool = _SHARD_POOLS.get(spec)
    if pool is None:
        for old in _SHARD_POOLS.values():
            old.close()
        _SHARD_POOLS.clear()
        pool = _SHARD_POOLS[spec] = _local_pool(spec, 1)
    results = dict(pool.map_unordered(run_unit, shard["units"], deadline=_deadline))
    return [results[i] for i in range(len(shard["units"]))]


class ShardedPool:
    """Presents a cluster executor as a pool of score workers: units go out in shards, results come back per unit."""

    def __init__(self, outer: Any, spec: SuiteSpec, size: int) -> None:
        self.outer = outer
        self.spec = spec
        self.size = max(1, size)
        self.workers = outer.workers

    @property
    def dashboard(self) -> str:
        """The cluster's dashboard link."""
        return str(self.outer.dashboard)

    def map_unordered(self, fn: Callable[[Any], Any], units: list[Any], **_: Any) -> Any:
        """Yield `(index, result)` per unit; `fn` is always `run_unit`, run by `score_shard` on the cluster."""
        size = min(self.size, max(1, len(units) // (2 * self.workers) or 1))  # a few shards per worker at least
        shards = [units[k:k + size] for k in range(0, len(units), size)]
        # score_shard hosts its own worker process on the cluster machine: no second layer of isolation
        for s, results in self.outer.map_unordered(score_shard, [{"spec": self.spec, "units": u} for u in shards],
                                                   isolate=False):
            for j, result in enumerate(results):
                yield s * size + j, result

    def __enter__(self) -> ShardedPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.outer.close()


def _host_entry(spec: SuiteSpec, serve: Callable[[], None]) -> None:
    """Worker entry: host the pytest session (imported lazily so the parent never imports pytest for it)."""
    from mu2py.score.suite import host

    host(spec, serve)


def _deadline(unit: dict[str, Any]) -> float:
    # the per-test timeouts interrupt Python code; this backstop kills a worker stuck inside C
    if unit["kind"] == "baseline":
        return float("inf")  # the original suite's own time is what the baseline measures
    return float(unit.get("timeout") or sum(entry[1] for entry in unit["tests"])) + 30.0


def _isolated_unit(index: int, state: ScoreRun, config: ScoreConfig) -> dict[str, Any]:
    total = sum(t["seconds"] for t in state.tests)
    return {"kind": "isolated", "index": index, "tests": [],
            "timeout": config.timeout_factor * total + 10 * config.min_timeout + 10.0}


def _plan(state: ScoreRun, config: ScoreConfig, base: dict[str, Any], keys: list[str],
          cache: VerdictCache) -> list[dict[str, Any]]:
    """Decide each mutant's fate before running anything: cached, isolated, no coverage, pruned, or which tests."""
    program = state.program
    unprobed = [q.replace(".<locals>", "") for q in base["unprobed"]]
    reached_by: dict[int, list[int]] = {}
    infected_by: dict[int, list[int]] = {}
    unreliable: list[int] = []
    for t_index, test in enumerate(state.tests):
        if test.get("probes_unreliable"):
            unreliable.append(t_index)
        for site in test["reached"]:
            reached_by.setdefault(site, []).append(t_index)
        for m in test["infected"]:
            infected_by.setdefault(m, []).append(t_index)
    order = sorted(range(len(state.tests)), key=lambda t: state.tests[t]["seconds"])
    rank = {t: r for r, t in enumerate(order)}
    # tests that fail when run a second time on the original judge mutants in a fresh interpreter only
    once = {t for t, test in enumerate(state.tests) if test.get("repeatable") is False}

    def split(chosen: list[int]) -> dict[str, Any]:
        in_place = [t for t in chosen if t not in once]
        return {"tests": [(state.tests[t]["nodeid"], round(config.timeout_factor * state.tests[t]["seconds"]
                                                           + config.min_timeout, 3), t) for t in in_place],
                "fresh": [(state.tests[t]["nodeid"], t) for t in chosen if t in once],
                **({"volatile": volatile} if volatile else {})}

    volatile = list(base.get("volatile", []))

    unimportable = base.get("unimportable", {})
    state.unimportable = dict(unimportable)
    units = []
    for index, m in enumerate(program.mutants):
        if m.module in unimportable:  # no test can import it on this platform: not part of this score
            state.verdicts[index] = {"status": "skipped", "killed_by": None, "tests_run": 0, "mode": "unimportable"}
            continue
        if index in program.static and config.import_time == "skip":
            state.verdicts[index] = {"status": "skipped", "killed_by": None, "tests_run": 0, "mode": "skipped"}
            continue
        if state.selected is not None and index not in state.selected:  # --since, --shard: another run's
            state.verdicts[index] = _OUT_OF_SCOPE
            continue
        cached = cache.get(keys[index])
        if cached is not None:
            state.verdicts[index] = dict(cached, cached=True)
            continue
        if index in program.static and config.import_time == "fresh":
            units.append(_isolated_unit(index, state, config))
            continue
        if index in program.static:
            everything = sorted(range(len(state.tests)), key=lambda t: rank[t])
            units.append({"kind": "reexec", "index": index, **split(everything)})
            continue
        scope = _scope_key(m.module, m.scope)
        if any(scope == u or scope.startswith(u + ".") for u in unprobed):
            chosen = list(range(len(state.tests)))  # reach unknown: every test may kill it
        else:
            reaching = set(reached_by.get(m.site, ())) | set(unreliable)
            if not reaching:
                state.verdicts[index] = {"status": "no_coverage", "killed_by": None, "tests_run": 0, "mode": "pruned"}
                continue
            if config.pruning == "infection":
                chosen = sorted(set(infected_by.get(index, ())) | set(unreliable))
                if not chosen:
                    state.verdicts[index] = {"status": "survived", "killed_by": None, "tests_run": 0,
                                             "mode": "pruned", "pruned": "infection"}
                    continue
            else:
                chosen = sorted(reaching)
        chosen.sort(key=lambda t: rank[t])
        units.append({"kind": "mutant", "index": index, **split(chosen)})
    return units


def _identifiers(spec: SuiteSpec) -> frozenset[str]:
    names: set[str] = set()
    for path in test_files(spec):
        try:
            names.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return frozenset(names)


# a string handed to a translation or logging call: a maintainer looks at it last (the words, not the logic)
_MESSAGE_CALL = re.compile(r"(?:\b(?:_|N_|P_|_?n?p?gettext|_?ngettext|_?pgettext|print)|\blog(?:ger|ging)?\.\w+"
                           r"|\.(?:debug|info|warning|warn|error|exception|critical)|\bwarnings\.warn)\s*\(")


def _mark(state: ScoreRun, entries: list[dict[str, Any]]) -> None:
    """Mark each entry for the survivors' triage (see `reports.triage_key`): a message (a string handed to a
    translation or logging call), and direct (in a function the tests name, so call directly)."""
    lines = {info.name: info.source.splitlines() for info in state.program.target.modules}
    for e in entries:
        text = lines.get(e["module"], [])
        source = text[e["line"] - 1] if 0 < e["line"] <= len(text) else ""
        e["message"] = e["operator"] == "string" and bool(_MESSAGE_CALL.search(source))
        parts = [p for p in e["scope"].split(".") if not p.startswith("<")]
        e["direct"] = any(p in state.test_names for p in parts)


def report(state: ScoreRun) -> dict[str, Any]:
    """The JSON report: a summary, per-file totals, one entry per mutant, and the survivors in triage order."""
    entries = []
    catalog: dict[str, int] = {}  # per file: the mutants a complete run scores (out of this run's scope included)
    skipped = unimportable = 0
    reached: dict[int, int] = {}
    for test in state.tests:
        for site in test["reached"]:
            reached[site] = reached.get(site, 0) + 1
    for index, m in enumerate(state.program.mutants):
        verdict = state.verdicts.get(index, {"status": "survived", "killed_by": None, "tests_run": 0})
        if verdict["status"] == "skipped":  # --import-time skip, or a module no test can import: not scored
            if verdict.get("mode") == "unimportable":
                unimportable += 1
            elif verdict.get("mode") == "out_of_scope":
                catalog[m.file] = catalog.get(m.file, 0) + 1
            else:
                skipped += 1
            continue
        entry = m.to_json()
        entry.update(status=verdict["status"], killed_by=verdict.get("killed_by"),
                     tests_run=verdict.get("tests_run", 0), pruned=verdict.get("pruned"),
                     cached=bool(verdict.get("cached")), mode=verdict.get("mode"),
                     isolated_because=verdict.get("isolated_because"), seconds=verdict.get("seconds"),
                     reached_by=reached.get(m.site, 0))
        entries.append(entry)
        catalog[m.file] = catalog.get(m.file, 0) + 1
    _mark(state, entries)
    return assemble(entries, catalog, {
        "skipped_import_time": skipped, "skipped_unimportable": unimportable, "unimportable": state.unimportable,
        "tests": len(state.tests), "seconds": round(state.seconds, 2),
        "baseline_seconds": round(state.baseline_seconds, 2), "scope": state.scope})
