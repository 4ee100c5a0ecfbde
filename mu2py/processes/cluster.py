"""The Dask executor: the same `map_unordered` as local executors, on a Dask distributed cluster.

`--cluster tcp://HOST:8786` joins a running scheduler; `--cluster local:N` starts a
`LocalCluster` of N single-threaded worker processes on loopback.  Units and results
travel as data (pickled by Dask); a worker needs the installed packages, and reads files by the
paths the client resolved.  Modules of the client's own folders that a unit needs (a target module in the
current directory, not installed) travel with the job (`DaskExecutor.ship`); so does a whole tree of files
(`DaskExecutor.ship_tree`: the project `score` judges), unpacked once per machine (`unpacked_tree`).  A unit whose
worker dies is resubmitted by Dask itself (`retries`), and each index is yielded once; a unit that raises fails
the whole map at once, with the exception's line (`WorkerError`): it would raise again on every retry.
Dask is optional: without it, `--cluster` says how to install it.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import io
import os
import shutil
import site
import sys
import sysconfig
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mu2py.errors import UserError
from mu2py.processes.workers import InProcess, Lost, Processes, WorkerError, executor

INSTALL_HINT = "--cluster needs Dask: pip install 'mu2py[dask]' (or pip install 'dask[distributed]')"


SHIP_PREFIX = "mu2py-ship-"
"""Shipped modules travel as `mu2py-ship-<top-level name>-<content hash>.zip`."""

_NEVER_SHIPPED = frozenset({"mu2py", "bonsai"})
"""The toolkit itself: a worker has it installed (and a copy from the client would shadow it)."""


def _installed_roots() -> list[Path]:
    """Folders of the interpreter's standard library and installed packages: what a worker has without shipping."""
    paths = sysconfig.get_paths()
    roots = [paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths]
    roots += site.getsitepackages() if hasattr(site, "getsitepackages") else []
    roots.append(site.getusersitepackages())
    return [Path(root).resolve() for root in roots]


def shippable(module: str) -> Path | None:
    """The file or package folder of `module`'s top-level module when a worker needs it shipped, else None.

    Shipped: a module found in the client's own folders (its current directory, PYTHONPATH entries); not a
    module of the standard library or installed packages, nor the toolkit itself, nor one not found here.
    """
    top = module.partition(".")[0]
    if not top or top in _NEVER_SHIPPED:
        return None
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):  # a broken or odd module: the task will say so, in one line
        return None
    if spec is None or not spec.has_location or not spec.origin:
        return None  # built in, frozen, or a namespace package spread over folders
    origin = Path(spec.origin).resolve()
    path = origin.parent if spec.submodule_search_locations is not None else origin
    if any(path.is_relative_to(root) for root in _installed_roots()):
        return None
    return path


def pack(path: Path) -> bytes:
    """A zip of the module file or package folder `path` (under its own name), the same bytes for the same
    content: no timestamps, entries in order, no bytecode caches."""
    if path.is_dir():
        files = sorted(f for f in path.rglob("*") if f.is_file() and "__pycache__" not in f.parts
                       and f.suffix not in (".pyc", ".pyo"))
    else:
        files = [path]
    return _zipped((file.relative_to(path.parent).as_posix(), file) for file in files)


def pack_tree(root: Path, files: Iterable[str]) -> bytes:
    """A zip of `files` (paths relative to `root`) with their permission bits, the same bytes for the same content.

    Entries come in sorted order, so the zip's hash names the tree: `DaskExecutor.ship_tree`, `unpacked_tree`.
    """
    return _zipped(((Path(rel).as_posix(), root / rel) for rel in sorted(files)), modes=True)


def _zipped(entries: Iterable[tuple[str, Path]], *, modes: bool = False) -> bytes:
    """The zip of `(name, file)` entries in the given order; no timestamps (a fixed date), so content alone decides
    the bytes.  With `modes`, each entry keeps its file's permission bits (an executable script stays one)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, file in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            if modes:
                info.external_attr = (file.stat().st_mode & 0o777) << 16
            archive.writestr(info, file.read_bytes())
    return buffer.getvalue()


_UNPACK_LOCK = threading.Lock()


def unpacked(names: Sequence[str]) -> list[str]:
    """The folders (for sys.path) of the shipped zips `names` in this Dask worker's local directory, unpacked once.

    Unpacked rather than imported from the zip: the modules' source files are then real files, which coverage
    and mutation read as they do locally.
    """
    from distributed import get_worker

    base = Path(get_worker().local_directory)
    folders = []
    with _UNPACK_LOCK:  # threads of one worker: one unpacks, the others find the folder
        for name in names:
            folder = base / name.removesuffix(".zip")
            if not folder.is_dir():
                scratch = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=base))
                with zipfile.ZipFile(base / name) as archive:
                    archive.extractall(scratch)
                os.replace(scratch, folder)  # whole or not at all, should the worker die meanwhile
            folders.append(str(folder))
    return folders


TREE_PREFIX = "mu2py-tree-"
"""A shipped tree (a project to score) travels as `mu2py-tree-<content hash>.zip`."""

TREE_CACHE = "mu2py-trees"
"""The folder, next to the Dask workers' own local directories, where shipped trees are unpacked once per machine."""

