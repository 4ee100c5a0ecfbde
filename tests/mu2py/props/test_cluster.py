"""`mu2py props --cluster` on a real Dask cluster (a `dask scheduler` and two `dask worker` processes on loopback):
the same report as a local run with the same seed and trials, and the same kills saved in the client's project.

The workers run the tests in the copy of the project the client shipped; the kills they find travel back and the
client saves them into its own example database (`.hypothesis/examples`), where a plain `pytest` run replays
them.  The cluster is `dask_cluster` (tests/conftest.py), started after this folder's conftest removed the CI
variables (its fixture is autouse), so the workers' Hypothesis keeps its database as the client's does.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2] / "data" / "props_project"
WEAK = "test_frames.py::test_payload_size_in_range"

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 13), reason="props on a real cluster once, on 3.11: CI's time "
                                "(the 3.13 suite, run side by side with it, runs kill on the cluster)")


def _props(root: Path, *how: str) -> dict:
    """`mu2py props --json` on the weak property (300 trials, seed 1), its timings left out and `root` as ROOT."""
    proc = subprocess.run([sys.executable, "-m", "mu2py", "props", WEAK, "--trials", "300", "--seed", "1", "--json",
                           *how], cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)  # stdout is the report and nothing else: the dashboard link is on stderr
    assert ("Dask dashboard" in proc.stderr) == bool(how)
    for entry in report["properties"]:
        entry.pop("seconds")
    report["summary"].pop("seconds")
    return json.loads(json.dumps(report).replace(str(root), "ROOT"))  # the client's paths, as a local run names them


def _examples(root: Path) -> dict[str, bytes]:
    folder = root / ".hypothesis" / "examples"
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_props_on_a_cluster_reports_and_saves_what_a_local_run_does(dask_cluster: str, tmp_path: Path) -> None:
    local, remote = tmp_path / "local", tmp_path / "remote"
    for root in (local, remote):
        shutil.copytree(PROJECT, root, ignore=shutil.ignore_patterns(".hypothesis"))
    expected = _props(local)
    report = _props(remote, "--cluster", dask_cluster)
    assert report == expected
    [weak] = report["properties"]
    assert weak["new_kills"] and all(kill["saved"] for kill in weak["new_kills"])
    # saved by the client into its project, as the local run saved them: the same keys and values
    assert _examples(remote) == _examples(local) and _examples(remote)
