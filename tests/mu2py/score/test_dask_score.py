"""`score --cluster` on a real Dask cluster: a `dask scheduler` and two `dask worker` processes on loopback.

The sample's verdicts (import-time survivors with no test run and infinite loops among them) are
the same as with `--workers 2`: a Dask worker's start-up (its hosted worker's spawn, imports, the
suite's collection, the mutants' catalog) is never charged to a unit's deadline.  `--json` prints
only the report on stdout; the dashboard link goes to stderr.  The cluster is `dask_cluster` (tests/conftest.py).

The workers judge a copy of the project the client shipped, never the client's folder: a conftest.py in
the project records, per pytest session, the folder it was loaded from and the folder its hosted worker's
sandbox was copied from.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import WORKER_ENV

DATA = Path(__file__).resolve().parents[2] / "data"


def _score(project: Path, *how: str) -> tuple[dict, str]:
    """`mu2py score --json` on `project` with `how` (--workers or --cluster): the parsed stdout and stderr."""
    proc = subprocess.run([sys.executable, "-m", "mu2py", "score", "--root", str(project), "--paths", "sample_pkg",
                           "--tests", "tests", "--no-cache", "--json", *how],
                          cwd=project, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout), proc.stderr  # stdout is the report and nothing else


# every pytest session of the suite (hosted workers, fresh interpreters) appends a line: on a Dask worker or not,
# the folder this file was loaded from, and the folder the hosted worker's sandbox copied ("" outside one); it
# reads a data file next to it, which must travel too
CONFTEST = """
import os, sys
from pathlib import Path

here = os.path.dirname(os.path.abspath(__file__))
assert (Path(here) / "words.txt").read_text() == "shipped\\n"
host = getattr(sys.modules.get("mu2py.score.hosted"), "HOST", None)
origin = host.sandbox.original if host is not None and host.sandbox is not None else ""
with open({seen!r}, "a") as out:
    out.write(f"{{os.environ.get({worker!r}, '0')}}\\t{{here}}\\t{{origin}}\\n")
"""


@pytest.mark.skipif(sys.version_info >= (3, 13), reason="a real cluster scores once, on 3.11: CI's time (the 3.13 "
                    "suite, run side by side with it, runs the docs' commands)")
def test_score_on_a_dask_cluster_equals_local_workers(dask_cluster: str, tmp_path: Path) -> None:
    project, seen = tmp_path / "project", tmp_path / "seen.txt"
    shutil.copytree(DATA / "score_sample", project)
    (project / "tests" / "conftest.py").write_text(CONFTEST.format(seen=str(seen), worker=WORKER_ENV))
    (project / "tests" / "words.txt").write_text("shipped\n")
    local, _ = _score(project, "--workers", "2")
    remote, notes = _score(project, "--cluster", dask_cluster)
    sessions = [line.split("\t") for line in seen.read_text().splitlines()]
    client = os.path.realpath(project)
    # locally, the hosted workers' sandboxes are copies of the client's folder
    assert {origin for flag, _, origin in sessions if flag == "0" and origin} == {client}
    on_workers = [(here, origin) for flag, here, origin in sessions if flag == "1"]
    assert on_workers and all(origin for _, origin in on_workers)  # a hosted worker per Dask worker, at least
    for here, origin in on_workers:
        # on the cluster they copy the shipped tree, unpacked on the workers' machine, named by its content hash
        assert Path(origin).parent.name == "mu2py-trees" and Path(origin).name.startswith("mu2py-tree-"), origin
        assert not here.startswith(client + os.sep) and not origin.startswith(client), (here, origin)
    assert all(m["file"].startswith(str(project)) for m in remote["mutants"])  # the report names the client's files
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
    from mu2py.score.plan import ScoreUnit, UnitKind
    from mu2py.score.pools import ShardedPool, score_shard
    from mu2py.score.units import run_unit

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
        assert len(list(pool.map_unordered(run_unit, [ScoreUnit(UnitKind.MUTANT, 0)] * 4))) == 4
    assert outer.shared == [catalog] and {s["catalog"] for s in outer.sent} == {"future"}


def test_another_unit_function_travels_with_its_shards() -> None:
    """props sends its own unit function over the same hosted suite: each shard names it (score's is implied)."""
    from mu2py.props.units import ListTests
    from mu2py.props.units import run_unit as props_unit
    from mu2py.score.pools import ShardedPool

    class Outer:
        workers = 1
        sent: list[dict] = []

        def map_unordered(self, fn, units, **_):
            self.sent.extend(units)
            return iter((i, [{}] * len(u["units"])) for i, u in enumerate(units))

    outer = Outer()
    pool = ShardedPool(outer, "spec", 1)  # type: ignore[arg-type]
    assert len(list(pool.map_unordered(props_unit, [ListTests()]))) == 1
    assert [shard["fn"] for shard in outer.sent] == [props_unit]


def test_every_cluster_worker_starts_its_hosted_worker_with_the_first_units() -> None:
    """The first units (the baseline) go to one worker: the others' start-up must not wait for the mutants."""
    from mu2py.score.plan import BASELINE
    from mu2py.score.pools import ShardedPool, score_shard
    from mu2py.score.units import run_unit

    class Outer:
        workers = 2
        order: list[str] = []
        warmed: list[dict] = []

        def on_each_worker(self, fn, unit):
            assert fn is score_shard
            self.order.append("warm")
            self.warmed.append(unit)
            return ["future", "future"]

        def map_unordered(self, fn, units, **_):
            self.order.append("shards")
            return iter((i, [{"status": "survived"}] * len(u["units"])) for i, u in enumerate(units))

    outer = Outer()
    pool = ShardedPool(outer, "spec", 1)  # type: ignore[arg-type]
    for _ in range(2):
        assert len(list(pool.map_unordered(run_unit, [BASELINE]))) == 1
    # once, before the first shards, an empty shard with the same spec for every worker
    assert outer.order == ["warm", "shards", "shards"] and outer.warmed == [{"spec": "spec", "units": []}]
