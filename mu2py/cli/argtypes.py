"""Argument types of the command line: each turns a bad value into a usage error naming the option."""

from __future__ import annotations

import argparse

# parse_duration is the budget's (the API parses --time too); the commands and benchmarks import it from here
from mu2py.budget import parse_duration as parse_duration


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def count(text: str) -> int:
    """An argparse type: an integer of at least 0."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer of at least 0, got {text!r}")
    return value


def add_project_arguments(p: argparse.ArgumentParser, tests: str | None) -> None:
    """The options naming a project: the code to mutate (`--package` or `--paths`), `--root`, and `--tests`
    with `tests` as its help (None: the command takes its tests otherwise)."""
    what = p.add_mutually_exclusive_group()
    what.add_argument("--package", help="importable package to mutate")
    what.add_argument("--paths", nargs="+", metavar="SRC", help="source files or package folders to mutate")
    if tests is not None:
        p.add_argument("--tests", nargs="+", metavar="TESTS", help=tests)
    p.add_argument("--root", default=".", help="project root: pytest runs here (default: current directory)")


def percent(text: str) -> float:
    """An argparse type: a percentage in [0, 100] (a trailing % is allowed)."""
    try:
        value = float(text.removesuffix("%"))
    except ValueError:
        value = -1.0
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"must be a percentage between 0 and 100, got {text!r}")
    return value


def mutant_filter(text: str) -> str:
    """An argparse type: a valid --filter (checked here, so a typo is a usage error, not a traceback)."""
    from mu2py.feedback.analysis import Filter

    try:
        Filter.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("bad filter ").split(":")[0] +
                                         " is not a filter: use least-executed:K, random:K or random:P%") from None
    return text
