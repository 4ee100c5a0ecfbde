"""mu2py's own generators keep Hypothesis's files in mu2py's cache: a fuzzed project gets no `.hypothesis` folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import hypothesis.configuration as configuration

from mu2py.inputs.storage import own_storage, storage_folder

ROOT = Path(__file__).resolve().parents[3]


def _home() -> Path:
    return configuration.storage_directory(intent_to_write=False).path


def test_the_block_points_hypothesis_at_mu2py_s_folder_then_puts_it_back(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    before = _home()
    with own_storage():
        assert _home() == tmp_path / "mu2py" / "hypothesis" == storage_folder()
    assert _home() == before  # a user's own tests, run later in this process, keep their example database


def test_fuzzing_a_project_leaves_no_hypothesis_folder_in_it(tmp_path):
    """In a fresh interpreter (this one has Hypothesis's Unicode tables in memory already): the text strategy of the
    JSON target makes Hypothesis compute and cache them, in mu2py's folder."""
    project, cache = tmp_path / "project", tmp_path / "cache"
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    env.update(XDG_CACHE_HOME=str(cache), PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "mu2py", "fuzz", "targets.json_decoder.driver:parse", "--trials", "30",
                           "--seed", "1", "--out", "run", "--quiet"], cwd=project, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in project.iterdir()) == ["run"]
    assert list((cache / "mu2py" / "hypothesis" / "unicode_data").rglob("charmap.json.gz"))
