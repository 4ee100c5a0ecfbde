"""Mutation vs coverage guidance at equal wall time, each corpus judged by the same `mu2py mutate`.

For every target and seed, `mu2py fuzz TARGET --time T --seed S` runs once with the default
(mutation) guidance and once with `--guidance coverage`, side by side (two processes at once,
so both sides see the same load), then `mu2py mutate TARGET --input OUT/corpus --json` judges
each corpus.  Prints one line per (target, seed, variant): mutants killed, trials, trials/s;
then per target the totals, the kill ratio and the mutation/coverage trials/s ratio.

Usage: python benchmarks/equal_time.py [--time 60] [--seeds 1 2 3] [--targets json toml chocopy sqlparse]
       [--variant ARGS]   (extra `fuzz` arguments for the mutation side, e.g. "--filter least-executed:10")
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TARGETS = {
    "json": "targets.json_decoder.driver:parse",
    "toml": "targets.toml.driver:parse",
    "chocopy": "targets.chocopy.fuzzing:check",
    "sqlparse": "targets.sqlparse.driver:parse",  # pip install '.[bench]'
}
ROOT = Path(__file__).resolve().parents[1]


def _mu2py(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mu2py", *args], cwd=ROOT, capture_output=True, text=True)


def campaign(spec: str, seed: int, seconds: float, out: Path, extra: list[str]) -> dict[str, float]:
    """One fuzzing campaign and its judged corpus: kills, trials, trials/s."""
    proc = _mu2py("fuzz", spec, "--time", f"{seconds}s", "--seed", str(seed), "--out", str(out), "--quiet", *extra)
    if proc.returncode != 0:
        raise SystemExit(f"fuzz failed: {proc.stderr[-2000:]}")
    stats = json.loads((out / "state.json").read_text())["stats"]
    judged = _mu2py("mutate", spec, "--input", str(out / "corpus"), "--json")
    if judged.returncode != 0:
        raise SystemExit(f"mutate failed: {judged.stderr[-2000:]}")
    summary = json.loads(judged.stdout)["summary"]
    return {"killed": summary["killed"], "total": summary["total"], "trials": stats["trials"],
            "per_s": stats["trials"] / max(stats["elapsed"], 1e-9),
            "inputs": len(json.loads((out / "corpus" / "index.json").read_text()))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--time", type=float, default=60.0, help="seconds per campaign (60)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--targets", nargs="+", default=["json", "toml", "chocopy", "sqlparse"], choices=TARGETS)
    parser.add_argument("--variant", default="", help="extra fuzz arguments for the mutation-guided side")
    args = parser.parse_args()
    extra = shlex.split(args.variant)
    label = f"mutation {args.variant}".strip()
    with tempfile.TemporaryDirectory(prefix="equal_time_") as scratch:
        for name in args.targets:
            spec = TARGETS[name]
            totals = {"mutation": [0, 0.0], "coverage": [0, 0.0]}
            for seed in args.seeds:
                base = Path(scratch) / f"{name}-{seed}"
                with ThreadPoolExecutor(2) as pool:
                    mutation = pool.submit(campaign, spec, seed, args.time, base / "mutation", extra)
                    coverage = pool.submit(campaign, spec, seed, args.time, base / "coverage",
                                           ["--guidance", "coverage"])
                    rows = {"mutation": mutation.result(), "coverage": coverage.result()}
                for side, row in rows.items():
                    totals[side][0] += row["killed"]
                    totals[side][1] += row["per_s"]
                    shown = label if side == "mutation" else "coverage"
                    print(f"{name} seed={seed} {shown}: killed {row['killed']}/{row['total']}, "
                          f"trials {row['trials']} ({row['per_s']:.1f}/s), corpus {row['inputs']}", flush=True)
            (mk, ms), (ck, cs) = totals["mutation"], totals["coverage"]
            print(f"{name} at {args.time:g}s x {len(args.seeds)} seeds: kills {label} {mk} vs coverage {ck} "
                  f"({mk / max(ck, 1):.3f}x, {100 * (mk - ck) / max(ck, 1):+.1f}%); trials/s ratio "
                  f"{ms / max(cs, 1e-9):.3f}", flush=True)


if __name__ == "__main__":
    main()
