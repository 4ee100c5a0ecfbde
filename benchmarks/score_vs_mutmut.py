"""Mutation score of real PyPI packages' own pytest suites: mutmut 3.8.1 against `mu2py score`.

For each package the script downloads the pinned source distribution into a scratch
directory, checks that its test suite passes, runs `mutmut run` on one copy and
`mu2py score` on another, and prints per tool the wall time, the counts by status and
the score, then the verdict agreement on the mutants both tools generate, and mu2py's
time once more without the import-time mutants mutmut does not make (the like-for-like time).

    python benchmarks/score_vs_mutmut.py [--packages isodate toml | --unseen | --tuned | --fresh4] [--scratch DIR]
                                         [--workers 2] [--skip-mutmut] [--json-out FILE] [--cross-check] [--referee N]
                                         [--twice]

mutmut runs in a virtual environment of its own inside the scratch directory (it imports
pytest into its own process and forks it per mutant); `mu2py` runs from this interpreter's
environment.  A mutmut run takes minutes, so its results are cached as JSON in the scratch
directory: `--skip-mutmut` reuses that cache instead of running mutmut again.  Besides the wall time,
each tool's CPU time (user + system, of every process it started, orphans adopted) is printed: on a machine other jobs
share, the wall time follows the load, the CPU time much less.

Per `score` run the script also prints mutmut's CPU time over mu2py's, counting every mutant mu2py judged (import-
time ones included), and where mu2py's time went by its JSON report (baseline; function mutants swapped in place;
module bodies re-run in place (import-time mutants, functions the body calls); fresh interpreters, import-time or
not, and why; what no mutant is charged with). `--twice` scores each package a second time, both runs with `--no-
cache`, and prints how many mutants' statuses differ between them (listing them); `--fresh4` is issue 36's four
packages never used here before, with `--twice`.

`--referee N` settles up to N disagreements the plain way: pytest run on the mutated file.
`--cross-check` scores once more with `--import-time fresh` (every import-time mutant in a fresh
interpreter, as mutmut would need for them) and prints how many of those verdicts the
default in-place reload reproduces.

Until `mu2py score` exists (`mu2py score --help` fails) only mutmut's figures are printed,
plus how many of mutmut's mutants match one listed by `mu2py mutants --json`.

Matching: a mutmut mutant is the whole function rewritten (`pkg.mod.x_func__mutmut_7`,
`pkg.mod.xǁClassǁmethod__mutmut_7`), a mu2py mutant a replaced node span.  Both are turned
into the full mutated source of their file, and two mutants match when they are in the same
file and their mutated files are equal up to whitespace (mu2py reports one-line texts, so
whitespace is not comparable for nodes spanning lines).  See `match`.
"""

from __future__ import annotations

import argparse
import ast
import ctypes
import fnmatch
import functools
import hashlib
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tarfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MUTMUT_VERSION = "3.8.1"
PYTEST_VERSION = "9.2.0"
# bump when the cached JSON's shape or the way it is computed changes
CACHE_FORMAT = 2


@dataclass(frozen=True)
class Package:
    """A pinned sdist and how to run its own tests."""

    name: str
    version: str
    source: str  # the package directory (or one-module file) to mutate, relative to the project root
    import_root: str  # the directory to put on sys.path so the tests import the package from source
    tests: str = "tests"  # the test paths given to pytest, separated by spaces
    also_copy: tuple[str, ...] = ()  # files the tests read that mutmut does not copy into mutants/ by itself
    deselect: tuple[str, ...] = ()  # test node ids left out for both tools
    # files under `source` neither tool mutates (globs relative to the project root): the package's own tests when
    # they live inside it, a module no test here can import
    skip: tuple[str, ...] = ()
    # more [mutmut] settings: `process_isolation = forkserver` for a suite that leaves process state behind (mutmut's
    # default forks every mutant from the process that ran the whole suite for its stats, and runs its clean-test
    # pass there too: colorlog's then fails, its loggers disabled by the stats run's `fileConfig`)
    mutmut_settings: tuple[str, ...] = ()
    notes: str = ""

    @property
    def key(self) -> str:
        """Name and version, as in the sdist's file name."""
        return f"{self.name}-{self.version}"

    @property
    def test_paths(self) -> list[str]:
        """The test paths, one pytest argument each."""
        return self.tests.split()


PACKAGES: dict[str, Package] = {
    # src layout; 280 tests in about a second; about 1,300 mutmut mutants
    "isodate": Package("isodate", "0.7.2", source="src/isodate", import_root="src"),
    # flat layout, weaker suite; test_paths reads ./test.toml, which mutmut does not copy by itself
    "toml": Package(
        "toml", "0.10.2", source="toml", import_root=".", also_copy=("test.toml",),
        deselect=(
            # need the toml-test conformance data, which the sdist does not ship
            "tests/test_api.py::test_valid_tests",
            "tests/test_api.py::test_invalid_tests",
            # skipped unless numpy is installed: the two tools run in different environments
            "tests/test_api.py::test_numpy_floats",
            "tests/test_api.py::test_numpy_ints",
        ),
    ),
    # three packages mu2py was never tuned on (issue 26): a cache library (src layout, unittest-style
    # suite), an HTML-escaping string type (src layout; its C speedups are not built, the tests of the
    # pure-Python escape run) and a URI parser (src layout, 2,800 tests; its idna tests skip in both
    # environments, which have no idna)
    "cachetools": Package("cachetools", "5.5.0", source="src/cachetools", import_root="src"),
    "markupsafe": Package("markupsafe", "3.0.2", source="src/markupsafe", import_root="src"),
    "rfc3986": Package("rfc3986", "2.0.0", source="src/rfc3986", import_root="src"),
    # three more packages mu2py was never tuned on (issue 26, session 13), none of them src layout:
    # word inflections (flat package, its suite one module at the root; 455 tests, regex tables built
    # at import), gitignore-style path matching (flat package, unittest-style suite) and the inverse
    # of str.format (one module at the root, mutated as a file)
    "inflection": Package("inflection", "0.5.1", source="inflection", import_root=".", tests="test_inflection.py"),
    "pathspec": Package("pathspec", "0.12.1", source="pathspec", import_root="."),
    "parse": Package("parse", "1.20.2", source="parse.py", import_root="."),
    # four packages never used here before (issue 36), each a hazard of scoring in one interpreter:
    # colored log formatting (flat package, tests inside it): 481 of its 707 mutants are import-time (the escape-code
    # tables, class bodies), and its tests leave logging configured: `fileConfig` disables every existing logger
    # (asyncio's too), `basicConfig` and the fixtures leave the root logger at DEBUG with a handler, and 14 loggers
    # keep handlers and levels
    "colorlog": Package("colorlog", "6.12.0", source="colorlog", import_root=".", tests="colorlog/tests",
                        skip=("colorlog/tests/*",), mutmut_settings=("process_isolation = forkserver",)),
    # logging made easy (flat package, 25 tests): its tests leave the root logger at DEBUG with a handler, six
    # loggers with handlers, and five open descriptors (file handlers on deleted temporary files, a syslog socket)
    "logzero": Package("logzero", "1.7.0", source="logzero", import_root=".",
                       mutmut_settings=("process_isolation = forkserver",)),
    # semantic versions and specs (flat package): 36 unittest tests run, 28 of them loops of `self.subTest`,
    # 586 subtests in all (142 in one); django_fields.py needs Django, which neither environment has; the package
    # reads its version from its .egg-info at import, which mutmut does not copy into mutants/ by itself
    "semantic_version": Package("semantic_version", "2.10.0", source="semantic_version", import_root=".",
                                skip=("semantic_version/django_fields.py",), also_copy=("semantic_version.egg-info",)),
    # time expressions to seconds (one module of regexes built at import; tests inside the package, in files
    # pytest only collects when named): about half of its mutants are import-time, and its test module reads the
    # regexes at import
    "pytimeparse": Package("pytimeparse", "1.1.10", source="pytimeparse", import_root=".",
                           tests="pytimeparse/tests/testtimeparse.py pytimeparse/tests/testdayclock.py",
                           skip=("pytimeparse/tests/*",)),
    # XML to dicts and back (one module of 649 lines, 119 tests; a new user's package, first scored in session 47)
    "xmltodict": Package("xmltodict", "1.0.4", source="xmltodict.py", import_root="."),
    # plain-text tables (one module of 3,074 lines as a package's __init__, 303 tests): its CLI tests run the
    # module as a script in a child process (`python tabulate/__init__.py`), and its table of formats is named
    # tuples holding the module's functions, re-created by every import-time mutant
    "tabulate": Package("tabulate", "0.10.0", source="tabulate", import_root=".", tests="test"),
}
# the packages mu2py was tuned on in sessions 10-12 (then called unseen), the ones it never was, and issue 36's
# four packages never used here before
TUNED = ("cachetools", "markupsafe", "rfc3986")
UNSEEN = ("inflection", "pathspec", "parse")
FRESH4 = ("colorlog", "logzero", "semantic_version", "pytimeparse")

