"""Hostile mutants (hang in C, loop at import, os._exit, segfault, MemoryError, chdir) cannot upset a run.

Each runs through the command line, as a user would, in `mutate` (one host, and `--workers`)
and in `fuzz` (and `fuzz --workers`): the command finishes, the hostile mutant gets its
verdict, and every other mutant gets the verdict it gets when run alone.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "data"
HAZARDS = "hostile_pkg.hazards"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "hazard-data.txt").write_text("here\n")
    return folder


def _mu2py(workdir, *args, timeout=120):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(DATA), *sys.path]))
    proc = subprocess.run([sys.executable, "-m", "mu2py", *args], cwd=workdir, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _mutate(workdir, driver, values, *extra):
    proc = _mu2py(workdir, "mutate", f"hostile_pkg.drivers:{driver}", "--value", *map(str, values), "--json",
                  "--timeout", "0.5", *extra)
    return {m["id"]: m for m in json.loads(proc.stdout)["mutants"]}


# (driver, input, hostile mutant, its reason, mutants that must survive that input)
CASES = {
    "hang_in_c": ("hang_in_c", 10**9 + 7, f"{HAZARDS}:11:21:arithmetic#2", "timeout", []),
    "os_exit": ("exits", 5, f"{HAZARDS}:15:8:negate_cond", "crash", [f"{HAZARDS}:15:8:boundary"]),
    "segfault": ("segfaults", 5, f"{HAZARDS}:21:8:negate_cond", "crash", [f"{HAZARDS}:21:8:boundary"]),
    "memory": ("allocates", 10**9, f"{HAZARDS}:28:11:arithmetic#4", "exception",
               [f"{HAZARDS}:28:21:constant", f"{HAZARDS}:28:21:constant#2"]),
    "chdir": ("moves", 5, f"{HAZARDS}:33:8:negate_cond", "output", [f"{HAZARDS}:33:8:boundary"]),
    "import_loop": ("slow", 5, "hostile_pkg.slowimport:5:13:arithmetic", "timeout", []),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_mutate_judges_hostile_mutant(workdir, case):
    driver, value, hostile, reason, survivors = CASES[case]
    # the same input twice: a mutant that moved the cwd or left state behind would change the second verdicts
    mutants = _mutate(workdir, driver, [value, value + 1])
    assert mutants[hostile]["status"] == "killed" and mutants[hostile]["reason"] == reason, mutants[hostile]
    for name in survivors:
        assert mutants[name]["status"] == "alive", mutants[name]
    assert (workdir / "hazard-data.txt").is_file()


def test_mutate_workers_judges_hostile_mutants(workdir):
    mutants = _mutate(workdir, "segfaults", [5], "--workers", "2")
    assert mutants[f"{HAZARDS}:21:8:negate_cond"]["reason"] == "crash"
    assert mutants[f"{HAZARDS}:21:8:boundary"]["status"] == "alive"
    mutants = _mutate(workdir, "hang_in_c", [10**9 + 7], "--workers", "2")
    assert mutants[f"{HAZARDS}:11:21:arithmetic#2"]["reason"] == "timeout"


@pytest.mark.parametrize("case", ["hang_in_c", "os_exit", "segfault", "memory", "chdir", "import_loop"])
def test_fuzz_finishes_and_keeps_the_killing_input(workdir, tmp_path, case):
    driver, _, hostile, reason, _ = CASES[case]
    out = tmp_path / "out"
    _mu2py(workdir, "fuzz", f"hostile_pkg.drivers:{driver}", "--trials", "12", "--seed", "1", "--timeout", "0.5",
           "--out", str(out), "--quiet")
    mutants = {m["id"]: m for m in json.loads((out / "mutants.json").read_text())["mutants"]}
    assert mutants[hostile]["status"] == "killed" and mutants[hostile]["reason"] == reason
    index = json.loads((out / "corpus" / "index.json").read_text())
    assert any(hostile in entry["kills"] for entry in index)
    assert json.loads((out / "state.json").read_text())["stats"]["trials"] == 12


def test_fuzz_workers_survive_a_crashing_mutant(workdir, tmp_path):
    out = tmp_path / "out"
    _mu2py(workdir, "fuzz", "hostile_pkg.drivers:exits", "--trials", "20", "--workers", "2", "--timeout", "0.5",
           "--out", str(out), "--quiet")
    mutants = {m["id"]: m for m in json.loads((out / "mutants.json").read_text())["mutants"]}
    assert mutants[f"{HAZARDS}:15:8:negate_cond"]["reason"] == "crash"
    for k in (0, 1):
        assert (out / "workers" / f"w{k}" / "mutants.json").is_file()
