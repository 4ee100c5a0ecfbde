"""The `mu2py corpus` subcommand: mutation-guided regression corpora for a package's functions, as pytest tests.

Steps, in order:

1. find the public functions and the public methods of public classes (`mu2py.testgen.discovery`)
   and infer an argument strategy for each; report every function left out and why;
2. run each original twice on a few drawn inputs: a function whose runs differ cannot be its
   own oracle and is left out (unless `strategy_for(..., key=...)` names what to compare);
3. fuzz each function (`Fuzzer`, unchanged) with the budget split evenly, into
   `OUT/<module>.<function>/`; with `--workers N` the functions fan out over N processes;
   under `--time`, steps 1-2 come out of the budget and each function fuzzes until its
   slot's fixed end (`slot_ends`); the time of every phase is printed and reported;
4. replay every saved input (corpus and failures) on the original and record what it
   returned or raised;
5. write one pytest module per package module into `--tests-out` (atomically), run it once
   in a fresh interpreter, and drop (with a comment) any case that does not pass there;
6. score by mutation (`mu2py.score`): the generated tests alone and, with `--suite`, the
   package's own suite, both together, and the union of what either kills alone.

The same seed and `--trials` give the same test files (a `--time` budget does not, and the
files' header says so).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mu2py.errors import OutputError, UserError
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

DEFAULT_OUT = "mu2py-corpus"


DEFAULT_TIME = "60s"


def _inference_table(specs: list[Any]) -> Table:
    table = Table(title="functions")
    for col in ("function", "fuzzed", "arguments / reason"):
        table.add_column(col, overflow="fold")
    for spec in specs:
        if spec.skipped:
            table.add_row(spec.qualname, "no", spec.skipped)
        else:
            params = ", ".join(f"{p.name}{'?' if p.optional else ''}: {p.how}" for p in spec.params) or "(none)"
            if spec.init_params:
                init = ", ".join(f"{p.name}{'?' if p.optional else ''}: {p.how}" for p in spec.init_params)
                params = f"instance: {spec.owner}({init}); {params}"
            extra = "; ".join(spec.notes)
            table.add_row(spec.qualname, "yes", params + (f" ({extra})" if extra else ""))
    return table


def _command_line(args: argparse.Namespace) -> str:
    parts = ["mu2py corpus", args.target]
    parts += [f"--trials {args.trials}"] if args.trials is not None else [f"--time {args.time or DEFAULT_TIME}"]
    parts.append(f"--seed {args.seed}")
    if args.strategies:
        parts.append(f"--strategies {args.strategies}")
    if args.no_constants:
        parts.append("--no-constants")
    return " ".join(parts)


def _choose(args: argparse.Namespace, console: Console,
            seconds: float | None = None) -> tuple[list[Any], list[Any], list[str]]:
    """Discover and infer, drop nondeterministic functions, print what is fuzzed and why the rest is not."""
    from mu2py.testgen.discovery import discover
    from mu2py.testgen.overrides import load_strategies


    load_strategies(args.strategies)
    specs, notes = discover(args.target, constants=not args.no_constants)
    named = ":" in args.target and len(specs) == 1
    if named and specs[0].skipped:
        raise UserError(f"{specs[0].qualname} cannot be fuzzed: {specs[0].skipped}")
    check_determinism(specs, args.seed, seconds * DETERMINISM_SHARE if seconds is not None else None)
    if named and specs[0].skipped:
        raise UserError(f"{specs[0].qualname} cannot be fuzzed: {specs[0].skipped}")
    for note in notes:
        console.print(f"note: {note}", highlight=False)
    if specs:
        console.print(_inference_table(specs))
    chosen = [s for s in specs if not s.skipped]
    if not chosen:
        reasons = "; ".join(f"{s.name}: {s.skipped}" for s in specs[:3]) + (" ..." if len(specs) > 3 else "")
        raise UserError(f"no function of {args.target} can be fuzzed" + (f" ({reasons})" if reasons else
                                                                          " (it defines no public function)"))
    return specs, chosen, notes


def _fuzz_all(args: argparse.Namespace, console: Console, chosen: list[Any], seconds: float | None,
              out: Path, sys_path: list[str]) -> dict[str, Outcome]:
    """Fuzz every chosen function (fanned out over `--workers`), printing each one as it finishes."""
    from mu2py.engine.workers import Lost, executor
    from mu2py.fuzz.config import FuzzConfig


    per_trials, per_seconds = split_budget(args.trials, seconds, len(chosen), args.workers)
    units = []
    ends = slot_ends(time.time(), seconds, len(chosen), args.workers)
    for spec, trials, end in zip(chosen, per_trials, ends, strict=True):
        config = FuzzConfig(trials=trials, seconds=per_seconds, seed=args.seed,
                            out=function_folder(out, spec.qualname), timeout=args.timeout)
        units.append({"module": spec.module, "function": spec.name, "strategies": args.strategies,
                      "constants": not args.no_constants, "sys_path": sys_path, "config": asdict(config),
                      "ends": end})
    outcomes = {s.qualname: Outcome(s.qualname) for s in chosen}
    budget = f"{args.trials} trials" if args.trials is not None else f"{seconds:g}s"
    console.print(f"fuzzing {len(chosen)} functions ({budget} in all, {args.workers} worker(s)) into {out}")
    # a worker whose campaign overruns its time budget this much is stuck (an original looping on an input)
    deadline = per_seconds * 3 + 300 if per_seconds is not None else None
    with executor(args.workers) as pool:
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
            console.print(f"[{done}/{len(chosen)}] {outcome.qualname}: {status}", highlight=False, markup=False)
    return outcomes


def _write_verified(console: Console, tests_out: Path, by_module: dict[str, list[Any]], command: str,
                    sys_path: list[str]) -> list[Path]:
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
        console.print(f"warning: generated tests did not collect: {error}", highlight=False, markup=False)
    return files


def _outcome_table(title: str, outcomes: dict[str, Outcome]) -> Table:
    table = Table(title=title)
    for col in ("function", "inputs", "failures", "test cases", "killed (its mutants)", "killed (module)",
                "left out"):
        table.add_column(col, justify="left" if col in ("function", "left out") else "right", overflow="fold")
    for outcome in outcomes.values():
        if outcome.error:
            table.add_row(outcome.qualname, "-", "-", "-", "-", "-", outcome.error)
            continue
        table.add_row(outcome.qualname, str(outcome.inputs), str(outcome.failures), str(outcome.cases),
                      f"{outcome.own_killed}/{outcome.own_total}", f"{outcome.killed}/{outcome.total}",
                      "; ".join(outcome.notes[:3]) + (" ..." if len(outcome.notes) > 3 else ""))
    return table


def _corpus(args: argparse.Namespace, console: Console) -> int:
    from mu2py.cli.argtypes import parse_duration
    from mu2py.store.atomic import ensure_writable, write_json


    if args.workers < 1:
        raise UserError("--workers must be at least 1")
    if args.trials is not None and args.trials < 1:
        raise UserError("--trials must be at least 1")
    seconds = None if args.trials is not None else parse_duration(args.time or DEFAULT_TIME)
    clock = time.monotonic()
    phases: dict[str, float] = {}


    def phase(name: str) -> None:
        nonlocal clock
        now = time.monotonic()
        phases[name] = round(now - clock, 2)
        clock = now


    specs, chosen, notes = _choose(args, console, seconds)
    phase("choose")
    if seconds is not None:
        # the budget covers finding the functions and checking them too; fuzzing gets what is left (at least half)
        seconds = max(seconds - phases["choose"], seconds / 2)
    out = Path(args.out)
    tests_out = Path(args.tests_out) if args.tests_out else out / "tests"
    ensure_writable(out)
    ensure_writable(tests_out)
    # the generated tests, the score workers and the verification run import the package from its root
    roots = {package_root(Path(sys.modules[s.module].__file__ or "").resolve()) for s in chosen}
    sys_path = sorted(str(r) for r in roots) + [os.getcwd()]
    outcomes = _fuzz_all(args, console, chosen, seconds, out, sys_path)
    phase("fuzz")
    by_module: dict[str, list[Any]] = {}
    for spec in chosen:
        if not outcomes[spec.qualname].error:
            by_module.setdefault(spec.module, []).append(record(spec, function_folder(out, spec.qualname)))
    phase("record")
    command = _command_line(args)
    files = _write_verified(console, tests_out, by_module, command, sys_path)
    phase("write and verify")
    for functions in by_module.values():
        for fc in functions:
            outcomes[fc.spec.qualname].cases = fc.written
            outcomes[fc.spec.qualname].notes = [*fc.notes, *fc.left_out]
    console.print(_outcome_table(f"regression corpus of {args.target}", outcomes))
    console.print(f"tests: {', '.join(str(f) for f in files) or '(none)'}", highlight=False)
    scores: list[dict[str, Any]] = []
    if files and not args.no_score:
        modules = sorted(by_module)
        module_files = [sys.modules[m].__file__ or "" for m in modules]
        runs = [("generated", [str(tests_out.resolve())])]
        if args.suite:
            suite = [str(Path(p).resolve()) for p in args.suite]
            runs += [("suite", suite), ("both", [*suite, str(tests_out.resolve())])]
        with console.status("scoring by mutation"):
            for label, paths in runs:
                scores.append(score_tests(label, paths, modules, module_files, sys_path, args.workers,
                                     out / "score-cache.json"))
        _print_scores(console, scores)
        phase("score")
    console.print("time: " + ", ".join(f"{name} {secs:.1f}s" for name, secs in phases.items()), highlight=False)
    write_json(out / "report.json", {
        "target": args.target, "command": command, "notes": notes, "phases": phases,
        "functions": [{"function": s.qualname, "skipped": s.skipped} for s in specs if s.skipped]
        + [asdict(o) for o in outcomes.values()],
        "tests": [str(f) for f in files],
        "scores": [{k: v for k, v in s.items() if k != "detected_ids"} for s in scores],
        "union": _union(scores),
    })
    return 0


def _union(scores: list[dict[str, Any]]) -> dict[str, int] | None:
    by = {s["tests"]: s for s in scores if "error" not in s}
    if "generated" not in by or "suite" not in by:
        return None
    generated, suite = set(by["generated"]["detected_ids"]), set(by["suite"]["detected_ids"])
    return {"detected": len(generated | suite), "only_generated": len(generated - suite),
            "only_suite": len(suite - generated), "total": by["generated"]["total"]}


def _print_scores(console: Console, scores: list[dict[str, Any]]) -> None:
    from mu2py.score.reports import score_percent

    table = Table(title="mutation score (mu2py score)")
    for col in ("tests", "tests run", "mutants", "killed", "timed out", "detected", "score"):
        table.add_column(col, justify="left" if col == "tests" else "right")
    for s in scores:
        if "error" in s:
            table.add_row(s["tests"], "-", "-", "-", "-", "-", s["error"])
            continue
        table.add_row(s["tests"], str(s["test_count"]), str(s["total"]), str(s["killed"]), str(s["timeout"]),
                      str(s["detected"]), score_percent(s["detected"], s["total"]))
    console.print(table)
    union = _union(scores)
    if union is not None:
        console.print(f"union of generated and suite, each alone: {union['detected']}/{union['total']} detected "
                      f"({union['only_generated']} only by the generated tests, {union['only_suite']} only by "
                      "the suite)", highlight=False)


def add_corpus_command(sub: Any) -> None:
    """Register `corpus` on the top-level subparsers."""
    p = sub.add_parser("corpus", help="regression corpora for a package's public functions, as pytest tests")
    p.add_argument("target", metavar="PKG[.module][:function]")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--time", help=f"wall-clock budget for all functions, e.g. 5m (default {DEFAULT_TIME})")
    budget.add_argument("--trials", type=int, help="inputs to try, split evenly across the functions")
    p.add_argument("--seed", type=int, default=0, help="every random choice flows from this seed")
    p.add_argument("--out", default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    p.add_argument("--tests-out", help="where the pytest modules go (default OUT/tests)")
    p.add_argument("--workers", type=int, default=1, help="functions fuzzed (and mutants scored) on N processes")
    p.add_argument("--strategies", metavar="MODULE", help="module registering strategies with strategy_for")
    p.add_argument("--suite", nargs="+", metavar="TESTS", help="the package's own tests, scored alone and with ours")
    p.add_argument("--no-score", action="store_true", help="do not score the tests by mutation")
    p.add_argument("--no-constants", action="store_true",
                   help="draw str and int arguments from their types only, not also from the module's literals")
    p.add_argument("--timeout", type=float, help="seconds a mutant may run on one input (default: 20x original)")
    p.set_defaults(run=_corpus)
