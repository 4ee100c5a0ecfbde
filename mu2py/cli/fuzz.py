"""The `fuzz` and `repro` subcommands of the mu2py command line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.table import Table

from mu2py.cli.argtypes import mutant_filter, parse_duration, positive_int
from mu2py.cli.progress import Throttle
from mu2py.cli.report import print_mutation_report
from mu2py.errors import OutputError, UserError
from mu2py.store.atomic import write_json

if TYPE_CHECKING:  # the CLI's own start-up does not import libcst
    from mu2py.mutants.catalog import Program


def _share(text: str) -> float:
    """A fraction in (0, 1] for --mutant-share."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], got {text!r}")
    return value


def _status_table(fuzzer: Any) -> Table:
    s = fuzzer.stats
    elapsed = max(s.elapsed, 1e-9)  # as of the last checkpoint: after the run, judging time is not the loop's
    table = Table.grid(padding=(0, 2))
    table.add_row("trials", f"{s.trials}", "execs/s", f"{s.trials / elapsed:.0f}")
    table.add_row("corpus", _inputs(len(fuzzer.corpus)), "coverage", f"{len(fuzzer.coverage)} lines+branches")
    if fuzzer.analysis is not None:
        table.add_row("killed", f"{len(fuzzer.analysis.kills)}/{len(fuzzer.program.mutants)} mutants",
                      "mutant runs", f"{s.mutant_runs}")
        table.add_row("pruned (exec)", f"{s.pruned_execution}", "pruned (infection)", f"{s.pruned_infection}")
        table.add_row("likely equivalent", f"{s.likely_equivalent} mutants",
                      "backed off", f"{s.backed_off} mutant runs")
    table.add_row("failures", f"{s.failures}", "invalid", f"{s.invalid}")
    if fuzzer.judging is not None:
        done, total = fuzzer.judging
        table.add_row("judging", f"{done}/{_inputs(total)}", "", "")
    # children that decoded to an input tried already: nothing ran for them (predicted: not even decoded)
    table.add_row("duplicates", f"{s.duplicates} ({s.duplicates / max(s.trials, 1):.0%})",
                  "predicted", f"{s.predicted}")
    return table


def _inputs(n: int) -> str:
    return f"{n} input" if n == 1 else f"{n} inputs"


def _progress_line(fuzzer: Any) -> str:
    """The status as one plain line, for logs (stdout not a terminal)."""
    s = fuzzer.stats
    elapsed = max(fuzzer.elapsed(), 1e-9)
    killed = (f"; killed {len(fuzzer.analysis.kills)}/{len(fuzzer.program.mutants)} mutants"
              if fuzzer.analysis is not None else "")
    if fuzzer.judging is not None:
        done, total = fuzzer.judging
        return f"[{elapsed:6.0f} s] judging the corpus: {done}/{_inputs(total)} run through their mutants{killed}"
    return (f"[{elapsed:6.0f} s] trials {s.trials} ({s.trials / elapsed:.0f}/s); corpus {_inputs(len(fuzzer.corpus))}; "
            f"coverage {len(fuzzer.coverage)} lines+branches{killed}; failures {s.failures}")


def _plain_progress(console: Console) -> Callable[[Any], None]:
    throttle = Throttle()
    throttle.due()  # the first line comes after PROGRESS_EVERY seconds, not at once

    def show(fuzzer: Any) -> None:
        if throttle.due():
            console.print(_progress_line(fuzzer))

    return show


