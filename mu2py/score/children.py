"""The Python child processes a test starts (a CLI run as `python -m pkg`, a script): what they reach of the code
under test, and the mutant on disk where they import it.

A score worker judges a mutant in its own process: its probes see what the tests run there, and a swapped-in
mutant is what that process runs.  A child imports the package afresh, from disk.  So, in each worker with a
copy of the project (see `sandbox`):

- every child finds the worker's copy first (PYTHONPATH, inherited) and writes no byte code there: a stale
  `.pyc` of a mutant's file (same size, same second) would hide the next one;
- while the baseline runs, a `sitecustomize` first on that PYTHONPATH traces, in every Python child, the lines it
  runs of the files under test, and leaves them in the reach folder (`Reach`); the sites on those lines count as
  reached by the test (`TestRecord.in_children`);
- in the code objects that read a module-level dict by a variable key (`keyed.sites`, listed by `Children.watch`
  with the offsets of those loads), the child also notes the key each such load reads, by an opcode trace
  (`TestRecord.child_keys`), so that a table mutant is judged only by the tests whose children read a key it
  changed.  A child whose interpreter compiles the files otherwise (another magic number or `-O` level: other
  offsets) notes that every watched code object it entered may have read any key;
- while a unit whose tests reach the mutant through a child runs, the whole mutated module is written over the
  copy's file (`on_disk`), and the original is put back before anything else runs.

Invariants: outside `on_disk`, every file of the worker's copy is the original's; the boot folder lies outside the
copy; a child traces only while the reach folder exists (the baseline), and its own `sys.path` no longer holds
the boot folder once it started (the user's `sitecustomize`, if any, runs after ours).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import sys
import tokenize
import types
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mu2py.score import keyed

if TYPE_CHECKING:
    from mu2py.score.sandbox import ScratchCopy

REACH_ENV = "MU2PY_CHILD_REACH"  # the folder a child leaves its reach in, while it exists
FILES_ENV = "MU2PY_CHILD_FILES"  # the file listing the files under test, one path per line

BOOT = '''"""mu2py score: what a test's child process runs of the files under test (mu2py.score.children)."""
import os
import sys


def _mu2py_reach():
    out = os.environ.get("MU2PY_CHILD_REACH", "")
    if not out or not os.path.isdir(out):
        return
    try:
        with open(os.environ.get("MU2PY_CHILD_FILES", ""), encoding="utf-8") as listed:
            files = frozenset(listed.read().splitlines())
    except OSError:
        return
    import atexit
    import threading
    import time

    seen = {}  # file -> (lines run, (first line, name) of each code object entered)
    known = {}  # code file name -> the listed path it names, or None (a script run as `python pkg/mod.py`: relative)
    watched = _mu2py_watched()  # (real path, first line, name) -> {offset: (dict name, variable)}, or None
    keys = {}  # (file, first line, name) -> {dict name: set of the keys' reprs, or None: any key}

    def listed(name):
        for path in (name, os.path.abspath(name), os.path.realpath(name)):
            if path in files:
                return path
        return None

    def trace(frame, event, arg):
        code = frame.f_code
        file = known.get(code.co_filename, "")
        if file == "":
            file = known[code.co_filename] = listed(code.co_filename)
        if file is None:
            return None
        lines, entered = seen.setdefault(file, (set(), set()))
        entered.add((code.co_firstlineno, code.co_name))
        lines.add(frame.f_lineno)
        sites = watched[0].get((file, code.co_firstlineno, code.co_name)) if watched else None

        def local(frame, event, arg):
            if event == "line":
                lines.add(frame.f_lineno)
            return local
        if sites is None:
            return local
        read = keys.setdefault((file, code.co_firstlineno, code.co_name), {})
        if not watched[1]:  # compiled otherwise than the offsets say: any key, of every dict it reads by one
            for name, _ in sites.values():
                read[name] = None
            return local

        def opcode(frame, event, arg):
            if event == "line":
                lines.add(frame.f_lineno)
            elif event == "opcode":
                site = sites.get(frame.f_lasti)
                if site is not None and read.get(site[0], ()) is not None:
                    value = frame.f_locals.get(site[1], read)
                    if value is not read:  # unbound: the load raises, and nothing is read
                        text = _mu2py_atom(value)
                        if text is None:
                            read[site[0]] = None
                        else:
                            read.setdefault(site[0], set()).add(text)
            return opcode
        # the local trace function first: 3.12+ turns opcode events on only for a frame that has one
        frame.f_trace = opcode
        frame.f_trace_opcodes = True
        return opcode

    started = time.monotonic_ns()

    def dump():
        import json

        # one file per process, rewritten at each dump: an exec'd Python has the same pid, a forked one another
        path = os.path.join(out, "%d-%d.json" % (os.getpid(), started))
        try:
            found = {f: [sorted(lines), sorted(entered), []] for f, (lines, entered) in seen.items()}
            for (f, first, name), read in keys.items():
                for table, got in read.items():
                    found[f][2].append([first, name, table, None if got is None else sorted(got)])
            with open(path + ".part", "w", encoding="utf-8") as fh:
                json.dump(found, fh)
            os.replace(path + ".part", path)
        except OSError:
            pass

    def audit(event, args):
        if event == "os.exec":  # the process is about to be replaced: no exit handler will run
            dump()

    atexit.register(dump)
    sys.addaudithook(audit)
    threading.settrace(trace)
    sys.settrace(trace)


