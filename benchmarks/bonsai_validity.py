"""How many of bonsai's samples a grammar's own parser rejects: every sample must parse.

    python benchmarks/bonsai_validity.py [--grammar python.lark] [--start file_input] [--bounds 3,3,3]
                                         [--samples 2000] [--seed 1]

A `--grammar` that is not a file is looked up among lark's bundled grammars (`python.lark`, `lark.lark`).
Prints the count of rejected samples and the first few of them.
"""

from __future__ import annotations

import argparse
import os
import random
import time


def main() -> int:
    """Sample, parse, print the rejected count."""
    import lark

    from bonsai.bounds import Bounds
    from bonsai.generator import BoundedGenerator
    from bonsai.grammar import load_grammar

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grammar", default="python.lark")
    parser.add_argument("--start", default="file_input")
    parser.add_argument("--bounds", default="3,3,3", help="idents,items,depth")
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    path = args.grammar
    if not os.path.isfile(path):
        path = os.path.join(os.path.dirname(lark.__file__), "grammars", args.grammar)
    grammar = load_grammar(path, start=args.start)
    check = grammar.parser()
    generator = BoundedGenerator(grammar, Bounds(*(int(b) for b in args.bounds.split(","))))
    rng = random.Random(args.seed)
    rejected: list[str] = []
    started = time.perf_counter()
    for _ in range(args.samples):
        text = generator.generate(rng).text
        try:
            check.parse(text)
        except lark.exceptions.LarkError:
            rejected.append(text)
    print(f"{args.grammar} from {args.start} at {args.bounds}: {len(rejected)} of {args.samples} samples rejected "
          f"by the grammar's parser ({time.perf_counter() - started:.1f} s)")
    for text in rejected[:5]:
        print(f"  {text[:200]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
