"""An output that cannot be written (disk full, read-only, vanished): exit 2, one `mu2py: error:` line, and what
was written before is intact, so that a later run resumes from it.

The real CLI runs in a subprocess.  A full or read-only disk is injected by a `sitecustomize` module on the
child's PYTHONPATH (a tmpfs needs CAP_SYS_ADMIN, and root ignores permissions): files opened through
`os.fdopen` under the output directory, the atomic writer's path to the disk, share a byte budget; past it a
write raises ENOSPC after writing what fits (as the kernel does), or the file system turns read-only (every
later file creation there raises EROFS).
"""

from __future__ import annotations

import csv
import errno
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mu2py.errors import OutputError
from mu2py.store.atomic import DirectoryLock, ensure_writable, write_atomic

ROOT = Path(__file__).resolve().parents[3]
SORT = "targets.insertion_sort.driver:sort"
JSON_GRAMMAR = str(ROOT / "grammars" / "json.lark")
JSON_PARSE = "targets.json_decoder.driver:parse"
# coverage guidance without the final judging: the fastest campaign that writes every output file
FAST = ["--seed", "3", "--guidance", "coverage", "--no-judge", "--quiet"]

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="the fault injection reads /proc/self/fd")

SITECUSTOMIZE = '''
import errno, io, os

_DIR = os.path.realpath(os.environ["FAULT_DIR"]) + os.sep
_MODE = os.environ["FAULT_MODE"]  # ENOSPC or EROFS
_state = {"room": int(os.environ["FAULT_BUDGET"]), "readonly": False}


def _under(path):
    return os.path.realpath(path).startswith(_DIR)


def _error(code):
    return OSError(code, os.strerror(code))


class _Budgeted:
    """A file written under FAULT_DIR: its bytes come out of the shared budget."""

    def __init__(self, fh):
        self._fh = fh

    def write(self, data):
        room = _state["room"]
        if len(data) > room:
            if _MODE == "ENOSPC":  # what fits is written, then the disk is full
                if room > 0:
                    self._fh.write(data[:room])
                    self._fh.flush()
                _state["room"] = 0
                raise _error(errno.ENOSPC)
            _state["readonly"] = True  # this write lands; the file system goes read-only after it
        _state["room"] = max(room - len(data), 0)
        return self._fh.write(data)

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()


_fdopen, _open = os.fdopen, os.open


def fdopen(fd, mode="r", *args, **kwargs):
    fh = _fdopen(fd, mode, *args, **kwargs)
    if any(c in mode for c in "wax+") and _under(f"/proc/self/fd/{fd}"):
        return _Budgeted(fh)
    return fh


def open_(path, flags, *args, **kwargs):
    if _state["readonly"] and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) and _under(os.fsdecode(path)):
        raise _error(errno.EROFS)
    return _open(path, flags, *args, **kwargs)


os.fdopen, os.open = fdopen, open_
'''


def _env(tmp_path: Path, out: Path | None = None, mode: str = "", budget: int = 0) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    paths = [str(ROOT)]
    if out is not None:
        inject = tmp_path / "inject"
        inject.mkdir(exist_ok=True)
        (inject / "sitecustomize.py").write_text(SITECUSTOMIZE)
        paths.insert(0, str(inject))
        env.update(FAULT_DIR=str(out), FAULT_MODE=mode, FAULT_BUDGET=str(budget))
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def _run(argv: list[str], env: dict[str, str], module: str = "mu2py") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", module, *argv], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


def _one_error_line(stderr: str, prog: str = "mu2py") -> str:
    """The error line, checked to be the only one, the last one, and not a traceback's."""
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(f"{prog}: error:")]
    assert len(errors) == 1 and lines[-1] == errors[0], stderr
    return errors[0]


def _no_temporary_files(out: Path) -> None:
    assert not [p for p in out.rglob("*.tmp")], "a failed write left its temporary file"


