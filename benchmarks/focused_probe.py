"""The focused probe's speed-up: a probed run at every site vs at the open sites only, at the end of a campaign.

For each target, a timed mutation-guided campaign (`mu2py fuzz T --time T --seed S --no-judge`)
leaves a corpus; its mutants are *closed* as the campaign closes them (killed, or infected by a
saved input).  Each saved input is then run, in one process, on the fully probed original and
on a copy probed at the open sites only (`FocusedProbe`), and the two mean times per run are
printed with their ratio, next to the campaign's own count of focused copies built.

Usage: python benchmarks/focused_probe.py [--time 30] [--seed 1] [--targets json jmespath tinycss2 chocopy]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from equal_time import TARGETS  # noqa: E402

from mu2py.engine.runs import run  # noqa: E402
from mu2py.feedback.focus import FocusedProbe  # noqa: E402
from mu2py.inputs.generators import source_for  # noqa: E402
from mu2py.mutants.catalog import Program  # noqa: E402
from mu2py.target.modules import resolve_target  # noqa: E402

ROUNDS = 5


def _mean_run(fn: Any, recorder: Any, values: list[Any]) -> float:
    """Mean seconds of one probed run over `values` (ROUNDS passes)."""
    start = time.perf_counter()
    for _ in range(ROUNDS):
        for value in values:
            recorder.reset()
            run(fn, value, None)
            recorder.finish()
    return (time.perf_counter() - start) / (ROUNDS * len(values))


def measure(spec: str, seconds: float, seed: int, out: Path) -> str:
    """One target's line: campaign, closed mutants, open sites, full vs focused probed-run time."""
    proc = subprocess.run([sys.executable, "-m", "mu2py", "fuzz", spec, "--time", f"{seconds}s", "--seed", str(seed),
                           "--out", str(out), "--quiet", "--no-judge"], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode not in (0, 3):
        raise SystemExit(f"fuzz failed: {proc.stderr[-2000:]}")
    stats = json.loads((out / "state.json").read_text())["stats"]
    target = resolve_target(spec)
    program = Program(target)
    source = source_for(target.driver.source)
    rng = random.Random(0)
    values = []
    for path in sorted((out / "corpus").glob("*.bin")):
        decoded = source.decode(source.from_bytes(path.read_bytes()), rng)
        if decoded is not None:
            values.append(decoded.value)
    killed = {m["id"] for m in json.loads((out / "mutants.json").read_text())["mutants"] if m["status"] == "killed"}
    closed = {i for i, m in enumerate(program.mutants) if m.id in killed}
    fn, recorder = program.probed()
    for value in values:  # what the saved inputs infect is closed, as in the campaign
        recorder.reset()
        run(fn, value, None)
        recorder.finish()
        closed |= recorder.infected
    focus = FocusedProbe(program, started=float("-inf"))  # the end of a campaign: a rebuild is affordable
    focus.refocus(closed)
    focused = focus.probe or (fn, recorder)
    full_s = _mean_run(fn, recorder, values)
    focus_s = _mean_run(*focused, values)
    return (f"{spec}: {len(values)} inputs, {len(closed)}/{len(program.mutants)} mutants closed, "
            f"{len(focus.probed)}/{len(focus.sites_of)} sites probed; probed run {1e3 * full_s:.3f} ms full vs "
            f"{1e3 * focus_s:.3f} ms focused ({full_s / focus_s:.2f}x); the campaign built "
            f"{stats.get('probe_builds', 0)} focused copies in {stats['trials']} trials")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--time", type=float, default=30.0, help="seconds per campaign (30)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--targets", nargs="+", default=["json", "jmespath", "tinycss2", "chocopy"], choices=TARGETS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.targets:
            print(measure(TARGETS[name], args.time, args.seed, Path(scratch) / name), flush=True)


if __name__ == "__main__":
    main()
