"""The "CI example" of docs/score.md, run step by step in a small git project: the section fails this test if it drifts.

Steps that install packages or use actions (checkout, artifacts, SARIF upload) are GitHub's part and are
left out; every `run:` step and the baseline command run as written, with `mu2py` being this checkout.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

import mu2py
from tests.mu2py.score.conftest import git, make_calc_project

PAGE = Path(__file__).resolve().parents[3] / "docs" / "score.md"


def _section() -> tuple[dict, str]:
    """The workflow (parsed) and the baseline command of the page's CI example."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("\n## CI example\n", 1)[1].split("\n## ", 1)[0]
    [workflow] = re.findall(r"```yaml\n(.*?)```", section, re.S)
    [command] = re.findall(r"```bash\n(.*?)```", section, re.S)
    return yaml.safe_load(workflow), command.strip()


def _runs(job: dict) -> list[str]:
    return [step["run"] for step in job["steps"] if "run" in step and not step["run"].startswith("pip install")]


@pytest.fixture
def shell(tmp_path: Path):
    """`run(command, root, **env)`: bash -e in `root`, `mu2py` on PATH being this checkout; the completed process."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "mu2py"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mu2py "$@"\n')
    shim.chmod(0o755)
    base = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": str(Path(mu2py.__file__).resolve().parents[1])}

    def run(command: str, root: Path, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-e", "-c", command], cwd=root, env={**base, **env}, capture_output=True,
                              text=True, timeout=300)

    return run


@pytest.mark.skipif(sys.version_info >= (3, 13), reason="the docs' commands are checked once, on 3.11: CI's time")
def test_the_docs_ci_example_runs(tmp_path: Path, shell) -> None:
    workflow, baseline_command = _section()
    jobs = workflow["jobs"]
    assert list(jobs) == ["changed-lines", "shard", "ratchet"] and "--update-baseline" in baseline_command
    root = make_calc_project(tmp_path / "project")
    git(root, "remote", "add", "origin", str(root))

    # once, on main: the baseline, committed
    done = shell(baseline_command, root)
    assert done.returncode == 0, done.stderr
    git(root, "add", "mu2py-baseline.json")
    git(root, "commit", "-qm", "baseline")
    git(root, "fetch", "-q", "origin")

    # a pull request adding a function and its test: only its mutants run, all killed
    git(root, "checkout", "-q", "-b", "feature")
    text = root / "calc" / "text.py"
    text.write_text(text.read_text() + '\n\ndef whisper(s):\n    return s.lower() + "..."\n')
    test = root / "tests" / "test_text.py"
    test.write_text(test.read_text().replace("import shout", "import shout, whisper")
                    + '\n\ndef test_whisper():\n    assert whisper("A") == "a..."\n')
    git(root, "commit", "-qam", "whisper")
    [pr_step] = _runs(jobs["changed-lines"])
    done = shell(pr_step, root, GITHUB_BASE_REF="main")
    assert done.returncode == 0, done.stderr
    cases = ET.parse(root / "mu2py-junit.xml").getroot().findall("./testsuite/testcase")
    assert cases and {c.get("file") for c in cases} == {"calc/text.py"} and "::warning" not in done.stdout
    # the same function with a test that does not check the suffix: annotated survivors, and under 80%
    test.write_text(test.read_text().replace('== "a..."', '.startswith("a")'))
    done = shell(pr_step, root, GITHUB_BASE_REF="main")
    assert done.returncode == 1 and "below --fail-under 80%" in done.stderr
    assert "::warning file=calc/text.py,line=6," in done.stdout

    # on main: the shards, then the merged report against the baseline
    git(root, "checkout", "-q", "--", ".")
    git(root, "checkout", "-q", "main")
    shard_job = jobs["shard"]
    for value in shard_job["strategy"]["matrix"]["shard"]:
        env = {k: str(v).replace("${{ matrix.shard }}", str(value)) for k, v in shard_job["env"].items()}
        for step in _runs(shard_job):
            done = shell(step, root, **env)
            assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in root.glob("mu2py-shard-*.json")) == ["mu2py-shard-1.json", "mu2py-shard-2.json"]
    [merge_step] = _runs(jobs["ratchet"])
    done = shell(merge_step, root)
    assert done.returncode == 0, done.stderr
    assert "2 files compared, 0 below" in done.stdout
    assert len(ET.parse(root / "mu2py-junit.xml").getroot().findall("./testsuite/testcase")) == 13
    assert (root / "mu2py.sarif").is_file()
