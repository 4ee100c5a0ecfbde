"""Dask executor on a loopback LocalCluster: results equal the single-process ones, also when a worker dies."""

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from mu2py.errors import UserError
from mu2py.feedback.analysis import Analysis
from mu2py.feedback.shards import mutate_sharded
from mu2py.mutants.catalog import Program
from mu2py.target.modules import resolve_target

distributed = pytest.importorskip("distributed")

JSON = "targets.json_decoder.driver:parse"
INPUTS = [("a", '[1, 2.5, {"a": null}]'), ("b", "tru"), ("c", '"\\u00e9x"'), ("d", "-0.5e3")]
SAMPLE = Path(__file__).resolve().parents[2] / "data" / "score_sample"
# CI runs the 3.11 and 3.13 suites side by side: the slowest runs here are made on one of them
ON_313 = pytest.mark.skipif(sys.version_info < (3, 13), reason="run once, on 3.13: CI's time (the 3.11 suite scores "
                            "and runs props on a real cluster)")
ON_311 = pytest.mark.skipif(sys.version_info >= (3, 13), reason="run once, on 3.11: CI's time (the 3.13 suite runs "
                            "kill on a real cluster)")


@pytest.fixture(scope="module")
def cluster():
    from mu2py.processes.cluster import DaskExecutor

    pool = DaskExecutor("local:2")
    yield pool
    pool.close()


def _single() -> dict:
    program = Program(resolve_target(JSON))
    analysis = Analysis(program, timeout=1.0)
    for label, value in INPUTS:
        analysis.analyse(value, label)
    return analysis.report()


def _sharded(pool) -> dict:
    analysis = Analysis(Program(resolve_target(JSON)), timeout=1.0)
    mutate_sharded(analysis, JSON, None, INPUTS, pool, shards=8)
    return analysis.report()


def _verdicts(report):
    return [(m["id"], m["status"], m["reason"], m["input"], m["reached"]) for m in report["mutants"]]


@ON_311
def test_mutate_on_cluster_equals_single_process(cluster):
    assert cluster.dashboard.startswith("http://127.0.0.1")
    assert _verdicts(_sharded(cluster)) == _verdicts(_single())


@ON_313
def test_killing_a_worker_mid_run_loses_nothing(cluster):
    pids = list(cluster.client.run(os.getpid).values())

    def kill_one():
        time.sleep(1.0)
        os.kill(pids[0], signal.SIGKILL)

    killer = threading.Thread(target=kill_one)
    killer.start()
    report = _sharded(cluster)
    killer.join()
    assert _verdicts(report) == _verdicts(_single())
    cluster.client.wait_for_workers(2, timeout=60)


def test_score_on_cluster_equals_local_workers(cluster, tmp_path, capsys):
    from mu2py.score.config import ScoreConfig
    from mu2py.score.pools import ShardedPool
    from mu2py.score.reports import report
    from mu2py.score.scoring import score
    from mu2py.score.spec import SuiteSpec

    spec = SuiteSpec(root=str(SAMPLE), pytest_args=("tests",), modules=("sample_pkg.extra",),
                     files=(str(SAMPLE / "sample_pkg" / "extra.py"),), sys_path=(str(SAMPLE),))
    local = report(score(spec, ScoreConfig(workers=1)))
    # the shared LocalCluster stands in for --cluster: ShardedPool is what --cluster builds around it
    pooled = ShardedPool(cluster, spec, 2)
    import mu2py.score.pools as pools

    original = pools.open_pool
    pools.open_pool = lambda s, c, catalog=None: _NoClose(pooled)
    try:
        remote = report(score(spec, ScoreConfig(cluster="shared")))
    finally:
        pools.open_pool = original
    assert [(m["id"], m["status"]) for m in remote["mutants"]] == [(m["id"], m["status"]) for m in local["mutants"]]
    assert remote["summary"]["killed"] > 0


class _NoClose:
    def __init__(self, pool):
        self.pool = pool
        self.dashboard = pool.dashboard

    def map_unordered(self, *args, **kwargs):
        return self.pool.map_unordered(*args, **kwargs)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


def test_cluster_without_dask_says_how_to_install(monkeypatch):
    from mu2py.processes.cluster import DaskExecutor

    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(UserError, match=r"pip install 'mu2py\[dask\]'"):
        DaskExecutor("local:1")


def test_bonsai_lattice_on_cluster_equals_local(cluster, tmp_path):
    from bonsai.bounds import Bounds
    from bonsai.lattice import run_lattice

    grammar = str(Path(__file__).resolve().parents[3] / "grammars" / "json.lark")
    kwargs = {"trials": 15, "seed": 2}
    local = run_lattice(grammar, JSON, Bounds(1, 2, 2), out=tmp_path / "local", **kwargs)
    remote = run_lattice(grammar, JSON, Bounds(1, 2, 2), out=tmp_path / "remote", cluster=cluster, **kwargs)
    assert remote["nodes"] == local["nodes"] and remote["final"] == local["final"]
    finals = [sorted(p.read_text() for p in (tmp_path / name / "final").iterdir()) for name in ("local", "remote")]
    assert finals[0] == finals[1]
    resumed = run_lattice(grammar, JSON, Bounds(1, 2, 2), out=tmp_path / "remote", cluster=cluster, **kwargs)
    assert resumed["nodes"] == remote["nodes"]  # every node read back from done.json on the client


def test_fuzz_campaigns_on_cluster_equal_local(cluster, tmp_path):
    from mu2py.fuzz.campaigns import run_parallel
    from mu2py.fuzz.config import FuzzConfig

    sort = "targets.insertion_sort.driver:sort"
    merged = []
    for name, pool in (("local", None), ("remote", cluster)):
        out = tmp_path / name
        result, summaries = run_parallel(sort, None, FuzzConfig(trials=40, seed=4, out=out), 2, cluster=pool)
        assert all("error" not in s for s in summaries)
        merged.append([p.read_bytes() for p in sorted((out / "corpus").glob("*.bin"))])
        assert (out / "workers" / "w1" / "corpus" / "index.json").is_file()
    assert merged[0] == merged[1] and merged[0]


def test_a_node_raising_on_a_worker_fails_the_run_at_once_and_the_cluster_serves_on(cluster, tmp_path, monkeypatch):
    """The client's directory holds the driver, shipped to the workers, where importing it raises: one error within
    seconds (not after Dask's retries, or never: a worker's child pool kept the failed unit as busy), and the next
    run works."""
    from bonsai.bounds import Bounds
    from bonsai.lattice import run_lattice
    from mu2py.processes.workers import WorkerError

    (tmp_path / "client_only_driver.py").write_text(
        f"import json\nimport os\n\nif os.getpid() != {os.getpid()}:\n    raise ImportError('for the client only')\n\n"
        "def parse(text):\n    return json.loads(text)\n")
    monkeypatch.syspath_prepend(str(tmp_path))  # the client's sys.path only: the workers get the module shipped
    grammar = str(Path(__file__).resolve().parents[3] / "grammars" / "json.lark")
    started = time.monotonic()
    with pytest.raises(WorkerError, match="client_only_driver.*for the client only"):
        run_lattice(grammar, "client_only_driver:parse", Bounds(1, 1, 1), out=tmp_path / "bad", trials=5, seed=1,
                    cluster=cluster, targets=["json"])
    assert time.monotonic() - started < 60
    done = run_lattice(grammar, JSON, Bounds(1, 1, 1), out=tmp_path / "good", trials=5, seed=1, cluster=cluster)
    assert done["final"]["inputs"] > 0
