"""The pools of score workers a run sends its units to: local processes, or shards on a Dask cluster.

Every worker hosts the suite's pytest session (`session.host`) and runs `units.run_unit`; on a
cluster, each task (`score_shard`) hosts one such worker on its machine and keeps it for the
next shards of the same suite, in the copy of the project the client shipped (`shipping`).  A
unit's deadline (`deadline`) is a backstop past its tests' own timeouts, for a worker stuck
inside C code.

A worker's start-up is never charged to a unit's deadline, here or on a cluster: its clock starts
when the unit is sent, and a worker takes units only once it has collected the suite and prepared
it for units (`host_entry`); a cluster's workers get the parent's catalog of the mutants as local
ones do (sent once per run), rather than parsing the modules again.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mu2py.processes.workers import Processes, exit_worker
from mu2py.score.catalog import Catalog
from mu2py.score.plan import ScoreUnit, UnitKind
from mu2py.score.spec import SuiteSpec, moved
from mu2py.score.units import run_unit

if TYPE_CHECKING:
    from mu2py.score.config import ScoreConfig


def open_pool(spec: SuiteSpec, config: ScoreConfig, catalog: Catalog | None = None) -> Any:
    """The pool of workers hosting `spec` that `config` asks for (a context manager with `map_unordered`); local
    workers take the parent's `catalog` of the mutants instead of parsing the modules again."""
    if config.cluster:
        from mu2py.processes.cluster import DaskExecutor
        from mu2py.score.shipping import pack_project

        project = pack_project(spec)  # before connecting: a project over the size cap fails at once
        outer = DaskExecutor(config.cluster)
        try:
            return ShardedPool(outer, spec, config.shard_size, catalog, project=project)
        except BaseException:
            outer.close()
            raise
    return _local_pool(spec, config.workers, catalog)


def _local_pool(spec: SuiteSpec, workers: int, catalog: Catalog | None = None) -> Processes:
    # a unit that crashed its worker, overran its deadline or filled memory is judged once more on another
    # worker before it is lost: the state the first worker was in (what earlier units left) must not decide it
    return Processes(max(1, workers), initializer=host_entry, initargs=(spec, catalog), hosting=True, retries=1)


# the client's spec -> its hosted worker, and the scratch folder of its sandboxes ("": the client's)
_SHARD_POOLS: dict[SuiteSpec, tuple[Processes, str]] = {}


def score_shard(shard: dict[str, Any]) -> list[Any]:
    """Run a shard of units on this machine, in a hosted worker kept for later shards (one cluster task).

    The worker's start-up (spawn, imports, collecting the suite, preparing it) comes before its first unit
    is sent, so no unit's deadline counts it (see `Processes.map_unordered`, `host_entry`).  A shard that
    carries a shipped project (`project`: the zip's name) hosts the suite from this machine's unpacked
    copy (see `shipping`), and its results name the client's paths."""
    spec = shard["spec"]
    tree = None
    if "project" in shard:
        from mu2py.processes.cluster import unpacked_tree

        # every shard marks the tree in use (a run longer than the sweep's age keeps it), and unpacks it again
        # should it be gone: a hosted worker replacing a lost one copies it anew
        tree = unpacked_tree(shard["project"]["zip"])
    entry = _SHARD_POOLS.get(spec)
    if entry is None:
        for old, scratch in _SHARD_POOLS.values():
            old.close()
            if scratch:
                shutil.rmtree(scratch, ignore_errors=True)
        _SHARD_POOLS.clear()
        here, scratch = spec, ""
        if tree is not None:
            from mu2py.processes.scratch import make_scratch

            # the sandboxes (copies of the unpacked tree mutants write to) go in a scratch folder of this machine:
            # the client's may not exist here, and this one is removed with the hosted worker (or, should this
            # process die, by a later sweep)
            scratch = make_scratch("mu2py-score-")
            here = _own_env_folders(replace(spec.relocated(tree), scratch=scratch), tree)
            _tree_on_path(tree)
        entry = _SHARD_POOLS[spec] = (_local_pool(here, 1, shard.get("catalog")), scratch)
    # the unit function travels by name: score's `run_unit` (its units' backstop `deadline` with it), or a job's
    # own over the same hosted suite (props: its units time themselves, as on a local pool)
    fn = shard.get("fn", run_unit)
    results = dict(entry[0].map_unordered(fn, shard["units"], deadline=deadline if fn is run_unit else None))
    ordered = [results[i] for i in range(len(shard["units"]))]
    if tree is None:
        return ordered
    from mu2py.score.shipping import mapped_back

    return [mapped_back(result, tree, spec.root) for result in ordered]


def _own_env_folders(spec: SuiteSpec, tree: str) -> SuiteSpec:
    """`spec` with each environment variable naming a folder of the unpacked `tree` (props: Hypothesis's storage)
    pointed at a copy of it in the spec's scratch folder: the tree is shared by the machine's workers and later
    runs of the same content, and is never written (Hypothesis writes its storage as it runs)."""
    env = []
    for name, value in spec.env:
        inside = moved(value, tree, "")
        if inside != value:
            own = os.path.join(spec.scratch, "env", name) + inside
            if os.path.isdir(value):
                shutil.copytree(value, own, dirs_exist_ok=True)
            value = own
        env.append((name, value))
    return replace(spec, env=tuple(env))


_ON_PATH: list[str] = []  # the unpacked tree this process put first on sys.path (see `_tree_on_path`)


