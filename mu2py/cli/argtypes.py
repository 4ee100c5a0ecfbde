"""Argument types of the command line: each turns a bad value into a usage error naming the option."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any

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


def package_version(package: str) -> str:
    """The installed version of the distribution holding `package` (importlib.metadata), else the package's own
    `__version__` (a source checkout that was never installed), else "unknown"."""
    from importlib import metadata

    dist = metadata.packages_distributions().get(package, [package])[0]  # bonsai ships in mu2py's distribution
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        pass
    return str(getattr(importlib.import_module(package), "__version__", "unknown"))


class VersionAction(argparse.Action):
    """`--version`: print `PROG VERSION` and exit 0, the version looked up only when asked (scanning the installed
    distributions takes a tenth of a second every start would pay)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, package: str = "",
                 **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the version and exit", **kwargs)
        self.package = package

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        """Print the version and exit."""
        print(f"{parser.prog} {package_version(self.package)}", file=sys.stdout)
        parser.exit(0)