def _mu2py_watched():
    """The watch list (see `Children.watch`): ({(real path, first line, name): {offset: (dict, variable)}}, whether
    this interpreter compiles as the one that listed the offsets), or None."""
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "keys"), encoding="utf-8") as fh:
            rows = fh.read().splitlines()
    except OSError:
        return None
    if not rows:
        return None
    import _frozen_importlib_external

    same = rows[0] == "%s %d" % (_frozen_importlib_external.MAGIC_NUMBER.hex(), sys.flags.optimize)
    found = {}
    for row in rows[1:]:
        file, first, name, offset, table, variable = row.split("\t")
        found.setdefault((file, int(first), name), {})[int(offset)] = (table, variable)
    return found, same


def _mu2py_atom(value):
    """The repr of a key that reads back as an equal value (`ast.literal_eval`), or None."""
    kind = type(value)
    if kind in (str, bytes, int, bool) or value is None:
        return repr(value)
    if kind is float and value == value and value not in (float("inf"), float("-inf")):
        return repr(value)
    if kind is tuple:
        parts = [_mu2py_atom(v) for v in value]
        if None not in parts:
            return "(" + "".join(p + ", " for p in parts) + ")"
    return None


def _mu2py_chain():
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    # importing this module ends by taking whatever sys.modules then holds under its name: the user's, if any
    ours = sys.modules.pop("sitecustomize")
    try:
        import sitecustomize  # noqa: F401 - the one this shadowed, if any
    except ModuleNotFoundError as exc:
        if exc.name != "sitecustomize":
            raise
    finally:
        sys.modules.setdefault("sitecustomize", ours)


