"""The `mu2py` command line: mutants, mutate, fuzz, repro; the other commands register from their modules."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from rich.console import Console
from rich.table import Table

from mu2py.api import running
from mu2py.budget import now as budget_clock
from mu2py.budget import process_started
from mu2py.cli.argtypes import VersionAction, percent, positive_int
from mu2py.cli.plumbing import (
    EXIT_BELOW_THRESHOLD,
    EXIT_OK,
    OneLineParser,
    guarded,
    look_up_current_directory,
)
from mu2py.mutants.model import TABLE_CELL, one_line

Command = Callable[[argparse.Namespace, Console], int]

# exit codes (documented in docs/index.md and `mu2py --help`): shared with bonsai (`plumbing`)
EPILOG = ("exit codes: 0 done; 1 mutation score below --fail-under; 2 bad input (one line on stderr); "
          "3 fuzz found inputs on which the original program fails; 130 interrupted (outputs so far are saved)")


def _mutants(args: argparse.Namespace, console: Console) -> int:
    from mu2py.mutants.catalog import discover
    from mu2py.target.modules import modules_target, resolve_target

    target = resolve_target(args.target) if ":" in args.target else modules_target(args.target)
    mutants = discover(target)[0]
    if args.json:
        print(json.dumps({"mutants": [m.to_json() for m in mutants], "summary": {"total": len(mutants)}}, indent=1),
              file=console.file)
        return 0
    table = Table(title=f"{len(mutants)} mutants of {', '.join(target.prefixes)}")
    for col in ("id", "line", "operator", "original", "mutated"):
        table.add_column(col, overflow="fold")
    for m in mutants:
        table.add_row(m.id, str(m.line), m.operator, one_line(m.original, TABLE_CELL), one_line(m.mutated, TABLE_CELL))
    console.print(table)
    return 0


HTML_HELP = ("write an HTML report (offline: open DIR/index.html): every mutant on its line in the file's source, "
             "with its status and the input that killed it")
MTE_HELP = ("write the report as mutation-testing-report-schema JSON (Stryker's format: every mutant in its file's "
            "source; the inputs stand for the tests), which mutation-testing-elements reads")


def _evaluation_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--targets", help="comma-separated module prefixes to mutate (default: the driver's package)")
    p.add_argument("--timeout", type=float, help="seconds a mutant may run on one input (default: 20x original)")
    p.add_argument("--opt", choices=("none", "execution", "infection"), default="infection",
                   help="mutant pruning (sound): none, execution, or execution+infection (default)")
    p.add_argument("--memory-limit", type=int, default=4096, metavar="MB",
                   help="address space a mutant host may add to what it uses after loading (default 4096; "
                        "0: no limit); a mutant over it raises MemoryError")


def _prefixes(args: argparse.Namespace) -> tuple[str, ...] | None:
    return tuple(p.strip() for p in args.targets.split(",") if p.strip()) if args.targets else None


def _mutate(args: argparse.Namespace, console: Console) -> int:
    from mu2py.api import MutateProgress, mutate
    from mu2py.cli.report import check_mte, write_mte

    check_mte(args.mte, args.html)
    run = partial(mutate, args.target, inputs=args.input or (), values=args.value or (), targets=_prefixes(args),
                  timeout=args.timeout, opt=args.opt, memory_limit=args.memory_limit, workers=args.workers,
                  cluster=args.cluster, fail_under=args.fail_under)
    if args.cluster or args.workers > 1:
        def sharded(p: MutateProgress) -> None:
            if p.note:
                print(p.note, file=sys.stderr, flush=True)  # stdout: the report's

        with console.status("running mutant shards"):
            result = run(progress=sharded)
    elif console.is_terminal:
        with console.status("running mutants", spinner="dots") as status:
            def spin(p: MutateProgress) -> None:
                if p.label is not None:
                    status.update(f"input {p.judged + 1}/{p.total}: {p.label}")

            result = run(progress=spin)
    else:  # a log: a plain line per input that took a while, so a long run is never silent
        last = time.perf_counter()

        def plain(p: MutateProgress) -> None:
            nonlocal last
            if p.judged and time.perf_counter() - last >= 5.0 and not args.json:
                last = time.perf_counter()
                console.print(f"input {p.judged}/{p.total} judged: {p.killed} mutants killed so far")

        result = run(progress=plain)
    if args.mte:
        write_mte(args.mte, result.report, args.target)
    if args.html:
        from mu2py.cli.report import write_mutants_html

        index = write_mutants_html(args.html, result.report, args.target, "mutate")
        if not args.json:  # stdout holds the report alone
            console.print(f"HTML report: {index}")
    if args.json:
        print(json.dumps(result.report, indent=1), file=console.file)
    else:
        from mu2py.cli.report import print_mutation_report

        print_mutation_report(console, result.report, max_rows=40, more="use --json for all")
    if result.shortfall:
        console.print(result.shortfall)
    return EXIT_BELOW_THRESHOLD if result.shortfall else EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = OneLineParser(prog="mu2py", description="Mutation-analysis-guided fuzzing for Python.", epilog=EPILOG)
    parser.add_argument("--version", action=VersionAction, package="mu2py")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("mutants", help="list the mutants of a module, package, path, or TARGET:DRIVER")
    p.add_argument("target")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(run=_mutants, own_stdout=True)

    p = sub.add_parser("mutate", help="run inputs through the original and every mutant; report kills")
    p.add_argument("target", metavar="TARGET:DRIVER")
    p.add_argument("--input", nargs="+", action="extend", metavar="PATH", help="input files or corpus directories")
    p.add_argument("--value", nargs="+", action="extend", metavar="LITERAL", help="inputs as Python literals")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.add_argument("--workers", type=positive_int, default=1, help="judge shards of mutants on N local processes")
    p.add_argument("--cluster", metavar="ADDRESS", help="judge shards on Dask: tcp://HOST:8786 or local:N")
    p.add_argument("--fail-under", type=percent, metavar="PCT",
                   help="exit with code 1 when the mutation score is below PCT (for CI)")
    p.add_argument("--mte", metavar="FILE", help=MTE_HELP)
    p.add_argument("--html", metavar="DIR", help=HTML_HELP)
    _evaluation_args(p)
    p.set_defaults(run=_mutate, own_stdout=True)

    from mu2py.cli.corpus import add_corpus_command
    from mu2py.cli.fuzz import add_commands
    from mu2py.cli.kill import add_kill_command
    from mu2py.cli.props import add_props_command
    from mu2py.cli.score import add_score_command
    from mu2py.cli.show import add_show_commands

    add_commands(sub, _evaluation_args, _prefixes)
    add_score_command(sub)
    add_show_commands(sub)
    add_corpus_command(sub)
    add_props_command(sub)
    add_kill_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse, run, turn user errors into one line on stderr and exit code 2."""
    look_up_current_directory()
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(words)
    # where a command's --time budget starts: the process's start when this is the program (the interpreter's
    # start-up is in the budget too), now when a caller runs a command in its own process
    args.started = process_started() if argv is None else budget_clock()

    def command() -> int:
        from mu2py.cli.tables import with_tables

        tabled = with_tables(parser, words, args)  # [tool.mu2py.COMMAND]'s options, the command line winning
        with running():  # the pytest sessions the command starts ignore --mu2py (see `running`)
            return _run(tabled)

    return guarded("mu2py", command, getattr(args, "out", None))


def _run(args: argparse.Namespace) -> int:
    """Run the parsed command (its stdout owned when the program under test runs in this process)."""
    if getattr(args, "own_stdout", False) or (args.command == "repro" and args.json):
        # the program runs in this process (importing the target runs code too): what it prints is dropped,
        # and a process it started is stopped at the end
        from mu2py.cli.streams import own_stdout
        from mu2py.processes.confine import children, kill_children

        before = children()
        try:
            with own_stdout() as out:
                return int(args.run(args, make_console(out)))
        finally:
            kill_children(before)
    return int(args.run(args, make_console()))


def make_console(file: Any = None) -> Console:
    """The console every command prints to (on `file`; default: sys.stdout).

    Markup is off: mutant text, inputs and paths are printed as they are (`arr[i]` stays
    `arr[i]`); the few styled lines ask for markup and escape what they interpolate.  Piped
    output is never wrapped, so ids and paths stay whole on one line.
    """
    console = Console(file=file, highlight=False, markup=False)
    if not console.is_terminal:
        console.width = 100_000  # tables take their content's width, never the 80 columns rich assumes for a pipe
        console.soft_wrap = True
    return console


if __name__ == "__main__":
    sys.exit(main())
