"""The steps of `mu2py corpus`: fuzz each function, record what the original did, write and check pytest files.

The workflow (`mu2py.testgen.corpus`) runs them in order; see its docstring for the whole sequence.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mu2py.budget import Deadline
from mu2py.budget import now as budget_clock
from mu2py.errors import UserError
from mu2py.processes.supervisor import run_swept
from mu2py.testgen.junit import read_junit

# inputs drawn to check that a function's original gives the same outcome twice
DETERMINISM_DRAWS = 5
# under --time, the share of the budget the determinism check may take (it counts against the fuzzing time)
DETERMINISM_SHARE = 0.1
# under --time, the least a function is fuzzed for, even when setting it up used up its slot
MIN_SECONDS = 0.5


@dataclass
class Outcome:
    """What fuzzing one function left: saved inputs, kills, and the error that stopped it, if any."""


    qualname: str
    inputs: int = 0
    failures: int = 0
    trials: int = 0
    killed: int = 0
    total: int = 0
    own_killed: int = 0
    own_total: int = 0
    cases: int = 0
    error: str | None = None
    notes: list[str] = field(default_factory=list)


def split_budget(trials: int | None, seconds: float | None, functions: int,
                 workers: int) -> tuple[list[int | None], float | None]:
    """Per function: trials (an even split of the total) and seconds (the total wall clock, shared by workers)."""
    from mu2py.fuzz.campaigns import split_trials


    per_trials = split_trials(trials, functions)
    if trials is not None:
        per_trials = [max(1, t) for t in per_trials]  # type: ignore[type-var]  # no None when trials is set
    per_seconds = None
    if seconds is not None:
        per_seconds = seconds * min(workers, functions) / functions
    return per_trials, per_seconds


def slot_ends(start: float, seconds: float | None, functions: int, workers: int) -> list[float | None]:
    """Per function (in dispatch order), the wall-clock time its fuzzing should end by, under a time budget.


    Functions run in rounds of `workers`; round k ends at start + seconds * (k + 1) / rounds,
    so setting a function up (copying and mutating its module) comes out of its own slot
    and the last round ends at `start + seconds`, whatever the setups cost before it.
    """
    if seconds is None:
        return [None] * functions
    rounds = -(-functions // workers)
    return [start + seconds * (index // workers + 1) / rounds for index in range(functions)]


def function_folder(out: Path, qualname: str) -> Path:
    """Where the fuzzing of one function writes (a complete `mu2py fuzz` output)."""
    return out / qualname


def spec_of(module: str, function: str, strategies: str | None, constants: bool, seeds: bytes | None = None) -> Any:
    """The FunctionSpec of `module.function`, inferred in this process (a worker's) after loading `strategies`.

    `seeds` is the pickled `SuiteValues` the parent inferred it with (`mu2py.testgen.seeds`), unpickled here,
    once the package is importable: the same values give the same strategy, so the parent decodes what the
    worker saved.
    """
    import pickle

    from mu2py.target.driver import import_module
    from mu2py.testgen.overrides import load_strategies
    from mu2py.testgen.seeds import infer_seeded


    load_strategies(strategies)
    import_module(module)
    return infer_seeded(pickle.loads(seeds) if seeds is not None else None, module, function, constants=constants)


def run_function(unit: dict[str, Any]) -> dict[str, Any]:
    """Fuzz one function (a work unit: runs in this process or in a worker): resume, fuzz, summarize."""
    from mu2py.fuzz.config import FuzzConfig
    from mu2py.fuzz.fuzzer import Fuzzer
    from mu2py.testgen.function_driver import function_target


    for entry in reversed(unit["sys_path"]):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    try:
        spec = spec_of(unit["module"], unit["function"], unit["strategies"], unit["constants"], unit.get("seeds"))
        target = function_target(spec)
        config = FuzzConfig(**unit["config"])
        fuzzer = Fuzzer(target, config)
        fuzzer.resume()
        if unit.get("ends") is not None:
            # the time left in this function's slot of the budget, after building its mutants
            config.seconds = max(unit["ends"] - budget_clock(), MIN_SECONDS)
        result = fuzzer.run()
    except UserError as exc:  # sent back as data: the parent reports it next to the function
        return {"error": str(exc)}
    report = result.report or {"mutants": [], "summary": {"killed": 0, "total": 0}}
    own = [m for m in report["mutants"] if m["scope"] == spec.name or m["scope"].startswith(spec.name + ".")]
    return {"inputs": len(result.corpus), "failures": fuzzer.stats.failures, "trials": fuzzer.stats.trials,
            "killed": report["summary"]["killed"], "total": report["summary"]["total"],
            "own_killed": sum(1 for m in own if m["status"] == "killed"), "own_total": len(own)}


def exception_ref(exc: BaseException) -> tuple[str, str | None, str | None]:
    """Source naming the exception's class (or its nearest importable base), the module to import, and a note."""
    return class_ref(type(exc), "raises")


def raised_by(exc: BaseException, sources: dict[str, str]) -> bool:
    """Whether `exc` left a `raise` statement of the code under test (`sources`: file -> source text), so its
    message is the package's own words; False when CPython or a library raised it on the package's behalf (say
    `int("x")` inside a package function), whose wording a test should not pin."""
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    source = sources.get(tb.tb_frame.f_code.co_filename)
    if source is None:
        return False
    lines = source.splitlines()
    line = lines[tb.tb_lineno - 1].lstrip() if 0 < tb.tb_lineno <= len(lines) else ""
    return line.startswith("raise ") or line == "raise"


def class_ref(kind: type, verb: str = "raises") -> tuple[str, str | None, str | None]:
    """Source naming the class `kind` (or its nearest importable base), the module to import, and a note saying
    which base stands for it (`verb` says what the code did with it: raises, warns)."""
    for cls in kind.__mro__:
        note = None if cls is kind else f"{verb} {kind.__qualname__}, asserted as its base {cls.__name__}"
        if cls.__module__ == "builtins":
            return cls.__qualname__, None, note
        if "<" in cls.__qualname__:
            continue
        try:
            obj: Any = importlib.import_module(cls.__module__)
            for part in cls.__qualname__.split("."):
                obj = getattr(obj, part)
        except Exception:  # noqa: BLE001 - not importable by that name: try a base class
            continue
        if obj is cls:
            return f"{cls.__module__}.{cls.__qualname__}", cls.__module__, note
    return "BaseException", None, None


def record(spec: Any, folder: Path, deadline: Deadline = Deadline.never()) -> Any:
    """Replay the saved inputs of one function (corpus, then failures) on the original; one case per input.

    No run outlasts `deadline` (a --time budget's share for recording): an input the original hangs on costs
    what is left of it at most, and the inputs not replayed by then are left out, with a note."""
    from mu2py.engine.runs import Status
    from mu2py.inputs.generators import StrategySource
    from mu2py.store.corpus import Corpus
    from mu2py.testgen.function_driver import ORIGINAL_TIMEOUT, function_target, run_original
    from mu2py.testgen.render import Case, FunctionCases
    from mu2py.testgen.warned import expected_warnings


    target = function_target(spec)
    source = StrategySource(spec.strategy)
    found = FunctionCases(spec)
    saved = [(e.name, e.choices) for e in Corpus(source, folder / "corpus").load()]
    for path in sorted((folder / "failures").glob("failure_*.bin")):
        saved.append((path.stem, source.from_bytes(path.read_bytes())))
    seen: set[str] = set()
    for position, (name, choices) in enumerate(saved):
        if deadline.expired():
            found.notes.append(f"{len(saved) - position} inputs not recorded: the --time budget ended first")
            break
        decoded = source.decode(choices, random.Random(0))
        if decoded is None:
            found.notes.append(f"{name}: no longer decodes to an input (strategy changed?)")
            continue
        text = source.render(decoded.value)
        if text.startswith("<") and "with no repr" in text:
            text = source.to_bytes(decoded.choices).hex()  # no repr (nested too deep): one case per choice sequence
        if text in seen:
            continue
        seen.add(text)
        timeout = deadline.clip(ORIGINAL_TIMEOUT) or ORIGINAL_TIMEOUT
        result, exc = run_original(target, decoded.value, timeout)
        if result.status is Status.TIMEOUT:
            found.notes.append(f"{name}: the original timed out")
            continue
        # the warnings asserted are those a second run emits too (`warned.expected_warnings`)
        warns, warn_notes = expected_warnings(result, run_original(target, decoded.value, timeout)[0]) \
            if result.warnings else ((), [])
        found.notes += [f"{name}: {note}" for note in warn_notes]
        if exc is not None:
            ref, module, note = exception_ref(exc)
            found.cases.append(Case(name, decoded.value, raises=ref, raises_module=module, warns=warns))
            if note:
                found.notes.append(f"{name}: {note}")
        else:
            found.cases.append(Case(name, decoded.value, expected=result.output, warns=warns))
    return found


def unwarn(functions: list[Any], failing: set[tuple[str, str, str]], stem: str) -> bool:
    """Drop the warnings of the cases that assert some and failed (`failing_cases` of the module file `stem`), noting
    it: a package that warns once per process fails them on the original; whether any was dropped."""
    dropped = False
    for fc in functions:
        tests = (f"{fc.spec.test_name}_warns", f"{fc.spec.test_name}_raises_warns")
        for case in fc.cases:
            if case.warns and any((stem, t, case.id) in failing for t in tests):
                case.warns = ()
                fc.notes.append(f"{case.id}: its warnings are not asserted, the case failed with them in a fresh "
                                "interpreter")
                dropped = True
    return dropped


def failing_cases(files: list[Path], sys_path: list[str]) -> tuple[set[tuple[str, str, str]], list[str]]:
    """Run the test files in a fresh interpreter: failing (file stem, test, case id)s, and collection errors."""
    with tempfile.TemporaryDirectory(prefix="mu2py-verify-") as tmp:
        xml = Path(tmp) / "junit.xml"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([*sys_path, os.environ.get("PYTHONPATH", "")]))
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
               "--junitxml", str(xml), *map(str, files)]
        proc = run_swept(cmd, env=env)
        cases = read_junit(xml)
        if cases is None:
            return set(), [f"pytest could not run the generated tests: {(proc.stdout + proc.stderr).strip()[-300:]}"]
        failing: set[tuple[str, str, str]] = set()
        errors: list[str] = []
        for case in cases:
            if case.outcome not in ("failure", "error"):
                continue
            if "[" in case.name:
                test, _, rest = case.name.partition("[")
                failing.add((case.module_stem, test, rest.rstrip("]")))
            else:
                errors.append(f"{case.module_stem or case.name}: {case.message[:200]}")
    return failing, errors


