"""The pools of score workers a run sends its units to: local processes, or shards on a Dask cluster.

Every worker hosts the suite's pytest session (`session.host`) and runs `units.run_unit`; on a
cluster, each task (`score_shard`) hosts one such worker on its machine and keeps it for the
next shards of the same suite.  A unit's deadline (`deadline`) is a backstop past its tests'
own timeouts, for a worker stuck inside C code.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mu2py.engine.workers import Processes
from mu2py.score.catalog import Catalog
from mu2py.score.spec import SuiteSpec
from mu2py.score.units import run_unit

if TYPE_CHECKING:
    from mu2py.score.config import ScoreConfig


def open_pool(spec: SuiteSpec, config: ScoreConfig, catalog: Catalog | None = None) -> Any:
    """The pool of workers hosting `spec` that `config` asks for (a context manager with `map_unordered`); local
    workers take the parent's `catalog` of the mutants instead of parsing the modules again."""
    if config.cluster:
        from mu2py.engine.cluster import DaskExecutor

        return ShardedPool(DaskExecutor(config.cluster), spec, config.shard_size)
    return _local_pool(spec, config.workers, catalog)


def _local_pool(spec: SuiteSpec, workers: int, catalog: Catalog | None = None) -> Processes:
    return Processes(max(1, workers), initializer=host_entry, initargs=(spec, catalog), hosting=True, retries=0)


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
    results = dict(pool.map_unordered(run_unit, shard["units"], deadline=deadline))
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


def host_entry(spec: SuiteSpec, catalog: Catalog | None, serve: Callable[[], None]) -> None:
    """Worker entry: host the pytest session (imported lazily so the parent never imports pytest for it); the
    worker ends as soon as the parent stops it."""
    from mu2py.score.session import host

    def serve_then_exit() -> None:
        serve()
        # every reply is sent and the parent is waiting for this process to end: pytest's session finish (a
        # terminal summary that imports Hypothesis, over a second, for nobody to read) would only delay it
        os._exit(0)

    host(spec, serve_then_exit, catalog)


SLACK = 10.0
"""Seconds a unit's deadline allows beyond its tests' timeouts: a kill's check on the original, restoring files."""


def deadline(unit: dict[str, Any]) -> float:
    """Seconds a unit may take before its worker is killed (the baseline has none).

    Waits for another worker (the bind lock) and a worker's one-off bookkeeping (recording what each
    test runs) move it later as they happen (`workers.extend_deadline`).
    """
    # the per-test timeouts interrupt Python code; this backstop kills a worker stuck inside C, where a mutant
    # may also be filling memory (`"".join` of an endless iterator: about 200 MB/s), so it comes soon after
    if unit["kind"] == "baseline":
        return float("inf")  # the original suite's own time is what the baseline measures
    return float(unit.get("timeout") or sum(entry[1] for entry in unit["tests"])) + SLACK
