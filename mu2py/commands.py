"""The `fuzz` and `repro` subcommands of the mu2py command line."""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.table import Table

from mu2py.errors import UserError


def parse_duration(text: str) -> float:
    """`90`, `90s`, `5m`, `1h`, `1h30m` as seconds."""
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    parts = re.findall(r"(\d+(?:\.\d+)?)([hms])", text)
    if not parts or "".join(a + b for a, b in parts) != text:
        raise UserError(f"bad duration {text!r}: use e.g. 30s, 5m, 1h")
    return sum(float(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in parts)


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
    elapsed = max(time.perf_counter() - fuzzer._start, 1e-9)
    table = Table.grid(padding=(0, 2))
    table.add_row("trials", f"{s.trials}", "execs/s", f"{s.trials / elapsed:.0f}")
    table.add_row("corpus", f"{len(fuzzer.corpus)}", "coverage", f"{len(fuzzer.coverage)}")
    if fuzzer.analysis is not None:
        table.add_row("killed", f"{len(fuzzer.analysis.kills)}/{len(fuzzer.program.mutants)}",
                      "mutant runs", f"{s.mutant_runs}")
        table.add_row("pruned (exec)", f"{s.pruned_execution}", "pruned (infection)", f"{s.pruned_infection}")
    table.add_row("failures", f"{s.failures}", "invalid", f"{s.invalid}")
    return table


def _fuzz(args: argparse.Namespace, console: Console, prefixes: Callable[[argparse.Namespace], Any]) -> int:
    from mu2py.fuzzer import FuzzConfig, Fuzzer
    from mu2py.generators import source_for
    from mu2py.inputs import CHOICES_SUFFIX
    from mu2py.report import print_mutation_report
    from mu2py.target import resolve_target

    if args.trials is None and args.time is None:
        raise UserError("give a budget: --trials N or --time DURATION")
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
        trials=args.trials, seconds=parse_duration(args.time) if args.time else None, seed=args.seed,
        guidance=args.guidance, split=args.split, pruning=args.opt, filter=args.filter, timeout=args.timeout,
        out=out, initial=initial, memory_mb=args.memory_limit,
        mutant_share=None if args.mutant_share >= 1 else args.mutant_share,
    )
    if args.workers > 1 or args.cluster:
        return _fuzz_parallel(args, console, config, prefixes(args))
    with console.status("loading target and mutants"):
        fuzzer = Fuzzer(target, config, source=source)
        resumed = fuzzer.resume()
    for warning in fuzzer.corpus.warnings:
        console.print(f"warning: {warning}", markup=False, highlight=False)
    if resumed or fuzzer.stats.trials:
        console.print(f"resuming from {out}: {resumed} inputs, {fuzzer.stats.trials} trials and "
                      f"{fuzzer.stats.elapsed:.0f} s done (budgets count the whole campaign)", markup=False)
    if not (console.is_terminal and not args.quiet):
        result = fuzzer.run()
    else:
        with Live(_status_table(fuzzer), console=console, refresh_per_second=4, transient=True) as live:
            fuzzer.on_progress = lambda f: live.update(_status_table(f))
            result = fuzzer.run()
    if fuzzer.stats.valid == 0:
        raise UserError("the driver's strategy produced no valid input in the whole budget")
    console.print(_status_table(fuzzer))
    if result.report is not None:
        print_mutation_report(console, result.report, max_rows=10)
    if out is not None:
        console.print(f"corpus: {out / 'corpus'} ({len(result.corpus)} inputs); failures: {fuzzer.stats.failures}")
    return 0


def _workers_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="campaigns")
    for col in ("worker", "trials", "valid", "mutant runs", "failures"):
        table.add_column(col, justify="right")
    for k, row in enumerate(rows):
        table.add_row(f"w{k}", *(str(row.get(key, "-")) for key in ("trials", "valid", "mutant_runs", "failures")))
    return table


