"""The `bonsai` command line: one sub-command per module function (`sample` here; more register alike).

Every user error (missing grammar, grammar syntax error with lark's message and location, bad
terminal regex, unknown start rule, a rule that cannot terminate, malformed bounds or bounds under
1, a target that cannot be loaded) ends with one line on stderr, ``bonsai: error: ...``, and exit
status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from bonsai.bounds import Bounds
from bonsai.generator import BoundedGenerator
from bonsai.grammar import GrammarLoadError, load_grammar
from mu2py.storage import write_atomic

__all__ = ["SEPARATOR", "CliError", "build_parser", "main", "split_inputs"]

SEPARATOR = "# --- input {n} ---"
"""Line printed before each input by `bonsai sample` (n from 1); each input is followed by a newline."""

_SEPARATOR_RE = re.compile(r"^# --- input \d+ ---\n", re.MULTILINE)

Command = Callable[[argparse.Namespace], int]


class CliError(Exception):
    """A user error reported as one line on stderr with exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line (the usage text stays available through --help)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _bounds(text: str) -> Bounds:
    try:
        return Bounds.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _lattice_bounds(text: str) -> Bounds:
    bounds = _bounds(text)
    if min(bounds.idents, bounds.items, bounds.depth) < 1:
        # the lattice starts at F(1,1,1): a zero bound leaves no node to run
        raise argparse.ArgumentTypeError(f"lattice bounds must all be >= 1, got {text!r}")
    return bounds


