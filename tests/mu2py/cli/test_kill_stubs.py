"""`mu2py kill` on a package typed only by a PEP 561 stub package, with a module-level lambda (issue 39)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mu2py

# kill end to end scores the suite twice: the stub lookup is the same code on every Python, so once, on 3.11
pytestmark = pytest.mark.skipif(sys.version_info >= (3, 13), reason="kill end to end once, on 3.11: CI's time")

PROJECT = Path(__file__).resolve().parents[2] / "data" / "stubs_project"
WORKTREE = str(Path(mu2py.__file__).resolve().parents[1])


def test_kill_fuzzes_functions_typed_by_a_stub_package_and_a_lambda(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    # the mu2py under test (a worktree's, not the installed one), and nothing else of the caller's path
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": WORKTREE}
    proc = subprocess.run([sys.executable, "-m", "mu2py", "kill", "--paths", "pep561_pkg", "--tests", "tests",
                           "--trials", "20", "--seed", "0", "--out", "out"], cwd=root, capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    report = json.loads((root / "out" / "report.json").read_text())
    # none has an inline hint and the suite never calls them: pep561_pkg-stubs alone types them
    functions = {f["function"]: f for f in report["functions"]}
    assert set(functions) == {"pep561_pkg.units.clamp", "pep561_pkg.units.percent", "pep561_pkg.version"}
    assert all(f["error"] is None and f["killed"] for f in functions.values()), functions
    # `percent = lambda part, whole: ...` is aimed at as `percent`, not left out as "in a nested class"
    assert not report["left_out"]
    written = {name for module in report["tests"].values() for name in module["tests"]}
    assert {"test_clamp_1", "test_percent_1", "test_version_1"} <= written
    source = (root / report["tests"]["pep561_pkg.units"]["file"]).read_text()
    assert "from pep561_pkg.units import clamp, percent" in source and "assert percent(part=" in source
