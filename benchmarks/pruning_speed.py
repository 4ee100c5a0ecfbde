"""Trials per second of the Mu2 loop with pruning off, execution pruning, infection pruning, and a filter.

The analogue of the Mu2 paper's Tables 3.1 and 6.6: the same target, seed and trial budget
under `--opt none`, `--opt execution`, `--opt infection` (the default) and infection plus
`least-executed:10`, measured side by side in one run.  Sound pruning must not change what
is killed, so the three sound variants also print their kill counts, which must agree.
A second table compares the differential oracle with the exceptions-only oracle on the
same corpus.

Usage: python benchmarks/pruning_speed.py [--trials 100] [--seed 1] [--targets MOD:DRIVER ...]
"""

from __future__ import annotations

import argparse
import importlib
import time
import warnings

from mu2py.feedback.analysis import Analysis
from mu2py.fuzz.config import FuzzConfig
from mu2py.fuzz.fuzzer import Fuzzer
from mu2py.mutants.catalog import Program
from mu2py.target.modules import resolve_target

TARGETS = ("targets.json_decoder.driver:parse", "targets.toml.driver:parse")
VARIANTS = (
    ("none", "none", None),
    ("execution", "execution", None),
    ("infection", "infection", None),
    ("infection+least-executed:10", "infection", "least-executed:10"),
)


def measure(spec: str, trials: int, seed: int) -> None:
    """Print one row per variant for one target, then the speedups over `none`."""
    target = resolve_target(spec)
    program = Program(target)
    # made once per program and shared by the variants, so done up front: no variant pays for them
    for index in range(len(program.mutants)):
        program.payload(index)  # what each variant's mutant host is sent to apply a mutant
    importlib.import_module("mu2py.engine.host")  # the host's own imports (multiprocess)
    rates: dict[str, float] = {}
    print(f"\n{spec}: {len(program.mutants)} mutants, {trials} trials, seed {seed}")
    print(f"{'variant':<30}{'trials/s':>10}{'mutant runs':>13}{'runs/trial':>12}{'killed':>8}{'corpus':>8}")
    corpus = []
    for name, pruning, filt in VARIANTS:
        # every live import-time mutant on every input (no rotation), as under `none`: the variants then
        # differ by pruning and filter only, and the sound ones kill the same mutants
        config = FuzzConfig(trials=trials, seed=seed, pruning=pruning, filter=filt, timeout=1.0,
                            static_per_input=None)
        fuzzer = Fuzzer(target, config, program=program)
        start = time.perf_counter()
        result = fuzzer.run()
        seconds = time.perf_counter() - start
        rates[name] = trials / seconds
        killed = result.report["summary"]["killed"] if result.report else 0
        runs = fuzzer.stats.mutant_runs
        print(f"{name:<30}{rates[name]:>10.1f}{runs:>13}{runs / trials:>12.1f}{killed:>8}{len(result.corpus):>8}",
              flush=True)
        if name == "infection":
            corpus = result.corpus
    base = rates["none"]
    print("speedup over none: " + ", ".join(f"{k} {v / base:.1f}x" for k, v in rates.items() if k != "none"))
    judged = {}
    for differential in (True, False):
        judge = Analysis(program, timeout=1.0, differential=differential)
        try:
            for entry in corpus:
                judge.analyse(entry.value, entry.name)
        finally:
            judge.close()  # stop its mutant host
        judged[differential] = len(judge.kills)
    print(f"oracle on the infection corpus ({len(corpus)} inputs): differential kills {judged[True]}, "
          f"exceptions-only {judged[False]}, ratio {judged[True] / max(judged[False], 1):.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--targets", nargs="+", default=list(TARGETS))
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    for spec in args.targets:
        measure(spec, args.trials, args.seed)


if __name__ == "__main__":
    main()
