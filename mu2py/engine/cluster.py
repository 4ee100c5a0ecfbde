"""The Dask executor: the same `map_unordered` as local executors, on a Dask distributed cluster.

`--cluster tcp://HOST:8786` joins a running scheduler; `--cluster local:N` starts a
`LocalCluster` of N single-threaded worker processes on loopback.  Units and results
travel as data (pickled by Dask); a worker needs the installed packages, and reads files by the
paths the client resolved.  A unit whose worker dies is resubmitted by Dask itself (`retries`),
and each index is yielded once; a unit that raises fails the whole map at once, with the
exception's line (`WorkerError`): it would raise again on every retry.
Dask is optional: without it, `--cluster` says how to install it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from mu2py.engine.workers import InProcess, Lost, Processes, WorkerError, executor
from mu2py.errors import UserError

INSTALL_HINT = "--cluster needs Dask: pip install 'mu2py[dask]' (or pip install 'dask[distributed]')"


_LOCAL: Processes | None = None
_LOCAL_LOCK = threading.Lock()


def in_local_process(payload: tuple[Callable[[Any], Any], Any]) -> Any:
    """Run `fn(unit)` in a child process of this Dask worker (kept for the next task).

    Dask runs tasks in threads, where SIGALRM timeouts cannot interrupt a looping mutant, and a
    crashing mutant would take the worker with it; the child has a main thread of its own and
    dies alone.  A lost unit raises, so that Dask retries it elsewhere.
    """
    global _LOCAL
    fn, unit = payload
    with _LOCAL_LOCK:  # one child per worker process: tasks of a multi-threaded worker take turns
        if _LOCAL is None:
            _LOCAL = Processes(1, retries=0)
        try:
            [(_, result)] = list(_LOCAL.map_unordered(fn, [unit]))
        except WorkerError as exc:
            # the unit raised (a grammar or a module this worker cannot find): the same on every retry, so the
            # client hears of it now, as a result, instead of after Dask's retries or never
            return Raised(str(exc))
    if isinstance(result, Lost):
        raise RuntimeError(f"unit lost in a worker's child process: {result.reason}")
    return result


@dataclass(frozen=True)
class Raised:
    """What a unit that raised on a worker sends back: the worker's traceback."""

    traceback: str

    def line(self) -> str:
        """The exception's last line (`FileNotFoundError: ... 'grammars/expr.lark'`)."""
        lines = [line for line in self.traceback.strip().splitlines() if line.strip()]
        return lines[-1].strip() if lines else "a unit raised on a Dask worker"


class DaskExecutor:
    """Runs units as Dask tasks (see the module docstring)."""

    def __init__(self, address: str, *, retries: int = 2) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:
            raise UserError(INSTALL_HINT) from exc
        self.retries = retries
        self._cluster = None
        if address.startswith("local:"):
            try:
                n = int(address.split(":", 1)[1])
            except ValueError as exc:
                raise UserError(f"bad --cluster {address!r}: use local:N or tcp://HOST:PORT") from exc
            self._cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                                         dashboard_address="127.0.0.1:0")
            self.client = Client(self._cluster)
        else:
            try:
                self.client = Client(address, timeout="10s")
            except OSError as exc:
                raise UserError(f"cannot reach the Dask scheduler at {address}: {exc}") from exc
        self.workers = max(1, len(self.client.scheduler_info()["workers"]))

    def share(self, value: Any) -> Any:
        """`value` sent once to every worker (a Dask future): tasks given it in their arguments (also inside a
        dict or list) receive the value, without the client sending it again with each task."""
        [future] = self.client.scatter([value], broadcast=True, hash=False)
        return future

    @property
    def dashboard(self) -> str:
        """The Dask dashboard address, to print for people following the run."""
        return str(self.client.dashboard_link)

    def map_unordered(
        self, fn: Callable[[Any], Any], units: Sequence[Any], *, deadline: float | Callable[[Any], float] | None = None,
        on_wait: Callable[[], None] | None = None, isolate: bool = True,
    ) -> Iterator[tuple[int, Any]]:
        """Submit every unit as a task; yield `(index, result)` as tasks finish (each index once).

        With `isolate` (the default) a task runs its unit in a child process of the worker
        (see `in_local_process`); units that manage their own processes pass False.
        """
        from distributed import as_completed

        if isolate:
            futures = [self.client.submit(in_local_process, (fn, unit), pure=False, retries=self.retries)
                       for unit in units]
        else:
            futures = [self.client.submit(fn, unit, pure=False, retries=self.retries) for unit in units]
        index_of = {future.key: index for index, future in enumerate(futures)}
        done: set[int] = set()
        for future in as_completed(futures):
            index = index_of[future.key]
            if index in done:
                continue
            done.add(index)
            result = future.result()
            if isinstance(result, Raised):
                for other in futures:  # the rest would fail alike: not worth the cluster's time
                    other.cancel()
                raise WorkerError(f"on a Dask worker: {result.line()}")
            yield index, result
            if on_wait is not None:
                on_wait()

    def close(self) -> None:
        """Disconnect (and stop the LocalCluster this executor started)."""
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def executor_for(workers: int, cluster: str | None, **local: Any) -> InProcess | Processes | DaskExecutor:
    """The executor a command asked for: a Dask cluster, local worker processes, or this process."""
    if cluster:
        return DaskExecutor(cluster)
    return executor(workers, **local)
