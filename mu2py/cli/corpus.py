"""The `mu2py corpus` subcommand: its options, its progress display, its tables and closing lines.

The workflow itself (find the functions, fuzz them, write and verify the tests, score them) is
`mu2py.testgen.corpus`, reached through `mu2py.api.corpus`; see its docstring for the steps.
"""

from __future__ import annotations

import argparse
import time
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from mu2py.cli.progress import Meter
from mu2py.steps import Step

if TYPE_CHECKING:
    from mu2py.testgen.corpus import CorpusResult
    from mu2py.testgen.regression import Outcome

# the same as mu2py.testgen.corpus's (which imports the workflow): the parser is built without importing it
DEFAULT_OUT = "mu2py-corpus"
DEFAULT_TIME = "60s"
SCORING = "scoring by mutation"
# the phases the --time budget is shown in (the recording of the suite's values comes out of it too)
BUDGETED = ("recording the suite's values", "fuzzing")


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


class _Display:
    """The run's progress on the console: one meter until the tests are written (the time budget shown while the
    functions are found and fuzzed), the tables between, then one meter while the test sets are scored."""

    def __init__(self, console: Console, target: str, seconds: float | None, stack: ExitStack) -> None:
        self.console, self.target, self.stack = console, target, stack
        self.started = time.monotonic()
        # the --time budget covers finding and checking the functions and fuzzing them: shown until the fuzzing ends
        self.meter = stack.enter_context(Meter(console, "finding functions", seconds=seconds, clock=self.clock))
        self.scoring: Meter | None = None

    def clock(self) -> float:
        """Seconds since the command started."""
        return time.monotonic() - self.started

    def show(self, line: str) -> None:
        """One step of the workflow (see `mu2py.testgen.corpus`): a table, a line, or a phase on the bar."""
        from mu2py.testgen.corpus import Found, Written

        step = line if isinstance(line, Step) else Step(line)
        if isinstance(step, Found):
            for note in step.notes:
                self.console.print(f"note: {note}", highlight=False)
            if step.specs:
                self.console.print(_inference_table(step.specs))
        elif isinstance(step, Written):
            self.meter.stop()  # what follows stands alone
            self.console.print(_outcome_table(f"regression corpus of {self.target}", step.outcomes))
            self.console.print(f"tests: {', '.join(str(f) for f in step.files) or '(none)'}", highlight=False)
        elif step.phase == SCORING:
            if self.scoring is None:
                self.scoring = self.stack.enter_context(Meter(self.console, SCORING, unit=step.unit,
                                                              total=step.total, clock=self.clock))
            self.scoring.update(completed=step.done, note=step if step.done != step.total else None)
        else:
            if step.phase not in BUDGETED:
                self.meter.set_budget(None)
            # the bar first: the line printed above it redraws the display
            self.meter.update(description=step.phase, unit=step.unit, completed=step.done or 0, total=step.total or 0)
            if step != step.phase:  # a step named by its phase only moves the bar
                self.meter.say(step, stamp=bool(step.done))

    def close_scoring(self) -> None:
        """Take the scoring meter off the screen (before its table)."""
        if self.scoring is not None:
            self.scoring.stop()


def _corpus(args: argparse.Namespace, console: Console) -> int:
    from mu2py.api import corpus
    from mu2py.budget import parse_duration

    seconds = None if args.trials is not None else parse_duration(args.time or DEFAULT_TIME)
    with ExitStack() as stack:
        display = _Display(console, args.target, seconds, stack)
        result = corpus(args.target, trials=args.trials, time=args.time, seed=args.seed, out=args.out,
                        tests_out=args.tests_out, workers=args.workers, strategies=args.strategies, suite=args.suite,
                        no_score=args.no_score, no_constants=args.no_constants, timeout=args.timeout,
                        started=getattr(args, "started", None), progress=display.show)
        display.close_scoring()
        _summary(console, result)
    return result.exit_code


def _summary(console: Console, result: CorpusResult) -> None:
    """The lines that end a corpus run: the scores (when scored) and the time of each phase."""
    if result.scores:
        _print_scores(console, result.scores, result.union)
    console.print("time: " + ", ".join(f"{name} {secs:.1f}s" for name, secs in result.phases.items()),
                  highlight=False)


def _print_scores(console: Console, scores: list[dict[str, Any]], union: dict[str, int] | None) -> None:
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
    for s in scores:
        if s.get("cut_by_budget"):
            console.print(f"{s['tests']}: the --time budget ended before {s['cut_by_budget']} mutants were scored "
                          "(left out of its total)", highlight=False)
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
    p.add_argument("--suite", nargs="+", metavar="TESTS",
                   help="the package's own tests: the values they pass seed the fuzzing; scored alone and with "
                        "ours (default: [tool.mu2py] tests, else what a plain pytest collects, for the values only)")
    p.add_argument("--no-score", action="store_true", help="do not score the tests by mutation")
    p.add_argument("--no-constants", action="store_true",
                   help="draw str and int arguments from their types only, not also from the module's literals")
    p.add_argument("--timeout", type=float, help="seconds a mutant may run on one input (default: 20x original)")
    p.set_defaults(run=_corpus, own_stdout=True)
