"""An import-time mutant read only on threads a test starts is judged by that test: the record sees those threads."""

import json

from mu2py.cli.main import main
from tests.mu2py.score.conftest import write_tree

LOCK = '''import threading


class Lock:
    WRITER = "w"

    def kind(self):
        return self.WRITER


def kinds(n):
    lock = Lock()
    out = []
    threads = [threading.Thread(target=lambda: out.append(lock.kind())) for _ in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return out
'''
TEST = '''from lock_pkg.lock import kinds


def test_kinds():
    assert kinds(2) == ["w", "w"]
'''


def test_a_class_attribute_read_on_the_test_s_threads_is_killed(tmp_path, capsys):
    """fasteners' `ReaderWriterLock.WRITER`, read as `self.WRITER` by reader threads: plain pytest kills its
    mutants, and so must the in-place reload, whose tests are those recorded as running code that reads it."""
    root = tmp_path / "project"
    write_tree(root, {"lock_pkg/__init__.py": "", "lock_pkg/lock.py": LOCK, "tests/test_lock.py": TEST})
    assert main(["score", "--root", str(root), "--paths", "lock_pkg", "--tests", "tests", "--no-cache",
                 "--json"]) == 0
    writer = [m for m in json.loads(capsys.readouterr().out)["mutants"] if m["line"] == 5]
    assert writer and all(m["mode"] == "reexec" for m in writer)
    assert [(m["mutated"], m["status"]) for m in writer] == [(m["mutated"], "killed") for m in writer]