TREE_UNUSED_DAYS = 7
"""An unpacked tree no task has used for this many days is removed when another tree is unpacked next to it."""


def unpacked_tree(name: str) -> str:
    """The folder holding the shipped tree `name` (a zip in this Dask worker's local directory), unpacked once.

    The folder is named by the zip (by its content hash) in `TREE_CACHE` beside the worker's local directory, which
    the workers of one machine share: the first to need it unpacks it (into a scratch folder moved into place, whole
    or not at all), the others find it.  Each use touches it; trees unused for `TREE_UNUSED_DAYS` are removed.
    Invariant: the folder's content is the zip's; tasks must copy it before writing (score's sandboxes do).
    """
    from distributed import get_worker

    local = Path(get_worker().local_directory)
    cache = local.parent / TREE_CACHE
    folder = cache / name.removesuffix(".zip")
    with _UNPACK_LOCK:  # threads of one worker; other worker processes race through os.replace below
        if not folder.is_dir():
            cache.mkdir(parents=True, exist_ok=True)
            _sweep_trees(cache)
            scratch = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=cache))
            try:
                with zipfile.ZipFile(local / name) as archive:
                    for info in archive.infolist():
                        path = archive.extract(info, scratch)
                        if info.external_attr >> 16:
                            os.chmod(path, (info.external_attr >> 16) & 0o777)
                os.replace(scratch, folder)
            except OSError:
                shutil.rmtree(scratch, ignore_errors=True)
                if not folder.is_dir():  # not another worker of this machine that got there first
                    raise
        os.utime(folder)  # in use: not swept
    return str(folder)


def _sweep_trees(cache: Path) -> None:
    """Remove the trees (and abandoned unpackings) in `cache` that no task has touched for `TREE_UNUSED_DAYS`."""
    cutoff = time.time() - TREE_UNUSED_DAYS * 86400
    for entry in cache.iterdir():
        try:
            if entry.is_dir() and not entry.is_symlink() and entry.stat().st_mtime < cutoff:
                shutil.rmtree(entry, ignore_errors=True)
        except OSError:
            pass


def on_path(folders: Sequence[str], fn: Callable[[Any], Any], unit: Any) -> Any:
    """`fn(unit)` with `folders` first on sys.path (in the process that runs it)."""
    added = [folder for folder in folders if folder not in sys.path]
    if added:
        sys.path[:0] = added
        importlib.invalidate_caches()  # a finder that looked before the folder existed would miss it
    return fn(unit)


def _shipped_top(name: str) -> str:
    """The top-level module a shipped zip's name is for (`mu2py-ship-mytarget-0123abcd.zip` -> `mytarget`)."""
    return name.removeprefix(SHIP_PREFIX).rpartition("-")[0]


_LOCAL: Processes | None = None
_LOCAL_SHIPPED: dict[str, str] = {}  # top-level module -> the shipped zip the child may have imported it from
_LOCAL_LOCK = threading.Lock()


def in_local_process(payload: tuple[Any, ...]) -> Any:
    """Run `fn(unit)` in a child process of this Dask worker (kept for the next task).

    Dask runs tasks in threads, where SIGALRM timeouts cannot interrupt a looping mutant, and a
    crashing mutant would take the worker with it; the child has a main thread of its own and
    dies alone.  A lost unit raises, so that Dask retries it elsewhere.  The payload's third item, when
    given, names shipped modules (see `DaskExecutor.ship`): the child finds them first on its sys.path.
    """
    global _LOCAL
    fn, unit, *rest = payload
    shipped: Sequence[str] = rest[0] if rest else ()
    with _LOCAL_LOCK:  # one child per worker process: tasks of a multi-threaded worker take turns
        if shipped:
            try:
                fn = functools.partial(on_path, unpacked(shipped), fn)
            except OSError as exc:
                return Raised(f"{type(exc).__name__}: shipped modules missing on this worker: {exc}")
            stale = [name for name in shipped if _LOCAL_SHIPPED.get(_shipped_top(name), name) != name]
            if stale and _LOCAL is not None:
                # the child may hold another version of a module in sys.modules: a fresh child imports this one
                _LOCAL.close()
                _LOCAL = None
                _LOCAL_SHIPPED.clear()
            _LOCAL_SHIPPED.update({_shipped_top(name): name for name in shipped})
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


