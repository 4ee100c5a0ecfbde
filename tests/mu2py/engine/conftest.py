"""Ground truth for hostile targets: each mutant run alone in a fresh process, in a fresh copy of a
directory.

The `fresh_truth` fixture is `fresh_verdicts`, which forks one child per (input, mutant) from the
test process, in a session of its own; the child forgets the target's package, imports it anew with
the one mutated module compiled from its mutated source, changes into a fresh copy of `workdir`, and
runs the driver once. Whatever the run leaves behind (threads, processes, handlers, environment,
files) dies with the child's session or its directory, so no run sees another's leftovers. A child
that dies without an answer is a crash; one that does not answer in time is a timeout. Only the
forked child's own answer counts (a grandchild that returns into this code is ignored).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import pickle
import select
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mu2py.engine.oracle import KillReason, kill_reason, same_warnings
from mu2py.engine.runs import RunResult, Status, run
from mu2py.mutants.catalog import Program


class _SourceFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports one module from the given source text instead of its file."""

    def __init__(self, name: str, source: str, filename: str) -> None:
        self.name, self.source, self.filename = name, source, filename

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        return importlib.util.spec_from_loader(fullname, self, origin=self.filename)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__file__ = self.filename
        exec(compile(self.source, self.filename, "exec"), module.__dict__)


def _child(spec: str, packages: tuple[str, ...], mutated: tuple[str, str, str] | None, value: Any, timeout: float,
           write: int) -> None:
    """The forked child's work: never returns (a grandchild returning here exits silently)."""
    me = os.getpid()
    try:
        import mu2py.engine.runs as runs

        runs.interrupt_is_outcome = True  # as in a host: no terminal's Ctrl-C reaches this child
        os.setsid()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)  # what the run prints is not the test's output
        os.dup2(devnull, 2)
        for name in [n for n in sys.modules if any(n == p or n.startswith(p + ".") for p in packages)]:
            del sys.modules[name]
        if mutated is not None:
            sys.meta_path.insert(0, _SourceFinder(*mutated))
        module_name, _, fn_name = spec.partition(":")
        try:
            fn = getattr(importlib.import_module(module_name), fn_name)
            result = run(fn, value, timeout)
        except Exception as exc:  # noqa: BLE001 - the mutated module raised on import: an exception outcome
            from mu2py.engine.runs import exc_name

            result = RunResult(Status.EXCEPTION, exc_type=exc_name(exc), exc_message=str(exc)[:200])
        if os.getpid() == me:
            os.write(write, pickle.dumps(result))
    finally:
        os._exit(0)


def fresh_run(spec: str, packages: tuple[str, ...], workdir: Path, value: Any,
              mutated: tuple[str, str, str] | None = None, timeout: float = 0.5) -> RunResult | KillReason:
    """One run in a fresh process and a fresh copy of `workdir`, the modules of `packages` imported anew;
    KillReason.CRASH when the process died."""
    scratch = Path(tempfile.mkdtemp(prefix="fresh-truth-"))
    copy = scratch / "cwd"
    shutil.copytree(workdir, copy)
    read, write = os.pipe()
    # the child's os.kill(os.getppid(), ...) must not stop the test: this process ignores those signals meanwhile
    saved = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGHUP, signal.SIGTERM)}
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.chdir(copy)
        _child(spec, packages, mutated, value, timeout, write)
    os.close(write)
    data = b""
    deadline = time.monotonic() + 2 * timeout + 0.5
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([read], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            chunk = os.read(read, 1 << 20)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(read)
        try:
            os.killpg(pid, signal.SIGKILL)  # the run's leftovers: threads die with it, children with its session
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        for s, handler in saved.items():
            signal.signal(s, handler)
        shutil.rmtree(scratch, ignore_errors=True)
    if not data:
        return RunResult(Status.TIMEOUT, exc_type="Timeout") if time.monotonic() >= deadline else KillReason.CRASH
    return pickle.loads(data)


def fresh_verdicts(spec: str, program: Program, workdir: Path, values: list[Any], ids: list[str],
                   timeout: float = 0.5, packages: tuple[str, ...] = ()) -> dict[str, str | None]:
    """Per mutant id, the reason the first killing input of `values` gives (None: alive), each run fresh.

    `packages`: those imported anew in each run besides the driver's own (e.g. a standard library package).
    The original's warnings count, as the oracle's rule has it, only when a second fresh run emits them again.
    """
    packages = (spec.partition(".")[0], *packages)
    compare = program.target.driver.compare
    verdicts: dict[str, str | None] = dict.fromkeys(ids)
    for value in values:
        original = fresh_run(spec, packages, workdir, value, timeout=timeout)
        assert isinstance(original, RunResult), "the original crashed in a fresh process"
        if original.warnings:
            again = fresh_run(spec, packages, workdir, value, timeout=timeout)
            if not isinstance(again, RunResult) or not same_warnings(original.warnings, again.warnings):
                original = replace(original, warnings=None)  # a pid, a time, an id in a message: not compared
        for mutant_id in ids:
            if verdicts[mutant_id] is not None:
                continue
            info = program.module_of(mutant_id)
            mutated = (info.name, program.mutant_source(mutant_id), info.file)
            result = fresh_run(spec, packages, workdir, value, mutated, timeout)
            if isinstance(result, KillReason):
                verdicts[mutant_id] = result.value
            else:
                reason = kill_reason(original, result, compare)
                verdicts[mutant_id] = reason.value if reason is not None else None
    return verdicts


@pytest.fixture
def fresh_truth():
    """`fresh_verdicts`: per mutant id, the verdict of a fresh process per (input, mutant)."""
    return fresh_verdicts


@pytest.fixture
def fresh_result():
    """`fresh_run`: one run's result in a fresh process."""
    return fresh_run