# mutmut's exit code per mutant (mutmut/stats.py, status_by_exit_code) folded into the statuses of
# `mu2py score`; anything not listed here is "other" (suspicious, segfault, skipped, ...)
MUTMUT_STATUS = {
    1: "killed", 3: "killed", 0: "survived", 5: "no_coverage", 33: "no_coverage",
    36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout",
    34: "skipped", 37: "type_check", None: "not_checked",
}
STATUSES = ("killed", "survived", "timeout", "no_coverage")
DETECTED = {"killed", "timeout"}


def run(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None,
        log: Path | None = None, timeout: float = 3600) -> subprocess.CompletedProcess[str]:
    """Run a command, its output captured (or written to `log`), raising with its output if it fails."""
    if log is not None:
        with log.open("w") as out:
            proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, text=True,
                                  timeout=timeout)
    else:
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:] if log else (proc.stdout + proc.stderr)[-3000:]
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode} (cwd {cwd}):\n{tail}")
    return proc


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children and their own waited-for descendants."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def become_subreaper() -> None:
    """Adopt the orphans of this process's descendants (Linux): a process whose parent never waited for it
    (mu2py's fork server, outliving its worker by a moment) is then waited for here, and its CPU time counts."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def reap_orphans(patience: float = 10.0) -> None:
    """Wait for the adopted orphans a tool left behind (see `become_subreaper`), at most `patience` seconds."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # no process of ours is left
        if pid == 0:
            time.sleep(0.05)


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without anything that would change which code the tests import."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(extra)
    return env


# --- setting up the scratch directory ---------------------------------------------------------


def ensure_venv(scratch: Path) -> Path:
    """A virtual environment with mutmut and pytest pinned; returns its bin directory."""
    venv = scratch / "venv"
    marker = venv / f".mutmut-{MUTMUT_VERSION}-pytest-{PYTEST_VERSION}"
    bindir = venv / "bin"
    if not marker.exists():
        print(f"creating {venv} with mutmut=={MUTMUT_VERSION}, pytest=={PYTEST_VERSION}", flush=True)
        run([sys.executable, "-m", "venv", "--clear", str(venv)])
        run([str(bindir / "python"), "-m", "pip", "install", "-q", f"mutmut=={MUTMUT_VERSION}",
             f"pytest=={PYTEST_VERSION}"], env=clean_env())
        marker.touch()
    return bindir


def ensure_sdist(pkg: Package, scratch: Path, bindir: Path) -> Path:
    """The unpacked, untouched sdist (downloaded once); returns its project root."""
    root = scratch / "src" / pkg.key
    if root.exists():
        return root
    dist = scratch / "dist"
    dist.mkdir(parents=True, exist_ok=True)
    run([str(bindir / "python"), "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps",
         "-d", str(dist), f"{pkg.name}=={pkg.version}"], env=clean_env())
    wanted = pkg.key.lower().replace("_", "-") + "."  # sdist names spell `_` and `-` either way
    archives = [p for p in dist.iterdir() if p.name.lower().replace("_", "-").startswith(wanted)]
    if not archives:
        raise RuntimeError(f"pip download left no sdist of {pkg.key} in {dist}")
    unpacked = scratch / "src" / "unpack"
    shutil.rmtree(unpacked, ignore_errors=True)
    with tarfile.open(archives[0]) as tar:
        tar.extractall(unpacked, filter="data")
    (top,) = list(unpacked.iterdir())
    top.rename(root)
    unpacked.rmdir()
    return root


_CONFTEST = '''"""Added by benchmarks/score_vs_mutmut.py: the same tests are left out for both tools."""

_DESELECT = {deselect!r}


def pytest_collection_modifyitems(config, items):
    dropped = [item for item in items if item.nodeid in _DESELECT]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item.nodeid not in _DESELECT]
'''


