"""A suite whose tests and mutants start processes and leave them running: none outlives `mu2py score`.

tests/data/score_strays: every call starts `sleep 300` and notes its pid in $STRAY_PIDS; one test never ends its
helper, and three mutants hang with theirs running (timeouts); `--import-time fresh` judges the module constant's
mutants in fresh pytest sessions forked by the fork server.  Run as a user runs it, in a new interpreter.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import no_strays

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "score_strays"


def test_no_process_a_test_or_a_mutant_started_outlives_the_score(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(SAMPLE, root)
    pids = tmp_path / "pids.txt"
    proc = subprocess.run([sys.executable, "-m", "mu2py", "score", "--json", "--no-cache", "--workers", "2",
                           "--import-time", "fresh"], cwd=root, env=dict(os.environ, STRAY_PIDS=str(pids)),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    started = {int(line) for line in pids.read_text().split()}
    no_strays(started)
    assert len(started) > 20  # every test run of the baseline and of the mutants started one
    by_line = {(m["line"], m["operator"], m["mutated"]): m for m in report["mutants"]}
    assert [by_line[(21, op, new)]["status"] for op, new in
            (("aug_to_assign", "n = 1"), ("aug_assign", "n += 1"), ("constant", "0"))] == ["timeout"] * 3
    constant = by_line[(6, "assign_value", "SECONDS = None")]
    assert (constant["mode"], constant["status"]) == ("isolated", "killed")
