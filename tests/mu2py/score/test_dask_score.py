"""`score --cluster` on a real Dask cluster: a `dask scheduler` and two `dask worker` processes on loopback.

The sample's verdicts (import-time survivors with no test run and infinite loops among them) are
the same as with `--workers 2`: a Dask worker's start-up (its hosted worker's spawn, imports, the
suite's collection, the mutants' catalog) is never charged to a unit's deadline.  `--json` prints
only the report on stdout; the dashboard link goes to stderr.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "data"
DASK = shutil.which("dask", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))

pytestmark = pytest.mark.skipif(DASK is None, reason="the dask command line is not installed")


def _stop(process: subprocess.Popen) -> None:
    """End `process` and everything in its process group (a worker's nannies and their children)."""
    try:
        os.killpg(process.pid, signal.SIGTERM)  # dask closes its workers on SIGTERM
        process.wait(10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # whatever of the group is left
    except ProcessLookupError:
        pass
    process.wait(5)


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a scheduler on loopback with two single-threaded workers, all stopped afterwards."""
    folder = tmp_path_factory.mktemp("dask")
    address_file = folder / "scheduler.json"
    started: list[subprocess.Popen] = []
    logs = []

    def start(*args: str, log: str) -> None:
        out = open(folder / log, "w")  # closed by the finalizer
        logs.append(out)
        # a process group of its own: the finalizer ends the whole group, children included
        started.append(subprocess.Popen([DASK, *args], cwd=folder, stdout=out, stderr=subprocess.STDOUT,
                                        start_new_session=True))

    try:
        start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", str(address_file), log="scheduler.log")
        deadline = time.monotonic() + 30
        while not address_file.is_file() or not address_file.read_text().strip():
            assert started[0].poll() is None, (folder / "scheduler.log").read_text()
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.2)
        time.sleep(0.2)  # the file is written at once, but read it whole
        address = json.loads(address_file.read_text())["address"]
        start("worker", address, "--nworkers", "2", "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard",
              log="workers.log")
        from distributed import Client

        with Client(address, timeout="20s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        for process in reversed(started):
            _stop(process)
        for out in logs:
            out.close()


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