def fresh_copy(pkg: Package, pristine: Path, dest: Path) -> Path:
    """A new copy of the project in which both tools see the same tests."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(pristine, dest)
    if pkg.deselect:
        # a conftest inside the tests directory, because mutmut copies tests/ into mutants/ but
        # not a conftest.py at the project root
        conftest = dest / pkg.test_paths[0] / "conftest.py"
        if conftest.exists():
            raise RuntimeError(f"{conftest} exists: extend fresh_copy to merge into it")
        conftest.write_text(_CONFTEST.format(deselect=sorted(pkg.deselect)))
    return dest


def baseline(pkg: Package, root: Path, bindir: Path) -> str:
    """The plain pytest run of the suite on the original code (must pass); returns its last line."""
    env = clean_env(PYTHONPATH=str(root / pkg.import_root))
    proc = run([str(bindir / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", *pkg.test_paths],
               cwd=root, env=env, timeout=600)
    return proc.stdout.strip().splitlines()[-1]


# --- mutmut -----------------------------------------------------------------------------------


def write_mutmut_config(pkg: Package, root: Path) -> None:
    """mutmut 3 reads [tool.mutmut] from pyproject.toml, else [mutmut] from setup.cfg: use setup.cfg."""
    pyproject = root / "pyproject.toml"
    if pyproject.exists() and re.search(r"^\[tool\.mutmut\]", pyproject.read_text(), re.M):
        raise RuntimeError(f"{pyproject} has its own [tool.mutmut]: it would win over setup.cfg")
    lines = ["", "[mutmut]", f"source_paths = {pkg.source}", "pytest_add_cli_args_test_selection ="]
    lines += [f"    {p}" for p in pkg.test_paths]
    if pkg.also_copy:
        lines += ["also_copy ="] + [f"    {p}" for p in pkg.also_copy]
    if pkg.skip:
        lines += ["do_not_mutate ="] + [f"    {p}" for p in pkg.skip]
    lines += list(pkg.mutmut_settings)
    # setup.cfg lists are one item a line: `-p no:cacheprovider` is two items
    lines += ["pytest_add_cli_args =", "    -p", "    no:cacheprovider", ""]
    with (root / "setup.cfg").open("a") as f:
        f.write("\n".join(lines))


def run_mutmut(pkg: Package, root: Path, bindir: Path, workers: int) -> dict[str, Any]:
    """`mutmut run` in `root`, timed; returns its per-mutant results (see `read_mutmut_results`)."""
    write_mutmut_config(pkg, root)
    log = root / "mutmut-run.log"
    print(f"  mutmut run --max-children {workers} (log: {log})", flush=True)
    start, cpu = time.perf_counter(), children_cpu()
    # no PYTHONPATH: mutmut puts mutants/ and mutants/src first on sys.path and must not find the original
    run([str(bindir / "mutmut"), "run", "--max-children", str(workers)], cwd=root, env=clean_env(), log=log,
        timeout=4 * 3600)
    seconds = time.perf_counter() - start
    reap_orphans()
    cpu = children_cpu() - cpu
    result = read_mutmut_results(root)
    # the cores are shared: the load during the run says how far to trust the wall time (the CPU time is not
    # affected by the other jobs)
    result.update(seconds=seconds, cpu_seconds=cpu, load=os.getloadavg()[1])
    return result


def read_mutmut_results(root: Path) -> dict[str, Any]:
    """Every mutant of a finished mutmut run, from the mutants/**/*.py.meta files.

    Each meta file is the JSON of one source file's `SourceFileMutationData`; its
    `exit_code_by_key` maps mutant names to the exit code of the pytest run on that mutant.
    The tests mutmut ran on a mutant are those recorded for its function in
    mutants/mutmut-stats.json.
    """
    stats_file = root / "mutants" / "mutmut-stats.json"
    stats = json.loads(stats_file.read_text()) if stats_file.exists() else {}
    tests_by_function = stats.get("tests_by_mangled_function_name", {})
    mutants = []
    for meta in sorted((root / "mutants").rglob("*.py.meta")):
        rel = meta.relative_to(root / "mutants").as_posix().removesuffix(".meta")
        data = json.loads(meta.read_text())
        source = (root / rel).read_text()
        spans = json.loads(meta.with_suffix(".spans").read_text())["spans"]
        mutated_lines = (root / "mutants" / rel).read_text().splitlines(keepends=True)
        for name, code in data["exit_code_by_key"].items():
            mutant = {"name": name, "file": rel, "exit_code": code, "status": MUTMUT_STATUS.get(code, "other"),
                      "tests_run": len(tests_by_function.get(name.partition("__mutmut_")[0], ()))}
            mutant.update(mutmut_change(name, source, spans, mutated_lines))
            mutants.append(mutant)
    return {"mutmut": MUTMUT_VERSION, "mutants": mutants}


def mutmut_change(name: str, source: str, spans: dict[str, list[int]], mutated_lines: list[str]) -> dict[str, Any]:
    """Where a mutmut mutant changes the original file: scope, line, replaced text, and its match key.

    mutmut writes every mutant as a whole copy of its function (`x_f__mutmut_7`) beside an
    unmutated copy (`x_f__mutmut_orig`); the .spans file beside the meta file gives their lines.
    Both copies are renamed back to the function's name; the unmutated one is then found in
    the original source, and replacing it with the mutated one gives the mutated file.
    """
    generated = name.rpartition(".")[2]
    mangled = generated.partition("__mutmut_")[0]
    if "ǁ" in mangled:
        _, cls, func = mangled.split("ǁ")
        scope = f"{cls}.{func}"
    else:
        cls, func = None, mangled.removeprefix("x_")
        scope = func
    out: dict[str, Any] = {"scope": scope, "line": None, "removed": None, "inserted": None, "key": None}
    try:
        texts = []
        for gen in (mangled + "__mutmut_orig", generated):
            start, end = spans[gen]
            text = "".join(mutated_lines[start - 1:end])
            # the generated name only occurs in the `def` line: the body calls the trampoline's name
            texts.append(re.sub(rf"\bdef\s+{re.escape(gen)}\b", f"def {func}", text, count=1))
    except (KeyError, ValueError):
        return out
    original, mutated_function = texts
    at = locate_function(source, original, cls, func)
    if at < 0:
        return out
    mutated = source[:at] + mutated_function + source[at + len(original):]
    out.update(text_change(source, mutated))
    out["key"] = match_key(mutated)
    return out


@functools.cache
def _def_lines(source: str) -> dict[tuple[str | None, str], list[int]]:
    """`def` lines of the top-level functions and top-level classes' methods, by (class, name)."""
    found: dict[tuple[str | None, str], list[int]] = defaultdict(list)
    for node in ast.parse(source).body:
        members = node.body if isinstance(node, ast.ClassDef) else [node]
        for f in members:
            if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef):
                found[(node.name if isinstance(node, ast.ClassDef) else None, f.name)].append(f.lineno)
    return found


def locate_function(source: str, text: str, cls: str | None, func: str) -> int:
    """Offset in `source` of the function `cls.func` (or top-level `func`) whose text is `text`, or -1.

    Identical functions occur (toml's two `__init__`s in ordered.py): the occurrence spanning
    the right `def` line is taken.
    """
    def_lines = _def_lines(source).get((cls, func), [])
    at = source.find(text)
    first = at
    while at >= 0:
        start, end = source.count("\n", 0, at) + 1, source.count("\n", 0, at + len(text)) + 1
        if any(start <= line <= end for line in def_lines):
            return at
        at = source.find(text, at + 1)
    return first


# --- mu2py ------------------------------------------------------------------------------------


CHECKOUT = Path(__file__).resolve().parents[1]  # the mu2py these figures are about: this checkout's


def mu2py_command() -> list[str]:
    """How to start this checkout's mu2py (found through `mu2py_env`), whatever `mu2py` is installed."""
    return [sys.executable, "-m", "mu2py"]


