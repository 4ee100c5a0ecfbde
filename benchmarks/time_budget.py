"""Whether `--time` is all a command takes: `fuzz` (1 and 2 workers), `kill` and `corpus`, wall clock against budget.

Each command runs alone, one after the other, on code bundled with the repository: `fuzz` on a driver of
`targets/` (default the json decoder), `kill` and `corpus` in a copy of `tests/data/kill_sample` (nothing is
written into the checkout; their outputs go into the copy, their default place).  The wall time counts from
just before the interpreter is started to its exit, so the interpreter's own start-up, loading the target, the
final judging and writing the outputs are all in it; the CPU time is that of the command's processes
(`resource.getrusage(RUSAGE_CHILDREN)`, workers and mutant hosts included once they are reaped).  Prints one
line per command: budget, wall, overrun (wall - budget) and CPU; the exit status is 1 when any command overran
its budget by more than `--slack` seconds (default 2).

Usage: python benchmarks/time_budget.py [--seconds 10] [--only fuzz fuzz-w2 kill corpus]
       [--fuzz-target targets.json_decoder.driver:parse] [--slack 2] [--keep DIR]
Run it from anywhere (the repository is found from this file), on a quiet machine: the goal is the budget on a
machine busy with nothing else.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "data" / "kill_sample"
COMMANDS = ("fuzz", "fuzz-w2", "kill", "corpus")


def command(name: str, seconds: float, work: Path, fuzz_target: str) -> tuple[list[str], Path]:
    """The mu2py arguments of one command, and the directory it runs in."""
    budget = ["--time", f"{seconds:g}s", "--seed", "0"]
    if name in ("fuzz", "fuzz-w2"):
        workers = ["--workers", "2"] if name == "fuzz-w2" else []
        return ["fuzz", fuzz_target, *budget, *workers, "--quiet", "--out", str(work / name)], ROOT
    project = work / f"{name}-project"
    shutil.copytree(SAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    # run in the project, the outputs in it too, as `mu2py kill --paths src/pkg --tests tests` is run on one's own
    if name == "kill":
        return ["kill", "--paths", "kill_pkg/calc.py", "--tests", "tests", *budget, "--out", "mu2py-kill"], project
    return ["corpus", "kill_pkg.calc", *budget, "--out", "mu2py-corpus"], project


def cpu_children() -> float:
    """User + system seconds of the reaped children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(name: str, seconds: float, work: Path, fuzz_target: str) -> tuple[float, float, int, str]:
    """Wall and CPU seconds of one command, its exit status and the end of its stderr."""
    args, cwd = command(name, seconds, work, fuzz_target)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    cpu = cpu_children()
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "mu2py", *args], cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.monotonic() - started
    return wall, cpu_children() - cpu, done.returncode, done.stderr[-1500:]


def main() -> int:
    """Run the commands and print their figures; 1 if one overran by more than the slack."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="the --time budget of each command")
    parser.add_argument("--only", nargs="+", choices=COMMANDS, default=list(COMMANDS))
    parser.add_argument("--fuzz-target", default="targets.json_decoder.driver:parse")
    parser.add_argument("--slack", type=float, default=2.0, help="overrun allowed, seconds")
    parser.add_argument("--keep", type=Path, help="keep the outputs here (default: a temporary folder)")
    options = parser.parse_args()
    print(f"budget {options.seconds:g} s each, load {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores", flush=True)
    overran = False
    with tempfile.TemporaryDirectory() as temp:
        work = options.keep or Path(temp)
        work.mkdir(parents=True, exist_ok=True)
        for name in options.only:
            wall, cpu, status, stderr = measure(name, options.seconds, work, options.fuzz_target)
            over = wall - options.seconds
            bad = over > options.slack
            overran |= bad
            print(f"{name:8} budget {options.seconds:6.1f} s  wall {wall:6.1f} s  overrun {over:+5.1f} s  "
                  f"cpu {cpu:6.1f} s  exit {status}{'  OVER' if bad else ''}", flush=True)
            if status not in (0, 3):
                print(stderr, file=sys.stderr)
    return 1 if overran else 0


if __name__ == "__main__":
    sys.exit(main())
