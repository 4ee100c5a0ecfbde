"""The fuzzing loop's own speed against atheris on the standard library's pure-Python JSON decoder.

Run from the repository root: `python benchmarks/loop_vs_atheris.py [--seconds 20] [--seed 1]`.

In one run, each for the same wall time, one after the other on this machine:

* atheris (libFuzzer's loop in C): `FuzzedDataProvider.ConsumeUnicodeNoSurrogates(64)` into
  `JSONDecoder.decode` with the pure-Python scanner, in a subprocess with `-max_total_time`;
  its execs/s are libFuzzer's own final `average_exec_per_sec`.
* `mu2py fuzz targets.json_decoder.driver:parse_text --guidance coverage`: the same decoder on
  what atheris' harness gives it, unstructured text of up to 64 characters (`st.text(max_size=64)`):
  the loop against the loop.
* `mu2py fuzz targets.json_decoder.driver:parse --guidance coverage` (a subprocess; the same
  decoder, structured inputs drawn from the driver's Hypothesis strategy: JSON documents, some
  damaged), where decoding the strategy costs most of a trial.  Trials/s and the per-trial
  cost by phase come from each campaign's state.json.
* mu2py's loop with the bonsai bounded generator for grammars/json.lark as input source (one
  lattice node, the same loop `bonsai run` runs at every node), and that generator's speed
  alone (generation only, no loop) for contrast.

atheris is in the `bench` extra; without it the atheris column is skipped with a message.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET = "targets.json_decoder.driver:parse"
TEXT_TARGET = "targets.json_decoder.driver:parse_text"
GRAMMAR = ROOT / "grammars" / "json.lark"

ATHERIS_HARNESS = textwrap.dedent('''
    import sys

    import atheris

    with atheris.instrument_imports():
        from json import decoder, scanner


    def test_one_input(data):
        text = atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(64)
        dec = decoder.JSONDecoder()
        dec.parse_string = decoder.py_scanstring
        dec.scan_once = scanner.py_make_scanner(dec)
        try:
            dec.decode(text)
        except decoder.JSONDecodeError:
            pass


    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
''')

# (label, how to get its seconds from state.json's stats): the loop's phases, in trial order
PHASES: list[tuple[str, Any]] = [
    ("input mutation (havoc on choices)", lambda s: s.get("seconds_mutate")),
    ("decoding (strategy / generator)", lambda s: _minus(s.get("seconds_input"), s.get("seconds_mutate"))),
    ("running the driver", lambda s: _minus(s.get("seconds_original"), s.get("seconds_coverage"))),
    ("coverage collection", lambda s: s.get("seconds_coverage")),
    ("corpus bookkeeping", lambda s: s.get("seconds_corpus")),
    ("status output (checkpoints)", lambda s: s.get("seconds_status")),
]


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _env() -> dict[str, str]:
    """The subprocesses import this checkout first (as the README's PYTHONPATH=$PWD does)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def run_atheris(seconds: float, seed: int, workdir: Path) -> dict[str, float] | None:
    """atheris on the decoder for `seconds`; None (with a message) when atheris is not installed."""
    if importlib.util.find_spec("atheris") is None:
        print("atheris is not installed (pip install atheris, or the bench extra): atheris figures skipped\n")
        return None
    harness = workdir / "atheris_json.py"
    harness.write_text(ATHERIS_HARNESS)
    corpus = workdir / "atheris_corpus"
    corpus.mkdir()
    proc = subprocess.run(
        [sys.executable, str(harness), str(corpus), f"-max_total_time={int(seconds)}", f"-seed={seed}",
         "-print_final_stats=1"],
        cwd=workdir, capture_output=True, text=True, env=_env(), timeout=seconds * 4 + 120,
    )
    stats = dict(re.findall(r"stat::(\w+):\s+([\d.]+)", proc.stderr))
    if "average_exec_per_sec" not in stats:
        raise SystemExit(f"atheris gave no final stats (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    cov = re.findall(r"cov: (\d+)", proc.stderr)
    return {"execs": float(stats["number_of_executed_units"]), "per_sec": float(stats["average_exec_per_sec"]),
            "corpus": float(stats.get("new_units_added", 0)), "cov": float(cov[-1]) if cov else 0.0}


def run_mu2py(seconds: float, seed: int, out: Path, target: str = TARGET) -> dict[str, Any]:
    """`mu2py fuzz --guidance coverage` on the decoder for `seconds`; its state.json stats."""
    proc = subprocess.run(
        [sys.executable, "-m", "mu2py", "fuzz", target, "--guidance", "coverage", "--time", f"{seconds}s",
         "--seed", str(seed), "--quiet", "--no-judge", "--out", str(out)],
        capture_output=True, text=True, env=_env(), timeout=seconds * 4 + 300,
    )
    if proc.returncode not in (0, 3):  # 3: the decoder failed on some inputs (pure-Python json has such bugs)
        raise SystemExit(f"mu2py fuzz failed ({proc.returncode}): {proc.stderr[-2000:]}")
    stats = json.loads((out / "state.json").read_text())["stats"]
    stats["corpus"] = len(list((out / "corpus").glob("*.bin")))
    return stats


BONSAI_NODE = textwrap.dedent('''
    import json, sys
    from pathlib import Path
    from bonsai.node import run_node
    grammar, target, bounds, seconds, seed, out = sys.argv[1:]
    stats, corpus = run_node(grammar, target, tuple(map(int, bounds.split(","))), [], None, float(seconds),
                             int(seed), Path(out))
    print(json.dumps({"corpus": stats.inputs, "coverage": stats.coverage}))
''')


def run_bonsai(seconds: float, seed: int, bounds: str, out: Path) -> dict[str, Any]:
    """One bonsai lattice node F(bounds), no seeds, for `seconds`: the loop with the bounded generator as source."""
    proc = subprocess.run(
        [sys.executable, "-c", BONSAI_NODE, str(GRAMMAR), TARGET, bounds, str(seconds), str(seed), str(out)],
        check=True, capture_output=True, text=True, env=_env(), timeout=seconds * 4 + 300,
    )
    node = out / "nodes" / bounds.replace(",", "_")
    stats = json.loads((node / "state.json").read_text())["stats"]
    stats["corpus"] = json.loads(proc.stdout.strip().splitlines()[-1])["corpus"]
    return stats


def generation_only(seconds: float, seed: int, bounds: str) -> float:
    """Inputs/s of the bounded generator alone (decode + render, nothing run)."""
    from bonsai.bounds import Bounds
    from bonsai.generator import BoundedGenerator
    from bonsai.grammar import load_grammar

    gen = BoundedGenerator(load_grammar(GRAMMAR), Bounds(*map(int, bounds.split(","))))
    rng = random.Random(seed)
    for _ in range(50):
        gen.generate(rng)
    count, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        for _ in range(50):
            gen.generate(rng)
        count += 50
    return count / (time.perf_counter() - began)


def print_phases(name: str, stats: dict[str, Any]) -> None:
    """Per-trial microseconds and share of the elapsed time of each phase of the loop."""
    trials, elapsed = stats["trials"], stats["elapsed"]
    print(f"{name}: per-trial cost by phase ({trials} trials in {elapsed:.1f} s)")
    rows = [(label, get(stats)) for label, get in PHASES]
    if rows[0][1] is None:  # a version without the finer split: its two coarse phases
        rows = [("input (havoc + decoding)", stats.get("seconds_input")),
                ("original (run + coverage)", stats.get("seconds_original"))]
    accounted = 0.0
    for label, seconds in rows:
        if seconds is None:
            continue
        accounted += seconds
        print(f"  {label:<36}{seconds / trials * 1e6:>10.1f} us/trial {seconds / elapsed:>8.1%}")
    rest = elapsed - accounted
    print(f"  {'loop overhead (the rest)':<36}{rest / trials * 1e6:>10.1f} us/trial {rest / elapsed:>8.1%}")
    print(f"  {'total':<36}{elapsed / trials * 1e6:>10.1f} us/trial")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="wall time of each fuzzer (default 20)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bounds", default="3,3,3", help="bonsai node bounds M,N,D (default 3,3,3)")
    args = parser.parse_args()
    print(f"json decoder (pure-Python scanner), {args.seconds:g} s each, seed {args.seed}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}\n")
    with tempfile.TemporaryDirectory(prefix="loop_vs_atheris_") as tmp:
        work = Path(tmp)
        ath = run_atheris(args.seconds, args.seed, work)
        text = run_mu2py(args.seconds, args.seed, work / "text", TEXT_TARGET)
        mu = run_mu2py(args.seconds, args.seed, work / "mu2py")
        bon = run_bonsai(args.seconds, args.seed, args.bounds, work / "bonsai")
    gen_rate = generation_only(min(args.seconds, 5.0), args.seed, args.bounds)
    mu_rate = mu["trials"] / mu["elapsed"]
    bon_rate = bon["trials"] / bon["elapsed"]

    print(f"{'fuzzer':<44}{'execs/s':>10}{'ratio':>9}{'execs':>10}{'corpus':>8}")
    if ath is not None:
        print(f"{'atheris (libFuzzer)':<44}{ath['per_sec']:>10.0f}{1.0:>8.2f}x{ath['execs']:>10.0f}"
              f"{ath['corpus']:>8.0f}")
    text_rate = text["trials"] / text["elapsed"]
    for label, stats, rate in (("mu2py fuzz --guidance coverage, text", text, text_rate),
                               ("mu2py fuzz --guidance coverage, JSON strategy", mu, mu_rate),
                               (f"mu2py loop, bonsai generator {args.bounds}", bon, bon_rate)):
        ratio = f"{rate / ath['per_sec']:>8.3f}x" if ath else f"{'-':>9}"
        print(f"{label:<44}{rate:>10.0f}{ratio}{stats['trials']:>10}{stats['corpus']:>8}")
    print(f"{'bonsai generator alone (no loop)':<44}{gen_rate:>10.0f}")
    print()
    print_phases("mu2py fuzz --guidance coverage, text (atheris' input)", text)
    print()
    print_phases("mu2py fuzz --guidance coverage, JSON strategy", mu)
    print()
    print_phases(f"mu2py loop with the bonsai generator {args.bounds}", bon)
    if ath is not None:
        decode = PHASES[1][1](mu)
        if decode is not None:
            cap = mu["trials"] / decode
            print(f"\nDecoding alone caps `mu2py fuzz` at {cap:.0f} trials/s = {cap / ath['per_sec']:.3f}x atheris; "
                  f"everything but decoding at {mu['trials'] / (mu['elapsed'] - decode):.0f} trials/s = "
                  f"{mu['trials'] / (mu['elapsed'] - decode) / ath['per_sec']:.3f}x atheris.")


if __name__ == "__main__":
    main()