def _fuzz(args: argparse.Namespace, console: Console, prefixes: Callable[[argparse.Namespace], Any]) -> int:
    from mu2py.budget import Budget
    from mu2py.budget import now as budget_clock
    from mu2py.fuzz.config import FuzzConfig
    from mu2py.fuzz.fuzzer import Fuzzer
    from mu2py.inputs.generators import source_for
    from mu2py.inputs.replay import CHOICES_SUFFIX
    from mu2py.target.modules import resolve_target

    if args.trials is None and args.time is None:
        raise UserError("give a budget: --trials N or --time DURATION")
    seconds = parse_duration(args.time) if args.time else None
    if seconds is not None and seconds <= 0:
        raise UserError(f"--time {args.time} is not a positive duration")
    # the budget started with the command (see cli.main): loading the target and its mutants, the final judging
    # and the report are all in it
    budget = Budget(args.trials, seconds, started=getattr(args, "started", None) or budget_clock())
    target = resolve_target(args.target, prefixes(args))
    assert target.driver is not None
    source = source_for(target.driver.source)
    initial = []
    if args.seeds:
        for path in sorted(Path(args.seeds).glob(f"*{CHOICES_SUFFIX}")):
            initial.append(source.from_bytes(path.read_bytes()))
        if not initial:
            raise UserError(f"seed directory {args.seeds} holds no {CHOICES_SUFFIX} inputs")
    out = Path(args.out) if args.out else None
    config = FuzzConfig(
        trials=args.trials, seconds=seconds, seed=args.seed,
        guidance=args.guidance, split=args.split, pruning=args.opt, filter=args.filter, timeout=args.timeout,
        out=out, initial=initial, memory_mb=args.memory_limit,
        mutant_share=args.mutant_share, judge=args.judge,
    )
    if args.workers > 1 or args.cluster:
        return _fuzz_parallel(args, console, config, prefixes(args))
    started = time.perf_counter()
    with console.status("loading target and mutants"):
        fuzzer = Fuzzer(target, config, source=source, budget=budget)
        resumed = fuzzer.resume()
    if not args.quiet and fuzzer.program is not None:
        console.print(f"loaded {len(fuzzer.program.mutants)} mutants of {', '.join(target.prefixes)} "
                      f"in {time.perf_counter() - started:.1f} s")
    for warning in fuzzer.corpus.warnings:
        console.print(f"warning: {warning}")
    if resumed or fuzzer.stats.trials:
        console.print(f"resuming from {out}: {resumed} inputs, {fuzzer.stats.trials} trials and "
                      f"{fuzzer.stats.elapsed:.0f} s done (budgets count the whole campaign)")
    try:
        if args.quiet:
            result = fuzzer.run()
        elif not console.is_terminal:
            fuzzer.on_progress = _plain_progress(console)
            result = fuzzer.run()
        else:
            with Live(_status_table(fuzzer), console=console, refresh_per_second=4, transient=True) as live:
                fuzzer.on_progress = lambda f: live.update(_status_table(f))
                result = fuzzer.run()
    except KeyboardInterrupt:
        # run() has checkpointed every output on its way out: say what there is and where
        console.print(_progress_line(fuzzer))
        where = f"; outputs saved in {out} (run the same command to resume)" if out else ""
        console.print(f"interrupted{where}")
        return 130
    if fuzzer.stats.valid == 0:
        raise UserError("the driver's strategy produced no valid input in the whole budget")
    report = result.report
    if report is None and args.judge:
        report = _judge_corpus(console, target, config, result.corpus, fuzzer.program)
    if not args.quiet:
        console.print(_status_table(fuzzer))
    for warning in fuzzer.warnings:
        console.print(f"warning: {warning}")
    if report is not None:
        more = f"all of them in {out / 'mutants.json'}" if out else "give --out to keep the full report"
        print_mutation_report(console, report, max_rows=10, more=more, survivors=not args.quiet)
        unreached = _unreached_warning(report, fuzzer.program, target.prefixes)
        if unreached:
            console.print(f"warning: {unreached}")
        unjudged = sum(not e.judged for e in result.corpus)
        if unjudged and not args.judge:
            # the kills above are those made during the run: not the corpus's score, which judging gives
            where = f" --input {out / 'corpus'}" if out else ""
            console.print(f"--no-judge: {_inputs(unjudged)} did not run all their mutants, so the kills above are "
                          f"a lower bound; `mu2py mutate {args.target}{where}` gives the corpus's score")
    if out is not None:
        console.print(f"corpus: {out / 'corpus'} ({_inputs(len(result.corpus))}, each kept because it added "
                      "coverage or killed a mutant)")
    return _failures_found(console, fuzzer.stats.failures, out)


def _fuzz_or_say_where(args: argparse.Namespace, console: Console,
                       prefixes: Callable[[argparse.Namespace], Any]) -> int:
    """`_fuzz`; an output that cannot be written (disk full, read-only) says that the same command resumes."""
    try:
        return _fuzz(args, console, prefixes)
    except OutputError as exc:
        if args.out is None or not exc.kept:
            raise
        raise OutputError(f"{exc}, and the same command resumes from them once it can write") from exc


