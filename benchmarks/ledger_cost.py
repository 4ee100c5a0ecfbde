"""What the ledger of interpreter-wide state costs per unit: its quick and full checks, in CPU microseconds.

    python benchmarks/ledger_cost.py [--rounds 20000] [--target targets.json_decoder.driver:parse] [--passes 20]

Prints per entry the CPU time of its check, then the whole quick check (every mutant run of a
fuzz host) and the full check (every test of `score`, every 16th run and every non-survived verdict
of a fuzz host), then the engine's mutant runs per CPU second on a bundled target with the ledger
and with its check made a no-op, all measured in this one run as CPU time (`time.process_time`),
which a loaded machine disturbs less than wall time.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from mu2py.engine.engine import LocalRunner
from mu2py.mutants.catalog import Program
from mu2py.processes.ledger import Drift, Ledger
from mu2py.target.modules import resolve_target


def per_call(fn: Callable[[], object], rounds: int) -> float:
    """CPU microseconds per call of `fn()` over `rounds` calls."""
    start = time.process_time()
    for _ in range(rounds):
        fn()
    return (time.process_time() - start) / rounds * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20000)
    parser.add_argument("--target", default="targets.json_decoder.driver:parse")
    parser.add_argument("--passes", type=int, default=20)
    args = parser.parse_args()
    ledger = Ledger()
    ledger.settle()
    for entry, saved in zip(ledger.entries, ledger.saved, strict=True):
        cost = per_call(lambda e=entry, s=saved: e.differs(s), args.rounds)
        print(f"{entry.name:36s} {'full only' if entry.costly else 'quick    '} {cost:6.2f} us")
    quick = per_call(lambda: ledger.check(full=False), args.rounds)
    full = per_call(lambda: ledger.check(full=True), args.rounds)
    print(f"quick check: {quick:.2f} us per unit; full check: {full:.2f} us per unit "
          f"({len(ledger.entries)} entries; nothing changed)")
    runner = LocalRunner(Program(resolve_target(args.target)))
    values = ['{"a": [1, 2.5, "x", null]}', '[true, false, "\\u00e9"]', '{"k": {"n": -0.5e3}}']  # json texts
    # the hot path: mutants that survive every input (a kill's confirmation and a timeout's wait are rarer)
    alive = set(range(len(runner.program.mutants)))
    for value in values:
        alive -= {v.index for v in runner.judge(value, sorted(alive), 0.1) if v.reason is not None}
    indices = sorted(alive)

    def judged(rounds: int) -> float:
        """Mutant runs per CPU second over `rounds` passes of every mutant on `values`."""
        start, runs = time.process_time(), 0
        for _ in range(rounds):
            for value in values:
                runs += len(runner.judge(value, indices, 0.1))
        return runs / (time.process_time() - start)

    real_check = runner.engine.ledger.check
    with_ledger = judged(args.passes)
    runner.engine.ledger.check = lambda full=True: Drift()  # type: ignore[method-assign]
    without = judged(args.passes)
    runner.engine.ledger.check = real_check  # type: ignore[method-assign]
    print(f"{args.target}: {with_ledger:.0f} mutant runs per CPU second with the ledger, {without:.0f} without "
          f"(ratio {with_ledger / without:.2f}; {len(indices)} surviving mutants, {len(values)} inputs, "
          f"{args.passes} passes; verdicts confirmed {runner.engine.confirmations}, "
          f"unconfirmed {runner.engine.unconfirmed})")


if __name__ == "__main__":
    main()
