"""Hostile mutants, round 2: what a run leaves behind (threads, processes, handlers, output, state, deleted
files, signals to mu2py, deep inputs) neither hangs, kills nor misleads a run.

Each hazard of `hostile_pkg.leaks` runs through the command line as a user would run it, in a
directory holding a file of the user's: the command finishes, its output parses, every
reached mutant's verdict equals the one a fresh process per mutant gives (`fresh_truth`), no
process the program started outlives the command, and the user's file is intact.
"""

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from mu2py.mutants.catalog import Program
from mu2py.target.modules import resolve_target
from tests.conftest import no_strays

DATA = Path(__file__).resolve().parents[2] / "data"
LEAKS = "hostile_pkg.leaks"
USER_FILE = "notes.txt"


@pytest.fixture
def workdir(tmp_path):
    folder = tmp_path / "user"
    folder.mkdir()
    (folder / USER_FILE).write_text("the user's own notes\n")
    return folder


@pytest.fixture
def data_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(DATA))
    yield
    for name in [n for n in sys.modules if n == "hostile_pkg" or n.startswith("hostile_pkg.")]:
        del sys.modules[name]


def _mu2py(workdir, *args, timeout=60, descriptors=None):
    """Run mu2py in `workdir` (with at most `descriptors` open files); (completed process, pids the program's
    processes noted)."""
    pids = workdir.parent / "pids.txt"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(DATA), *sys.path]), HOSTILE_PIDS=str(pids))

    def limit():
        if descriptors is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

    proc = subprocess.run([sys.executable, "-m", "mu2py", *args], cwd=workdir, env=env, capture_output=True,
                          text=True, timeout=timeout, preexec_fn=limit)
    noted = [int(p) for p in pids.read_text().split()] if pids.exists() else []
    return proc, noted


def _mutant(reached, function, code, operator, module=LEAKS):
    """The id of the `operator` mutant on the first line of `function` (in `module`) that starts with `code`."""
    lines = (DATA / "hostile_pkg" / f"{module.rpartition('.')[2]}.py").read_text().splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith((f"def {function}(", f"async def {function}(")))
    number = next(k for k in range(start, len(lines)) if lines[k].strip().startswith(code)) + 1
    found = [i for i in reached if i.startswith(f"{module}:{number}:") and i.endswith(f":{operator}")]
    assert len(found) == 1, (function, code, operator, found)
    return found[0]


def _mutate_matches_truth(fresh_truth, workdir, driver, values, timeout=0.3, descriptors=None):
    """`mutate --json` on `values`: finishes, parses, and its reached mutants' verdicts equal a fresh process's."""
    spec = f"hostile_pkg.leak_drivers:{driver}"
    proc, noted = _mu2py(workdir, "mutate", spec, "--value", *map(str, values), "--json", "--timeout", str(timeout),
                         descriptors=descriptors)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)  # nothing but the JSON document
    reached = {m["id"]: m["reason"] for m in report["mutants"] if m["reached"]}
    assert reached
    truth = fresh_truth(spec, Program(resolve_target(spec)), workdir, values, sorted(reached), timeout)
    wrong = {i: (reached[i], truth[i]) for i in reached if reached[i] != truth[i]}
    assert not wrong, f"{len(wrong)}/{len(reached)} verdicts differ from a fresh process (mu2py, truth): {wrong}"
    assert (workdir / USER_FILE).read_text() == "the user's own notes\n"
    return reached, noted


# (1) a thread that keeps writing module state, started by the guard's mutants, must not change later verdicts
def test_a_thread_left_running_retires_the_host(workdir, data_on_path, fresh_truth):
    reached, _ = _mutate_matches_truth(fresh_truth, workdir, "scaled", [1000, 999, 998, 997, 996, 995])
    # it started the thread, and is judged normally itself
    assert reached[_mutant(reached, "scaled", "if n > 1000", "boundary")] is None


# (2) a child process left running dies with its host; mu2py's own output pipe is not held open by it
def test_a_child_process_left_running_does_not_outlive_mu2py(workdir, data_on_path, fresh_truth):
    _, noted = _mutate_matches_truth(fresh_truth, workdir, "archived", [1000, 999])
    assert noted, "the hostile mutants did not run"
    no_strays(noted)


