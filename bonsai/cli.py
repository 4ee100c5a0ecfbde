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
from collections.abc import Callable, Sequence

from bonsai.run_command import add_run_command
from bonsai.sample_command import add_sample_command
from mu2py.cli.argtypes import VersionAction
from mu2py.cli.plumbing import OneLineParser, guarded, look_up_current_directory

__all__ = ["SUBCOMMANDS", "build_parser", "main"]


SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [add_sample_command, add_run_command]
"""Sub-command registrars: append `add_<name>_command` functions here to add sub-commands."""


def build_parser() -> argparse.ArgumentParser:
    """The `bonsai` argument parser with every registered sub-command."""
    parser = OneLineParser(prog="bonsai", description="Bonsai fuzzing: bounded grammar generation, corpus growth.",
                           epilog="exit status: 0 done; 2 bad input (one line 'bonsai: error: ...'); 3 `run` found "
                                  "inputs on which the target raised; 130 interrupted")
    parser.add_argument("--version", action=VersionAction, package="bonsai")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    subparsers.required = True
    for register in SUBCOMMANDS:
        register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `bonsai` console script; returns the exit status (see `mu2py.cli.plumbing`)."""
    look_up_current_directory()
    args = build_parser().parse_args(argv)
    # `run` says where its work is kept on Ctrl-C; `sample --out` leaves only whole files
    return guarded("bonsai", lambda: int(args.func(args)), getattr(args, "out", None))


if __name__ == "__main__":
    raise SystemExit(main())
