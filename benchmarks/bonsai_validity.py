"""How many of bonsai's samples a grammar's own parser rejects: every sample must parse.

    python benchmarks/bonsai_validity.py [--grammar python.lark|lark.lark|all|PATH] [--start RULE]
                                         [--bounds 3,3,3 [2,2,2 ...]] [--samples 2000] [--seed 1]

A `--grammar` that is not a file is looked up among lark's bundled grammars; `all` checks every
bundled grammar that defines rules (`bonsai.validity.bundled_grammars`).  `--start` defaults to the
grammar's known start (python.lark: file_input) or `start`.  Prints one line per grammar and bounds
(the count of rejected samples) and the first few rejected texts; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    """Sample, parse, print the rejected counts; exit 1 when some sample was rejected."""
    from bonsai.bounds import Bounds
    from bonsai.grammar import load_grammar
    from bonsai.validity import BUNDLED_STARTS, bundled_grammar, bundled_grammars, check_samples

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grammar", default="python.lark", help="a .lark path, a bundled grammar's name, or all")
    parser.add_argument("--start", help="start rule (default: the grammar's known start, else start)")
    parser.add_argument("--bounds", nargs="+", default=[Bounds(3, 3, 3)], type=Bounds.parse, metavar="M,N,D",
                        help="one or more bounds idents,items,depth (3,3,3)")
    parser.add_argument("--samples", type=int, default=2000, help="samples per grammar and bounds (2000)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.grammar == "all":
        grammars = [(path, args.start or start) for path, start in bundled_grammars()]
    else:
        path = Path(args.grammar) if os.path.isfile(args.grammar) else bundled_grammar(args.grammar)
        grammars = [(path, args.start or BUNDLED_STARTS.get(path.name, "start"))]
    failed = False
    for path, start in grammars:
        grammar = load_grammar(path, start=start)
        for bounds in args.bounds:
            result = check_samples(grammar, bounds, args.samples, seed=args.seed,
                                   progress=lambda r: print(f"  ... {r.samples} samples, {r.rejected} rejected, "
                                                            f"{r.seconds:.0f} s", file=sys.stderr, flush=True))
            print(result.line(), flush=True)
            for text in result.examples:
                print(f"  {text[:200]!r}")
            failed = failed or result.rejected > 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
