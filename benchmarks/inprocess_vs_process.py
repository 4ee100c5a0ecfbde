"""Cost of running one input on one mutant: in-process through the engine vs fork vs fresh process.

Prints, measured in one run on the insertion sort of the Mu2 paper:
  in-process run: <X> us (call <Y> us, harness <Z> us); fork: <A> ms; fresh process: <B> ms
  in-process vs fork: <R>x
  in-process vs fresh process: <R>x
and the one-time costs of the engine: loading the target, and per mutant its payload and swap plan.

The in-process run is `Engine.run_mutant` on a function-level (swapped) mutant whose swap
plan is already made.  "call" is the driver alone with the mutant's code swapped in;
"harness" is the rest of a run (swapping in and out, resetting module state, the timeout
alarm, copying the input, building the result).  The fork figure is one forked child per
run (the target already loaded, as in a host restart) that runs the mutant and sends its
result back through a pipe; the fresh-process figure is one new interpreter per run that
loads the target, applies the mutant's payload and runs it.

Usage: python benchmarks/inprocess_vs_process.py [--repeat N] [--mutant ID]
"""

from __future__ import annotations

import argparse
import functools
import os
import pickle
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from mu2py.engine.engine import Engine
from mu2py.mutants.catalog import Program
from mu2py.target.modules import resolve_target

SPEC = "targets.insertion_sort.driver:sort"
VALUE = [5, 3, 8, 1, 9, 2]
TIMEOUT = 1.0
ROUNDS = 5

# a fresh interpreter: load the target, apply the payload read from stdin, run, answer on stdout
FRESH = f"""
import pickle, sys
from mu2py.engine.engine import Engine
from mu2py.target.modules import resolve_target
payload = pickle.load(sys.stdin.buffer)
engine = Engine(resolve_target({SPEC!r}))
engine.add([payload])
pickle.dump(engine.run_mutant(payload.index, {VALUE!r}, {TIMEOUT!r}), sys.stdout.buffer)
"""


def per_run(step: Callable[[], Any], n: int) -> float:
    """Seconds per call of `step`: the best mean over ROUNDS rounds of `n` calls."""
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(n):
            step()
        best = min(best, (time.perf_counter() - start) / n)
    return best


def call_driver(fn: Callable[[Any], Any], value: Any) -> None:
    """The driver on `value`, an exception being an outcome like any other."""
    try:
        fn(value)
    except Exception:  # noqa: BLE001 - the mutant's own failure is what is being timed
        pass


def forked_run(engine: Engine, index: int) -> Any:
    """Run the mutant in a forked child; its result, sent back through a pipe."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            with os.fdopen(write, "wb") as out:
                pickle.dump(engine.run_mutant(index, VALUE, TIMEOUT), out)
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        data = answer.read()
    os.waitpid(pid, 0)
    return pickle.loads(data)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--mutant", help="mutant id (default: the first arithmetic mutant)")
    args = parser.parse_args()
    target = resolve_target(SPEC)
    program = Program(target)
    mutant_id = args.mutant or next(m.id for m in program.mutants if m.operator == "arithmetic")
    index = program.index[mutant_id]

    # one-time costs: the engine loading the target, then per mutant its payload (made once by the
    # supervisor) and its swap plan (made by the engine on the mutant's first run)
    start = time.perf_counter()
    engine = Engine(target)
    load = time.perf_counter() - start
    program.payload(0)  # the module layouts, made once for all mutants
    start = time.perf_counter()
    payloads = [program.payload(i) for i in range(len(program.mutants))]
    payload_cost = (time.perf_counter() - start) / len(payloads)
    swapped = [p for p in payloads if p.kind == "swap"]
    start = time.perf_counter()
    for p in swapped:
        original, mutated = p.codes()
        engine.swaps[p.module].plan(mutated, original)
    plan_cost = (time.perf_counter() - start) / max(len(swapped), 1)

    payload = payloads[index]
    if payload.kind != "swap":
        parser.error(f"{mutant_id} is applied by {payload.kind!r}, not by swapping function code")
    engine.add([payload])
    expected = engine.run_mutant(index, VALUE, TIMEOUT)  # makes the swap plan: later runs reuse it

    n = args.repeat * 50
    in_process = per_run(functools.partial(engine.run_mutant, index, VALUE, TIMEOUT), n)
    swap = engine.swaps[payload.module]
    original, mutated = payload.codes()
    swap.apply_plan(swap.plan(mutated, original))
    try:
        call = per_run(functools.partial(call_driver, engine.fn, VALUE), n)
    finally:
        swap.restore()
    harness = in_process - call

    # fork per mutant run: the child runs the input on the mutant and sends the result back
    forked_run(engine, index)
    start = time.perf_counter()
    for _ in range(args.repeat):
        result = forked_run(engine, index)
    fork = (time.perf_counter() - start) / args.repeat
    assert (result.status, result.exc_type) == (expected.status, expected.exc_type), result

    fresh_runs = max(3, args.repeat // 40)
    start = time.perf_counter()
    for _ in range(fresh_runs):
        done = subprocess.run([sys.executable, "-c", FRESH], input=pickle.dumps(payload), capture_output=True,
                              check=True)
    fresh = (time.perf_counter() - start) / fresh_runs
    result = pickle.loads(done.stdout)
    assert (result.status, result.exc_type) == (expected.status, expected.exc_type), result

    outcome = expected.status.name.lower() + (f" ({expected.exc_type})" if expected.exc_type else "")
    print(f"mutant: {mutant_id} ({outcome} on {VALUE})")
    print(f"in-process run: {in_process * 1e6:.1f} us (call {call * 1e6:.1f} us, harness {harness * 1e6:.1f} us); "
          f"fork: {fork * 1e3:.2f} ms; fresh process: {fresh * 1e3:.0f} ms")
    print(f"one-time: engine load {load * 1e3:.1f} ms; per mutant, payload {payload_cost * 1e6:.0f} us "
          f"(mean of {len(payloads)}), swap plan {plan_cost * 1e6:.0f} us (mean of {len(swapped)})")
    print(f"in-process vs fork: {fork / in_process:.0f}x")
    print(f"in-process vs fresh process: {fresh / in_process:.0f}x")


if __name__ == "__main__":
    main()
