"""`score --cluster` on a real Dask cluster: a `dask scheduler` and two `dask worker` processes on loopback.

The sample's verdicts (import-time survivors with no test run and infinite loops among them) are
the same as with `--workers 2`: a Dask worker's start-up (its hosted worker's spawn, imports, the
suite's collection, the mutants' catalog) is never charged to a unit's deadline.  `--json` prints
only the report on stdout; the dashboard link goes to stderr.  The cluster is `dask_cluster` (tests/conftest.py).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data"


def _score(project: Path, *how: str) -> tuple[dict, str]:
    """`mu2py score --json` on `project` with `how` (--workers or --cluster): the parsed stdout and stderr."""
    proc = subprocess.run([sys.executable, "-m", "mu2py", "score", "--root", str(project), "--paths", "sample_pkg",
                           "--tests", "tests", "--no-cache", "--json", *how],
                          cwd=project, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout), proc.stderr  # stdout is the report and nothing else


def test_score_on_a_dask_cluster_equals_local_workers(dask_cluster: str, tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(DATA / "score_sample", project)
    local, _ = _score(project, "--workers", "2")
    remote, notes = _score(project, "--cluster", dask_cluster)
    statuses = {m["id"]: m["status"] for m in local["mutants"]}
    assert {m["id"]: m["status"] for m in remote["mutants"]} == statuses
    assert remote["summary"] == {**remote["summary"], **{k: local["summary"][k] for k in (
        "total", "killed", "survived", "timeout", "no_coverage")}}
    # what the sample holds: import-time survivors that no test ran, and mutants that loop (real timeouts)
    at_import = [m for m in remote["mutants"] if m["at_import"] and m["status"] == "survived" and m["tests_run"] == 0]
    assert at_import and local["summary"]["timeout"] > 0
    # no unit on the cluster ran into its worker's backstop deadline (start-up charged to it)
    assert not [m["id"] for m in remote["mutants"] if "deadline" in str(m.get("killed_by"))]
    assert "Dask dashboard" in notes


def _prepared(unit: object) -> bool:
    from mu2py.score import hosted

    return hosted.HOST is not None and hosted.HOST.program is not None and bool(hosted.HOST.swaps)


def test_a_worker_is_prepared_before_its_first_unit_is_sent(tmp_path: Path) -> None:
    """What the first unit would otherwise do inside its deadline (the program, the swaps) is done before the
    worker says it is ready: the deadline clock starts when a unit is sent (on a cluster, `score_shard` too)."""
    from mu2py.score.catalog import catalog_of
    from mu2py.score.pools import _local_pool
    from mu2py.score.spec import SuiteSpec, build_program

    project = tmp_path / "project"
    shutil.copytree(DATA / "score_sample", project)
    spec = SuiteSpec(root=str(project), pytest_args=("tests",), modules=("sample_pkg.extra",),
                     files=(str(project / "sample_pkg" / "extra.py"),), sys_path=(str(project),))
    with _local_pool(spec, 1, catalog_of(build_program(spec))) as pool:
        assert [result for _, result in pool.map_unordered(_prepared, [None])] == [True]


def test_shards_carry_the_parents_catalog_sent_once() -> None:
    from mu2py.score.pools import ShardedPool, score_shard

    class Outer:
        workers = 2
        shared: list[object] = []
        sent: list[dict] = []

        def share(self, value: object) -> str:
            self.shared.append(value)
            return "future"

        def map_unordered(self, fn, units, **_):
            assert fn is score_shard
            self.sent.extend(units)
            return iter((i, [{"status": "survived"}] * len(u["units"])) for i, u in enumerate(units))

    outer, catalog = Outer(), object()
    pool = ShardedPool(outer, "spec", 1, catalog)  # type: ignore[arg-type]
    for _ in range(2):
        assert len(list(pool.map_unordered(None, [{"kind": "mutant"}] * 4))) == 4  # type: ignore[arg-type]
    assert outer.shared == [catalog] and {s["catalog"] for s in outer.sent} == {"future"}
