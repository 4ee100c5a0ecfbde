"""The `mu2py kill` subcommand: its options, its progress lines and its closing summary.

The workflow itself (score, fuzz the survivors' functions, write and verify tests, score again) is
`mu2py.survivors.kill`, reached through `mu2py.api.kill`; see its docstring for the steps.
"""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from mu2py.cli.argtypes import add_project_arguments
from mu2py.cli.progress import Meter
from mu2py.cli.report import relative
from mu2py.mutants.model import one_line
from mu2py.steps import Step
from mu2py.survivors import DEFAULT_TIME  # the workflow itself (libcst, pytest) is imported when the command runs

if TYPE_CHECKING:
    from mu2py.survivors.kill import KillResult


def _kill(args: argparse.Namespace, console: Console) -> int:
    from mu2py.api import kill
    from mu2py.cli.report import check_mte

    check_mte(args.mte)
    with Meter(console, "starting", unit="functions") as meter:
        result = kill(args.root, package=args.package, paths=args.paths, tests=args.tests, out=args.out,
                      time=args.time, trials=args.trials, seed=args.seed, workers=args.workers, cluster=args.cluster,
                      timeout=args.timeout, no_cache=args.no_cache, started=getattr(args, "started", None),
                      progress=partial(_show, meter, _fuzz_seconds(args)))
    _summary(console, result, Path(args.root).resolve(), args.show)
    if args.mte:
        from mu2py.cli.report import write_score_mte

        write_score_mte(args.mte, result.after, Path(args.root).resolve())
    return result.exit_code


def _fuzz_seconds(args: argparse.Namespace) -> float | None:
    """The command's time budget (None under --trials)."""
    from mu2py.budget import parse_duration

    return None if args.trials is not None else parse_duration(args.time or DEFAULT_TIME)


def _show(meter: Meter, seconds: float | None, line: str) -> None:
    """One line of the workflow: printed for good (in a plain log, a function fuzzed says when), and the live bar
    moved to its phase; the command's budget shows while the functions are fuzzed."""
    step = line if isinstance(line, Step) else Step(line)
    if step.phase == "fuzzing" and step.done == 0:
        meter.set_budget(seconds, "budget", lambda: meter.elapsed)
    elif step.phase and step.phase != "fuzzing":
        meter.set_budget(None)
    # the bar first: the line printed above it redraws the display
    if step.counts:
        meter.update(description=step.phase, unit=step.unit, completed=step.done, total=step.total)
    elif step.phase:
        meter.update(description=step.phase, unit="", completed=0, total=0)
    meter.say(step, stamp=bool(step.done))


def _summary(console: Console, result: KillResult, root: Path, show: int) -> None:
    """The lines that end a kill run: notes, the tests written, the scores, the likely equivalents, the time."""
    from mu2py.survivors.kill import figure

    for note in result.notes:
        console.print(f"note: {note}", highlight=False)
    tests_count = sum(len(t) for t in result.written.values())
    console.print(f"tests written: {tests_count} in {result.tests_out} "
                  f"({', '.join(f'{m}: {len(t)}' for m, t in result.written.items()) or 'none'}); each passes on the "
                  f"original and kills {len(result.killed_by_tests)} survivors in all, verified in fresh interpreters",
                  highlight=False)
    before, after = result.scores["before"], result.scores["after"]
    console.print(f"score after (suite + written tests): {figure(after['all'])} (before "
                  f"{figure(before['all'])}); function bodies {figure(after['function_body'])}"
                  f" (before {figure(before['function_body'])})", highlight=False)
    for line in _equivalents(result, root, show):
        console.print(line, highlight=False)
    console.print("time: " + ", ".join(f"{k} {v:.1f}s" for k, v in result.phases.items()), highlight=False)


def _equivalents(result: KillResult, root: Path, show: int) -> list[str]:
    """The lines on the likely-equivalent survivors: the searches aimed at candidates, the first `show` listed with
    their evidence, and the survivors counted but not listed, by why."""
    from mu2py.survivors.equivalents import MIN_INFECTING

    lines = []
    searches = result.aimed.get("searches", [])
    if searches:
        killed = [s["id"] for s in searches if s["killed"]]
        tested = [i for i in killed if i in set(result.killed_by_tests)]
        seconds, shared = result.aimed.get("seconds"), result.aimed.get("shared_seconds")
        budget = f" each, sharing {shared:.0f}s" if shared is not None else (
            f", at most {seconds:.2g}s each" if seconds else " each")
        lines.append(f"aimed searches: {len(searches)} likely-equivalent candidates, each fuzzed alone "
                     f"({result.aimed['trials']} trials{budget}): {len(killed)} killed"
                     + (f", {len(tested)} of them by a written test" if killed else ""))
    if result.likely:
        lines.append(f"likely equivalent ({len(result.likely)}; infected by at least {MIN_INFECTING} distinct inputs, "
                     "survived every run on them and the search aimed at each), most evidence first:")
        for e in result.likely[:show]:
            lines.append(f"  {relative(e.file, root)}:{e.line} {one_line(e.original)} → {one_line(e.mutated)}: "
                         f"{e.masked}")
            if e.examples:
                lines.append(f"    e.g. {'; '.join(e.examples)}")
        if len(result.likely) > show:
            lines.append(f"  ... {len(result.likely) - show} more in {result.out / 'equivalents.json'}")
    u = result.unlisted
    counts = [(u.unreached, "never reached"), (u.uninfected, "reached but never infected"),
              (u.few_inputs, f"infected, but run and survived on fewer than {MIN_INFECTING} distinct inputs"),
              (u.killed, "killed by fuzzing with no test kept (a hang, a crash or a test that failed verification)"),
              (u.unsearched, "not searched for alone (the search could not start)")]
    shown = [f"{n} {why}" for n, why in counts if n]
    if shown:
        lines.append("survivors not listed as likely equivalent: " + "; ".join(shown))
    return lines


def add_kill_command(sub: Any) -> None:
    """Register `kill` on the top-level subparsers."""
    p = sub.add_parser("kill", help="write pytest tests that kill the mutants a suite lets survive")
    add_project_arguments(p, tests="the suite's test paths (default: pytest's own)")
    p.add_argument("--out", default="mu2py-kill", help="output folder: tests/, report.json, equivalents.json")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--time", help=f"wall-clock budget of the whole command (scoring, fuzzing, verifying), e.g. 2m "
                                       f"(default {DEFAULT_TIME})")
    budget.add_argument("--trials", type=int, help="inputs to try, split evenly across the functions (reproducible)")
    p.add_argument("--seed", type=int, default=0, help="every random choice flows from this seed")
    p.add_argument("--workers", type=int, default=1, help="processes scoring mutants and verifying tests")
    p.add_argument("--cluster", metavar="ADDRESS", help="score the suite on Dask: tcp://HOST:8786 or local:N")
    p.add_argument("--timeout", type=float, help="seconds a mutant may run on one input (default: 20x original)")
    p.add_argument("--no-cache", action="store_true", help="score without the verdict caches")
    p.add_argument("--show", type=int, default=10, help="likely-equivalent survivors to list")
    p.add_argument("--mte", metavar="FILE",
                   help="write the score after (suite + written tests) as mutation-testing-report-schema JSON")
    p.set_defaults(run=_kill, own_stdout=True)
