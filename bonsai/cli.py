"""The `bonsai` command line: one parser, one module per sub-command (`sample_command`, `run_command`).

Every user error (missing grammar, grammar syntax error with lark's message and location, bad
terminal regex, unknown start rule, a rule that cannot terminate, malformed bounds or bounds under
1, a target that cannot be loaded or raises on import, modules slipcover cannot measure) ends with
one line on stderr, ``bonsai: error: ...``, and exit status 2; never a traceback.  `run` exits 3
when the target raised on some inputs (EXIT_FAILURES), and both exit 130 on Ctrl-C.  Output is plain
text (no markup to escape, no wrapping): a piped log gets the lines a terminal shows (where `run` also
draws a live bar of the nodes done, and a piped log's node lines end with the time elapsed).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from bonsai.cli_args import EXIT_INTERRUPTED, CliError
from bonsai.run_command import add_run_command
from bonsai.sample_command import add_sample_command
from mu2py.cli.argtypes import VersionAction
from mu2py.errors import STORAGE_ERRNOS, OutputError

__all__ = ["SUBCOMMANDS", "build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line (the usage text stays available through --help)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [add_sample_command, add_run_command]
"""Sub-command registrars: append `add_<name>_command` functions here to add sub-commands."""


def build_parser() -> argparse.ArgumentParser:
    """The `bonsai` argument parser with every registered sub-command."""
    parser = _Parser(prog="bonsai", description="Bonsai fuzzing: bounded grammar generation, corpus growth.",
                     epilog="exit status: 0 done; 2 bad input (one line 'bonsai: error: ...'); 3 `run` found "
                            "inputs on which the target raised; 130 interrupted")
    parser.add_argument("--version", action=VersionAction, package="bonsai")
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
    except OSError as exc:  # `sample --out` writes its own files; `run` writes through mu2py.store.atomic
        if not _output_failed(exc, getattr(args, "out", None)):
            raise
        print(f"bonsai: error: {OutputError.of(exc.filename or getattr(args, 'out', None), exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # `run` says where its work is kept; `sample --out` leaves only whole files
        print("bonsai: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _output_failed(exc: OSError, out: str | None) -> bool:
    """Whether `exc` is a write to the output that failed: a full or read-only disk, or `--out` gone."""
    if exc.errno in STORAGE_ERRNOS:
        return True
    if out is None or not isinstance(exc, FileNotFoundError) or exc.filename is None:
        return False
    return Path(os.fsdecode(exc.filename)).absolute().is_relative_to(Path(out).absolute())


if __name__ == "__main__":
    raise SystemExit(main())
