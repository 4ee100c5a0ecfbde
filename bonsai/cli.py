"""The `bonsai` command line: one sub-command per module function (`sample` here; more register alike).

Every user error (missing grammar, grammar syntax error with lark's message and location, bad
terminal regex, unknown start rule, a rule that cannot terminate, malformed bounds or bounds under
1, a target that cannot be loaded or raises on import, modules slipcover cannot measure) ends with
one line on stderr, ``bonsai: error: ...``, and exit status 2; never a traceback.  `run` exits 3
when the target raised on some inputs (EXIT_FAILURES), and both exit 130 on Ctrl-C.  Output is plain
text (no markup to escape, no wrapping): a piped log gets the same lines as a terminal.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from bonsai.bounds import Bounds
from bonsai.generator import BoundedGenerator
from bonsai.grammar import GrammarLoadError, load_grammar

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


_SAMPLE_EPILOG = """\
examples:
  bonsai sample grammars/json.lark --bounds 2,2,2 --count 5 --seed 1
  bonsai sample grammars/json.lark --bounds 3,3,3 --count 500 --distinct --out corpus/
  bonsai sample grammars/json.lark --bounds 2,2,2 --jsonl > inputs.jsonl     # one JSON string per line

n may be 0 (the lattice of `bonsai run` starts at 1): optional repetitions (`*`, `?`, `[...]`) are then
empty and the others take the count the grammar requires (`+` one item, `~ k` k items).
"""


def add_sample_command(subparsers: argparse._SubParsersAction) -> None:
    """Register `bonsai sample`."""
    p = subparsers.add_parser(
        "sample",
        help="print inputs generated from a Lark grammar within bounds",
        description=textwrap.fill(
            "Generate inputs from a Lark grammar within bonsai bounds m,n,d: at most m distinct "
            "identifiers per identifier terminal, at most n iterations of any repetition, and no "
            "rule expanded more than d times on a root-to-leaf path. Every input parses with the "
            "grammar. Without --out, inputs go to stdout, each preceded by the line "
            "'# --- input N ---' (N from 1) and followed by one newline, so input N is exactly the "
            "text between its separator line and the newline before the next separator (or the end); "
            "an input that itself holds such a line makes this ambiguous (a warning says so): read "
            "such output with --jsonl (one JSON string per line) or --out. "
            "With --out DIR, each input is written to DIR/<grammar>_NNNN.txt (atomically) and the "
            "paths are printed. The same seed gives the same inputs.", 79
        ),
        epilog=_SAMPLE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("grammar", help="path to a .lark grammar file")
    p.add_argument("--bounds", required=True, type=_bounds, metavar="m,n,d",
                   help="idents,items,depth (m and d >= 1, n >= 0)")
    p.add_argument("--count", type=_non_negative, default=10, metavar="K", help="number of inputs (10)")
    p.add_argument("--distinct", action="store_true",
                   help="no input twice; stops early, with a note, when no new input turns up (the bounds allow few)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (0)")
    p.add_argument("--start", metavar="RULE", help="start rule (default: start)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--out", metavar="DIR", help="write one file per input into DIR instead of stdout")
    where.add_argument("--jsonl", action="store_true",
                       help="print each input as one JSON string per line instead of separator lines")
    p.add_argument(
        "--idents",
        metavar="T1,T2",
        help="terminals bounded by m (default: NAME, ID, IDENTIFIER, CNAME, IDSTRING, *NAME*, *IDENT*)",
    )
    p.add_argument("--check", action="store_true", help="parse each input; fail if one fails")
    p.set_defaults(func=run_sample)


DISTINCT_PATIENCE = 1000
"""`sample --distinct` gives up after max(this, 10 x count) draws in a row that bring no new input."""


def _inputs(gen: BoundedGenerator, rng: random.Random, count: int, distinct: bool) -> Iterator[str]:
    """`count` generated texts (all different with `distinct`, which may stop early; a note then says why)."""
    if not distinct:
        for _ in range(count):
            yield gen.generate(rng).text
        return
    seen: set[str] = set()
    patience = max(DISTINCT_PATIENCE, 10 * count)
    misses = 0
    while len(seen) < count:
        text = gen.generate(rng).text
        if text in seen:
            misses += 1
            if misses >= patience:
                print(f"bonsai: note: only {len(seen)} distinct inputs (no new one in {patience} draws): the "
                      "bounds allow few; raise them for more", file=sys.stderr)
                return
            continue
        misses = 0
        seen.add(text)
        yield text


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
    batch: dict[Path, str] = {}
    warned = False
    for n, text in enumerate(_inputs(gen, rng, args.count, args.distinct), start=1):
        if args.check:
            try:
                grammar.parse(text)
            except Exception as exc:  # noqa: BLE001 - any parse failure is reported the same way
                write_batch(batch)  # the inputs before it are kept, as they would have been printed
                raise CliError(f"input {n} does not parse: {' '.join(str(exc).split())[:200]}") from None
        if out_dir is not None:
            batch[out_dir / f"{stem}_{n:04d}.txt"] = text
            if len(batch) >= BATCH:
                write_batch(batch)
        elif args.jsonl:
            sys.stdout.write(json.dumps(text) + "\n")
        else:
            if not warned and _SEPARATOR_RE.search(text):
                warned = True
                print(f"bonsai: warning: input {n} holds a line like the separator '# --- input N ---', so "
                      "the output cannot be split reliably: use --jsonl or --out", file=sys.stderr)
            _emit(sys.stdout, n, text)
    write_batch(batch)
    return 0


BATCH = 1000
"""`sample --out` writes its files in batches of this many, with one flush to disk per batch."""


def write_batch(files: dict[Path, str]) -> None:
    """Write every file of `files` (path -> text) atomically, print its path, and empty `files`.

    Each text goes to a hidden temporary file in the target folder; one `os.sync` puts the whole batch
    on disk (an fsync per file made `--out` 5-20x slower than stdout); then each temporary file is
    renamed to its final name.  A final name therefore only ever holds a complete file, whenever the
    run is interrupted; temporary files are removed unless the process is killed outright.
    """
    if not files:
        return
    temps: list[tuple[str, Path]] = []
    renamed = 0
    try:
        mask = os.umask(0o022)
        os.umask(mask)
        for path, text in files.items():
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            temps.append((tmp, path))
            os.fchmod(fd, 0o666 & ~mask)  # mkstemp creates 0600: give the file ordinary permissions
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        os.sync()
        for tmp, path in temps:
            os.replace(tmp, path)
            renamed += 1
            print(path)
    finally:
        for tmp, _ in temps[renamed:]:
            Path(tmp).unlink(missing_ok=True)
    files.clear()


def _emit(stream: TextIO, n: int, text: str) -> None:
    stream.write(SEPARATOR.format(n=n) + "\n" + text + "\n")


def split_inputs(output: str) -> list[str]:
    """Read back the inputs printed by `bonsai sample` (inverse of its stdout format)."""
    parts = _SEPARATOR_RE.split(output)
    if parts and parts[0] == "":
        parts = parts[1:]
    return [p[:-1] if p.endswith("\n") else p for p in parts]


EXIT_FAILURES = 3
"""Exit status of `bonsai run` when the target raised on some inputs (the lattice itself completed)."""

EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, as shells report it)."""

