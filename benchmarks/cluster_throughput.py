"""Throughput of the executors: per-unit overhead of each, and `mu2py score` with 1 and 2 workers.

Part 1 maps a trivial unit over N units with each executor (this process, local worker
processes, a loopback Dask LocalCluster with and without the per-worker child process) and
prints the cost per unit.  Part 2 scores a real PyPI package's own suite (installed into the
scratch directory from its sdist, as in score_vs_mutmut.py) with `--workers 1`, `--workers 2`
and `--cluster local:2`, and prints mutants per second and the speedup.

Usage: python benchmarks/cluster_throughput.py [--units 400] [--package isodate] [--scratch DIR] [--skip-score]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from score_vs_mutmut import PACKAGES, ensure_sdist, ensure_venv, fresh_copy, mu2py_command, mu2py_env

from mu2py.engine.cluster import DaskExecutor
from mu2py.engine.workers import InProcess, Processes


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


def scoring(package_name: str, scratch: Path) -> None:
    """Part 2: `mu2py score` on a real package with one and two workers, and on the cluster path."""
    package = PACKAGES[package_name]
    bindir = ensure_venv(scratch)
    pristine = ensure_sdist(package, scratch, bindir)
    root = fresh_copy(package, pristine, scratch / "work" / f"{package.key}-throughput")
    print(f"\nmu2py score on {package.key} ({package.source}, tests in {package.tests})")
    results = {}
    for name, extra in (("1 worker", ["--workers", "1"]), ("2 workers", ["--workers", "2"]),
                        ("Dask local:2", ["--cluster", "local:2"])):
        s = score_run(root, package, extra)
        results[name] = s
        ran = s["total"] - s["no_coverage"] - s["pruned_infection"]
        print(f"  {name:<14} {s['wall']:7.1f} s wall, {s['total']} mutants ({ran} run), "
              f"{s['total'] / s['wall']:.1f} mutants/s, score {100 * s['score']:.1f}%", flush=True)
    one, two = results["1 worker"]["wall"], results["2 workers"]["wall"]
    print(f"  speedup 2 workers / 1 worker: {one / two:.2f}x; Dask local:2 / 1 worker: "
          f"{one / results['Dask local:2']['wall']:.2f}x")
    verdicts = {k: (v["killed"], v["survived"], v["timeout"], v["no_coverage"]) for k, v in results.items()}
    print(f"  same verdict counts in all three: {len(set(verdicts.values())) == 1} {verdicts}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=400)
    parser.add_argument("--package", default="isodate", choices=sorted(PACKAGES))
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/mu2py-score-vs-mutmut"))
    parser.add_argument("--skip-score", action="store_true")
    args = parser.parse_args()
    overhead(args.units)
    if not args.skip_score:
        scoring(args.package, args.scratch)


if __name__ == "__main__":
    main()
