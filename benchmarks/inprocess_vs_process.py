"""Cost of running one input on one mutant: in-process module copy vs fork vs fresh process.

Prints, measured in one run on the insertion sort of the Mu2 paper:
  in-process vs fork: <R>x
  in-process vs fresh process: <R>x
and the one-time cost of building a mutant's module copies.

Usage: python benchmarks/inprocess_vs_process.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from mu2py.executor import run
from mu2py.mutants.catalog import Program
from mu2py.target import resolve_target

SPEC = "targets.insertion_sort.driver:sort"
VALUE = [5, 3, 8, 1, 9, 2]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    program = Program(resolve_target(SPEC))
    mutant_id = next(m.id for m in program.mutants if m.operator == "arithmetic")

    start = time.perf_counter()
    n_build = 50
    for m in program.mutants[:n_build]:
        program._cache._items.pop(m.id, None)
        program.mutant(m.id)
    build = (time.perf_counter() - start) / n_build

    fn = program.mutant(mutant_id)
    start = time.perf_counter()
    for _ in range(args.repeat * 50):
        run(fn, VALUE, 1.0)
    in_process = (time.perf_counter() - start) / (args.repeat * 50)

    # fork per mutant run, as mutmut does: the child loads the mutant and runs the input
    start = time.perf_counter()
    for _ in range(args.repeat):
        pid = os.fork()
        if pid == 0:
            program._cache._items.clear()
            f = program.mutant(mutant_id)
            run(f, VALUE, 1.0)
            os._exit(0)
        os.waitpid(pid, 0)
    fork = (time.perf_counter() - start) / args.repeat

    code = (
        "from mu2py.mutants.catalog import Program; from mu2py.target import resolve_target; "
        f"from mu2py.executor import run; p = Program(resolve_target({SPEC!r})); "
        f"run(p.mutant({mutant_id!r}), {VALUE!r}, 1.0)"
    )
    fresh_runs = max(3, args.repeat // 40)
    start = time.perf_counter()
    for _ in range(fresh_runs):
        subprocess.run([sys.executable, "-c", code], check=True)
    fresh = (time.perf_counter() - start) / fresh_runs

    print(f"mutant: {mutant_id}")
    print(f"in-process run: {in_process * 1e6:.1f} us; fork: {fork * 1e3:.2f} ms; fresh process: {fresh * 1e3:.0f} ms")
    print(f"one-time copy build: {build * 1e3:.2f} ms per mutant (mean of {n_build})")
    print(f"in-process vs fork: {fork / in_process:.0f}x")
    print(f"in-process vs fresh process: {fresh / in_process:.0f}x")


if __name__ == "__main__":
    main()