_RUN_EPILOG = """\
examples:
  bonsai run grammars/json.lark --target targets.json_decoder.driver:parse --bounds 2,2,2 \\
      --node-trials 50 --out out/json
  bonsai run grammars/ini.lark --target ini_wrap:parse --targets configparser --bounds 2,2,2 \\
      --node-trials 30 --out out/ini     # ini_wrap.py in the current directory: see the README

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
    p.add_argument("--bounds", required=True, type=_lattice_bounds, metavar="m,n,d",
                   help="top of the lattice: idents,items,depth (each >= 1)")
    budget = p.add_mutually_exclusive_group(required=True)
    budget.add_argument("--node-trials", type=_positive, metavar="N",
                        help="trials per lattice node (after replaying its seeds)")
    budget.add_argument("--node-time", metavar="T", help="time per lattice node, e.g. 30s")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="output directory (resumed when it holds a previous run)")
    p.add_argument("--seed", type=_non_negative, default=0, metavar="S",
                   help="random seed; every node's seed derives from it (0)")
    p.add_argument("--workers", type=_positive, default=1, metavar="N",
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


def _say(line: str) -> None:
    """One plain line on stderr (no markup, no wrapping: ids and paths stay whole in a piped log)."""
    print(line, file=sys.stderr, flush=True)


def run_run(args: argparse.Namespace) -> int:
    """Run the lattice and print per-node statistics, the final corpus and any failures; returns the exit status."""
    from bonsai.lattice import run_lattice
    from mu2py.cli.fuzz import parse_duration
    from mu2py.errors import UserError

    targets = _targets(args.targets)
    out = Path(args.out)
    cluster = None
    try:
        seconds = parse_duration(args.node_time) if args.node_time else None
        if args.cluster:
            from mu2py.engine.cluster import DaskExecutor

            cluster = DaskExecutor(args.cluster)
            _say(f"Dask dashboard: {cluster.dashboard}")
        summary = run_lattice(
            args.grammar, args.target, args.bounds, trials=args.node_trials, seconds=seconds, seed=args.seed,
            out=out, workers=args.workers, start=args.start, guidance=args.guidance, progress=_say,
            cluster=cluster, targets=targets, warn=lambda line: _say(f"bonsai: warning: {line}"),
        )
    except (UserError, GrammarLoadError) as exc:
        raise CliError(str(exc)) from None
    except KeyboardInterrupt:
        _say(f"bonsai: interrupted; finished nodes are kept in {out}/nodes: the same command resumes")
        return EXIT_INTERRUPTED
    finally:
        if cluster is not None:
            cluster.close()
    final = summary["final"]
    print(f"final corpus: {final['inputs']} inputs, mean size {final['mean_size']} chars, "
          f"coverage {final['coverage']} lines+branches -> {out / 'final'}")
    failures = summary["failures"]
    if not failures:
        return 0
    kinds = f"{len(failures)} distinct exception{'s' if len(failures) > 1 else ''} by type and location"
    print(f"failures: the target raised on inputs, {kinds} (every failing input is in {out}/nodes/*/failures/):")
    for f in failures:
        message = " ".join(str(f.get("message", "")).split())[:200]
        print(f"  {f['exception']} at {f['location']}: {message} -> {f['input']}")
    return EXIT_FAILURES


SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [add_sample_command, add_run_command]
"""Sub-command registrars: append `add_<name>_command` functions here to add sub-commands."""


def build_parser() -> argparse.ArgumentParser:
    """The `bonsai` argument parser with every registered sub-command."""
    parser = _Parser(prog="bonsai", description="Bonsai fuzzing: bounded grammar generation, corpus growth.",
                     epilog="exit status: 0 done; 2 bad input (one line 'bonsai: error: ...'); 3 `run` found "
                            "inputs on which the target raised; 130 interrupted")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    for register in SUBCOMMANDS:
        register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `bonsai` console script; returns the exit status."""
    # modules named on the command line are looked up from the current directory, as `python -m` does; an
    # absolute entry, so that spawned worker processes (which inherit sys.path) find them too
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
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
    except KeyboardInterrupt:  # `run` says where its work is kept; `sample --out` leaves only whole files
        print("bonsai: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    raise SystemExit(main())
