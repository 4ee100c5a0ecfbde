"""Share of `bonsai sample` ChocoPy programs that parse and that type-check without errors, per bounds and seed.

    python benchmarks/chocopy_sample_validity.py [--bounds 1,1,1 3,3,3] [--seeds 0 1 2] [--count 300]

The samples are exactly what `bonsai sample grammars/chocopy.lark --bounds B --count N --seed S`
prints; each is run through the project's ChocoPy front end (targets/chocopy).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bonsai.cli import main as bonsai_main  # noqa: E402
from bonsai.sample_command import split_inputs  # noqa: E402
from targets.chocopy.driver import ChocoPySyntaxError, typecheck  # noqa: E402


def samples(bounds: str, seed: int, count: int) -> list[str]:
    """The programs `bonsai sample` prints for these arguments."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = bonsai_main(["sample", str(ROOT / "grammars" / "chocopy.lark"), "--bounds", bounds,
                            "--count", str(count), "--seed", str(seed)])
    if code != 0:
        raise SystemExit(f"bonsai sample failed with exit code {code}")
    return split_inputs(out.getvalue())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bounds", nargs="+", default=["1,1,1", "3,3,3"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--count", type=int, default=300)
    args = parser.parse_args()
    for bounds in args.bounds:
        for seed in args.seeds:
            programs = samples(bounds, seed, args.count)
            parsed = typed = 0
            for program in programs:
                try:
                    result = typecheck(program)
                except ChocoPySyntaxError:
                    continue
                parsed += 1
                typed += result["errors"]["errors"] == []
            n = len(programs)
            print(f"bounds {bounds} seed {seed}: {n} programs, parse {parsed}/{n} ({parsed / n:.1%}), "
                  f"type-check {typed}/{n} ({typed / n:.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
