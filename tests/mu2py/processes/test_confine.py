"""A confined host: the user's files are refused to code under test, the scratch mirror is put back after each
run, signals to the supervisor are dropped, and a thread or process left running is reported."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

from mu2py.processes.confine import Confinement, make_mirror, remove_mirror


def _in_confined_child(workdir, steps):
    """Run `steps(confinement)` in a forked child confined to a mirror of `workdir`; the dict it returns."""
    scratch = make_mirror(str(workdir))
    confinement = Confinement(str(workdir), scratch, os.getpid())
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            confinement.install()
            os.write(write, json.dumps(steps(confinement)).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as f:
        answer = f.read()
    os.waitpid(pid, 0)
    remove_mirror(scratch)
    return json.loads(answer)


def _refused(action):
    try:
        action()
    except PermissionError:
        return True
    return False


def test_the_users_files_are_refused_and_the_mirror_comes_back(tmp_path):
    workdir = tmp_path / "user"
    (workdir / "data").mkdir(parents=True)
    (workdir / "notes.txt").write_text("mine")
    (workdir / "data" / "table.csv").write_text("a,b")

    def steps(confinement):
        seen = {"reads": open("notes.txt").read()}
        os.remove("notes.txt")  # the link only
        with open("own.tmp", "w") as f:  # the run's own file, in the scratch directory
            f.write("x")
        seen["refused"] = [
            _refused(lambda: open(str(workdir / "notes.txt"), "w")),
            _refused(lambda: os.remove("data/table.csv")),  # through a mirrored directory
            _refused(lambda: open("data/table.csv", "a")),
            _refused(lambda: os.rename("data", str(workdir / "elsewhere"))),
        ]
        seen["leftovers"] = confinement.leftovers()
        seen["after"] = sorted(os.listdir("."))
        seen["reads_again"] = open("notes.txt").read()
        return seen

    seen = _in_confined_child(workdir, steps)
    assert seen["reads"] == seen["reads_again"] == "mine"
    assert seen["refused"] == [True, True, True, True]
    assert seen["leftovers"] is None and seen["after"] == ["data", "notes.txt"]
    assert (workdir / "notes.txt").read_text() == "mine" and (workdir / "data" / "table.csv").read_text() == "a,b"
    assert sorted(p.name for p in workdir.iterdir()) == ["data", "notes.txt"]


def test_signals_to_the_supervisor_are_dropped(tmp_path):
    got = []
    previous = signal.signal(signal.SIGHUP, lambda signum, frame: got.append(signum))
    try:
        seen = _in_confined_child(tmp_path, lambda c: {"sent": os.kill(os.getppid(), signal.SIGHUP) is None})
        time.sleep(0.05)
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert seen == {"sent": True} and got == []


def test_a_thread_or_a_process_left_running_is_reported(tmp_path):
    def steps(confinement):
        answers = [confinement.leftovers()]
        done = threading.Event()
        threading.Thread(target=done.wait, daemon=True).start()
        answers.append(confinement.leftovers())
        done.set()
        time.sleep(0.05)
        answers.append(confinement.leftovers())
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        answers.append(confinement.leftovers())
        child.kill()
        child.wait()
        answers.append(confinement.leftovers())
        return answers

    assert _in_confined_child(tmp_path, steps) == [
        None, "left a thread running", None, "left a child process running", None]


def test_a_dead_processs_scratch_directory_is_swept(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"mu2py-host-{dead.pid}-abc"
    stale.mkdir()
    (stale / "link").symlink_to(tmp_path / "elsewhere")
    mine = make_mirror(str(tmp_path / "user-absent"))
    assert not stale.exists() and os.path.isdir(mine)
    remove_mirror(mine)
