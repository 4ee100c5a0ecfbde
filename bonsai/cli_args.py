"""What every `bonsai` command shares: the one-line user error, the exit statuses, argument types, progress lines."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from bonsai.bounds import Bounds
from mu2py.cli.plumbing import EXIT_FAILURES, EXIT_INTERRUPTED
from mu2py.errors import UserError

__all__ = ["EXIT_FAILURES", "EXIT_INTERRUPTED", "CliError", "bounds_arg", "lattice_bounds_arg", "non_negative",
           "positive", "say"]

# the exit statuses are mu2py's (`mu2py.cli.plumbing`): `bonsai run` exits EXIT_FAILURES when the target raised on
# some inputs (the lattice itself completed), EXIT_INTERRUPTED after Ctrl-C


class CliError(UserError):
    """A user error reported as one line `bonsai: error: ...` on stderr with exit status 2 (`plumbing.guarded`)."""


def bounds_arg(text: str) -> Bounds:
    """An argparse type: bounds m,n,d (m and d >= 1, n >= 0)."""
    try:
        return Bounds.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def lattice_bounds_arg(text: str) -> Bounds:
    """An argparse type: the top of a lattice, every bound >= 1."""
    bounds = bounds_arg(text)
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


positive = _int_at_least(1, "positive")
non_negative = _int_at_least(0, "non-negative")


def say(line: str) -> None:
    """One plain line on stderr (no markup, no wrapping: ids and paths stay whole in a piped log)."""
    print(line, file=sys.stderr, flush=True)
