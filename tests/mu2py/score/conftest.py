"""Score test fixtures: a tiny git project for the CI features (--since, reports, shards, the baseline), and
the samples under tests/data scored afresh."""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

OPS = '''def add(a, b):
    return a + b


def clamp(x, low, high):
    if x < low:
        return low
    if x > high:
        return high
    return x
'''
TEXT = '''def shout(s):
    return s.upper() + "!"
'''
TEST_OPS = '''from calc.ops import add, clamp


def test_add():
    assert add(2, 3) == 5


def test_clamp():
    assert clamp(5, 0, 10) == 5
    assert clamp(-1, 0, 10) == 0
'''
TEST_TEXT = '''from calc.text import shout


def test_shout():
    assert shout("a") == "A!"
'''
CONFIG = '[tool.mu2py]\npaths = ["calc"]\ntests = ["tests"]\n'


def git(root: Path, *args: str) -> str:
    """Run git in `root` with a fixed identity and no user configuration; its stdout."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True).stdout


def write_tree(root: Path, files: dict[str, str]) -> None:
    """Write each `relative path: text` of `files` under `root`, making the folders."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def score_json(root: Path, package: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`mu2py score --json --no-cache --workers 1` on `package` with the tests in `root/tests`, run from `root`;
    the finished process (its exit code checked: 0)."""
    proc = subprocess.run([sys.executable, "-m", "mu2py", "score", "--paths", package, "--tests", "tests", "--json",
                           "--no-cache", "--workers", "1"], cwd=root, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc


@contextlib.contextmanager
def one_module_package(root: Path, package: str, module: str, source: str) -> Iterator[tuple[Any, Any, Any]]:
    """`package.module` holding `source`, written under `root` and imported: (the module, its SuiteSpec, its
    Program); the path entry and both modules are forgotten afterwards."""
    from mu2py.score.spec import SuiteSpec, build_program

    name = f"{package}.{module}"
    write_tree(root, {f"{package}/__init__.py": "", f"{package}/{module}.py": source})
    sys.path.insert(0, str(root))
    try:
        imported = importlib.import_module(name)
        spec = SuiteSpec(root=str(root), pytest_args=(), modules=(name,), files=(str(root / package / f"{module}.py"),))
        yield imported, spec, build_program(spec)
    finally:
        sys.path.remove(str(root))
        for gone in (name, package):
            sys.modules.pop(gone, None)


def reload_and_fresh(root: Path, package: str, capsys: pytest.CaptureFixture[str]) -> tuple[dict, dict]:
    """Score `package` at `root` (tests in `tests`) with import-time mutants reloaded in place, then in fresh
    interpreters; per mode, the report's mutants by id, after checking that both modes agree on every status."""
    from mu2py.cli.main import main

    args = ["score", "--root", str(root), "--paths", package, "--tests", "tests", "--no-cache", "--json"]
    reports = {}
    for mode in ("reload", "fresh"):
        assert main([*args, "--import-time", mode]) == 0
        reports[mode] = {m["id"]: m for m in json.loads(capsys.readouterr().out)["mutants"]}
    reloaded, fresh = reports["reload"], reports["fresh"]
    assert {i: m["status"] for i, m in reloaded.items()} == {i: m["status"] for i, m in fresh.items()}
    return reloaded, fresh


def make_calc_project(root: Path) -> Path:
    """A git repository at `root` with the package `calc` (ops.py, text.py), its tests and `[tool.mu2py]`,
    all committed on branch main."""
    write_tree(root, {"calc/__init__.py": "", "calc/ops.py": OPS, "calc/text.py": TEXT,
                      "tests/test_ops.py": TEST_OPS, "tests/test_text.py": TEST_TEXT,
                      "pyproject.toml": CONFIG, ".gitignore": ".mu2py-cache/\n"})
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "calc")
    return root


@pytest.fixture
def calc_project(tmp_path: Path) -> Callable[[], Path]:
    """`make()`: the calc project (see `make_calc_project`) in this test's temporary folder."""
    return lambda: make_calc_project(tmp_path / "calc_project")


DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture
def scored_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Callable[[str, str], tuple[Path, dict]]:
    """`score(sample, package)`: tests/data/SAMPLE copied to a project folder, scored afresh by `mu2py score --json`;
    the project root and the report."""
    import json

    from mu2py.cli.main import main

    def score(sample: str, package: str) -> tuple[Path, dict]:
        root = tmp_path / "project"
        shutil.copytree(DATA / sample, root)
        assert main(["score", "--root", str(root), "--paths", package, "--tests", "tests", "--no-cache",
                     "--json"]) == 0
        return root, json.loads(capsys.readouterr().out)

    return score

