"""What the `mu2py` and `bonsai` command lines share: exit codes, one-line errors, and how a parsed command is run.

Invariants of both programs: bad input (a `UserError`, a usage error, an output that cannot be written: a full or
read-only disk, `--out` gone) is one line `PROG: error: ...` on stderr and exit code 2, never a traceback; Ctrl-C is
`PROG: interrupted` and 130 (outputs so far are saved by the command); a reader that goes away (`| head`) is exit 0.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from mu2py.errors import STORAGE_ERRNOS, OutputError, UserError

EXIT_OK = 0
EXIT_BELOW_THRESHOLD = 1  # --fail-under: the mutation score is below the bar
EXIT_USAGE = 2  # bad input: a one-line `PROG: error: ...` on stderr
EXIT_FAILURES = 3  # the original program (fuzz) or the target (bonsai run) failed on some inputs
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it)


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, `PROG: error: ...` (the usage stays in --help)."""

    def error(self, message: str) -> NoReturn:
        """Print `PROG: error: message` (the program's name, not the sub-command's) and exit with EXIT_USAGE."""
        self.exit(EXIT_USAGE, f"{self.prog.split()[0]}: error: {message}\n")


def look_up_current_directory() -> None:
    """Modules named on the command line are found in the current directory first, as `python -m` finds them.

    An absolute entry: spawned worker processes inherit `sys.path` and must find them too."""
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())


def guarded(prog: str, command: Callable[[], int], out: str | None = None) -> int:
    """Run `command` and return its exit code, turning what the user can fix into one line (see the module docstring).

    `out` is the command's output folder, if it has one: a file of it that vanished is an output error too."""
    try:
        return command()
    except UserError as exc:
        # one line whatever the message holds (a target's import error may span several)
        print(f"{prog}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # the reader of the output went away: nothing is lost that it wanted; the interpreter's last flush of
        # stdout must not fail again on the way out
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_OK
    except OSError as exc:
        # a write that missed mu2py.store.atomic (a rename, a journal): a full or read-only disk is still the
        # user's to fix, not a crash
        if not output_failed(exc, out):
            raise
        print(f"{prog}: error: {OutputError.of(exc.filename or out, exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def output_failed(exc: OSError, out: str | None) -> bool:
    """Whether `exc` is a write to the output that failed: a full or read-only disk, or a file under `out` gone."""
    if exc.errno in STORAGE_ERRNOS:
        return True
    if out is None or not isinstance(exc, FileNotFoundError) or exc.filename is None:
        return False
    return Path(os.fsdecode(exc.filename)).absolute().is_relative_to(Path(out).absolute())
