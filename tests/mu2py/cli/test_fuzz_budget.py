"""`fuzz --time` is all the command takes: loading, the loop, the final judging and the outputs fit in it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

BUDGET = 6.0  # the interpreter's start counts: under a loaded CI it took most of 4 s
# the suite runs on a loaded 2-core CI (two suites at once, and test processes of their own): the interpreter's
# start and exit are slower there than anything the budget decides; the budget's own clock is checked exactly below
TOLERANCE = 6.0


def test_a_timed_fuzz_ends_within_its_budget_with_its_outputs_written(tmp_path: Path) -> None:
    out = tmp_path / "run"
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "mu2py", "fuzz", "targets.insertion_sort.driver:sort",
                           "--time", f"{BUDGET:g}s", "--seed", "1", "--out", str(out), "--quiet"],
                          capture_output=True, text=True, timeout=120)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert took < BUDGET + TOLERANCE, f"took {took:.1f} s"
    report = json.loads((out / "mutants.json").read_text())
    index = json.loads((out / "corpus" / "index.json").read_text())
    assert report["summary"]["total"] > 0 and index and all(e["judged"] for e in index)
    assert json.loads((out / "state.json").read_text())["stats"]["elapsed"] <= BUDGET