def score_tests(label: str, pytest_args: list[str], modules: list[str], files: list[str], sys_path: list[str],
                workers: int, cache: Path, deadline: Deadline = Deadline.never()) -> dict[str, Any]:
    """`mu2py score` of the tests `pytest_args` names, until `deadline`: the figures the corpus report shows (the
    mutants the deadline left unjudged are `cut_by_budget`, out of the total), or the error."""
    from mu2py.score.config import ScoreConfig
    from mu2py.score.reports import report
    from mu2py.score.scoring import score
    from mu2py.score.spec import SuiteSpec


    spec = SuiteSpec(root=os.getcwd(), pytest_args=tuple(pytest_args), modules=tuple(modules), files=tuple(files),
                     sys_path=tuple(sys_path))
    try:
        result = report(score(spec, ScoreConfig(workers=workers, cache=cache), deadline=deadline))
    except UserError as exc:
        return {"tests": label, "error": str(exc)}
    detected = sorted(m["id"] for m in result["mutants"] if m["status"] in ("killed", "timeout"))
    s = result["summary"]
    return {"tests": label, "total": s["total"], "killed": s["killed"], "timeout": s["timeout"],
            "detected": len(detected), "score": s["score"], "test_count": s["tests"], "detected_ids": detected,
            "cut_by_budget": s["cut_by_budget"]}