def _shipped_here(shipped: Sequence[str], fn: Callable[[Any], Any], unit: Any) -> Any:
    """`fn(unit)` in the Dask worker's own process, the shipped modules first on its sys.path."""
    return on_path(unpacked(shipped), fn, unit)


@dataclass(frozen=True)
class Raised:
    """What a unit that raised on a worker sends back: the worker's traceback."""

    traceback: str

    def line(self) -> str:
        """The exception's last line (`FileNotFoundError: ... 'grammars/expr.lark'`)."""
        lines = [line for line in self.traceback.strip().splitlines() if line.strip()]
        return lines[-1].strip() if lines else "a unit raised on a Dask worker"


class DaskExecutor:
    """Runs units as Dask tasks (see the module docstring); `needs` names modules to `ship` before any task."""

    def __init__(self, address: str, *, retries: int = 2, needs: Iterable[str] = ()) -> None:
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
        self.shipped: dict[str, str] = {}  # content hash -> the zip's name on the workers
        self.ship(needs)

    def ship(self, modules: Iterable[str]) -> list[str]:
        """Send the client-side modules that `modules` (dotted names) need to every worker, now and joining later.

        Only top-level modules found in the client's own folders travel (see `shippable`), each distinct content
        once per client, named by its hash: a long-lived worker never confuses a changed module with a stale copy.
        Tasks sent afterwards find them first on sys.path.  Returns the names of the zips shipped so far.
        """
        for path in dict.fromkeys(p for m in modules if (p := shippable(m)) is not None):
            data = pack(path)
            digest = hashlib.sha256(data).hexdigest()[:16]
            if digest in self.shipped:
                continue
            name = f"{SHIP_PREFIX}{path.name.removesuffix('.py')}-{digest}.zip"
            with tempfile.TemporaryDirectory(prefix="mu2py-ship-") as folder:
                file = Path(folder) / name
                file.write_bytes(data)
                # load=False: importing the target in the worker's own process is the task's business, where an
                # import error becomes the task's one-line error instead of a failed upload
                self.client.upload_file(str(file), load=False)
            self.shipped[digest] = name
        return list(self.shipped.values())

    def ship_tree(self, data: bytes) -> str:
        """Send the zipped tree `data` (see `pack_tree`) to every worker, now and joining later; returns its name there.

        Named by its content hash, so a worker never mistakes another tree for it, and registered under that name
        as an idempotent plugin: the scheduler keeps one copy per content, however many runs send it again.
        Tasks find it with `unpacked_tree(name)`.
        """
        from distributed.diagnostics.plugin import UploadFile

        name = f"{TREE_PREFIX}{hashlib.sha256(data).hexdigest()[:16]}.zip"
        with tempfile.TemporaryDirectory(prefix="mu2py-ship-") as folder:
            file = Path(folder) / name
            file.write_bytes(data)
            plugin = UploadFile(str(file), load=False)
        plugin.idempotent = True  # read by register_plugin: the scheduler skips a name it already holds
        self.client.register_plugin(plugin, name=name)
        return name

    def share(self, value: Any) -> Any:
        """`value` sent once to every worker (a Dask future): tasks given it in their arguments (also inside a
        dict or list) receive the value, without the client sending it again with each task."""
        [future] = self.client.scatter([value], broadcast=True, hash=False)
        return future

    def on_each_worker(self, fn: Callable[[Any], Any], unit: Any) -> list[Any]:
        """Start `fn(unit)` once on every worker now, in the worker's own process (as `map_unordered` with `isolate`
        False runs it), without waiting: the futures, which the caller keeps until it no longer needs the tasks (a
        released future cancels a task not yet run).  For what each worker should start before the units come."""
        return [self._in_worker(fn, unit, workers=[address], allow_other_workers=False)
                for address in self.client.scheduler_info()["workers"]]

    def _in_worker(self, fn: Callable[[Any], Any], unit: Any, **placement: Any) -> Any:
        """The task `fn(unit)` in the Dask worker's own process, the shipped modules first on its sys.path."""
        shipped = tuple(self.shipped.values())
        if shipped:
            return self.client.submit(_shipped_here, shipped, fn, unit, pure=False, **placement)
        return self.client.submit(fn, unit, pure=False, **placement)

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

        shipped = tuple(self.shipped.values())
        if isolate:
            futures = [self.client.submit(in_local_process, (fn, unit, shipped), pure=False, retries=self.retries)
                       for unit in units]
        else:
            futures = [self._in_worker(fn, unit, retries=self.retries) for unit in units]
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


def executor_for(workers: int, cluster: str | None, *, needs: Iterable[str] = (),
                 **local: Any) -> InProcess | Processes | DaskExecutor:
    """The executor a command asked for: a Dask cluster (shipped the modules `needs` names: see `DaskExecutor.ship`),
    local worker processes, or this process."""
    if cluster:
        return DaskExecutor(cluster, needs=needs)
    return executor(workers, **local)
