"""`mu2py kill --cluster` on a real Dask cluster (a `dask scheduler` and two `dask worker` processes on loopback):
the same tests written, the same scores and kills as a local run with the same seed and trials.

Both scores of the suite run on the cluster's workers, in the copy of the project the client shipped; the
fuzzing and the verification stay on the client.  The cluster is `dask_cluster` (tests/conftest.py).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

KILL_SAMPLE = Path(__file__).resolve().parents[2] / "data" / "kill_sample"

pytestmark = pytest.mark.skipif(sys.version_info < (3, 13), reason="kill on a real cluster once, on 3.13: CI's time "
                                "(the 3.11 suite, run side by side with it, scores on the cluster and runs kill "
                                "end to end)")


def _kill(project: Path, out: str, *how: str) -> tuple[dict, str]:
    """`mu2py kill` on the sample with a fixed budget and seed: its report and what it printed."""
    proc = subprocess.run([sys.executable, "-m", "mu2py", "kill", "--paths", "kill_pkg", "--tests", "tests",
                           "--trials", "100", "--seed", "3", "--no-cache", "--out", out, *how],
                          cwd=project, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-2000:]
    return json.loads((project / out / "report.json").read_text()), proc.stdout + proc.stderr


def test_kill_on_a_cluster_writes_the_tests_a_local_run_writes(dask_cluster: str, tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(KILL_SAMPLE, project)
    local, _ = _kill(project, "local")
    remote, printed = _kill(project, "remote", "--cluster", dask_cluster)
    assert printed.count("Dask dashboard") == 1  # told once, with the first score
    assert remote["scores"] == local["scores"] and remote["killed_by_tests"] == local["killed_by_tests"]
    assert remote["scores"]["after"]["all"]["detected"] > remote["scores"]["before"]["all"]["detected"]
    written = sorted(p.name for p in (project / "local" / "tests").glob("*.py"))
    assert written and written == sorted(p.name for p in (project / "remote" / "tests").glob("*.py"))
    for name in written:  # the header quotes the command, which names no output folder: the files are equal
        assert (project / "remote" / "tests" / name).read_text() == (project / "local" / "tests" / name).read_text()