def check_determinism(specs: list[Any], seed: int, seconds: float | None = None) -> None:
    """Leave out the functions whose original gives two different outcomes on one of DETERMINISM_DRAWS inputs.


    With `seconds`, the check stops drawing for a function once the phase has used its
    share of `seconds` (every function gets at least one input); without it, every run is
    still bounded by ORIGINAL_TIMEOUT and every comparison by the oracle's node bound.
    """
    import time

    from mu2py.inputs.generators import StrategySource
    from mu2py.testgen.function_driver import function_target, nondeterminism


    start = time.monotonic()
    todo = [s for s in specs if not s.skipped]
    for index, spec in enumerate(todo, 1):
        try:
            target = function_target(spec)
        except UserError as exc:
            spec.skipped, spec.strategy = str(exc), None
            continue
        source = StrategySource(spec.strategy)
        rng = random.Random(seed)
        for draw in range(DETERMINISM_DRAWS):
            if draw and seconds is not None and time.monotonic() - start > seconds * index / len(todo):
                spec.notes.append(f"determinism checked on {draw} input(s) only (time)")
                break
            decoded = source.decode((), rng)
            reason = nondeterminism(target, [decoded.value]) if decoded is not None else None
            if reason is not None:
                spec.skipped, spec.strategy = f"not deterministic: {reason}", None
                break


def write_tests(folder: Path, by_module: dict[str, list[Any]], command: str) -> list[Path]:
    """Write one pytest module (and its pickle, when needed) per package module; returns the module files."""
    from mu2py.store.atomic import write_atomic
    from mu2py.testgen.render import render, tests_file_stem


    written = []
    for module, functions in sorted(by_module.items()):
        source, pickled = render(module, functions, command, reproducible="--trials" in command)
        path = folder / f"{tests_file_stem(module)}.py"
        pickle_path = path.with_suffix(".pickle")
        if pickled is not None:
            write_atomic(pickle_path, pickled)
        elif pickle_path.exists():
            pickle_path.unlink()
        write_atomic(path, source)
        written.append(path)
    return written
