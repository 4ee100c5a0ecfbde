"""`bonsai run --cluster` on a real Dask cluster (tests/conftest.py's `dask_cluster`), from a folder of the user's own.

The target module and the package it exercises live in the client's current directory, the grammar is given by a
relative path, and the workers run elsewhere: the modules are shipped with the job and the grammar travels as text,
so the final corpus is the same, byte for byte, as a local run's.  A worker that cannot import the target makes the
command stop with one error line, soon.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import WORKER_ENV

GRAMMARS = Path(__file__).resolve().parents[2] / "grammars"

SCANNER = '''\
"""Counts what an expression holds: branches for coverage to find."""


def scan(text):
    depth, seen = 0, set()
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch.isdigit():
            seen.add("digit")
        elif ch in "+-*/%":
            seen.add("op")
        elif ch == "=":
            seen.add("assign")
        elif ch.isalpha():
            seen.add("name")
    if depth > 1:
        seen.add("deep")
    return seen
'''

TARGET = "from mypkg import scan\n\n\ndef fn(text):\n    return scan(text)\n"

# on the workers only (their environment has WORKER_ENV set) this module cannot be imported
BROKEN_ON_WORKERS = f'''\
import os

if os.environ.get("{WORKER_ENV}"):
    raise ImportError("badtarget cannot be imported here")

from mytarget import fn  # noqa: E402
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A user's folder: `g.lark`, `mytarget.py` and the package `mypkg` it calls."""
    shutil.copy(GRAMMARS / "expr.lark", tmp_path / "g.lark")
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text(SCANNER)
    (tmp_path / "mytarget.py").write_text(TARGET)
    (tmp_path / "badtarget.py").write_text(BROKEN_ON_WORKERS)
    return tmp_path


def _bonsai(folder: Path, *args: str) -> subprocess.CompletedProcess:
    """`bonsai run` in `folder` on `g.lark` (a relative path), small bounds and budgets."""
    env = {k: v for k, v in os.environ.items() if k != WORKER_ENV}
    return subprocess.run([sys.executable, "-m", "bonsai", "run", "g.lark", "--targets", "mypkg", "--bounds", "1,2,2",
                           "--node-trials", "15", *args], cwd=folder, capture_output=True, text=True, timeout=120,
                          env=env)


def _corpus(folder: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in sorted(folder.iterdir())}


def test_cluster_run_from_the_users_folder_equals_the_local_run(dask_cluster: str, project: Path) -> None:
    local = _bonsai(project, "--target", "mytarget:fn", "--out", "local")
    assert local.returncode == 0, local.stderr
    remote = _bonsai(project, "--target", "mytarget:fn", "--out", "remote", "--cluster", dask_cluster)
    assert remote.returncode == 0, remote.stderr
    assert "Traceback" not in remote.stderr
    corpus = _corpus(project / "local" / "final")
    assert len(corpus) > 1 and _corpus(project / "remote" / "final") == corpus
    assert (project / "remote" / "lattice.json").read_text().count('"coverage"') > 1


def test_a_target_the_workers_cannot_import_is_one_error_line_soon(dask_cluster: str, project: Path) -> None:
    started = time.monotonic()
    done = _bonsai(project, "--target", "badtarget:fn", "--out", "bad", "--cluster", dask_cluster)
    assert time.monotonic() - started < 30
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("bonsai: error:")]
    assert len(errors) == 1 and "badtarget cannot be imported here" in errors[0], done.stderr
    assert "Traceback" not in done.stderr


def test_the_grammar_travels_as_text_unless_it_imports_its_neighbours(tmp_path: Path) -> None:
    from bonsai.runner import GrammarText, grammar_payload

    (tmp_path / "g.lark").write_text((GRAMMARS / "expr.lark").read_text())
    payload = grammar_payload(str(tmp_path / "g.lark"))
    assert isinstance(payload, GrammarText) and payload.text == (GRAMMARS / "expr.lark").read_text()
    (tmp_path / "g.lark").unlink()  # a worker elsewhere has no such file: it writes the text where it can read it
    assert Path(payload.path()).read_text() == payload.text and payload.path() == payload.path()
    (tmp_path / "h.lark").write_text('start: x\n%import .g.NUMBER -> x\n')
    assert grammar_payload(str(tmp_path / "h.lark")) == str(tmp_path / "h.lark")
