"""Mutation vs coverage guidance at equal wall time, each corpus judged by the same `mu2py mutate`.

For every target and seed, `mu2py fuzz TARGET --time T --seed S` runs once with the default
(mutation) guidance and once with `--guidance coverage`, side by side (two processes at once,
so both sides see the same load), then `mu2py mutate TARGET --input OUT/corpus --json` judges
each corpus.  Prints one line per (target, seed, variant): mutants killed, trials, trials/s (all, and those that ran
the program: a child that decodes to an input tried already runs nothing, and a converged corpus's
havoc makes many); then per target the totals, the kill ratio and the mutation/coverage trials/s ratios, and the
ceiling: the mutants some campaign's corpus killed (the killable ones known), and the kill ratio
a variant would show if each of its corpora killed all of them.

Usage: python benchmarks/equal_time.py [--time 60] [--seeds 1 2 3] [--targets json toml chocopy sqlparse]
       [--variants default coverage split least-executed:10] [--keep DIR]
A target is a name below or any `module:function` driver (importable from the repository root, or
from the current directory, which is put on PYTHONPATH): code the project was never tuned to.
Variants other than `coverage` are mutation-guided: `default` is plain `mu2py fuzz`, `split` adds
`--split`, `share:F` adds `--mutant-share F`, `least-executed:K` and `random:K` add `--filter`.  Campaigns
run two at a time.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TARGETS = {
    "json": "targets.json_decoder.driver:parse",
    "toml": "targets.toml.driver:parse",
    "chocopy": "targets.chocopy.fuzzing:check",
    "urlparse": "targets.urlparse.driver:split",
    "sqlparse": "targets.sqlparse.driver:parse",  # pip install '.[bench]'
    "jmespath": "targets.jmespath.driver:search",  # pip install '.[bench]'
    "tinycss2": "targets.tinycss2.driver:parse",  # pip install '.[bench]'
}
ROOT = Path(__file__).resolve().parents[1]


def _mu2py(*args: str) -> subprocess.CompletedProcess[str]:
    # the user's own drivers are found from the directory the benchmark was started in
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "mu2py", *args], cwd=ROOT, capture_output=True, text=True, env=env)


def campaign(spec: str, seed: int, seconds: float, out: Path, extra: list[str]) -> dict[str, float]:
    """One fuzzing campaign and its judged corpus: kills, trials, trials/s."""
    proc = _mu2py("fuzz", spec, "--time", f"{seconds}s", "--seed", str(seed), "--out", str(out), "--quiet",
                  "--no-judge", *extra)
    if proc.returncode not in (0, 3):  # 3: failures found in the original (the corpus is complete all the same)
        raise SystemExit(f"fuzz failed: {proc.stderr[-2000:]}")
    stats = json.loads((out / "state.json").read_text())["stats"]
    judged = _mu2py("mutate", spec, "--input", str(out / "corpus"), "--json")
    if judged.returncode != 0:
        raise SystemExit(f"mutate failed: {judged.stderr[-2000:]}")
    report = json.loads(judged.stdout)
    summary = report["summary"]
    return {"killed": summary["killed"], "total": summary["total"], "trials": stats["trials"],
            # drawing a child (havoc, decoding) per trial: it grows with the corpus's inputs, which differ by guidance
            "input_us": 1e6 * stats["seconds_input"] / max(stats["trials"], 1),
            "share": stats["seconds_analysis"] / max(stats["elapsed"], 1e-9),
            "ids": {m["id"] for m in report["mutants"] if m["status"] == "killed"},
            "per_s": stats["trials"] / max(stats["elapsed"], 1e-9),
            # trials that ran the program (`valid`): a duplicate (a child decoding to an input tried already) or a
            # rejected one runs nothing, and a converged corpus makes many (see the module docstring).  Not trials
            # minus duplicates minus `predicted`: predicted trials are duplicates or rejections already counted
            "ran_per_s": stats["valid"] / max(stats["elapsed"], 1e-9),
            "inputs": len(json.loads((out / "corpus" / "index.json").read_text()))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--time", type=float, default=60.0, help="seconds per campaign (60)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--targets", nargs="+", default=["json", "toml", "chocopy", "urlparse", "jmespath", "tinycss2"],
                        help=f"names ({', '.join(TARGETS)}) or module:function drivers")
    parser.add_argument("--variants", nargs="+", default=["default", "coverage"])
    parser.add_argument("--keep", type=Path, help="keep every campaign's output folder here (default: deleted)")
    args = parser.parse_args()
    unknown = [t for t in args.targets if t not in TARGETS and ":" not in t]
    if unknown:
        parser.error(f"unknown target(s) {', '.join(unknown)}: a name ({', '.join(TARGETS)}) or module:function")
    variants = list(dict.fromkeys(["coverage", *args.variants]))
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    with contextlib.nullcontext(str(args.keep)) if args.keep else tempfile.TemporaryDirectory(prefix="equal_time_") \
            as scratch:
        for name in args.targets:
            spec = TARGETS.get(name, name)
            totals = {v: [0, 0.0, 0.0] for v in variants}
            union: set[str] = set()  # mutants some campaign's corpus kills: the killable ones known
            for seed in args.seeds:
                base = Path(scratch) / f"{name.replace(':', '.')}-{seed}"
                with ThreadPoolExecutor(2) as pool:
                    futures = {v: pool.submit(campaign, spec, seed, args.time, base / v.replace(":", "-"),
                                              fuzz_args(v)) for v in variants}
                    rows = {v: f.result() for v, f in futures.items()}
                for variant, row in rows.items():
                    totals[variant][0] += row["killed"]
                    totals[variant][1] += row["per_s"]
                    totals[variant][2] += row["ran_per_s"]
                    union |= row["ids"]
                    print(f"{name} seed={seed} {variant}: killed {row['killed']}/{row['total']}, "
                          f"trials {row['trials']} ({row['per_s']:.1f}/s, {row['ran_per_s']:.1f}/s ran the program), "
                          f"corpus {row['inputs']}, drawing an input "
                          f"{row['input_us']:.0f} us/trial, mutation analysis {row['share']:.0%} of the time",
                          flush=True)
            ck, cs, cr = totals["coverage"]
            # the most any variant could show: every seed's corpus killing every mutant some campaign killed
            ceiling = len(union) * len(args.seeds)
            print(f"{name}: {len(union)} mutants killed by some corpus; coverage corpora kill {ck / ceiling:.1%} "
                  f"of them: a ratio above {ceiling / max(ck, 1):.3f}x is out of reach", flush=True)
            for variant in variants[1:]:
                mk, ms, mr = totals[variant]
                print(f"{name} at {args.time:g}s x {len(args.seeds)} seeds: kills {variant} {mk} vs coverage {ck} "
                      f"({mk / max(ck, 1):.3f}x, {100 * (mk - ck) / max(ck, 1):+.1f}%); trials/s ratio "
                      f"{ms / max(cs, 1e-9):.3f}, of trials that ran the program {mr / max(cr, 1e-9):.3f}", flush=True)


def fuzz_args(variant: str) -> list[str]:
    """The `mu2py fuzz` arguments of a variant name (see the module docstring)."""
    if variant == "coverage":
        return ["--guidance", "coverage"]
    if variant == "default":
        return []
    if variant == "split":
        return ["--split"]
    if variant.startswith("share:"):
        return ["--mutant-share", variant.removeprefix("share:")]
    return ["--filter", variant]


if __name__ == "__main__":
    main()