def _tree_on_path(tree: str) -> None:
    """Put `tree` first on this process's sys.path, in place of the one before, for the hosted workers it spawns.

    A local worker inherits the client's sys.path, which holds the project's root (the current directory): what
    only the root gives, such as the package metadata a package reads its version from (`*.egg-info`; the worker's
    sandbox copy leaves it out), is found there.  A spawned process starts with its parent's sys.path, so the
    unpacked tree plays the root's part here."""
    for old in _ON_PATH:
        if old in sys.path:
            sys.path.remove(old)
    _ON_PATH[:] = [tree]
    sys.path.insert(0, tree)


class ShardedPool:
    """Presents a cluster executor as a pool of score workers: units go out in shards, results come back per unit."""

    def __init__(self, outer: Any, spec: SuiteSpec, size: int, catalog: Catalog | None = None, *,
                 project: bytes | None = None) -> None:
        self.outer = outer
        self.spec = spec
        self.size = max(1, size)
        self.workers = outer.workers
        self.catalog = catalog
        self._shared: Any = None  # the catalog as sent to the cluster once (a Dask future), for every shard
        self._warming: list[Any] | None = None  # the tasks starting each worker's hosted worker (see `map_unordered`)
        # the project travels to the workers (`shipping`): they need not see the client's files; an executor that
        # cannot ship trees (a stand-in in tests) runs shards on the client's paths
        self.project: dict[str, str] | None = None
        ship = getattr(outer, "ship_tree", None)
        if ship is not None:
            from mu2py.score.shipping import pack_project

            data = project if project is not None else pack_project(spec)
            self.project = {"zip": ship(data)}

    @property
    def dashboard(self) -> str:
        """The cluster's dashboard link."""
        return str(self.outer.dashboard)

    def map_unordered(self, fn: Callable[[Any], Any], units: list[Any], **_: Any) -> Any:
        """Yield `(index, result)` per unit; `fn` (score's `run_unit`, or another unit function of a hosted suite,
        a module-level function the workers import) runs them, by `score_shard` on the cluster."""
        size = min(self.size, max(1, len(units) // (2 * self.workers) or 1))  # a few shards per worker at least
        shards = [units[k:k + size] for k in range(0, len(units), size)]
        if self.catalog is not None and self._shared is None:
            # each worker builds its first hosted worker from it instead of parsing every module with libcst
            # (seconds per module of a thousand lines)
            share = getattr(self.outer, "share", None)
            self._shared = share(self.catalog) if share is not None else self.catalog
        payload: dict[str, Any] = {"spec": self.spec}
        if fn is not run_unit:
            payload["fn"] = fn
        if self._shared is not None:
            payload["catalog"] = self._shared
        if self.project is not None:
            payload["project"] = self.project
        warm = getattr(self.outer, "on_each_worker", None)
        if self._warming is None and warm is not None:
            # every cluster worker starts its hosted worker now (an empty shard starts it and returns): the first
            # units (the baseline) go to one worker, and the others' start-up (spawn, imports, collecting the suite)
            # then overlaps it instead of following it, as a local pool's workers all start when it opens
            self._warming = warm(score_shard, dict(payload, units=[]))
        # score_shard hosts its own worker process on the cluster machine: no second layer of isolation
        for s, results in self.outer.map_unordered(score_shard, [dict(payload, units=u) for u in shards],
                                                   isolate=False):
            for j, result in enumerate(results):
                yield s * size + j, result

    def close(self) -> None:
        """Disconnect from the cluster (stopping a LocalCluster this pool's executor started)."""
        self.outer.close()

    def __enter__(self) -> ShardedPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def host_entry(spec: SuiteSpec, catalog: Catalog | None, serve: Callable[[], None]) -> None:
    """Worker entry: host the pytest session (imported lazily so the parent never imports pytest for it), prepare
    it for units, then serve them; the worker ends as soon as the parent stops it."""
    from mu2py.score.session import host

    def serve_then_exit() -> None:
        _prepare()  # before `serve` tells the parent this worker is ready: no unit's deadline is running yet
        serve()
        # every reply is sent and the parent is waiting for this process to end: pytest's session finish (a
        # terminal summary that imports Hypothesis, over a second, for nobody to read) would only delay it
        exit_worker()

    host(spec, serve_then_exit, catalog)


def _prepare() -> None:
    """The hosted suite made ready for units (`hosted.state`: the program, from the parent's catalog or else
    built here, and per module its swap and snapshots), which the first unit would otherwise do inside its
    deadline.  A failure is left for that unit to meet, as before."""
    from mu2py.score import hosted

    if hosted.HOST is None or hosted.HOST.error:
        return  # collection failed: the unit reports why
    try:
        hosted.state()
    except Exception:  # noqa: BLE001 - the first unit prepares it again, and reports what goes wrong
        hosted.HOST.program = None


SLACK = 10.0
"""Seconds a unit's deadline allows beyond its tests' timeouts: a kill's check on the original, restoring files."""


def deadline(unit: ScoreUnit) -> float:
    """Seconds a unit may take before its worker is killed (the baseline has none).

    Waits for another worker (the bind lock) and a worker's one-off bookkeeping (recording what each
    test runs) move it later as they happen (`workers.extend_deadline`).
    """
    # the per-test timeouts interrupt Python code; this backstop kills a worker stuck inside C, where a mutant
    # may also be filling memory (`"".join` of an endless iterator: about 200 MB/s), so it comes soon after
    if unit.kind is UnitKind.BASELINE:
        return float("inf")  # the original suite's own time is what the baseline measures
    return (unit.timeout or sum(entry[1] for entry in unit.tests)) + SLACK
