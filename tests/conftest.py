"""Fixtures for every test folder: a real Dask cluster (a `dask scheduler` and two `dask worker` processes); and
`no_strays`, which checks that no process a program under test started outlived mu2py."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

DASK = shutil.which("dask", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))

WORKER_ENV = "MU2PY_TEST_DASK_WORKER"
"""Set (to 1) in the cluster's worker processes only: a test's module can behave otherwise there than on the client."""


def running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie is not: it has ended, and its parent has not reaped it yet)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def no_strays(noted: list[int] | set[int]) -> None:
    """Assert that none of the processes `noted` (their ids) still runs; those that do are killed first (a failing
    test must not leave them either)."""
    alive = [pid for pid in noted if running(pid)]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive, f"{len(alive)} of {len(noted)} processes the program started outlived mu2py"


def _stop(process: subprocess.Popen) -> None:
    """End `process` and everything in its process group (a worker's nannies and their children)."""
    try:
        os.killpg(process.pid, signal.SIGTERM)  # dask closes its workers on SIGTERM
        process.wait(10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # whatever of the group is left
    except ProcessLookupError:
        pass
    process.wait(5)


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a scheduler on loopback with two single-threaded workers, all stopped afterwards.

    The processes run in a folder of their own (not the tests'): what a worker imports it gets from the installed
    packages or from the job.  The workers' environment has `WORKER_ENV` set.
    """
    if DASK is None:
        pytest.skip("the dask command line is not installed")
    folder = tmp_path_factory.mktemp("dask")
    address_file = folder / "scheduler.json"
    started: list[subprocess.Popen] = []
    logs = []

    def start(*args: str, log: str, env: dict[str, str] | None = None) -> None:
        out = open(folder / log, "w")  # closed by the finalizer
        logs.append(out)
        # a process group of its own: the finalizer ends the whole group, children included
        started.append(subprocess.Popen([DASK, *args], cwd=folder, stdout=out, stderr=subprocess.STDOUT,
                                        start_new_session=True, env=env))

    try:
        start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", str(address_file), log="scheduler.log")
        deadline = time.monotonic() + 30
        while not address_file.is_file() or not address_file.read_text().strip():
            assert started[0].poll() is None, (folder / "scheduler.log").read_text()
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.2)
        time.sleep(0.2)  # the file is written at once, but read it whole
        address = json.loads(address_file.read_text())["address"]
        start("worker", address, "--nworkers", "2", "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard",
              log="workers.log", env={**os.environ, WORKER_ENV: "1"})
        from distributed import Client

        with Client(address, timeout="20s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        for process in reversed(started):
            _stop(process)
        for out in logs:
            out.close()