_mu2py_reach()
_mu2py_chain()
'''


@dataclass
class Ran:
    """What the children of one test ran of one module under test: lines, and code objects entered."""

    lines: set[int] = field(default_factory=set)
    entered: set[tuple[int, str]] = field(default_factory=set)  # (first line, name) of each code object
    # (first line, name) of a watched code object -> dict name -> the keys it read (their reprs), None: any
    keys: dict[tuple[int, str], dict[str, set[str] | None]] = field(default_factory=dict)


class Children:
    """One worker's view of its tests' child processes: the boot folder, the reach folder, the files under test."""

    def __init__(self, boot: str, files: Iterable[str], sys_path: Iterable[str]) -> None:
        self.boot = boot
        self.reach = os.path.join(boot, "reach")
        # a child names a file by the path it imported it from: both the path and the real one are listed
        self.files = sorted({f for path in files for f in (path, os.path.realpath(path))})
        with open(os.path.join(boot, "sitecustomize.py"), "w", encoding="utf-8") as fh:
            fh.write(BOOT)
        with open(os.path.join(boot, "files"), "w", encoding="utf-8") as fh:
            fh.write("\n".join(self.files) + "\n")
        self.sys_path = list(sys_path)

    def watch(self, files: dict[str, types.CodeType], names: frozenset[str]) -> None:
        """List for the children the loads of a variable key under `names` (see `keyed.sites`) in the code of
        `files` (path -> the module code a child's import compiles from it), with the interpreter that
        compiled it: a child compiling otherwise gets other offsets (see the module docstring)."""
        rows = [f"{importlib.util.MAGIC_NUMBER.hex()} {sys.flags.optimize}"]
        for path, body in files.items():
            for (_, first, name), code in code_objects({"": body}).items():
                for offset, (table, variable) in keyed.sites(code, names).variables.items():
                    rows.extend(f"{file}\t{first}\t{name}\t{offset}\t{table}\t{variable}"
                                for file in sorted({path, os.path.realpath(path)}))
        with open(os.path.join(self.boot, "keys"), "w", encoding="utf-8") as fh:
            fh.write("\n".join(rows) + "\n")

    def environment(self, environ: dict[str, str]) -> dict[str, str]:
        """The variables a worker sets before its ledger's snapshot, for every child of every test to inherit."""
        path = [self.boot, *self.sys_path, *([environ["PYTHONPATH"]] if environ.get("PYTHONPATH") else [])]
        return {"PYTHONPATH": os.pathsep.join(path), "PYTHONDONTWRITEBYTECODE": "1",
                REACH_ENV: self.reach, FILES_ENV: os.path.join(self.boot, "files")}

    @contextmanager
    def recording(self) -> Iterator[None]:
        """While inside, every Python child of a test leaves its reach in the reach folder (see `taken`)."""
        shutil.rmtree(self.reach, ignore_errors=True)
        os.mkdir(self.reach)
        try:
            yield
        finally:
            shutil.rmtree(self.reach, ignore_errors=True)

    @contextmanager
    def forks_recorded(self, recorder: Any) -> Iterator[None]:
        """While inside, a child forked from this process (`os.fork`, multiprocessing's fork) runs the probed code
        in memory, as the tests do here: what its probes record goes to the reach folder (see `taken`)."""
        if not _HOOKED:
            os.register_at_fork(after_in_child=_after_fork_in_child)
            _HOOKED.append(True)
        _FORKED[:] = [(recorder, self.reach)]
        try:
            yield
        finally:
            _FORKED.clear()

    def taken(self, module_of: dict[str, str], recorder: Any) -> dict[str, Ran]:
        """Per module under test (`module_of`: real path of its file -> name), what the new processes that ended
        since the last call ran of it (a child still running has not left its reach yet); what the children forked
        from here recorded goes into `recorder`, as the test's own (see `forks_recorded`)."""
        try:
            names = os.listdir(self.reach)
        except OSError:
            return {}
        found: dict[str, Ran] = {}
        for name in names:
            if name.startswith("fork-"):
                _take_forked(os.path.join(self.reach, name), recorder)
                continue
            if not name.endswith(".json"):
                continue
            path = os.path.join(self.reach, name)
            try:
                with open(path, encoding="utf-8") as fh:
                    data = json.load(fh)
                os.remove(path)
            except (OSError, ValueError):
                continue
            for file, (lines, entered, *read) in data.items():
                module = module_of.get(os.path.realpath(file))
                if module is not None:
                    ran = found.setdefault(module, Ran())
                    ran.lines.update(lines)
                    ran.entered.update((first, code_name) for first, code_name in entered)
                    for first, code_name, table, got in read[0] if read else ():
                        tables = ran.keys.setdefault((first, code_name), {})
                        before = tables.setdefault(table, set())
                        if before is not None:
                            tables[table] = None if got is None else before | set(got)
        return found


class _Spilled(set[int]):
    """A forked child's record of sites or mutants: what it adds after the fork also goes to a file, line by line,
    as it happens (the child may end in `os._exit`, as a multiprocessing worker does, and run no exit handler)."""

    def __init__(self, items: set[int], path: str, kind: str) -> None:
        super().__init__(items)
        self.path, self.kind = path, kind

    def add(self, item: int) -> None:
        if item not in self:
            super().add(item)
            self._spill([item])

    def update(self, *others: Iterable[int]) -> None:
        new = [item for other in others for item in other if item not in self]
        if new:
            super().update(new)
            self._spill(new)

    def _spill(self, items: list[int]) -> None:
        try:
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write("".join(f"{self.kind} {item}\n" for item in items))
        except OSError:
            pass


_FORKED: list[tuple[Any, str]] = []  # while the baseline runs a test: its probe recorder and the reach folder


def _after_fork_in_child() -> None:
    if _FORKED:
        recorder, folder = _FORKED[0]
        path = os.path.join(folder, f"fork-{os.getpid()}.txt")
        recorder.reached = _Spilled(recorder.reached, path, "reached")
        recorder.infected = _Spilled(recorder.infected, path, "infected")


_HOOKED: list[bool] = []  # whether this process registered `_after_fork_in_child` (it cannot be unregistered)


def _take_forked(path: str, recorder: Any) -> None:
    """A forked child's spilled sites and mutants (see `_Spilled`) added to `recorder`; the file removed."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        os.remove(path)
    except OSError:
        return
    for line in text.splitlines():
        kind, _, item = line.partition(" ")
        if item.isdigit():
            (recorder.reached if kind == "reached" else recorder.infected).add(int(item))


def sites_of(ran: dict[str, Ran], mutants: Iterable[Any]) -> list[int]:
    """The sites of `mutants` whose source span holds a line the children ran (`ran`: per module)."""
    sites = set()
    for m in mutants:
        lines = ran[m.module].lines if m.module in ran else None
        if lines and any(line in lines for line in range(m.line, m.end_line + 1)):
            sites.add(m.site)
    return sorted(sites)


def entered_code(ran: dict[str, Ran]) -> list[tuple[str, int, str]]:
    """(module, first line, name) of every code object the children entered, sorted."""
    return sorted((module, first, name) for module, r in ran.items() for first, name in r.entered)


def child_keys(ran: dict[str, Ran]) -> dict[tuple[str, int, str], dict[str, frozenset[Any] | None]]:
    """Per watched code object the children entered ((module, first line, name)), the keys they read under each
    dict name (`keyed.ALL`: any key, also for a key that does not read back)."""
    found: dict[tuple[str, int, str], dict[str, frozenset[Any] | None]] = {}
    for module, r in ran.items():
        for (first, name), tables in r.keys.items():
            out = found[(module, first, name)] = {}
            for table, texts in tables.items():
                try:
                    out[table] = keyed.ALL if texts is None else frozenset(ast.literal_eval(t) for t in texts)
                except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                    out[table] = keyed.ALL
    return found


def code_objects(modules: dict[str, types.CodeType]) -> dict[tuple[str, int, str], types.CodeType]:
    """Every code object of each module's code (module -> its compiled body), by (module, first line, name)."""
    found = {}
    for module, body in modules.items():
        todo = [body]
        while todo:
            code = todo.pop()
            found[(module, code.co_firstlineno, code.co_name)] = code
            todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return found


@contextmanager
def on_disk(sandbox: ScratchCopy | None, file: str, source: str) -> Iterator[None]:
    """The worker's copy of `file` holds `source` while inside; the original's bytes and stamp come back after."""
    if sandbox is None:
        yield
        return
    path = sandbox.remap(file)
    rel = sandbox.relative(path)
    if rel is None:
        yield
        return
    with open(path, "rb") as fh:
        encoding, _ = tokenize.detect_encoding(fh.readline)
    sandbox.write(rel, source.encode(encoding))
    try:
        yield
    finally:
        sandbox.put_back(rel)
