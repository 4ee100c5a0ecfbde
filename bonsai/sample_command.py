"""`bonsai sample`: bounded inputs of a grammar to stdout (separator lines or JSON lines) or to files."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import TextIO

from bonsai.cli_args import CliError, bounds_arg, non_negative
from mu2py.errors import UserError

__all__ = ["BATCH", "SEPARATOR", "add_sample_command", "run_sample", "split_inputs",
           "write_batch"]

SEPARATOR = "# --- input {n} ---"
"""Line printed before each input by `bonsai sample` (n from 1); each input is followed by a newline."""

_SEPARATOR_RE = re.compile(r"^# --- input \d+ ---\n", re.MULTILINE)


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
    p.add_argument("--bounds", required=True, type=bounds_arg, metavar="m,n,d",
                   help="idents,items,depth (m and d >= 1, n >= 0)")
    p.add_argument("--count", type=non_negative, default=10, metavar="K", help="number of inputs (10)")
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
        help="only these terminals are bounded by m (default: those named like NAME, ID, IDENTIFIER, CNAME, "
             "IDSTRING, *NAME*, *IDENT*, and every terminal whose regex is identifier-like, e.g. /[a-z_][a-z_0-9]*/)",
    )
    p.add_argument("--check", action="store_true", help="parse each input; fail if one fails")
    p.set_defaults(func=run_sample)


def _note(line: str) -> None:
    print(f"bonsai: note: {line}", file=sys.stderr)


def run_sample(args: argparse.Namespace) -> int:
    """Carry out `bonsai sample` (`bonsai.api.iter_samples`, streamed); returns the exit status."""
    from bonsai.api import iter_samples

    idents = [t.strip() for t in args.idents.split(",") if t.strip()] if args.idents else None
    out_dir = Path(args.out) if args.out else None
    inputs = iter_samples(args.grammar, bounds=args.bounds, count=args.count, seed=args.seed, start=args.start,
                          idents=idents, distinct=args.distinct, check=args.check, progress=_note)
    stem = Path(args.grammar).stem
    batch: dict[Path, str] = {}
    warned = False
    try:
        for n, text in enumerate(inputs, start=1):
            if n == 1 and out_dir is not None:
                _make(out_dir)  # once the grammar loaded: a bad grammar leaves no folder behind
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
    except UserError as exc:
        write_batch(batch)  # the inputs before a failing one are kept, as they would have been printed
        raise CliError(str(exc)) from None
    if out_dir is not None and not batch:
        _make(out_dir)  # no input at all (--count 0): the folder is made all the same
    write_batch(batch)
    return 0


def _make(out_dir: Path) -> None:
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"cannot create output directory {out_dir}: {exc.strerror or exc}") from None


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