def _resumes(out: Path, tmp_path: Path, trials: int) -> None:
    """A later run (the disk fixed) takes up what is on disk; `trials` is within what was done: nothing new runs."""
    again = _run(["fuzz", SORT, "--trials", str(trials), "--out", str(out), *FAST], _env(tmp_path))
    assert again.returncode == 0, again.stderr
    assert f"resuming from {out}" in again.stdout


@pytest.mark.parametrize("mode, reason", [("ENOSPC", "No space left on device"),
                                          ("EROFS", "Read-only file system")])
def test_fuzz_on_a_full_or_read_only_disk(tmp_path, mode, reason):
    out = tmp_path / "out"
    # the first checkpoint (corpus, plot_data.csv, state.json: about 1.7 kB) fits; a later one does not
    proc = _run(["fuzz", SORT, "--trials", "100000000", "--out", str(out), *FAST], _env(tmp_path, out, mode, 2500))
    assert proc.returncode == 2, proc.stderr
    line = _one_error_line(proc.stderr)
    assert reason in line and str(out) in line and "the same command resumes" in line
    _no_temporary_files(out)
    stats = json.loads((out / "state.json").read_text())["stats"]
    assert stats["trials"] > 0
    rows = list(csv.DictReader((out / "plot_data.csv").open()))
    assert rows and all(row["trials"] for row in rows)
    assert json.loads((out / "corpus" / "index.json").read_text())
    _resumes(out, tmp_path, stats["trials"])


def test_fuzz_whose_out_vanishes(tmp_path):
    out, moved = tmp_path / "out", tmp_path / "moved"
    proc = subprocess.Popen([sys.executable, "-m", "mu2py", "fuzz", SORT, "--trials", "100000000", "--out", str(out),
                             *FAST], cwd=ROOT, env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.monotonic() + 60
        while not (out / "state.json").is_file():  # the first checkpoint
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr and proc.stderr.read()
            time.sleep(0.05)
        out.rename(moved)  # gone in one step, as an unmounted disk is
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 2, stderr
    line = _one_error_line(stderr)
    assert str(out) in line and "removed" in line
    assert not out.exists()  # nothing written in its place
    stats = json.loads((moved / "state.json").read_text())["stats"]
    _resumes(moved, tmp_path, stats["trials"])


def test_bonsai_run_on_a_full_disk(tmp_path):
    out = tmp_path / "out"
    argv = ["run", JSON_GRAMMAR, "--target", JSON_PARSE, "--bounds", "1,1,1", "--node-trials", "20", "--out", str(out)]
    proc = _run(argv, _env(tmp_path, out, "ENOSPC", 600), module="bonsai")
    assert proc.returncode == 2, proc.stderr
    assert "No space left on device" in _one_error_line(proc.stderr, "bonsai")
    _no_temporary_files(out)
    index = out / "nodes" / "1_1_1" / "corpus" / "index.json"
    assert json.loads(index.read_text())
    again = _run(argv, _env(tmp_path), module="bonsai")
    assert again.returncode == 0, again.stderr
    assert "final corpus" in again.stdout


# -- the atomic writer itself ------------------------------------------------------------------------------


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "state.json"
    write_atomic(path, "old\n")

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError, match=f"cannot write {path}: No space left on device"):
        write_atomic(path, "new\n")
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_a_vanished_output_directory_is_not_made_again(tmp_path):
    out = tmp_path / "out"
    lock = DirectoryLock(out)
    try:
        write_atomic(out / "corpus" / "a.bin", b"1")
        (out / "corpus" / "a.bin").unlink()
        (out / "corpus").rmdir()
        write_atomic(out / "corpus" / "b.bin", b"2")  # a subfolder of the output is made again, as ever
        out.rename(tmp_path / "moved")
        for path in (out / "state.json", out / "corpus" / "c.bin"):
            with pytest.raises(OutputError, match="removed"):
                write_atomic(path, b"3")
        assert not out.exists()
    finally:
        lock.release()
    ensure_writable(out)  # a new run into the same path starts afresh
    write_atomic(out / "state.json", b"{}")
