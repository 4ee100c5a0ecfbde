"""Throughput of the executors: per-unit overhead of each, and `mu2py score` with 1 and 2 workers.

Part 1 maps a trivial unit over N units with each executor (this process, local worker
processes, a loopback Dask LocalCluster with and without the per-worker child process) and
prints the cost per unit.  Part 2 scores a real PyPI package's own suite (installed into the
scratch directory from its sdist, as in score_vs_mutmut.py) with `--workers 1`, `--workers 2`
and `--cluster local:2`, and prints mutants per second and the speedup.

Part 2 also scores on a `dask scheduler` and `dask worker --nworkers 2` started on loopback as processes of their
own, and prints each cluster's time over `--workers 2`'s.

Usage: python benchmarks/cluster_throughput.py [--units 400] [--package isodate] [--scratch DIR] [--skip-score]
       [--skip-overhead] [--no-single]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from score_vs_mutmut import PACKAGES, ensure_sdist, ensure_venv, fresh_copy, mu2py_command, mu2py_env

from mu2py.processes.cluster import DaskExecutor
from mu2py.processes.workers import InProcess, Processes


def unit_cost(pool: Any, units: int, **kwargs: Any) -> float:
    """Microseconds per unit for mapping `abs` over `units` integers (after one warm-up unit)."""
    list(pool.map_unordered(abs, [-1], **kwargs))
    start = time.perf_counter()
    results = dict(pool.map_unordered(abs, [-i for i in range(units)], **kwargs))
    assert len(results) == units
    return (time.perf_counter() - start) / units * 1e6


def overhead(units: int) -> None:
    """Part 1: the per-unit cost of each executor."""
    print(f"per-unit overhead, {units} trivial units")
    rows = [("in-process", unit_cost(InProcess(), units))]
    with Processes(2) as pool:
        rows.append(("local processes (2)", unit_cost(pool, units)))
    with DaskExecutor("local:2") as pool:
        rows.append(("Dask LocalCluster (2), unit in worker child", unit_cost(pool, units)))
        rows.append(("Dask LocalCluster (2), unit in worker thread", unit_cost(pool, units, isolate=False)))
    for name, micros in rows:
        print(f"  {name:<46}{micros:>10.0f} us/unit")
    local = rows[1][1]
    print(f"  cluster path vs local processes: {rows[2][1] / local:.1f}x per unit (isolated), "
          f"{rows[3][1] / local:.1f}x (thread)")


def score_run(root: Path, package: Any, extra: list[str]) -> dict[str, Any]:
    """One `mu2py score --json --no-cache` run with `extra` options; its summary plus wall time."""
    cmd = [*mu2py_command(), "score", "--paths", package.source, "--tests", package.tests, "--json", "--no-cache",
           *extra]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, env=mu2py_env(package, root), capture_output=True, text=True, check=True)
    summary = json.loads(proc.stdout)["summary"]
    summary["wall"] = time.perf_counter() - start
    return summary


@contextlib.contextmanager
def loopback_cluster(folder: Path, env: dict[str, str]) -> Iterator[str]:
    """A `dask scheduler` and a `dask worker --nworkers 2 --nthreads 1` on loopback, as processes of their own
    (in `folder`, not the project: what a worker needs travels with the job) with the environment `env` the local
    runs get too (a worker's environment is its machine's: mu2py does not ship it); yields the scheduler's
    address."""
    dask = shutil.which("dask") or str(Path(sys.executable).with_name("dask"))
    folder.mkdir(parents=True, exist_ok=True)
    address_file = folder / "scheduler.json"
    address_file.unlink(missing_ok=True)
    started = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                 "--scheduler-file", str(address_file)], cwd=folder, start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        while not address_file.is_file() or not address_file.read_text().strip():
            time.sleep(0.2)
        time.sleep(0.2)
        address = json.loads(address_file.read_text())["address"]
        started.append(subprocess.Popen([dask, "worker", address, "--nworkers", "2", "--nthreads", "1", "--host",
                                         "127.0.0.1", "--no-dashboard"], cwd=folder, start_new_session=True, env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(5)  # the workers register with the scheduler
        yield address
    finally:
        for process in reversed(started):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            process.wait(30)


def scoring(package_name: str, scratch: Path, single: bool = True) -> None:
    """Part 2: `mu2py score` on a real package with one and two workers, on `--cluster local:2`, and on a scheduler
    and two worker processes started on loopback (the cluster's time against `--workers 2`'s is the ratio to read)."""
    package = PACKAGES[package_name]
    bindir = ensure_venv(scratch)
    pristine = ensure_sdist(package, scratch, bindir)
    root = fresh_copy(package, pristine, scratch / "work" / f"{package.key}-throughput")
    print(f"\nmu2py score on {package.key} ({package.source}, tests in {package.tests})")
    results = {}
    with loopback_cluster(scratch / "dask-loopback", mu2py_env(package, root)) as address:
        runs = [*([("1 worker", ["--workers", "1"])] if single else []), ("2 workers", ["--workers", "2"]),
                ("Dask local:2", ["--cluster", "local:2"]), ("Dask loopback", ["--cluster", address])]
        for name, extra in runs:
            s = score_run(root, package, extra)
            results[name] = s
            ran = s["total"] - s["no_coverage"] - s["pruned_infection"]
            print(f"  {name:<14} {s['wall']:7.1f} s wall, {s['total']} mutants ({ran} run), "
                  f"{s['total'] / s['wall']:.1f} mutants/s, score {100 * s['score']:.1f}%", flush=True)
    two = results["2 workers"]["wall"]
    if single:
        print(f"  speedup 2 workers / 1 worker: {results['1 worker']['wall'] / two:.2f}x")
    for name in ("Dask local:2", "Dask loopback"):
        print(f"  {name} time / --workers 2 time: {results[name]['wall'] / two:.2f}x (goal: at most 1.1x)")
    verdicts = {k: (v["killed"], v["survived"], v["timeout"], v["no_coverage"]) for k, v in results.items()}
    print(f"  same verdict counts in all: {len(set(verdicts.values())) == 1} {verdicts}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=400)
    parser.add_argument("--package", default="isodate", choices=sorted(PACKAGES))
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/mu2py-score-vs-mutmut"))
    parser.add_argument("--skip-score", action="store_true")
    parser.add_argument("--skip-overhead", action="store_true", help="no part 1 (the per-unit cost)")
    parser.add_argument("--no-single", action="store_true", help="no --workers 1 run in part 2")
    args = parser.parse_args()
    if not args.skip_overhead:
        overhead(args.units)
    if not args.skip_score:
        scoring(args.package, args.scratch, single=not args.no_single)


if __name__ == "__main__":
    main()