# (2) the original itself leaves a child running on this input: in the command's process too, it is stopped at the end
def test_a_child_process_the_original_left_does_not_outlive_mu2py(workdir, data_on_path, fresh_truth):
    _, noted = _mutate_matches_truth(fresh_truth, workdir, "archived", [1001])
    assert noted, "the original did not run"
    no_strays(noted)


# (2) `pid == 0` -> `pid != 0`: the forked child must never go on as a second host
def test_a_forked_child_never_becomes_a_second_host(workdir, data_on_path, fresh_truth):
    reached, noted = _mutate_matches_truth(fresh_truth, workdir, "forked", [1000, 999])
    # the host itself took the child's os._exit
    assert reached[_mutant(reached, "forked", "if pid == 0", "negate_cond")] == "crash"
    no_strays(noted)


# (3) the original forks on every input: its child's os._exit must end the child, not fuzz in a second process
def test_fuzz_with_a_forking_original_runs_once(workdir, tmp_path):
    out = tmp_path / "out"
    proc, noted = _mu2py(workdir, "fuzz", "hostile_pkg.leak_drivers:forked", "--trials", "8", "--timeout", "0.3",
                         "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.count("mutants killed") == 1, proc.stdout  # one summary: no child went on running fuzz
    assert not (out / "failures").exists()  # the child's exit was no failure of the original
    assert json.loads((out / "state.json").read_text())["stats"]["trials"] == 8
    no_strays(noted)


# (4) the program installs its own SIGALRM handler (swallowing alarms) and cancels the timer; a looping mutant
# is still a timeout, and the handler does not outlive the run
def test_a_programs_alarm_handler_cannot_hide_a_loop(workdir, data_on_path, fresh_truth):
    reached, _ = _mutate_matches_truth(fresh_truth, workdir, "countdown", [1000])
    assert reached[_mutant(reached, "countdown", "n -= 7", "aug_assign")] == "timeout"  # n -= 7 -> n += 7


# (5) the original prints on every input and a mutant floods stdout and stderr: --json stays one document
def test_output_floods_keep_the_json_clean(workdir, data_on_path, fresh_truth):
    reached, _ = _mutate_matches_truth(fresh_truth, workdir, "chatty", [1000, 999])
    assert reached[_mutant(reached, "chatty", "if n > 1000", "boundary")] is None  # it flooded, and survived


def test_fuzz_output_carries_none_of_the_programs(workdir, tmp_path):
    proc, _ = _mu2py(workdir, "fuzz", "hostile_pkg.leak_drivers:chatty", "--trials", "6", "--timeout", "0.3",
                     "--out", str(tmp_path / "out"), "--quiet")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "checking" not in proc.stdout and "working on" not in proc.stdout
    assert len(proc.stdout) < 10_000 and len(proc.stderr) < 10_000


# (6) a mutant sets an environment variable, the decimal precision and rebinds json.dumps: later runs see none
def test_state_outside_the_target_is_put_back(workdir, data_on_path, fresh_truth):
    reached, _ = _mutate_matches_truth(fresh_truth, workdir, "configured", [1000, 999, 998])
    # `> 1001` opens nothing: equal to the original
    assert reached[_mutant(reached, "configured", "if n > 1000", "constant")] is None


# (7) a mutant deletes a file by a relative path: the user's file is intact, and the verdicts are a fresh copy's
def test_relative_deletes_spare_the_users_files(workdir, data_on_path, fresh_truth):
    _mutate_matches_truth(fresh_truth, workdir, "tidy", [1000, 999])
    assert sorted(p.name for p in workdir.iterdir()) == [USER_FILE]  # no scratch file of the program left either


# (8) a mutant sends SIGHUP to its parent: mu2py finishes and reports
def test_a_signal_to_mu2py_does_not_stop_the_run(workdir, data_on_path, fresh_truth):
    reached, _ = _mutate_matches_truth(fresh_truth, workdir, "hangs_up", [1000, 999])
    assert reached[_mutant(reached, "hangs_up", "if n > 1000", "boundary")] is None


# (11) a 2,000-deep input: fuzz keeps it (its text a placeholder), and mutate replays the corpus
def test_a_deep_input_neither_stops_fuzz_nor_mutate(workdir, tmp_path):
    out = tmp_path / "out"
    proc, _ = _mu2py(workdir, "fuzz", "hostile_pkg.leak_drivers:deep", "--trials", "4", "--timeout", "0.3",
                     "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr[-2000:]
    index = json.loads((out / "corpus" / "index.json").read_text())
    assert index
    proc, _ = _mu2py(workdir, "mutate", "hostile_pkg.leak_drivers:deep", "--input", str(out / "corpus"), "--json",
                     "--timeout", "0.3")
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert len(report["inputs"]) == len(index) and report["summary"]["total"] > 0


# Round 3: interpreter-wide state (see `hostile_pkg.state`).  Each run's verdicts equal a fresh process's.
STATE = "hostile_pkg.state"
VALUES = [1000, 999, 998, 997, 996, 995]
# no mutant of these hazards loops: a timeout far above a run's time keeps a loaded machine's fresh processes
# (judged on wall time) from timing out where mu2py's host (on CPU time) does not
CALM = 2.0


# a mutant raises before putting the recursion limit back: later runs, 300 frames deep, are not RecursionErrors
def test_a_lowered_recursion_limit_is_put_back(workdir, data_on_path, fresh_truth):
    reached, _ = _mutate_matches_truth(fresh_truth, workdir, "lowered", VALUES, timeout=CALM)
    assert reached[_mutant(reached, "lowered", "if n > 1000", "constant", STATE)] is None


# a mutant turns on gc.DEBUG_SAVEALL: later runs' collections keep nothing
def test_the_collectors_debug_flags_are_put_back(workdir, data_on_path, fresh_truth):
    reached, _ = _mutate_matches_truth(fresh_truth, workdir, "keeps_garbage", VALUES, timeout=CALM)
    assert reached[_mutant(reached, "keeps_garbage", "if n > 1000", "constant", STATE)] is None


# a mutant leaves 120 descriptors open on every run, under a limit of 256 (macOS's default): later runs can
# still open files, and mu2py's own clean-up never fails
def test_leaked_descriptors_never_kill_a_later_mutant(workdir, data_on_path, fresh_truth):
    reached, _ = _mutate_matches_truth(fresh_truth, workdir, "leaks_descriptors", VALUES, timeout=CALM,
                                       descriptors=256)
    assert reached[_mutant(reached, "leaks_descriptors", "if n > 1000", "constant", STATE)] is None


# a mutant registers an exit handler writing on descriptor 1: --json stays one document
def test_an_exit_handler_never_reaches_the_report(workdir, data_on_path, fresh_truth):
    reached, _ = _mutate_matches_truth(fresh_truth, workdir, "registers_exit", VALUES, timeout=CALM)
    assert reached[_mutant(reached, "registers_exit", "if n > 1000", "boundary", STATE)] is None


# the program raises KeyboardInterrupt: its outcome, not the user stopping mu2py
def test_a_keyboard_interrupt_of_the_program_is_an_exception(workdir, data_on_path, fresh_truth):
    reached, _ = _mutate_matches_truth(fresh_truth, workdir, "interrupts", VALUES, timeout=CALM)
    assert reached[_mutant(reached, "interrupts", "if n > 1000", "boundary", STATE)] == "exception"


# an endless loop inside an asyncio task nobody awaits: the alarm's exception is stored in the task, and
# asyncio.run returns normally; the timer fired, so it is a timeout
def test_a_loop_in_an_unawaited_task_is_a_timeout(workdir, data_on_path, fresh_truth):
    reached, _ = _mutate_matches_truth(fresh_truth, workdir, "spins", VALUES)
    assert "timeout" in reached.values()


# the program catches the alarm's exception with a bare except and returns: still a timeout
def test_a_swallowed_timeout_is_a_timeout(workdir, data_on_path, fresh_truth):
    reached, _ = _mutate_matches_truth(fresh_truth, workdir, "gives_up", VALUES)
    assert reached[_mutant(reached, "gives_up", "n -= 7", "aug_assign", STATE)] == "timeout"
