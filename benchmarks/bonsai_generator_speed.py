"""Generation speed of the bounded grammar generator: inputs/s and mean size per grammar and bounds.

Run from the repository root: `python benchmarks/bonsai_generator_speed.py [seconds-per-cell]`.
Only generation (decode + render) is timed; a parse of every 50th input checks validity.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

from bonsai.bounds import Bounds
from bonsai.generator import BoundedGenerator
from bonsai.grammar import load_grammar

GRAMMARS = Path(__file__).resolve().parents[1] / "grammars"
BOUNDS = [Bounds(1, 1, 1), Bounds(2, 2, 2), Bounds(3, 3, 3), Bounds(4, 4, 4)]


def measure_cell(gen: BoundedGenerator, seconds: float) -> tuple[float, float, float]:
    """Return (inputs/s, mean text length, warm-up seconds) for one generator."""
    rng = random.Random(0)
    began = time.perf_counter()
    for _ in range(50):  # warm the caches (feasibility frames, terminal samples)
        gen.generate(rng)
    warm = time.perf_counter() - began
    count = 0
    chars = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        for _ in range(50):
            chars += len(gen.generate(rng).text)
        count += 50
        gen.grammar.parse(gen.generate(rng).text)
    elapsed = time.perf_counter() - began
    return count / elapsed, chars / count, warm


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 0.5
    print(f"{'grammar':<14}{'bounds':<10}{'inputs/s':>10}{'mean len':>10}{'warm-up s':>11}")
    for path in sorted(GRAMMARS.glob("*.lark")):
        grammar = load_grammar(path)
        for bounds in BOUNDS:
            rate, size, warm = measure_cell(BoundedGenerator(grammar, bounds), seconds)
            print(f"{path.name:<14}{str(bounds):<10}{rate:>10.0f}{size:>10.1f}{warm:>11.3f}")


if __name__ == "__main__":
    main()