def _fuzz_parallel(args: argparse.Namespace, console: Console, config: Any, prefixes: Any) -> int:
    from mu2py.campaigns import run_parallel
    from mu2py.report import print_mutation_report

    if config.out is None:
        raise UserError("--workers needs --out: each campaign writes its own directory under it")
    cluster = None
    if args.cluster:
        from mu2py.cluster import DaskExecutor

        cluster = DaskExecutor(args.cluster)
        console.print(f"Dask dashboard: {cluster.dashboard}")
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
        console.print(f"campaign w{k} (seed {config.seed + k}): {summary}", highlight=False)
    if result.report is not None:
        print_mutation_report(console, result.report, max_rows=10)
    console.print(f"merged corpus: {config.out / 'corpus'} ({len(result.corpus)} inputs); "
                  f"failures: {result.stats.failures}; campaigns in {config.out / 'workers'}")
    return 0


def _repro(args: argparse.Namespace, console: Console, prefixes: Callable[[argparse.Namespace], Any]) -> int:
    from mu2py.engine.runs import run
    from mu2py.generators import source_for
    from mu2py.inputs import load_files
    from mu2py.target import resolve_target

    target = resolve_target(args.target, prefixes(args))
    assert target.driver is not None
    source = source_for(target.driver.source)
    rows = []
    for item in load_files(args.input, source):
        result = run(target.driver.fn, item.value, args.timeout)
        rows.append({
            "file": item.label, "value_repr": repr(item.value), "outcome": result.status.name.lower(),
            "output_repr": (
                repr(result.output) if result.status.name == "OK" else f"{result.exc_type}: {result.exc_message}"
            ),
        })
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        for row in rows:
            console.print(f"[bold]{row['file']}[/bold]: {row['value_repr']}", markup=True, highlight=False)
            console.print(f"  -> {row['outcome']}: {row['output_repr']}", markup=False)
    return 0


def add_commands(sub: Any, evaluation_args: Callable[[argparse.ArgumentParser], None],
                 prefixes: Callable[[argparse.Namespace], Any]) -> None:
    """Register `fuzz` and `repro` on the top-level subparsers."""
    p = sub.add_parser("fuzz", help="mutation-guided (or coverage-guided) fuzzing of TARGET:DRIVER")
    p.add_argument("target", metavar="TARGET:DRIVER")
    budget = p.add_argument_group("budget (at least one)")
    budget.add_argument("--trials", type=int, help="number of inputs to try (the campaign's total, across resumes)")
    budget.add_argument("--time", help="wall-clock budget, e.g. 60s, 5m (the campaign's total: a resumed run "
                                       "gets what is left)")
    p.add_argument("--seed", type=int, default=0, help="every random choice flows from this seed")
    p.add_argument("--out", help="output directory (resumed when it holds a previous run)")
    p.add_argument("--in", dest="seeds", metavar="SEEDS", help="directory of .bin inputs to start from")
    p.add_argument("--guidance", choices=("mutation", "coverage"), default="mutation")
    p.add_argument("--split", action="store_true", help="coverage-only guidance for the first half of the budget")
    p.add_argument("--mutant-share", type=_share, default=0.5, metavar="F",
                   help="with --time: mutants run on inputs that add coverage, and on others while mutant runs "
                        "have taken at most this fraction of the time so far (default 0.5; 1: every input)")
    p.add_argument("--filter", help="aggressive mutant filter: least-executed:K, random:K or random:P%%")
    p.add_argument("--workers", type=int, default=1, help="independent campaigns on N processes (seeds S..S+N-1)")
    p.add_argument("--cluster", metavar="ADDRESS", help="run the campaigns on Dask: tcp://HOST:8786 or local:N")
    p.add_argument("--quiet", action="store_true", help="no live status screen")
    evaluation_args(p)
    p.set_defaults(run=lambda a, c: _fuzz(a, c, prefixes))

    p = sub.add_parser("repro", help="replay saved inputs on the original program and print them")
    p.add_argument("target", metavar="TARGET:DRIVER")
    p.add_argument("--input", nargs="+", action="extend", required=True, metavar="PATH")
    p.add_argument("--json", action="store_true")
    p.add_argument("--timeout", type=float, default=10.0)
    p.add_argument("--targets", help=argparse.SUPPRESS)
    p.set_defaults(run=lambda a, c: _repro(a, c, prefixes))