def _unreached_warning(report: dict[str, Any], program: Program | None, targets: Sequence[str]) -> str | None:
    """Why no input reached a function of the targets, when none did (else None).

    The driver runs mu2py's copies of the targets only through the modules it imports from them;
    a call made through a module outside `targets` (or an import inside the driver function) runs
    the original modules, so no mutant can be killed and the campaign learns nothing.
    """
    if program is None:
        return None
    in_functions = [m for i, m in enumerate(report["mutants"]) if i not in program.static]
    if not in_functions or any(m["reached"] for m in in_functions):
        return None
    return (f"no input reached the code of {', '.join(targets)} (0 of {len(in_functions)} mutants in functions "
            "reached): the driver calls mu2py's copies of the targets only through target modules it imports at "
            "module level.  A call through another module, or an import inside the driver function, runs the "
            "original modules: import a target module in the driver's module, or add the modules the call goes "
            "through to targets=[...]")


def _judge_corpus(console: Console, target: Any, config: Any, corpus: list[Any], program: Any = None) -> dict[str, Any]:
    """The mutation report of a corpus that no mutant ran on (coverage guidance), judged now and written to
    `OUT/mutants.json` as a mutation-guided run would have it."""
    from mu2py.fuzz.mutant_runs import judge_inputs

    with console.status("judging the corpus against the mutants"):
        report = judge_inputs(target, config, [(e.name, e.value) for e in corpus], program)
    where = ""
    if config.out is not None:
        write_json(config.out / "mutants.json", report)
        where = f" ({config.out / 'mutants.json'})"
    console.print(f"coverage guidance runs no mutants: the {len(corpus)} saved inputs were judged against "
                  f"them at the end{where}")
    return report


def _failures_found(console: Console, failures: int, out: Path | None) -> int:
    """Say where the failures are; the exit code (3 when the original failed on some input)."""
    if not failures:
        return 0
    where = (f"the inputs are in {out / 'failures'}" if out is not None
             else "give --out to keep the inputs")
    console.print(f"{failures} failure{'s' if failures > 1 else ''} found (the original program raised, exited or "
                  f"hung): {where}")
    return 3


def _workers_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="campaigns")
    for col in ("worker", "trials", "valid", "mutant runs", "failures"):
        table.add_column(col, justify="right")
    for k, row in enumerate(rows):
        table.add_row(f"w{k}", *(str(row.get(key, "-")) for key in ("trials", "valid", "mutant_runs", "failures")))
    return table


def _fuzz_parallel(args: argparse.Namespace, console: Console, config: Any, prefixes: Any) -> int:
    from mu2py.fuzz.campaigns import run_parallel

    if config.out is None:
        raise UserError("--workers needs --out: each campaign writes its own directory under it")
    cluster = None
    if args.cluster:
        from mu2py.engine.cluster import DaskExecutor

        cluster = DaskExecutor(args.cluster)
        print(f"Dask dashboard: {cluster.dashboard}", file=sys.stderr, flush=True)  # a note: stdout is the report's
    try:
        if console.is_terminal and not args.quiet:
            with Live(_workers_table([{}] * args.workers), console=console, refresh_per_second=2,
                      transient=True) as live:
                result, summaries = run_parallel(args.target, prefixes, config, args.workers,
                                                 lambda rows: live.update(_workers_table(rows)), cluster)
        else:
            result, summaries = run_parallel(args.target, prefixes, config, args.workers, cluster=cluster)
    finally:
        if cluster is not None:
            cluster.close()
    for k, summary in enumerate(summaries):
        console.print(f"campaign w{k} (seed {config.seed + k}): {summary}")
    report = result.report
    if report is None and args.judge:
        from mu2py.target.modules import resolve_target

        report = _judge_corpus(console, resolve_target(args.target, prefixes), config, result.corpus)
    if report is not None:
        print_mutation_report(console, report, max_rows=10, more=f"all of them in {config.out / 'mutants.json'}",
                              survivors=not args.quiet)
    console.print(f"merged corpus: {config.out / 'corpus'} ({len(result.corpus)} inputs); "
                  f"campaigns in {config.out / 'workers'}")
    return _failures_found(console, result.stats.failures, config.out)


