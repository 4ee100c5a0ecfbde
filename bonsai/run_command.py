"""`bonsai run`: the Bonsai lattice from the command line, its progress, final corpus and failures."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

from bonsai.cli_args import (
    EXIT_INTERRUPTED,
    CliError,
    lattice_bounds_arg,
    non_negative,
    positive,
    say,
)
from mu2py.cli.progress import Meter, budget_seconds
from mu2py.steps import Step

__all__ = ["add_run_command", "run_run"]

_RUN_EPILOG = """\
examples:
  bonsai run grammars/json.lark --target targets.json_decoder.driver:parse --bounds 2,2,2 \\
      --node-trials 50 --out out/json
  bonsai run grammars/ini.lark --target ini_wrap:parse --targets configparser --bounds 2,2,2 \\
      --node-trials 30 --out out/ini     # ini_wrap.py in the current directory: see docs/bonsai.md

A plain function `def f(text: str)` is a target: it gets each generated input as a string; an
exception it raises is a failure. Coverage is measured on the modules --targets names (default:
the function's own package, excluding the module the function is defined in).

exit status: 0 done; 2 bad arguments, grammar or target (one line 'bonsai: error: ...');
3 the target raised on some inputs (listed at the end; inputs in OUT/nodes/*/failures/);
130 interrupted (finished nodes are kept: the same command resumes).
"""


def add_run_command(subparsers: argparse._SubParsersAction) -> None:
    """Register `bonsai run`: the corpus-growing lattice of bounded coverage-guided fuzzers."""
    p = subparsers.add_parser(
        "run", help="grow a concise corpus with the Bonsai lattice up to --bounds",
        description=textwrap.fill("Run the Bonsai lattice of bounded coverage-guided fuzzers F(m,n,d) up to --bounds: "
                                  "each node starts from its predecessors' corpora; the top node's corpus is written "
                                  "to OUT/final/.", 79),
        epilog=_RUN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("grammar", help="path to a .lark grammar")
    p.add_argument("--target", required=True, metavar="MODULE:FUNCTION",
                   help="function taking the input text (modules are also looked up in the current directory)")
    p.add_argument("--targets", metavar="MOD[,MOD...]",
                   help="comma-separated module prefixes whose coverage counts (default: the driver's targets, "
                        "else the function's own package)")
    p.add_argument("--bounds", required=True, type=lattice_bounds_arg, metavar="m,n,d",
                   help="top of the lattice: idents,items,depth (each >= 1)")
    budget = p.add_mutually_exclusive_group(required=True)
    budget.add_argument("--node-trials", type=positive, metavar="N",
                        help="trials per lattice node (after replaying its seeds)")
    budget.add_argument("--node-time", metavar="T", help="time per lattice node, e.g. 30s")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="output directory (resumed when it holds a previous run)")
    p.add_argument("--seed", type=non_negative, default=0, metavar="S",
                   help="random seed; every node's seed derives from it (0)")
    p.add_argument("--workers", type=positive, default=1, metavar="N",
                   help="nodes of one generation run on N processes (1)")
    p.add_argument("--cluster", metavar="ADDRESS", help="run the nodes on Dask: tcp://HOST:8786 or local:N")
    p.add_argument("--start", metavar="RULE", help="start rule (default: start)")
    p.add_argument("--guidance", choices=("coverage", "mutation"), default="coverage",
                   help="feedback at each node: coverage (Bonsai) or mutants killed (mu2py)")
    p.set_defaults(func=run_run)


def _targets(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    names = tuple(t.strip() for t in text.split(",") if t.strip())
    if not names:
        raise CliError(f"--targets: expected comma-separated module names, got {text!r}")
    return names



def _meter(args: argparse.Namespace, seconds: float | None) -> Meter:
    """The run's progress on stderr: a live bar of the lattice's nodes on a terminal, else the plain lines."""
    import sys

    from rich.console import Console

    from bonsai.lattice import lattice

    console = Console(file=sys.stderr, highlight=False, markup=False)  # the stream itself: a redirect wraps it
    per_node = f"{args.node_trials} trials" if args.node_trials is not None else f"{budget_seconds(seconds or 0)}"
    meter = Meter(console, "growing the lattice", unit="nodes", total=len(lattice(args.bounds)), out=sys.stderr)
    meter.update(note=f"budget {per_node} per node, {args.workers} worker{'s' if args.workers > 1 else ''}")
    return meter


def _show(meter: Meter, line: str) -> None:
    """A line of the lattice's progress: printed (a node's, in a plain log, says when) and counted on the bar."""
    step = line if isinstance(line, Step) else Step(line)
    if step.phase == "warning":
        meter.say(f"bonsai: warning: {line}")
        return
    if step.counts:  # the bar first: the line printed above it redraws the display
        meter.update(completed=step.done, total=step.total)
    meter.say(line, stamp=step.phase == "growing the lattice")


def run_run(args: argparse.Namespace) -> int:
    """Run the lattice (`bonsai.api.run`) and print per-node statistics, the final corpus and any failures; returns
    the exit status."""
    from bonsai.api import run
    from bonsai.target import format_warning_counts
    from mu2py.budget import parse_duration
    from mu2py.errors import UserError

    targets = _targets(args.targets)
    out = Path(args.out)
    try:
        seconds = parse_duration(args.node_time) if args.node_time else None
        with _meter(args, seconds) as meter:
            result = run(args.grammar, args.target, bounds=args.bounds, out=out, node_trials=args.node_trials,
                         node_time=seconds, seed=args.seed, workers=args.workers, cluster=args.cluster,
                         start=args.start, guidance=args.guidance, targets=targets,
                         progress=lambda line: _show(meter, line))
    except UserError as exc:
        raise CliError(str(exc)) from None
    except KeyboardInterrupt:
        say(f"bonsai: interrupted; finished nodes are kept in {out}/nodes: the same command resumes")
        return EXIT_INTERRUPTED
    summary = result.summary
    final = summary["final"]
    print(f"final corpus: {final['inputs']} inputs, mean size {final['mean_size']} chars, "
          f"coverage {final['coverage']} lines+branches -> {out / 'final'}")
    if summary["target_warnings"]:
        # captured during each run (a flood of SyntaxWarnings from `compile` would bury the progress lines)
        print(f"target warnings: {format_warning_counts(summary['target_warnings'])} (captured, not shown)")
    failures = result.failures
    if not failures:
        return result.exit_code
    kinds = f"{len(failures)} distinct exception{'s' if len(failures) > 1 else ''} by type and location"
    print(f"failures: the target raised on inputs, {kinds} (every failing input is in {out}/nodes/*/failures/):")
    for f in failures:
        message = " ".join(str(f.get("message", "")).split())[:200]
        print(f"  {f['exception']} at {f['location']}: {message} -> {f['input']}")
    return result.exit_code
