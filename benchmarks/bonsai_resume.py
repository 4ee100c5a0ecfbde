"""Wall time of `bonsai run` from scratch and of resuming the finished lattice (1 and 2 workers); `sample --out`.

Run from the repository root: `python benchmarks/bonsai_resume.py [--checkout DIR] [--node-trials N]`.
`--checkout` measures another copy of the code (e.g. an older commit unpacked with `git archive`) on the
same lattice, so before/after figures come from one run of this script.  Each figure is one command's
wall time, interpreter start included, as a user sees it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = "targets.json_decoder.driver:parse"


def timed(checkout: Path, argv: list[str]) -> float:
    """Seconds `python -m bonsai ARGV` takes with `checkout` first on the path (fails loudly on a bad exit)."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    began = time.perf_counter()
    # run from the checkout: `python -m` puts the current directory first on the path, before PYTHONPATH
    done = subprocess.run([sys.executable, "-m", "bonsai", *argv], cwd=checkout, env=env, capture_output=True,
                          text=True, check=False)
    elapsed = time.perf_counter() - began
    if done.returncode not in (0, 3):
        raise SystemExit(f"bonsai {' '.join(argv)} exited {done.returncode}: {done.stderr.strip()}")
    return elapsed


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", action="append", type=lambda text: Path(text).resolve(), default=[],
                        help="another copy of the code to measure too (repeatable)")
    parser.add_argument("--grammar", default=str(ROOT / "grammars" / "json.lark"))
    parser.add_argument("--target", default=TARGET)
    parser.add_argument("--bounds", default="3,3,3")
    parser.add_argument("--node-trials", default="100")
    parser.add_argument("--count", default="2000", help="inputs for the sample --out figure")
    args = parser.parse_args()
    args.grammar = str(Path(args.grammar).resolve())
    print(f"lattice: {args.grammar} at {args.bounds}, {args.node_trials} trials per node, target {args.target}")
    with tempfile.TemporaryDirectory(prefix="bonsai-resume-") as scratch:
        for k, checkout in enumerate([ROOT, *args.checkout]):
            label = "this checkout" if checkout == ROOT else str(checkout)
            out = Path(scratch) / f"lattice{k}"  # each checkout its own lattice: record formats may differ
            run = ["run", args.grammar, "--target", args.target, "--bounds", args.bounds,
                   "--node-trials", args.node_trials, "--out", str(out)]
            print(f"{label}: full run (1 worker) {timed(checkout, run):.2f} s")
            for workers in ("1", "2"):
                seconds = timed(checkout, [*run, "--workers", workers])
                print(f"{label}: resume of the finished lattice ({workers} worker(s)) {seconds:.2f} s")
            sample = ["sample", args.grammar, "--bounds", args.bounds, "--count", args.count]
            to_stdout = timed(checkout, sample)
            folder = Path(scratch) / f"sample{k}"
            to_files = timed(checkout, [*sample, "--out", str(folder)])
            shutil.rmtree(folder)
            print(f"{label}: sample {args.count} inputs to stdout {to_stdout:.2f} s, with --out {to_files:.2f} s")

if __name__ == "__main__":
    main()