def _repro(args: argparse.Namespace, console: Console, prefixes: Callable[[argparse.Namespace], Any]) -> int:
    from mu2py.engine.runs import run
    from mu2py.inputs.generators import source_for
    from mu2py.inputs.replay import load_files
    from mu2py.target.modules import resolve_target

    target = resolve_target(args.target, prefixes(args))
    assert target.driver is not None
    source = source_for(target.driver.source)
    rows = []
    for item in load_files(args.input, source):
        result = run(target.driver.fn, item.value, args.timeout, guard_exit=True)
        rows.append({
            "file": item.label, "value_repr": repr(item.value), "outcome": result.status.name.lower(),
            "output_repr": (
                repr(result.output) if result.status.name == "OK" else f"{result.exc_type}: {result.exc_message}"
            ),
        })
    if args.json:
        print(json.dumps(rows, indent=1), file=console.file)
    else:
        for row in rows:
            console.print(f"[bold]{escape(row['file'])}[/bold]: {escape(row['value_repr'])}", markup=True)
            console.print(f"  -> {row['outcome']}: {row['output_repr']}", markup=False)
    return 0


def add_commands(sub: Any, evaluation_args: Callable[[argparse.ArgumentParser], None],
                 prefixes: Callable[[argparse.Namespace], Any]) -> None:
    """Register `fuzz` and `repro` on the top-level subparsers."""
    p = sub.add_parser("fuzz", help="mutation-guided (or coverage-guided) fuzzing of TARGET:DRIVER",
                       epilog="exit codes: 0 done; 2 bad input; 3 the original program failed on some inputs "
                              "(kept in OUT/failures); 130 interrupted (outputs so far saved, rerun to resume)")
    p.add_argument("target", metavar="TARGET:DRIVER")
    budget = p.add_argument_group("budget (at least one)")
    budget.add_argument("--trials", type=positive_int,
                        help="number of inputs to try (the campaign's total, across resumes)")
    budget.add_argument("--time", help="wall-clock budget, e.g. 60s, 5m (the campaign's total: a resumed run "
                                       "gets what is left)")
    p.add_argument("--seed", type=int, default=0, help="every random choice flows from this seed")
    p.add_argument("--out", help="output directory (resumed when it holds a previous run)")
    p.add_argument("--in", dest="seeds", metavar="SEEDS", help="directory of .bin inputs to start from")
    p.add_argument("--guidance", choices=("mutation", "coverage"), default="mutation")
    p.add_argument("--split", action="store_true", help="coverage-only guidance for the first half of the budget")
    p.add_argument("--mutant-share", type=_share, default=None, metavar="F",
                   help="with --time: mutants run on inputs that add coverage, and on others while those runs "
                        "have taken at most this fraction of the time so far (default: adapted to the kills per "
                        "second each use of time earns; 1: every input)")
    p.add_argument("--filter", type=mutant_filter,
                   help="aggressive mutant filter: least-executed:K, random:K or random:P%%")
    p.add_argument("--workers", type=positive_int, default=1,
                   help="independent campaigns on N processes (seeds S..S+N-1)")
    p.add_argument("--cluster", metavar="ADDRESS", help="run the campaigns on Dask: tcp://HOST:8786 or local:N")
    p.add_argument("--quiet", action="store_true", help="no status screen or progress lines; summary lines only")
    p.add_argument("--no-judge", dest="judge", action="store_false",
                   help="do not judge the corpus against the mutants at the end (coverage guidance: all of it; "
                        "mutation guidance: the saved inputs whose mutants did not all run)")
    evaluation_args(p)
    p.set_defaults(run=lambda a, c: _fuzz_or_say_where(a, c, prefixes), own_stdout=True)

    p = sub.add_parser("repro", help="replay saved inputs on the original program and print them")
    p.add_argument("target", metavar="TARGET:DRIVER")
    p.add_argument("--input", nargs="+", action="extend", required=True, metavar="PATH")
    p.add_argument("--json", action="store_true")
    p.add_argument("--timeout", type=float, default=10.0)
    p.add_argument("--targets", help=argparse.SUPPRESS)
    p.set_defaults(run=lambda a, c: _repro(a, c, prefixes))