def _int_at_least(minimum: int, kind: str) -> Callable[[str], int]:
    """An argparse type: an integer >= `minimum`, else one line naming the `kind` expected."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a {kind} integer, got {text!r}")
        return value

    return parse


_positive = _int_at_least(1, "positive")
_non_negative = _int_at_least(0, "non-negative")


def add_sample_command(subparsers: argparse._SubParsersAction) -> None:
    """Register `bonsai sample`."""
    p = subparsers.add_parser(
        "sample",
        help="print inputs generated from a Lark grammar within bounds",
        description=(
            "Generate inputs from a Lark grammar within bonsai bounds m,n,d: at most m distinct "
            "identifiers per identifier terminal, at most n iterations of any repetition, and no "
            "rule expanded more than d times on a root-to-leaf path. Every input parses with the "
            "grammar. Without --out, inputs go to stdout, each preceded by the line "
            "'# --- input N ---' (N from 1) and followed by one newline, so input N is exactly the "
            "text between its separator line and the newline before the next separator (or the end). "
            "With --out DIR, each input is written to DIR/<grammar>_NNNN.txt (atomically) and the "
            "paths are printed. The same seed gives the same inputs."
        ),
    )
    p.add_argument("grammar", help="path to a .lark grammar file")
    p.add_argument("--bounds", required=True, type=_bounds, metavar="m,n,d", help="idents,items,depth")
    p.add_argument("--count", type=_non_negative, default=10, metavar="K", help="number of inputs (10)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (0)")
    p.add_argument("--start", metavar="RULE", help="start rule (default: start)")
    p.add_argument("--out", metavar="DIR", help="write one file per input into DIR instead of stdout")
    p.add_argument(
        "--idents",
        metavar="T1,T2",
        help="terminals bounded by m (default: NAME, ID, IDENTIFIER, CNAME, IDSTRING, *NAME*, *IDENT*)",
    )
    p.add_argument("--check", action="store_true", help="parse each input; fail if one fails")
    p.set_defaults(func=run_sample)


def run_sample(args: argparse.Namespace) -> int:
    """Carry out `bonsai sample`; returns the exit status."""
    idents = [t.strip() for t in args.idents.split(",") if t.strip()] if args.idents else None
    try:
        grammar = load_grammar(args.grammar, start=args.start, is_ident=idents)
        gen = BoundedGenerator(grammar, args.bounds)
    except GrammarLoadError as exc:
        raise CliError(str(exc)) from None
    rng = random.Random(args.seed)
    out_dir = Path(args.out) if args.out else None
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CliError(f"cannot create output directory {out_dir}: {exc.strerror or exc}") from None
    stem = Path(args.grammar).stem
    for n in range(1, args.count + 1):
        text = gen.generate(rng).text
        if args.check:
            try:
                grammar.parse(text)
            except Exception as exc:  # noqa: BLE001 - any parse failure is reported the same way
                raise CliError(f"input {n} does not parse: {' '.join(str(exc).split())[:200]}") from None
        if out_dir is None:
            _emit(sys.stdout, n, text)
        else:
            path = out_dir / f"{stem}_{n:04d}.txt"
            write_atomic(path, text)
            print(path)
    return 0


def _emit(stream: TextIO, n: int, text: str) -> None:
    stream.write(SEPARATOR.format(n=n) + "\n" + text + "\n")


def split_inputs(output: str) -> list[str]:
    """Read back the inputs printed by `bonsai sample` (inverse of its stdout format)."""
    parts = _SEPARATOR_RE.split(output)
    if parts and parts[0] == "":
        parts = parts[1:]
    return [p[:-1] if p.endswith("\n") else p for p in parts]


def add_run_command(subparsers: argparse._SubParsersAction) -> None:
    """Register `bonsai run`: the corpus-growing lattice of bounded coverage-guided fuzzers."""
    p = subparsers.add_parser("run", help="grow a concise corpus with the Bonsai lattice up to --bounds")
    p.add_argument("grammar", help="path to a .lark grammar")
    p.add_argument("--target", required=True, metavar="MODULE:FUNCTION", help="function taking the input text")
    p.add_argument("--bounds", required=True, type=_lattice_bounds, metavar="M,N,D",
                   help="top of the lattice (each >= 1)")
    budget = p.add_mutually_exclusive_group(required=True)
    budget.add_argument("--node-trials", type=_positive, help="trials per lattice node (after replaying its seeds)")
    budget.add_argument("--node-time", help="time per lattice node, e.g. 30s")
    p.add_argument("--out", required=True, help="output directory (resumed when it holds a previous run)")
    p.add_argument("--seed", type=_non_negative, default=0)
    p.add_argument("--workers", type=_positive, default=1, help="nodes of one generation run on N processes")
    p.add_argument("--cluster", metavar="ADDRESS", help="run the nodes on Dask: tcp://HOST:8786 or local:N")
    p.add_argument("--start", help="start rule (default: start)")
    p.add_argument("--guidance", choices=("coverage", "mutation"), default="coverage",
                   help="feedback at each node: coverage (Bonsai) or mutants killed (mu2py)")
    p.set_defaults(func=run_run)


def run_run(args: argparse.Namespace) -> int:
    """Run the lattice and print per-node statistics and the final corpus."""
    from bonsai.lattice import run_lattice
    from mu2py.commands import parse_duration
    from mu2py.errors import UserError

    cluster = None
    try:
        seconds = parse_duration(args.node_time) if args.node_time else None
        if args.cluster:
            from mu2py.cluster import DaskExecutor

            cluster = DaskExecutor(args.cluster)
            print(f"Dask dashboard: {cluster.dashboard}", file=sys.stderr, flush=True)
        summary = run_lattice(
            args.grammar, args.target, args.bounds, trials=args.node_trials, seconds=seconds, seed=args.seed,
            out=Path(args.out), workers=args.workers, start=args.start, guidance=args.guidance,
            progress=lambda line: print(line, file=sys.stderr, flush=True), cluster=cluster,
        )
    except (UserError, GrammarLoadError) as exc:
        raise CliError(str(exc)) from None
    finally:
        if cluster is not None:
            cluster.close()
    final = summary["final"]
    print(f"final corpus: {final['inputs']} inputs, mean size {final['mean_size']} chars, "
          f"coverage {final['coverage']} -> {Path(args.out) / 'final'}")
    return 0


SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [add_sample_command, add_run_command]
"""Sub-command registrars: append `add_<name>_command` functions here to add sub-commands."""


def build_parser() -> argparse.ArgumentParser:
    """The `bonsai` argument parser with every registered sub-command."""
    parser = _Parser(prog="bonsai", description="Bonsai fuzzing: bounded grammar generation, corpus growth.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    for register in SUBCOMMANDS:
        register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `bonsai` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except CliError as exc:
        # one line whatever the message holds (a target's import error may span several)
        print(f"bonsai: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `bonsai sample ... | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
