"""Mutation vs coverage guidance at equal trials and seed, each corpus judged by the same evaluator.

Prints one line per (target, trials, seed) with the mutants killed by each corpus (as
`mu2py mutate` would judge it) and the corpus sizes, then the totals and their ratio.

Usage: python benchmarks/guidance_comparison.py [--trials 150 400] [--seeds 1 2 3]
"""

from __future__ import annotations

import argparse
import warnings

from mu2py.feedback.analysis import Analysis
from mu2py.fuzz.config import FuzzConfig
from mu2py.fuzz.fuzzer import Fuzzer
from mu2py.mutants.catalog import Program
from mu2py.target.modules import resolve_target

TARGETS = ("targets.json_decoder.driver:parse", "targets.toml.driver:parse")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, nargs="+", default=[150, 400])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--targets", nargs="+", default=list(TARGETS))
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    for spec in args.targets:
        target = resolve_target(spec)
        program = Program(target)
        totals = {"coverage": 0, "mutation": 0}
        for trials in args.trials:
            for seed in args.seeds:
                row = {}
                for guidance in totals:
                    config = FuzzConfig(trials=trials, seed=seed, guidance=guidance)
                    result = Fuzzer(target, config, program=program).run()
                    judge = Analysis(program, timeout=1.0)
                    for entry in result.corpus:
                        judge.analyse(entry.value, entry.name)
                    row[guidance] = (len(judge.kills), len(result.corpus))
                    totals[guidance] += len(judge.kills)
                print(f"{spec} trials={trials} seed={seed}: coverage kills {row['coverage'][0]} "
                      f"({row['coverage'][1]} inputs), mutation kills {row['mutation'][0]} "
                      f"({row['mutation'][1]} inputs)", flush=True)
        print(f"{spec} total of {len(program.mutants)} mutants: coverage {totals['coverage']}, "
              f"mutation {totals['mutation']}, ratio {totals['mutation'] / max(totals['coverage'], 1):.3f}x",
              flush=True)


if __name__ == "__main__":
    main()
