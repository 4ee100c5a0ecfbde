"""`pytest --mu2py` end to end on tests/data/score_subtest: the score of `mu2py score` for the tests the session
selected, the session failed below --mu2py-fail-under, one-line usage errors, and no scoring inside mu2py's runs.

Each session runs in a subprocess with the plugin named explicitly (`-p no:mu2py -p mu2py.cli.pytest_plugin`: the
same with or without the `pytest11` entry point installed, which would otherwise register the module twice).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from mu2py.cli.main import main
from mu2py.score.reports import summary_percent

# the plugin's code is the same on every Python: its end-to-end runs (each scores a suite) run once, on 3.11
ONCE = pytest.mark.skipif(sys.version_info >= (3, 13), reason="scored end to end once, on 3.11: CI's time")

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data"
PLUGIN = ["-p", "no:mu2py", "-p", "mu2py.cli.pytest_plugin"]
# the plugin loaded in every pytest session of the project, as an installed entry point loads it: `mu2py score`'s too
CONFIG = f'[tool.mu2py]\npaths = ["sub_pkg"]\n\n[tool.pytest.ini_options]\naddopts = "{" ".join(PLUGIN)}"\n'
SCORE_LINE = re.compile(r"^score ([\d.]+%)(?: \(function bodies [\d.]+% of \d+\))?: (\d+) killed, (\d+) timed out, "
                        r"(\d+) survived \(\d+ proved without running\), (\d+) not covered by any test; (\d+) mutants, "
                        r"(\d+) tests", re.M)


def pytest_run(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m pytest ARGS` in `root` (a fresh interpreter, as a user runs it), outside any mu2py run."""
    clean = {k: v for k, v in os.environ.items() if k not in ("MU2PY_RUNNING", "PYTEST_ADDOPTS")}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=root,
                          env={**clean, **(env or {})}, capture_output=True, text=True, timeout=300)


def numbers(summary: dict) -> tuple:
    """What the score line shows of a report's summary: the score, then the counts of `SCORE_LINE`'s groups."""
    return (summary_percent(summary), *(str(summary[k]) for k in ("killed", "timeout", "survived", "no_coverage",
                                                                   "total", "tests")))


def copy_project(src: Path, dest: Path, config: str | None = CONFIG) -> Path:
    """A copy of a sample project (with what a run left in it: its verdict cache), `config` as its pyproject.toml."""
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__"))
    if config is None:
        (dest / "pyproject.toml").unlink(missing_ok=True)
    else:
        (dest / "pyproject.toml").write_text(config)
    return dest


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """score_subtest with `[tool.mu2py] paths`, and its whole suite scored once by `pytest --mu2py` (leaving its
    verdict cache there): (root, that session)."""
    root = copy_project(DATA / "score_subtest", tmp_path_factory.mktemp("plugin") / "project")
    return root, pytest_run(root, *PLUGIN, "--mu2py")


def test_the_entry_point_names_the_plugin_module():
    entry_points = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    assert entry_points["pytest11"] == {"mu2py": "mu2py.cli.pytest_plugin"}


@ONCE
def test_the_score_is_mu2py_scores(project, capsys):
    root, run = project
    assert run.returncode == 0, run.stdout + run.stderr
    assert "mu2py mutation score" in run.stdout and "sub_pkg/calc.py" in run.stdout  # the table, in the summary
    assert main(["score", "--root", str(root), "--tests", "tests", "--no-cache", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert SCORE_LINE.findall(run.stdout) == [numbers(report["summary"])]


@ONCE
def test_a_k_selection_scores_only_the_selected_tests(project):
    root, whole = project
    run = pytest_run(root, *PLUGIN, "--mu2py", "-k", "clamp")
    assert run.returncode == 0, run.stdout + run.stderr
    (selected,) = SCORE_LINE.findall(run.stdout)
    assert selected[-1] == "1" and SCORE_LINE.findall(whole.stdout)[0][-1] == "2"  # tests scored: 1 of 2
    assert selected[0] != SCORE_LINE.findall(whole.stdout)[0][0]  # test_double's kills are not counted


@ONCE
def test_a_score_under_fail_under_fails_the_session(project):
    root, _ = project
    run = pytest_run(root, *PLUGIN, "--mu2py", "--mu2py-fail-under", "100")
    assert run.returncode == 1
    assert "mu2py: mutation score 92.3% is below --fail-under 100%" in run.stdout
    assert "2 passed" in run.stdout  # the tests themselves passed


@ONCE
def test_fail_under_comes_from_the_score_table_too(project, tmp_path):
    root = copy_project(project[0], tmp_path / "project", CONFIG + "\n[tool.mu2py.score]\nfail_under = 100\n")
    run = pytest_run(root, *PLUGIN, "--mu2py")
    assert run.returncode == 1 and "is below --fail-under 100%" in run.stdout


@ONCE
def test_a_failed_session_is_not_scored(project, tmp_path):
    root = copy_project(project[0], tmp_path / "project")
    (root / "tests" / "test_broken.py").write_text("def test_broken():\n    assert False\n")
    run = pytest_run(root, *PLUGIN, "--mu2py")
    assert run.returncode == 1
    assert "mu2py: not scored: the test session did not pass (exit status 1)" in run.stdout
    assert not SCORE_LINE.search(run.stdout)


def test_no_code_to_mutate_is_a_one_line_usage_error(project, tmp_path):
    root = copy_project(project[0], tmp_path / "project", config=None)
    run = pytest_run(root, *PLUGIN, "--mu2py")
    assert run.returncode == 4  # pytest's usage error, before any test ran
    (line,) = [line for line in run.stderr.splitlines() if line.strip()]
    assert line.startswith("ERROR: --mu2py: no code to mutate: set paths = ") and "[tool.mu2py]" in line
    assert "--mu2py-paths SRC" in line
    assert pytest_run(root, *PLUGIN, "--mu2py", "--mu2py-paths", "nowhere").stderr.strip() == \
        "ERROR: --mu2py: no such source path: nowhere"


def test_loading_the_plugin_imports_nothing_of_mu2py_s_machinery():
    code = ("import sys, pytest; before = set(sys.modules); import mu2py.cli.pytest_plugin; "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == ["mu2py", "mu2py.cli", "mu2py.cli.pytest_plugin"]


@ONCE
def test_inside_a_mu2py_run_the_option_does_nothing(project, tmp_path):
    root = copy_project(project[0], tmp_path / "project", config=None)  # --mu2py would be a usage error here
    run = pytest_run(root, *PLUGIN, "--mu2py", env={"MU2PY_RUNNING": "1"})  # as in a session a mu2py job started
    assert run.returncode == 0, run.stdout + run.stderr
    assert "mutation score" not in run.stdout and "mu2py:" not in run.stdout  # neither scored nor said why not


@ONCE
def test_a_suite_whose_addopts_hold_mu2py_is_scored_once(tmp_path):
    # score_rerun judges its survivors in fresh interpreters: whole pytest sessions that pass, with the suite's
    # addopts; were they to score too, each would start a scoring run of its own, without end
    config = ('[tool.mu2py]\npaths = ["rerun_pkg"]\n\n[tool.pytest.ini_options]\n'
              f'addopts = "{" ".join(PLUGIN)} --mu2py --mu2py-no-cache"\n')
    root = copy_project(DATA / "score_rerun", tmp_path / "project", config)
    run = pytest_run(root, "-q")
    assert run.returncode == 0, run.stdout + run.stderr
    assert len(SCORE_LINE.findall(run.stdout)) == 1
    assert re.search(r"time: .*; \d+ mutants judged in a fresh interpreter", run.stdout)  # fresh sessions ran