def has_score_command() -> bool:
    """Whether `mu2py score` exists yet (it is being written)."""
    try:
        proc = subprocess.run([*mu2py_command(), "score", "--help"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def mu2py_env(pkg: Package, root: Path) -> dict[str, str]:
    """mu2py runs the tests in this interpreter: the package must import from the copy's source, and mu2py
    from this checkout (last on the path: the project's own `tests` package comes first)."""
    return clean_env(PYTHONPATH=os.pathsep.join([str(root / pkg.import_root), str(CHECKOUT)]))


def run_mu2py_score(pkg: Package, root: Path, workers: int, *extra: str, save: Path | None = None) -> dict[str, Any]:
    """`mu2py score ... --json` in `root`, timed; returns its JSON plus the wall time (also written to `save`)."""
    cmd = [*mu2py_command(), "score", "--paths", pkg.source, "--tests", *pkg.test_paths, *mu2py_skip(pkg), "--json",
           "--workers", str(workers), *extra]
    print(f"  {shlex.join(cmd[1:])}", flush=True)
    start, cpu = time.perf_counter(), children_cpu()
    proc = run(cmd, cwd=root, env=mu2py_env(pkg, root), timeout=4 * 3600)
    seconds = time.perf_counter() - start
    reap_orphans()
    cpu = children_cpu() - cpu
    result = json.loads(proc.stdout)
    result.update(wall_seconds=seconds, cpu_seconds=cpu, load=os.getloadavg()[1])
    if save is not None:
        save.parent.mkdir(parents=True, exist_ok=True)
        save.write_text(json.dumps(result, indent=1))
        print(f"  (report saved to {save})")
    return result


def mu2py_skip(pkg: Package) -> list[str]:
    """`--skip` for the package's files neither tool mutates: mu2py matches a glob against each module's name and
    absolute file, so the project-relative glob is anchored under any directory."""
    return ["--skip", *(f"*/{glob}" for glob in pkg.skip)] if pkg.skip else []


def list_mu2py_mutants(pkg: Package, root: Path) -> list[dict[str, Any]]:
    """`mu2py mutants PATH --json`: the mutants without verdicts, for matching when score is missing."""
    proc = run([*mu2py_command(), "mutants", pkg.source, "--json"], cwd=root, env=mu2py_env(pkg, root), timeout=600)
    return [m for m in json.loads(proc.stdout)["mutants"]
            if not any(fnmatch.fnmatch(m["file"], f"*/{glob}") for glob in pkg.skip)]


# --- matching ---------------------------------------------------------------------------------


def text_change(source: str, mutated: str) -> dict[str, Any]:
    """The one changed region between two texts: first changed line, removed and inserted text."""
    limit = min(len(source), len(mutated))
    prefix = 0
    while prefix < limit and source[prefix] == mutated[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and source[-1 - suffix] == mutated[-1 - suffix]:
        suffix += 1
    return {"line": source.count("\n", 0, prefix) + 1, "removed": source[prefix:len(source) - suffix],
            "inserted": mutated[prefix:len(mutated) - suffix]}


def match_key(mutated_source: str) -> str:
    """Identity of a mutated file up to whitespace.

    All whitespace is dropped, not just collapsed: mu2py's spans of some nodes (a comparison's
    right-hand side, `== 0`) start at the whitespace before them, their texts do not.
    """
    return hashlib.sha1("".join(mutated_source.split()).encode()).hexdigest()


def mu2py_mutated_source(mutant: dict[str, Any], source: str, line_starts: list[int]) -> str:
    """The file with one mu2py mutant applied, from its span and its (one-line) mutated text.

    Spans are libcst positions: 1-based lines, 0-based columns in characters.  They leave out
    the node's own parentheses, which `original` and `mutated` include: the span is widened
    over enclosing parentheses until its text is `original` (whitespace aside).
    """
    start = line_starts[mutant["line"] - 1] + mutant["column"]
    end = line_starts[mutant["end_line"] - 1] + mutant["end_column"]
    want = "".join(mutant["original"].split())
    for _ in range(8):
        if "".join(source[start:end].split()) == want:
            break
        before = len(source[:start].rstrip())
        after = end + len(source[end:]) - len(source[end:].lstrip())
        if before == 0 or source[before - 1] != "(" or source[after:after + 1] != ")":
            break
        start, end = before - 1, after + 1
    return source[:start] + mutant["mutated"] + source[end:]


def _line_starts(source: str) -> list[int]:
    starts = [0]
    for line in source.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    return starts


def mutmut_function_lines(source: str) -> set[int]:
    """The lines of the functions mutmut mutates (file_mutation.py): top-level functions and methods
    of top-level classes, undecorated or only @staticmethod/@classmethod, minus a few dunders."""
    lines: set[int] = set()
    body = ast.parse(source).body
    candidates = [n for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    candidates += [f for c in body if isinstance(c, ast.ClassDef) for f in c.body
                   if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)]
    for f in candidates:
        plain = not f.decorator_list or (
            len(f.decorator_list) == 1 and isinstance(f.decorator_list[0], ast.Name)
            and f.decorator_list[0].id in ("staticmethod", "classmethod"))
        if plain and f.name not in ("__getattribute__", "__setattr__", "__new__"):
            lines.update(range(f.lineno, (f.end_lineno or f.lineno) + 1))
    return lines


def annotate_mu2py(mutants: list[dict[str, Any]], root: Path) -> None:
    """Add `rel` (file relative to the project root), the match `key`, and `in_mutmut_scope`
    (whether mutmut would mutate that line at all) to each mu2py mutant."""
    sources: dict[str, tuple[str, list[int], set[int]]] = {}
    for m in mutants:
        path = Path(m["file"])
        path = (path if path.is_absolute() else root / path).resolve()
        rel = path.relative_to(root.resolve()).as_posix()
        if rel not in sources:
            text = path.read_text()
            sources[rel] = (text, _line_starts(text), mutmut_function_lines(text))
        source, starts, in_functions = sources[rel]
        m["rel"] = rel
        m["key"] = match_key(mu2py_mutated_source(m, source, starts))
        m["in_mutmut_scope"] = m["line"] in in_functions


def match(mutmut_mutants: list[dict[str, Any]],
          ours: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Pairs (mutmut mutant, mu2py mutant) that make the same change to the same file.

    Both sides carry `key` (`match_key` of their mutated file, see `mutmut_change` and
    `annotate_mu2py`); mutmut's `file` and mu2py's `rel` are paths relative to the project
    root.  Mutants with the same file and key are paired one to one, in source order (two
    operators can produce the same mutated file).
    """
    by_key: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for m in sorted(ours, key=lambda m: (m["line"], m["column"])):
        by_key[(m["rel"], m["key"])].append(m)
    pairs = []
    for mm in sorted(mutmut_mutants, key=lambda m: (m["file"], m["line"] or 0)):
        if mm["key"] is None:
            continue
        candidates = by_key.get((mm["file"], mm["key"]))
        if candidates:
            pairs.append((mm, candidates.pop(0)))
    return pairs


# --- reporting --------------------------------------------------------------------------------


def counts(statuses: Iterable[str]) -> Counter[str]:
    """Statuses counted, with the four main ones always present."""
    c = Counter({s: 0 for s in STATUSES})
    c.update(statuses)
    return c


def score(c: Counter[str]) -> float:
    """(killed + timeout) / all mutants, as mutmut's badge computes it (skipped mutants left out)."""
    total = sum(c.values()) - c["skipped"]
    return (c["killed"] + c["timeout"]) / total if total else 0.0


def status_line(c: Counter[str]) -> str:
    """Counts by status, the four main ones first."""
    parts = [f"{s} {c[s]}" for s in STATUSES] + [f"{s} {n}" for s, n in sorted(c.items()) if s not in STATUSES and n]
    return ", ".join(parts)


def load_note(result: dict[str, Any]) -> str:
    """The CPU time and the 5-minute load average at the end of a timed run, as far as they were recorded."""
    cpu = f"{result['cpu_seconds']:.1f} s CPU, " if result.get("cpu_seconds") is not None else ""
    return f" ({cpu}load {result['load']:.1f} on {os.cpu_count()} cores)" if result.get("load") is not None else ""


def cpu_ratio(mutmut: dict[str, Any], cpu_seconds: float | None) -> float | None:
    """mutmut's CPU time over mu2py's, when both were measured (mutmut's cache from before it was has none)."""
    if mutmut.get("cpu_seconds") is None or not cpu_seconds:
        return None
    return float(mutmut["cpu_seconds"]) / cpu_seconds


def short(text: str | None, width: int = 50) -> str:
    """One line, at most `width` characters."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[:width - 3] + "..."


def report(pkg: Package, mutmut: dict[str, Any] | None, ours: list[dict[str, Any]] | None,
           score_result: dict[str, Any] | None, score_note: str = "no results") -> dict[str, Any]:
    """Print the comparison of one package; returns its figures for --json-out.

    `score_note` says why there is no `score_result` (missing command, failed run).
    """
    out: dict[str, Any] = {"package": pkg.key}
    mm_counts = None
    if mutmut is not None:
        mm_counts = counts(m["status"] for m in mutmut["mutants"])
        out["mutmut"] = {"seconds": mutmut["seconds"], "cpu_seconds": mutmut.get("cpu_seconds"),
                         "total": len(mutmut["mutants"]),
                         "counts": dict(mm_counts), "score": score(mm_counts)}
        print(f"  mutmut {MUTMUT_VERSION}: {mutmut['seconds']:.1f} s wall{load_note(mutmut)}, "
              f"{len(mutmut['mutants'])} mutants: "
              f"{status_line(mm_counts)}; score {score(mm_counts):.1%}")
    else:
        print("  mutmut: no results (--skip-mutmut and nothing cached)")
    if score_result is not None:
        s = score_result["summary"]
        ours_counts = counts(m["status"] for m in score_result["mutants"])
        wall = score_result["wall_seconds"]
        out["mu2py"] = {"seconds": wall, "cpu_seconds": score_result.get("cpu_seconds"),
                        "reported_seconds": s.get("seconds"), "total": len(score_result["mutants"]),
                        "counts": dict(ours_counts), "score": score(ours_counts), "reported_score": s.get("score"),
                        "pruned_infection": s.get("pruned_infection")}
        print(f"  mu2py score: {wall:.1f} s wall{load_note(score_result)} ({s.get('seconds')} s reported), "
              f"{len(score_result['mutants'])} "
              f"mutants: {status_line(ours_counts)}; score {score(ours_counts):.1%} (reported {s.get('score')}); "
              f"pruned by infection: {s.get('pruned_infection')}")
        if mutmut is not None:
            ratio = mutmut["seconds"] / wall if wall else float("inf")
            out["wall_ratio"] = ratio
            out["cpu_ratio"] = cpu_ratio(mutmut, score_result.get("cpu_seconds"))
            cpu_note = f" (CPU time: {out['cpu_ratio']:.2f})" if out["cpu_ratio"] is not None else ""
            print(f"  wall-time ratio mutmut/mu2py: {ratio:.2f}{cpu_note}")
    elif ours is not None:
        print(f"  mu2py score: {score_note}; {len(ours)} mutants from `mu2py mutants`")
    if mutmut is None or ours is None:
        return out

    pairs = match(mutmut["mutants"], ours)
    matched_ours = {id(o) for _, o in pairs}
    matched_mm = {id(m) for m, _ in pairs}
    out["matched"] = len(pairs)
    print(f"  matched: {len(pairs)}/{len(mutmut['mutants'])} mutmut mutants match one of mu2py's {len(ours)} "
          f"(same file, same mutated source up to whitespace)")
    unlocated = [m for m in mutmut["mutants"] if m["key"] is None]
    if unlocated:
        print(f"    {len(unlocated)} mutmut mutants could not be located in the original source")
    unmatched = [m for m in mutmut["mutants"] if id(m) not in matched_mm and m["key"] is not None]
    for m in unmatched[:5]:
        print(f"    unmatched mutmut {m['name']} ({m['file']}:{m['line']}): "
              f"{short(m['removed'], 40)!r} -> {short(m['inserted'], 40)!r}")
    extra = [o for o in ours if id(o) not in matched_ours]
    # code mutmut never mutates (module and class bodies, decorated functions) first, then by operator
    by_kind = Counter(o["operator"] if o["in_mutmut_scope"] else "outside mutmut's functions" for o in extra)
    out["mu2py_only"] = dict(by_kind)
    print(f"  mu2py-only mutants: {len(extra)} ({', '.join(f'{k} {n}' for k, n in by_kind.most_common())})")
    # mu2py names nested functions `outer.inner`, mutmut only the top-level function or method
    scope_differs = [(m, o) for m, o in pairs if not f"{o.get('scope')}.".startswith(f"{m['scope']}.")]
    if scope_differs:
        m, o = scope_differs[0]
        print(f"    {len(scope_differs)} matched pairs disagree on the scope, e.g. mutmut {m['scope']} vs mu2py "
              f"{o.get('scope')}")

    if score_result is None:
        return out
    table = Counter((m["status"] in DETECTED, o["status"] in DETECTED) for m, o in pairs)
    agree = table[(True, True)] + table[(False, False)]
    out["agreement"] = {"both_killed": table[(True, True)], "mutmut_only": table[(True, False)],
                        "mu2py_only": table[(False, True)], "neither": table[(False, False)],
                        "fraction": agree / len(pairs) if pairs else None}
    print("  verdicts on matched mutants (killed = killed or timeout):")
    print(f"    {'':18}{'mu2py killed':>14}{'mu2py not':>12}")
    print(f"    {'mutmut killed':18}{table[(True, True)]:>14}{table[(True, False)]:>12}")
    print(f"    {'mutmut not':18}{table[(False, True)]:>14}{table[(False, False)]:>12}")
    if pairs:
        print(f"    agreement: {agree}/{len(pairs)} = {agree / len(pairs):.1%}")
        # the like-for-like score: mu2py's extra operators and module-level mutants left out
        both = (table[(True, True)], table[(True, False)], table[(False, True)])
        print(f"    score on the {len(pairs)} matched mutants: mutmut {(both[0] + both[1]) / len(pairs):.1%}, "
              f"mu2py {(both[0] + both[2]) / len(pairs):.1%}")
    for m, o in [(m, o) for m, o in pairs if (m["status"] in DETECTED) != (o["status"] in DETECTED)][:8]:
        print(f"    disagree: {m['name']} = {o['id']} ({short(o['original'], 30)!r} -> {short(o['mutated'], 30)!r}): "
              f"mutmut {m['status']} ({m['tests_run']} tests), mu2py {o['status']} ({o.get('tests_run')} tests, "
              f"killed by {o.get('killed_by')})")
    return out


def same_scope(pkg: Package, root: Path, workers: int, mutmut: dict[str, Any]) -> dict[str, Any]:
    """mu2py without the import-time mutants mutmut never makes (`--import-time skip`): the like-for-like time."""
    scoped = run_mu2py_score(pkg, root, workers, "--import-time", "skip", "--no-cache")
    wall = scoped["wall_seconds"]
    ratio = mutmut["seconds"] / wall if wall else float("inf")
    cpu = cpu_ratio(mutmut, scoped.get("cpu_seconds"))
    print(f"  mu2py score --import-time skip: {wall:.1f} s wall{load_note(scoped)}, {len(scoped['mutants'])} mutants "
          f"({scoped['summary'].get('skipped_import_time')} import-time mutants left out); "
          f"wall-time ratio mutmut/mu2py: {ratio:.2f}" + (f" (CPU time: {cpu:.2f})" if cpu is not None else ""))
    return {"seconds": wall, "cpu_seconds": scoped.get("cpu_seconds"), "total": len(scoped["mutants"]),
            "wall_ratio": ratio, "cpu_ratio": cpu}


def referee(pkg: Package, pristine: Path, scratch: Path, bindir: Path, mutmut: dict[str, Any],
            score_result: dict[str, Any], limit: int) -> dict[str, Any]:
    """Where the tools disagree, ask plain pytest: run the suite on the mutated source itself, mutant by mutant.

    Up to `limit` disagreeing matched mutants; each runs `pytest -x` in a copy of the project
    whose file holds the mutant (what a developer would see).  A mutant is killed when
    pytest fails or runs over 60 s.
    """
    pairs = match(mutmut["mutants"], score_result["mutants"])
    disagree = [(m, o) for m, o in pairs if (m["status"] in DETECTED) != (o["status"] in DETECTED)][:limit]
    root = fresh_copy(pkg, pristine, scratch / "work" / pkg.key / "referee")
    env = clean_env(PYTHONPATH=str(root / pkg.import_root))
    sides = Counter()
    for _m, o in disagree:
        path = root / o["rel"]
        original = path.read_text()
        path.write_text(mu2py_mutated_source(o, original, _line_starts(original)))
        try:
            proc = subprocess.run([str(bindir / "python"), "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                                   *pkg.test_paths], cwd=root, env=env, capture_output=True, text=True,
                                  timeout=60)
            killed = proc.returncode != 0
        except subprocess.TimeoutExpired:
            killed = True
        finally:
            path.write_text(original)
        sides["mu2py" if killed == (o["status"] in DETECTED) else "mutmut"] += 1
    print(f"  plain pytest on the mutated source, for {len(disagree)} disagreements: sides with mu2py "
          f"{sides['mu2py']}, with mutmut {sides['mutmut']}")
    return {"checked": len(disagree), "mu2py_right": sides["mu2py"], "mutmut_right": sides["mutmut"]}


def cross_check(pkg: Package, root: Path, workers: int, score_result: dict[str, Any]) -> dict[str, Any]:
    """Import-time mutants: verdicts of the in-place reload against a fresh interpreter for every one of them."""
    fresh = run_mu2py_score(pkg, root, workers, "--import-time", "fresh", "--no-cache")
    by_id = {m["id"]: m for m in fresh["mutants"]}
    static = [m for m in score_result["mutants"] if m["mode"] in ("reexec", "isolated") and m["id"] in by_id
              and by_id[m["id"]]["mode"] == "isolated"]
    agree = [m for m in static if (m["status"] in DETECTED) == (by_id[m["id"]]["status"] in DETECTED)]
    in_place = sum(1 for m in static if m["mode"] == "reexec")
    print(f"  import-time mutants: {len(static)}, judged in place {in_place}, in a fresh interpreter "
          f"{len(static) - in_place}; `--import-time fresh` run {fresh['wall_seconds']:.1f} s wall")
    print(f"    verdicts equal to a fresh interpreter for every one: {len(agree)}/{len(static)}")
    for m in [m for m in static if m not in agree][:8]:
        print(f"    differs: {m['id']} ({short(m['original'], 30)!r} -> {short(m['mutated'], 30)!r}): "
              f"{m['mode']} {m['status']}, fresh {by_id[m['id']]['status']}")
    return {"static": len(static), "in_place": in_place, "agree": len(agree),
            "fresh_static_seconds": fresh["wall_seconds"]}


# --- issue 36: CPU against mutmut, where the time went, two runs alike --------------------------


CPU_TARGET = 3.0  # issue 36: mutmut needs at least 3x the CPU time `score` needs, counting all of mu2py's mutants


def cpu_verdict(mutmut: dict[str, Any] | None, result: dict[str, Any], label: str) -> float | None:
    """Print mutmut's CPU time over mu2py's for one `score` run, counting every mutant mu2py judged; returns it."""
    mutants = result["mutants"]
    at_import = sum(1 for m in mutants if m.get("at_import"))
    ours = f"mu2py {result['cpu_seconds']:.1f} s for all {len(mutants)} of its mutants ({at_import} import-time)"
    ratio = cpu_ratio(mutmut, result.get("cpu_seconds")) if mutmut is not None else None
    if ratio is None:
        print(f"  CPU time ({label}): {ours}; no mutmut CPU time to compare with")
        return None
    verdict = "met" if ratio >= CPU_TARGET else "MISSED"
    print(f"  CPU time ({label}): mutmut {mutmut['cpu_seconds']:.1f} s for {len(mutmut['mutants'])} mutants, {ours}: "
          f"ratio mutmut/mu2py {ratio:.2f}x ({CPU_TARGET:g}x target {verdict})")
    return ratio


_WHY = (  # a fresh interpreter's reasons, grouped (the report words them per mutant)
    (r"module body raised", "its module body raised"),
    (r"cannot run twice in one process", "a test it needs cannot run twice in one process"),
    (r"is still held", "cannot reload in place: an original value is still held elsewhere"),
    (r"reads \w+ (while it is|and ran at)", "cannot reload in place: a module read the changed name at import"),
    (r"not reachable", "not reachable in place"),
    (r"changed .* files?|its tests changed", "its tests changed project files"),
)


def _why(reason: str | None) -> str:
    """A fresh interpreter's reason, grouped with the like ones (names, counts and exceptions left out)."""
    for pattern, group in _WHY:
        if re.search(pattern, reason or ""):
            return group
    return short(re.sub(r"\d+", "N", reason or "unknown"), 70)


def time_spent(result: dict[str, Any], workers: int) -> dict[str, Any]:
    """Where a `score` run's time went, from its JSON report: the baseline, then per kind of mutant the worker seconds
    the report charges to it (`seconds` of each mutant, its earlier in-place attempts and deadlines included), and
    what no mutant accounts for (start-up, catalog, scheduling, idle workers) out of wall time x workers."""
    mutants = result["mutants"]
    kinds = {
        "function mutants swapped in place": lambda m: m.get("mode") == "mutant",
        "module body re-run in place": lambda m: m.get("mode") == "reexec",
        "import-time mutants in a fresh interpreter": lambda m: m.get("mode") == "isolated" and m.get("at_import"),
        "function mutants in a fresh interpreter": lambda m: m.get("mode") == "isolated" and not m.get("at_import"),
        "no test run (no coverage, pruned)": lambda m: m.get("mode") == "pruned",
    }
    groups: dict[str, dict[str, Any]] = {}
    for label, pick in kinds.items():
        chosen = [m for m in mutants if pick(m)]
        groups[label] = {"mutants": len(chosen), "seconds": round(sum(m.get("seconds") or 0.0 for m in chosen), 2)}
    rest = [m for m in mutants if not any(pick(m) for pick in kinds.values())]
    if rest:
        groups["other (" + ", ".join(sorted({str(m.get("mode")) for m in rest})) + ")"] = {
            "mutants": len(rest), "seconds": round(sum(m.get("seconds") or 0.0 for m in rest), 2)}
    why: dict[str, dict[str, float]] = {}
    for m in mutants:
        if m.get("mode") == "isolated":
            group = why.setdefault(_why(m.get("isolated_because")), {"mutants": 0, "seconds": 0.0})
            group["mutants"] += 1
            group["seconds"] = round(group["seconds"] + (m.get("seconds") or 0.0), 2)
    summary = result["summary"]
    baseline_seconds = float(summary.get("baseline_seconds") or 0.0)
    charged = baseline_seconds + sum(g["seconds"] for g in groups.values())
    capacity = result["wall_seconds"] * workers
    unaccounted = [m["id"] for m in mutants if m["status"] == "timeout" and not m.get("seconds")]
    return {"baseline_seconds": baseline_seconds, "groups": groups,
            "why_fresh": dict(sorted(why.items(), key=lambda kv: -kv[1]["seconds"])),
            "charged_seconds": round(charged, 2), "wall_x_workers": round(capacity, 2),
            "uncharged_seconds": round(capacity - charged, 2), "timeouts_without_seconds": unaccounted,
            "reported": summary.get("time")}


def print_time_spent(spent: dict[str, Any], result: dict[str, Any], workers: int) -> None:
    """One block saying where mu2py's time went (see `time_spent`)."""
    print(f"  where mu2py's time went ({result['wall_seconds']:.1f} s wall x {workers} workers = "
          f"{spent['wall_x_workers']:.1f} worker-s; {result['cpu_seconds']:.1f} s CPU): "
          f"baseline {spent['baseline_seconds']:.1f} s")
    for label, g in spent["groups"].items():
        if g["mutants"]:
            each = f", {1000 * g['seconds'] / g['mutants']:.0f} ms each" if g["seconds"] else ""
            print(f"    {label}: {g['mutants']} in {g['seconds']:.1f} s{each}")
    if spent["why_fresh"]:
        print("    why a fresh interpreter: " + "; ".join(f"{g['mutants']} {why} ({g['seconds']:.1f} s)"
                                                       for why, g in spent["why_fresh"].items()))
    print(f"    charged to the baseline and mutants {spent['charged_seconds']:.1f} s; not charged to any "
          f"(start-up, catalog, scheduling, idle workers) {spent['uncharged_seconds']:.1f} s")
    if spent["timeouts_without_seconds"]:
        print(f"    {len(spent['timeouts_without_seconds'])} timeouts charged 0 s (their time shows nowhere): "
              f"{', '.join(map(str, spent['timeouts_without_seconds'][:8]))}")


def _verdict_text(m: dict[str, Any] | None) -> str:
    if m is None:
        return "absent"
    killer = f" by {short(str(m.get('killed_by')), 60)}" if m.get("killed_by") else ""
    return f"{m['status']}{killer} ({m.get('mode')}, {m.get('tests_run')} tests, {m.get('seconds')} s)"


def compare_runs(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Mutants whose status differs between two `score` runs of the same code, by mutant id."""
    a = {m["id"]: m for m in first["mutants"]}
    b = {m["id"]: m for m in second["mutants"]}
    ids = sorted(a.keys() | b.keys(), key=str)
    differ = [i for i in ids if (a.get(i) or {}).get("status") != (b.get(i) or {}).get("status")]
    print(f"  statuses differing between the two `score --no-cache` runs: {len(differ)} of {len(ids)} mutants")
    for i in differ[:12]:
        m = a.get(i) or b.get(i)
        print(f"    differs: {i} {Path(m['file']).name}:{m['line']} ({short(m['original'], 30)!r} -> "
              f"{short(m['mutated'], 30)!r}): run 1 {_verdict_text(a.get(i))}; run 2 {_verdict_text(b.get(i))}")
    by_pair = Counter(((a.get(i) or {}).get("status"), (b.get(i) or {}).get("status")) for i in differ)
    return {"mutants": len(ids), "differ": len(differ),
            "by_pair": {f"{x}->{y}": n for (x, y), n in by_pair.items()},
            "differing": [{"id": i, "run1": _verdict_text(a.get(i)), "run2": _verdict_text(b.get(i))} for i in differ]}


def second_run(pkg: Package, root: Path, workers: int, first: dict[str, Any],
               mutmut: dict[str, Any] | None, save: Path | None = None) -> dict[str, Any]:
    """`score --no-cache` once more on the same copy: its time, CPU ratio, where its time went, and the statuses that
    differ from the first run's."""
    again = run_mu2py_score(pkg, root, workers, "--no-cache", save=save)
    c = counts(m["status"] for m in again["mutants"])
    print(f"  mu2py score, run 2: {again['wall_seconds']:.1f} s wall{load_note(again)}, {len(again['mutants'])} "
          f"mutants: {status_line(c)}; score {score(c):.1%}")
    ratio = cpu_verdict(mutmut, again, "run 2")
    spent = time_spent(again, workers)
    print_time_spent(spent, again, workers)
    diff = compare_runs(first, again)
    return {"seconds": again["wall_seconds"], "cpu_seconds": again["cpu_seconds"], "cpu_ratio": ratio,
            "counts": dict(c), "time_spent": spent, "comparison": diff}


def _both(values: list[float | None], fmt: str, unit: str) -> str:
    """Run 1's and run 2's figure, `a/b` (`-` where missing)."""
    return "/".join(format(v, fmt) if v is not None else "-" for v in values) + unit


def print_issue36_table(figures: list[dict[str, Any]]) -> None:
    """Per package: mutants, CPU and wall times of both tools, the CPU ratio per run, and differing statuses."""
    rows = [f for f in figures if "issue36" in f]
    if not rows:
        return
    print(f"issue 36 (mutmut CPU / mu2py CPU, target >= {CPU_TARGET:g}x on every run; statuses of two "
          f"`score --no-cache` runs, target 0 differing; mu2py figures: run 1/run 2):")
    print(f"  {'package':<26}{'mu2py mutants':>14}{'import-time':>12}{'mutmut CPU':>12}{'mu2py CPU':>16}"
          f"{'ratio':>14}{'mutmut wall':>13}{'mu2py wall':>16}{'differ':>8}")
    for f in rows:
        t = f["issue36"]
        print(f"  {f['package']:<26}{t['mutants']:>14}{t['import_time']:>12}"
              f"{_both([t['mutmut_cpu']], '.1f', ' s'):>12}{_both(t['cpu'], '.1f', ' s'):>16}"
              f"{_both(t['ratio'], '.2f', 'x'):>14}{_both([t['mutmut_wall']], '.1f', ' s'):>13}"
              f"{_both(t['wall'], '.1f', ' s'):>16}{'-' if t['differ'] is None else t['differ']:>8}")


# --- main -------------------------------------------------------------------------------------


def mutmut_results(pkg: Package, scratch: Path, pristine: Path, bindir: Path, workers: int,
                   reuse: bool) -> dict[str, Any] | None:
    """mutmut's results for a package: from the cache with `reuse`, else from a fresh run (then cached)."""
    cache = scratch / "results" / f"{pkg.key}.mutmut.json"
    root = scratch / "work" / pkg.key / "mutmut"
    if reuse:
        cached = json.loads(cache.read_text()) if cache.exists() else {}
        if cached.get("mutmut") != MUTMUT_VERSION:
            print(f"  mutmut: no usable cache at {cache}; skipping it")
            return None
        if cached.get("format") == CACHE_FORMAT:
            print(f"  mutmut: cached results from {cache}")
            return cached
        if not (root / "mutants").is_dir():
            print(f"  mutmut: {cache} is of an older format and {root}/mutants is gone; skipping it")
            return None
        # the run's mutants/ directory is still there: only what is derived from it is recomputed
        print(f"  mutmut: cached timing from {cache}, mutants re-read from {root}/mutants")
        result = {**cached, **read_mutmut_results(root), "format": CACHE_FORMAT}
    else:
        root = fresh_copy(pkg, pristine, root)
        result = run_mutmut(pkg, root, bindir, workers)
        result.update(format=CACHE_FORMAT, package=pkg.key, workers=workers)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(result, indent=1))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", nargs="+", default=list(PACKAGES),
                        help=f"packages to compare, space- or comma-separated (known: {', '.join(PACKAGES)})")
    parser.add_argument("--unseen", action="store_true",
                        help=f"the packages mu2py was never tuned on: {', '.join(UNSEEN)}")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/mu2py-score-vs-mutmut"),
                        help="scratch directory: venv, sdists, working copies, cached mutmut results")
    parser.add_argument("--workers", type=int, default=2, help="mutmut --max-children and mu2py --workers")
    parser.add_argument("--skip-mutmut", action="store_true", help="reuse cached mutmut results instead of running it")
    parser.add_argument("--json-out", type=Path, help="also write every figure to this JSON file")
    parser.add_argument("--referee", type=int, default=0, metavar="N",
                        help="run plain pytest on up to N mutants the tools disagree on, to see who is right")
    parser.add_argument("--cross-check", action="store_true",
                        help="also score with --import-time fresh and compare the import-time mutants' verdicts")
    parser.add_argument("--tuned", action="store_true",
                        help=f"the packages of the earlier unseen runs, mu2py tuned on since: {', '.join(TUNED)}")
    parser.add_argument("--fresh4", action="store_true",
                        help=f"issue 36's four packages never used here before: {', '.join(FRESH4)} (implies --twice)")
    parser.add_argument("--twice", action="store_true",
                        help="score each package twice with --no-cache and print how many statuses differ")
    args = parser.parse_args()
    names = [n.strip() for item in args.packages for n in item.split(",") if n.strip()]
    if args.unseen or args.tuned:
        names = list(UNSEEN if args.unseen else TUNED)
    if args.fresh4:
        names, args.twice = list(FRESH4), True
    unknown = [n for n in names if n not in PACKAGES]
    if unknown:
        parser.error(f"unknown package(s) {', '.join(unknown)}; known: {', '.join(PACKAGES)}")
    become_subreaper()  # every process a tool starts counts in its CPU time
    scratch = args.scratch.resolve()
    scratch.mkdir(parents=True, exist_ok=True)
    bindir = ensure_venv(scratch)
    score_available = has_score_command()
    if not score_available:
        print("note: `mu2py score --help` failed: printing mutmut's figures alone")
    figures = []
    for name in names:
        pkg = PACKAGES[name]
        skipping = f", not mutating {' '.join(pkg.skip)}" if pkg.skip else ""
        print(f"== {pkg.key} (mutating {pkg.source}{skipping}, tests {pkg.tests})", flush=True)
        pristine = ensure_sdist(pkg, scratch, bindir)
        check = fresh_copy(pkg, pristine, scratch / "work" / pkg.key / "baseline")
        print(f"  plain pytest: {baseline(pkg, check, bindir)}", flush=True)
        mutmut = mutmut_results(pkg, scratch, pristine, bindir, args.workers, args.skip_mutmut)
        ours_root = fresh_copy(pkg, pristine, scratch / "work" / pkg.key / "mu2py")
        score_result = None
        score_note = "not available (`mu2py score --help` failed)"
        if score_available:
            try:
                score_result = run_mu2py_score(pkg, ours_root, args.workers, *(["--no-cache"] if args.twice else []),
                                               save=scratch / "results" / f"{pkg.key}.score-run1.json")
            except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as exc:
                # one package failing must not hide the others' figures
                print(f"  mu2py score failed: {str(exc)[-2000:]}")
                score_note = "failed (see above)"
        ours = score_result["mutants"] if score_result else list_mu2py_mutants(pkg, ours_root)
        annotate_mu2py(ours, ours_root)
        figures.append(report(pkg, mutmut, ours, score_result, score_note))
        if score_result is not None:
            ratio = cpu_verdict(mutmut, score_result, "run 1")
            spent = time_spent(score_result, args.workers)
            print_time_spent(spent, score_result, args.workers)
            figures[-1]["time_spent"] = spent
            runs = [(score_result["cpu_seconds"], ratio, score_result["wall_seconds"])]
            differ = None
            if args.twice:
                try:
                    again = second_run(pkg, ours_root, args.workers, score_result, mutmut,
                                       save=scratch / "results" / f"{pkg.key}.score-run2.json")
                except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as exc:
                    print(f"  mu2py score, run 2, failed: {str(exc)[-2000:]}")
                else:
                    figures[-1]["second_run"] = again
                    runs.append((again["cpu_seconds"], again["cpu_ratio"], again["seconds"]))
                    differ = again["comparison"]["differ"]
            figures[-1]["issue36"] = {
                "mutants": len(score_result["mutants"]),
                "import_time": sum(1 for m in score_result["mutants"] if m.get("at_import")),
                "mutmut_cpu": mutmut.get("cpu_seconds") if mutmut else None,
                "mutmut_wall": mutmut.get("seconds") if mutmut else None,
                "cpu": [r[0] for r in runs], "ratio": [r[1] for r in runs], "wall": [r[2] for r in runs],
                "differ": differ}
        if score_result is not None and mutmut is not None:
            figures[-1]["same_scope"] = same_scope(pkg, ours_root, args.workers, mutmut)
        if args.referee and score_result is not None and mutmut is not None:
            figures[-1]["referee"] = referee(pkg, pristine, scratch, bindir, mutmut, score_result, args.referee)
        if args.cross_check and score_result is not None:
            figures[-1]["cross_check"] = cross_check(pkg, ours_root, args.workers, score_result)
    print("summary (wall-time ratio mutmut/mu2py; scores: mutmut, mu2py, both on the mutants they share):")
    for f in figures:
        if "wall_ratio" not in f:
            continue
        shared = f.get("agreement") or {}
        n = f.get("matched") or 0
        on_shared = (f"{(shared['both_killed'] + shared['mutmut_only']) / n:.1%} vs "
                     f"{(shared['both_killed'] + shared['mu2py_only']) / n:.1%} on {n}") if n and shared else "-"
        like = f.get("same_scope", {}).get("wall_ratio")
        cpu = f" (CPU time {f['cpu_ratio']:.2f}x)" if f.get("cpu_ratio") is not None else ""
        print(f"  {f['package']}: {f['wall_ratio']:.2f}x{cpu} ({like:.2f}x without import-time mutants); "
              f"mutmut {f['mutmut']['score']:.1%}, mu2py {f['mu2py']['score']:.1%}; shared {on_shared}"
              if like is not None else f"  {f['package']}: {f['wall_ratio']:.2f}x")
    print_issue36_table(figures)
    if args.json_out:
        args.json_out.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
