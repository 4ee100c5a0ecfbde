"""The corpus workflow: mutation-guided regression corpora for a package's functions, written as pytest tests.

Steps, in order (each reported through `progress` as a `mu2py.steps.Step`; a step whose text is its phase's
name marks a phase change, any other is a line for the user):

1. find the public functions and the public methods of public classes (`mu2py.testgen.discovery`)
   and infer an argument strategy for each, seeded with the values the package's own suite passes them
   and the instances it builds (recorded as `mu2py kill` records them: `mu2py.testgen.seeds`; the suite
   is `--suite`, else `[tool.mu2py] tests`, else pytest's testpaths, else there is none);
   report every function left out and why (the `Found` step);
2. run each original twice on a few drawn inputs: a function whose runs differ cannot be its
   own oracle and is left out (unless `strategy_for(..., key=...)` names what to compare);
3. fuzz each function (`Fuzzer`, unchanged) with the budget split evenly, into
   `OUT/<module>.<function>/`; with `workers` > 1 the functions fan out over that many processes;
   under a `time` budget, steps 1-2 come out of the budget and each function fuzzes until its
   slot's fixed end (`slot_ends`); the time of every phase is reported;
4. replay every saved input (corpus and failures) on the original and record what it
   returned or raised;
5. write one pytest module per package module into `tests_out` (atomically), run it once
   in a fresh interpreter, and drop (with a comment) any case that does not pass there (the `Written` step);
6. score by mutation (`mu2py.score`): the generated tests alone and, with `suite`, the
   package's own suite, both together, and the union of what either kills alone.

The same seed and `trials` give the same test files (a `time` budget does not, and the files' header says so).
`mu2py.api.corpus` is the public entry.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from mu2py.errors import OutputError, UserError
from mu2py.steps import Step
from mu2py.target.modules import package_root
from mu2py.testgen.regression import (
    DETERMINISM_SHARE,
    Outcome,
    check_determinism,
    failing_cases,
    function_folder,
    record,
    run_function,
    score_tests,
    slot_ends,
    split_budget,
    unwarn,
    write_tests,
)

if TYPE_CHECKING:
    from mu2py.testgen.seeds import SuiteValues

DEFAULT_OUT = "mu2py-corpus"
DEFAULT_TIME = "60s"
SCORING = "scoring by mutation"  # the phase of step 6: each of its steps names the test set being scored
# under --time the budget covers the whole command, from its start: the fuzzing ends early enough for what follows
# it, VERIFY_SECONDS for replaying the saved inputs, writing the tests and running them in a fresh interpreter, and
# SCORE_SHARE of the budget for scoring them, which stops at the budget's end less FINAL_SECONDS (for the report);
# the mutants it did not judge by then are counted apart (`cut_by_budget`)
VERIFY_SECONDS = 2.0
SCORE_SHARE = 0.15
# under --time, the most of the budget recording the suite's values may take (beyond it, none are used)
SUITE_SHARE = 0.25
FINAL_SECONDS = 0.5


@dataclass(frozen=True)
class CorpusOptions:
    """What `mu2py corpus` is given: the package (or module, or function), the budget, where the tests go.

    Invariant: `trials` and `time` exclude each other; neither given is `time` `DEFAULT_TIME`.
    """

    target: str
    trials: int | None = None
    time: str | None = None  # as the user wrote it (it is quoted in the written tests' header)
    seed: int = 0
    out: Path = Path(DEFAULT_OUT)
    tests_out: Path | None = None  # default OUT/tests
    workers: int = 1
    strategies: str | None = None
    suite: tuple[str, ...] | None = None
    no_score: bool = False
    no_constants: bool = False
    timeout: float | None = None
    started: float | None = None  # the command's start on the budget clock (`mu2py.budget.now`; default: run's)
    # internal, for measuring what the suite's values bring: False fuzzes without them (no recording run)
    suite_values: bool = True

    @property
    def seconds(self) -> float | None:
        """The time budget in seconds (None under `trials`)."""
        from mu2py.budget import parse_duration

        return None if self.trials is not None else parse_duration(self.time or DEFAULT_TIME)


class Found(Step):
    """The step that ends the search for functions: every function found (`specs`, a skipped one saying why) and the
    notes on modules left out."""

    specs: list[Any]
    notes: list[str]

    def __new__(cls, specs: list[Any], notes: list[str]) -> Found:
        """The step for `specs` and `notes`."""
        step = cast(Found, super().__new__(cls, "finding functions", "finding functions"))
        step.specs, step.notes = specs, notes
        return step


class Written(Step):
    """The step after the tests are written and verified: each function's `outcomes` (cases written, notes) and the
    test `files`."""

    outcomes: dict[str, Outcome]
    files: list[Path]

    def __new__(cls, outcomes: dict[str, Outcome], files: list[Path]) -> Written:
        """The step for `outcomes` and `files`."""
        step = cast(Written, super().__new__(cls, "tests written", "tests written"))
        step.outcomes, step.files = outcomes, files
        return step


@dataclass(frozen=True)
class CorpusResult:
    """What a corpus run wrote and measured; `report` is `OUT/report.json` as written.

    Invariants: `files` are the verified test modules in `tests_out`; `scores` holds one entry per test set scored
    (`generated`, then `suite` and `both` with a suite; none under `no_score` or without tests), each without its
    `detected_ids`; `union` is None unless both `generated` and `suite` were scored.
    """

    report: dict[str, Any]
    out: Path
    tests_out: Path
    specs: list[Any]
    outcomes: dict[str, Outcome]
    files: list[Path]
    scores: list[dict[str, Any]]
    union: dict[str, int] | None
    notes: list[str]
    phases: dict[str, float]
    exit_code: int = 0


def command_line(options: CorpusOptions) -> str:
    """The `mu2py corpus` command that makes the same tests (the written files' header quotes it)."""
    parts = ["mu2py corpus", options.target]
    budget = f"--trials {options.trials}" if options.trials is not None else f"--time {options.time or DEFAULT_TIME}"
    parts.append(budget)
    parts.append(f"--seed {options.seed}")
    if options.strategies:
        parts.append(f"--strategies {options.strategies}")
    if options.no_constants:
        parts.append("--no-constants")
    if options.suite:  # its values seed the fuzzing
        parts.append("--suite " + " ".join(options.suite))
    return " ".join(parts)


def _sys_path(specs: list[Any]) -> list[str]:
    """The sys.path entries the specs' modules are imported from (their package roots), then the working directory."""
    roots = {package_root(Path(sys.modules[s.module].__file__ or "").resolve()) for s in specs}
    return sorted(str(r) for r in roots) + [os.getcwd()]


def _choose(options: CorpusOptions, seconds: float | None, progress: Callable[[str], None]
            ) -> tuple[list[Any], list[Any], list[str], SuiteValues | None]:
    """Discover and infer (with the suite's values, see `_suite_values`), drop nondeterministic functions; every
    spec, the chosen ones, the notes, the suite's values (None without them)."""
    from mu2py.testgen.discovery import discover
    from mu2py.testgen.overrides import load_strategies
    from mu2py.testgen.seeds import infer_seeded

    load_strategies(options.strategies)
    specs, notes = discover(options.target, constants=not options.no_constants)
    values = _suite_values(options, specs, seconds, progress) if specs and options.suite_values else None
    if values is not None:
        # inferred again with the values: a parameter only the suite's values can draw makes its function fuzzable
        specs = [infer_seeded(values, s.module, s.name, constants=not options.no_constants)
                 if values.has(s.module, s.name) else s for s in specs]
    named = ":" in options.target and len(specs) == 1
    if named and specs[0].skipped:
        raise UserError(f"{specs[0].qualname} cannot be fuzzed: {specs[0].skipped}")
    check_determinism(specs, options.seed, seconds * DETERMINISM_SHARE if seconds is not None else None)
    if named and specs[0].skipped:
        raise UserError(f"{specs[0].qualname} cannot be fuzzed: {specs[0].skipped}")
    chosen = [s for s in specs if not s.skipped]
    if not chosen:
        reasons = "; ".join(f"{s.name}: {s.skipped}" for s in specs[:3]) + (" ..." if len(specs) > 3 else "")
        raise UserError(f"no function of {options.target} can be fuzzed" + (f" ({reasons})" if reasons else
                                                                             " (it defines no public function)"))
    return specs, chosen, notes, values


def _suite_values(options: CorpusOptions, specs: list[Any], seconds: float | None,
                  progress: Callable[[str], None]) -> SuiteValues | None:
    """The values the package's suite passes to the functions of `specs` and the instances it builds, recorded as
    `mu2py kill` records them (`seeds.record_seeds`), from the working directory: the suite is `--suite`, else
    `[tool.mu2py] tests`, else what a plain `pytest` there finds (`seeds.corpus_suite`); None, said in one
    progress line, when there is none or it gives nothing.  Under --time the recording may take SUITE_SHARE of the
    budget."""
    from mu2py.testgen.seeds import RECORD_TIMEOUT, corpus_suite, record_seeds

    root = Path.cwd()
    progress(Step("recording the suite's values", "recording the suite's values"))
    timeout = RECORD_TIMEOUT if seconds is None else max(seconds * SUITE_SHARE, 1.0)
    how = "the suite"
    try:
        args, auto, how = corpus_suite(root, options.suite, options.out)
        values = record_seeds(str(root), args, [(s.module, s.name) for s in specs], _sys_path(specs), auto=auto,
                              timeout=timeout)
    except UserError as exc:
        progress(Step(f"fuzzing without the suite's values: {exc}", "recording the suite's values"))
        return None
    if values.timed_out:
        progress(Step(f"fuzzing without the suite's values: the suite ({how}) ran past {timeout:g}s under the "
                      "profile hook", "recording the suite's values"))
        return None
    if values.args is None:
        progress(Step("no suite found (no --suite, no [tool.mu2py] tests, no pytest testpaths): fuzzing without "
                      "the suite's values", "recording the suite's values"))
        return None
    used = sum(1 for s in specs if values.has(s.module, s.name))
    progress(Step(f"the suite's values ({how}: {' '.join(values.args)}) seed {used} of {len(specs)} functions",
                  "recording the suite's values"))
    return values


def after_fuzzing(seconds: float, score: bool) -> float:
    """Seconds a --time budget of `seconds` keeps after the fuzzing (see VERIFY_SECONDS), at most half of it."""
    return min(VERIFY_SECONDS + (SCORE_SHARE * seconds if score else 0.0), seconds / 2)


def _fuzz_all(options: CorpusOptions, chosen: list[Any], seconds: float | None, sys_path: list[str],
              say: Callable[[str], None], values: SuiteValues | None = None) -> dict[str, Outcome]:
    """Fuzz every chosen function (fanned out over `workers`), a step for each one as it finishes; under --time the
    last ends `seconds` from now.  Each unit carries the suite's values for its function (`values`), pickled."""
    import pickle

    from mu2py.budget import now as budget_clock
    from mu2py.fuzz.config import FuzzConfig
    from mu2py.processes.workers import Lost, executor

    per_trials, per_seconds = split_budget(options.trials, seconds, len(chosen), options.workers)
    units = []
    ends = slot_ends(budget_clock(), seconds, len(chosen), options.workers)
    for spec, trials, end in zip(chosen, per_trials, ends, strict=True):
        config = FuzzConfig(trials=trials, seconds=per_seconds, seed=options.seed,
                            out=function_folder(options.out, spec.qualname), timeout=options.timeout)
        units.append({"module": spec.module, "function": spec.name, "strategies": options.strategies,
                      "constants": not options.no_constants, "sys_path": sys_path, "config": asdict(config),
                      "ends": end,
                      "seeds": pickle.dumps(values.only(spec.module, spec.name), protocol=pickle.HIGHEST_PROTOCOL)
                      if values is not None and values.has(spec.module, spec.name) else None})
    outcomes = {s.qualname: Outcome(s.qualname) for s in chosen}
    budget = f"{options.trials} trials" if options.trials is not None else f"{seconds:g}s"
    say(Step(f"fuzzing {len(chosen)} functions ({budget} in all, {options.workers} worker(s)) into {options.out}",
             "fuzzing", 0, len(chosen), "functions"))
    # a worker whose campaign overruns its time budget this much is stuck (an original looping on an input)
    deadline = per_seconds * 3 + 300 if per_seconds is not None else None
    with executor(options.workers) as pool:
        for done, (index, summary) in enumerate(pool.map_unordered(run_function, units, deadline=deadline), 1):
            outcome = outcomes[chosen[index].qualname]
            if isinstance(summary, Lost):
                outcome.error = f"worker lost: {summary.reason}"
            elif "error" in summary:
                if OutputError.said(summary["error"]):  # the disk, not the function: the next would fail alike
                    raise OutputError(summary["error"])
                outcome.error = summary["error"]
            else:
                for key, value in summary.items():
                    setattr(outcome, key, value)
            status = outcome.error or (f"{outcome.inputs} inputs, {outcome.failures} failures, killed "
                                       f"{outcome.own_killed}/{outcome.own_total} of its mutants "
                                       f"({outcome.killed}/{outcome.total} of the module)")
            say(Step(f"[{done}/{len(chosen)}] {outcome.qualname}: {status}", "fuzzing", done, len(chosen),
                     "functions"))
    return outcomes


def _write_verified(tests_out: Path, by_module: dict[str, list[Any]], command: str, sys_path: list[str],
                    say: Callable[[str], None]) -> list[Path]:
    """Write the test modules, run them in a fresh interpreter, and rewrite them without the cases that failed."""
    from mu2py.testgen.render import tests_file_stem

    files = write_tests(tests_out, by_module, command)
    failing, errors = failing_cases(files, sys_path) if files else (set(), [])
    # a case failing with its warnings asserted is tried once more without them before it is dropped
    # (a list, not a generator: every module's cases are unwarned, not only the first one's)
    if failing and any([unwarn(fcs, failing, tests_file_stem(module)) for module, fcs in by_module.items()]):
        files = write_tests(tests_out, by_module, command)
        failing, errors = failing_cases(files, sys_path)
    if failing:
        for module, functions in by_module.items():
            for fc in functions:
                stem, tests = tests_file_stem(module), (fc.spec.test_name, f"{fc.spec.test_name}_raises",
                                                        f"{fc.spec.test_name}_warns",
                                                        f"{fc.spec.test_name}_raises_warns")
                dropped = [c for c in fc.cases if any((stem, t, c.id) in failing for t in tests)]
                fc.cases = [c for c in fc.cases if c not in dropped]
                fc.notes += [f"{c.id}: failed when replayed in a fresh interpreter (depends on the process?)"
                             for c in dropped]
        files = write_tests(tests_out, by_module, command)
    for error in errors:
        say(Step(f"warning: generated tests did not collect: {error}", "writing and verifying tests"))
    return files


def union(scores: list[dict[str, Any]]) -> dict[str, int] | None:
    """What the generated tests and the suite detect, each alone, together (None unless both were scored whole: a
    score the --time budget cut counts fewer mutants, and its "only by the other" would overstate)."""
    by = {s["tests"]: s for s in scores if "error" not in s and not s.get("cut_by_budget")}
    if "generated" not in by or "suite" not in by:
        return None
    generated, suite = set(by["generated"]["detected_ids"]), set(by["suite"]["detected_ids"])
    return {"detected": len(generated | suite), "only_generated": len(generated - suite),
            "only_suite": len(suite - generated), "total": by["generated"]["total"]}


def run_corpus(options: CorpusOptions, progress: Callable[[str], None]) -> CorpusResult:
    """Carry out the workflow of the module docstring; `progress` hears every step."""
    from mu2py.store.atomic import ensure_writable, write_json

    if options.workers < 1:
        raise UserError("--workers must be at least 1")
    if options.trials is not None and options.trials < 1:
        raise UserError("--trials must be at least 1")
    if options.trials is not None and options.time is not None:
        raise UserError("give one budget: --trials N or --time DURATION")
    from mu2py.budget import Budget
    from mu2py.budget import now as budget_clock

    seconds = options.seconds
    # one budget, from the command's start: finding the functions, fuzzing, writing and scoring the tests all fit in it
    budget = Budget(options.trials, seconds, started=budget_clock() if options.started is None else options.started)
    clock = time.monotonic()
    phases: dict[str, float] = {}

    def phase(name: str) -> None:
        nonlocal clock
        now = time.monotonic()
        phases[name] = round(now - clock, 2)
        clock = now

    specs, chosen, notes, values = _choose(options, seconds, progress)
    progress(Found(specs, notes))
    phase("choose")
    if seconds is not None:
        # the fuzzing gets what finding and checking the functions left, less what the steps after it keep
        seconds = budget.deadline().sooner_by(after_fuzzing(seconds, not options.no_score)).remaining()
    tests_out = options.tests_out or options.out / "tests"
    ensure_writable(options.out)
    ensure_writable(tests_out)
    # the generated tests, the score workers and the verification run import the package from its root
    sys_path = _sys_path(chosen)
    outcomes = _fuzz_all(options, chosen, seconds, sys_path, progress, values)
    phase("fuzz")
    progress(Step("writing and verifying tests", "writing and verifying tests"))
    by_module: dict[str, list[Any]] = {}
    # recording may take half of what the fuzzing left (an input the original hangs on would take ORIGINAL_TIMEOUT
    # each); writing, verifying and scoring the tests the rest
    recording = budget.deadline().sooner_by(budget.remaining() / 2) if budget.timed else budget.deadline()
    for spec in chosen:
        if not outcomes[spec.qualname].error:
            by_module.setdefault(spec.module, []).append(record(spec, function_folder(options.out, spec.qualname),
                                                                recording))
    phase("record")
    command = command_line(options)
    files = _write_verified(tests_out, by_module, command, sys_path, progress)
    phase("write and verify")
    for functions in by_module.values():
        for fc in functions:
            outcomes[fc.spec.qualname].cases = fc.written
            outcomes[fc.spec.qualname].notes = [*fc.notes, *fc.left_out]
    progress(Written(outcomes, files))
    scores: list[dict[str, Any]] = []
    if files and not options.no_score:
        modules = sorted(by_module)
        module_files = [sys.modules[m].__file__ or "" for m in modules]
        runs = [("generated", [str(tests_out.resolve())])]
        if options.suite:
            suite = [str(Path(p).resolve()) for p in options.suite]
            runs += [("suite", suite), ("both", [*suite, str(tests_out.resolve())])]
        for done, (label, paths) in enumerate(runs):
            progress(Step(f"now scoring: {label}", SCORING, done, len(runs), "test sets scored"))
            scores.append(score_tests(label, paths, modules, module_files, sys_path, options.workers,
                                      options.out / "score-cache.json", budget.deadline().sooner_by(FINAL_SECONDS)))
        progress(Step("scored", SCORING, len(runs), len(runs), "test sets scored"))
        phase("score")
    both = union(scores)
    shown = [{k: v for k, v in s.items() if k != "detected_ids"} for s in scores]
    report = {
        "target": options.target, "command": command, "notes": notes, "phases": phases,
        "functions": [{"function": s.qualname, "skipped": s.skipped} for s in specs if s.skipped]
        + [asdict(o) for o in outcomes.values()],
        "tests": [str(f) for f in files],
        "scores": shown,
        "union": both,
    }
    write_json(options.out / "report.json", report)
    return CorpusResult(report, options.out, tests_out, specs, outcomes, files, shown, both, notes, phases)
