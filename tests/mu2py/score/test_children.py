"""A test that runs the package in a child process (a CLI, `python -c`, `python -m pkg`) meets the mutant there, as
in a plain run of pytest on the mutated file: the mutated source is in the worker's copy of the project while its
tests run, and a child finds that copy first (its working directory, or PYTHONPATH)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.mu2py.score.conftest import score_json, write_tree

MODULE = '''GREETING = "hi"


def greet():
    return GREETING


def double(x):
    return x * 2


def halve(x):
    return x // 2


def inc(x):
    return x + 1


def triple(x):
    return x * 3


if __name__ == "__main__":
    import sys

    print(triple(int(sys.argv[1])) + 0)
'''
TEST = '''import subprocess
import sys
import tempfile

from child_pkg.calc import inc


def child(expr, **kwargs):
    code = f"from child_pkg.calc import double, greet, halve; print({expr})"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          **kwargs).stdout.strip()


def test_double_in_a_child_here():
    # the child finds the package in its working directory, the project's root (the worker's copy of it)
    assert child("double(21), greet()") == "42 hi"


def test_halve_in_a_child_elsewhere():
    # the child finds the package on PYTHONPATH only, as an installed one (an editable install's .pth)
    assert child("halve(9)", cwd=tempfile.gettempdir()) == "4"


def test_triple_as_a_script():
    # the module run as a script by a relative path, as tabulate's tests run `python tabulate/__init__.py`
    out = subprocess.run([sys.executable, "child_pkg/calc.py", "4"], capture_output=True, text=True, check=True)
    assert out.stdout == "12\\n"


def test_triple_then_exec():
    # the child runs the package, then replaces itself with another program (`dotenv run CMD`): no exit handler
    code = "import os; from child_pkg.calc import triple; os.execvp('echo', ['echo', str(triple(3))])"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout == "9\\n"


def test_inc():
    assert inc(1) == 2
'''


def test_a_mutant_is_what_a_child_process_imports(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write_tree(root, {"child_pkg/__init__.py": "", "child_pkg/calc.py": MODULE, "tests/test_calc.py": TEST})
    # the project's root on PYTHONPATH stands for an installed package: what a child imports from outside the root
    env = {**os.environ, "PYTHONPATH": str(root)}
    assert subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=root,
                          env=env, capture_output=True).returncode == 0
    proc = score_json(root, "child_pkg", env)
    mutants = json.loads(proc.stdout)["mutants"]
    by_line = {line: [m for m in mutants if m["line"] == line] for line in (1, 9, 13, 17, 21)}
    assert all(by_line.values()), mutants
    # `x * 2` -> `x / 2` and the like: only the child in the project's root sees them
    # `GREETING = "XXhiXX"` and the like: a module body re-run in place, and only that child sees what it changed
    for m in by_line[1]:
        assert m["mode"] == "reexec", m
        assert m["status"] == "killed" and m["killed_by"].endswith("test_double_in_a_child_here"), m
    for m in by_line[9]:
        assert m["status"] == "killed" and m["killed_by"].endswith("test_double_in_a_child_here"), m
    # `x // 2` -> `x / 2` and the like: only the child that finds the package on PYTHONPATH sees them
    for m in by_line[13]:
        assert m["status"] == "killed" and m["killed_by"].endswith("test_halve_in_a_child_elsewhere"), m
    for m in by_line[17]:
        assert m["status"] == "killed" and m["killed_by"].endswith("test_inc"), m
    # `x * 3` -> `x / 3` and the like: only a child sees them, the first the script
    for m in by_line[21]:
        assert m["status"] == "killed" and m["killed_by"].endswith("test_triple_as_a_script"), m
    # `+ 0` -> `- 0` is equivalent; `+ 0` -> `+ 1` only the script shows (run as `__main__`, by a relative path)
    scripted = [m for m in mutants if m["line"] == 27 and m["mutated"] == "1"]
    assert scripted and all(m["status"] == "killed" for m in scripted), mutants
    # the project as found: the mutated source was written to the worker's copy only, and no byte code anywhere
    assert (root / "child_pkg" / "calc.py").read_text() == MODULE
    assert not list(root.rglob("*.pyc")), list(root.rglob("*.pyc"))


LEAKY = '''def label(n):
    return f"item-{n}"
'''
LEAKY_TEST = '''import os
import tempfile

from leaky_pkg.names import label


def test_label_written_to_a_temporary_file():
    fd, path = tempfile.mkstemp(prefix="mu2py-leak-")  # never removed, as logzero's tests leave theirs
    with os.fdopen(fd, "w") as fh:
        fh.write(label(1))
    with open(path) as fh:
        assert fh.read() == "item-1"
'''


def test_the_temporary_files_tests_leave_go_with_the_run(tmp_path: Path) -> None:
    root = tmp_path / "project"
    system = tmp_path / "system-tmp"  # the system's temporary folder, as the run sees it
    system.mkdir()
    write_tree(root, {"leaky_pkg/__init__.py": "", "leaky_pkg/names.py": LEAKY, "tests/test_names.py": LEAKY_TEST})
    proc = score_json(root, "leaky_pkg", {**os.environ, "TMPDIR": str(system)})
    mutants = json.loads(proc.stdout)["mutants"]
    assert mutants and all(m["status"] == "killed" for m in mutants), mutants
    # every run of the test left a file; none is left in the system's folder (nor the run's scratch folder)
    assert not list(system.rglob("mu2py-leak-*")), sorted(p.name for p in system.rglob("*"))
    assert not list(system.iterdir()), sorted(p.name for p in system.iterdir())


FORKED = '''def double(x):
    return x * 2
'''
FORKED_TEST = '''import os

from fork_pkg.calc import double


def test_double_in_a_forked_child():
    # only the forked child runs the code under test (a multiprocessing worker forked, and ended by os._exit)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write, str(double(21)).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    with os.fdopen(read, "rb") as fh:
        assert fh.read() == b"42"
'''


def test_what_a_forked_child_runs_counts_as_its_test_s_reach(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write_tree(root, {"fork_pkg/__init__.py": "", "fork_pkg/calc.py": FORKED, "tests/test_calc.py": FORKED_TEST})
    proc = score_json(root, "fork_pkg")
    mutants = json.loads(proc.stdout)["mutants"]
    assert mutants and all(m["status"] == "killed" for m in mutants), mutants
