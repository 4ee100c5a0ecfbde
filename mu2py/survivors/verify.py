"""Verification of written tests in fresh interpreters: each must pass on the original and fail on its mutants.

Two kinds of runs, each a fresh pytest session forked from a warm server that never imported
the package (`score.forkserver`), or a new interpreter where that cannot serve (nothing of the
fuzzing process is shared): the test files as they are (every test must pass), and, per mutant, the tests
claiming to kill it with that mutant's source imported in place of its module (through the
same import hook `score` uses for its fresh-interpreter verdicts; each claiming test must
fail, or time out). Outcomes are read from pytest's JUnit XML, per test function.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from mu2py.budget import Deadline
from mu2py.processes.supervisor import run_swept
from mu2py.score.forkserver import ForkServer
from mu2py.score.isolated import INJECT, write_spec
from mu2py.testgen.junit import read_junit

# seconds a verification session may take: past it, a run with a mutant counts as failing (the mutant hangs)
SESSION_TIMEOUT = 120.0


@dataclass(frozen=True)
class MutantSource:
    """What a fresh interpreter needs to import a mutant: its id, module name, file, and the mutated source."""

    id: str
    module: str
    file: str
    is_package: bool
    source: str


def _outcomes(xml: Path) -> dict[str, bool]:
    """Per test function name, whether it passed (a skip is no pass; empty when there is no JUnit XML file)."""
    return {case.name: case.outcome == "passed" for case in read_junit(xml) or ()}


class Sessions:
    """Fresh pytest sessions: forked from warm servers (`score.forkserver`, one per thread) where possible, else
    new interpreters. The servers never import the package under test (`modules`), so each session does."""

    def __init__(self, root: str, sys_path: Sequence[str], modules: Sequence[str]) -> None:
        self.root = root
        self.sys_path = list(sys_path)
        self.forbidden = sorted({*modules, *(m.split(".")[0] for m in modules)})
        self._local = threading.local()
        self._servers: list[ForkServer] = []
        self._guard = threading.Lock()

    def _server(self) -> ForkServer:
        server = getattr(self._local, "server", None)
        if server is None:
            server = self._local.server = ForkServer(self.forbidden, self.root, self.sys_path)
            with self._guard:
                self._servers.append(server)
        return server

    def run(self, args: list[str], tmp: Path, mutant: MutantSource | None = None,
            timeout: float = SESSION_TIMEOUT) -> tuple[dict[str, bool] | None, str]:
        """Run pytest on `args` fresh (with `mutant` imported in place of its module): per test, passed?

        None (with a note) when the session timed out (after `timeout` seconds).
        """
        xml = tmp / "junit.xml"
        xml.unlink(missing_ok=True)
        options = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--junitxml", str(xml), *args]
        env: dict[str, str] = {}
        prelude = ""
        if mutant is not None:
            spec = tmp / "mutant.json"
            write_spec(spec, mutant.module, mutant.file, mutant.is_package, mutant.source)
            env["MU2PY_MUTANT_SPEC"] = str(spec)
            prelude = INJECT
        out = tmp / "pytest.out"
        code = self._server().run(options, cwd=self.root, env=env, path=self.sys_path, prelude=prelude,
                                  out=str(out), timeout=timeout)
        if code is None:  # no fork server here: a new interpreter
            code = self._subprocess(options, tmp, env, prelude, out, timeout)
        if code == "timeout":
            return None, "timed out"
        return _outcomes(xml), out.read_text(errors="replace").strip()[-500:] if out.is_file() else ""

    def _subprocess(self, options: list[str], tmp: Path, env: dict[str, str], prelude: str, out: Path,
                    timeout: float) -> int | str:
        (tmp / "mu2py_prelude.py").write_text(prelude)
        paths = [str(tmp), *self.sys_path, os.environ.get("PYTHONPATH", "")]
        full = dict(os.environ, **env, PYTHONPATH=os.pathsep.join(p for p in paths if p))
        cmd = [sys.executable, "-c", "import mu2py_prelude, sys, pytest; sys.exit(pytest.main(sys.argv[1:]))",
               *options]
        with out.open("w") as log:
            code = run_swept(cmd, timeout=timeout, cwd=self.root, env=full, stdout=log, stderr=subprocess.STDOUT).code
        return "timeout" if code is None else code

    def close(self) -> None:
        """Stop the fork servers."""
        for server in self._servers:
            server.close()


def passing(sessions: Sessions, files: Sequence[Path]) -> tuple[dict[str, bool], str]:
    """Per test function of `files`, whether it passes on the original in a fresh session (and the output)."""
    with tempfile.TemporaryDirectory(prefix="mu2py-verify-") as tmp:
        found, output = sessions.run([str(f) for f in files], Path(tmp))
    return found or {}, output


def _killed_by(sessions: Sessions, mutant: MutantSource, node_ids: list[str], deadline: Deadline) -> set[str] | None:
    """The tests of `node_ids` that fail with `mutant` applied; None when `deadline` came first (no verdict)."""
    if deadline.expired():
        return None
    timeout, capped = deadline.allot(SESSION_TIMEOUT)
    with tempfile.TemporaryDirectory(prefix="mu2py-verify-") as tmp:
        found, _ = sessions.run(node_ids, Path(tmp), mutant, SESSION_TIMEOUT if timeout is None else timeout)
    names = {node.rpartition("::")[2] for node in node_ids}
    if found is None:
        # stopped by the deadline, not by its own timeout: nothing is known; else the mutant hangs the tests, and
        # each one claiming it would not finish either
        return None if capped else names
    return {name for name in names if found.get(name) is False}


def killing(sessions: Sessions, claims: dict[MutantSource, list[str]], workers: int = 1,
            deadline: Deadline = Deadline.never()) -> dict[str, set[str]]:
    """Per mutant id, which of the tests claiming it (pytest node ids `file::test`) fail with it applied; a mutant
    whose session `deadline` stopped, or came before, has no entry (it is not verified).

    Invariant: a test counts for a mutant only if a fresh session that imported the mutated
    module ran it and it failed (or the session hung).
    """
    jobs = sorted(claims.items(), key=lambda item: item[0].id)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = list(pool.map(lambda job: _killed_by(sessions, job[0], job[1], deadline), jobs))
    return {mutant.id: killed for (mutant, _), killed in zip(jobs, results, strict=True) if killed is not None}
