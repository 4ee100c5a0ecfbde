"""The `mu2py show` and `apply` subcommands: one mutant of the last score run, described or written to the tree."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console


def _located(args: argparse.Namespace) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    """The root, the report and the mutant's entry the options name."""
    from mu2py.score import show

    root = Path(args.root).resolve()
    report, where = show.load(root, Path(args.report) if args.report else None)
    return root, report, show.find(report, args.id, where)


def _show(args: argparse.Namespace, console: Console) -> int:
    from mu2py.score import show

    root, report, entry = _located(args)
    shown = show.describe(report, entry, root)
    if args.json:
        print(json.dumps(shown, indent=1), file=console.file)
    else:
        for line in show.render(shown):
            print(line, file=console.file)
    return 0


def _apply(args: argparse.Namespace, console: Console) -> int:
    from mu2py.score import show

    root, report, entry = _located(args)
    done = show.apply(report, entry, root, args.force)
    console.print(f"{done.rel}: mutant {entry['id']} written ({entry['original']} -> {entry['mutated']}, line "
                  f"{entry['line']})" + (f"; undo with: git checkout -- {done.rel}" if done.in_git else ""))
    print(done.diff, file=console.file)
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="ID", help="a mutant id, as `score` prints it (e.g. pkg.mod:12:8:boundary)")
    p.add_argument("--root", default=".", help="project root the score run was in (default: current directory)")
    p.add_argument("--report", metavar="FILE",
                   help="a report from `score --report FILE` (default: the last score run's, kept in "
                        "ROOT/.mu2py-cache/)")


def add_show_commands(sub: Any) -> None:
    """Register `show` and `apply` on the top-level subparsers."""
    p = sub.add_parser("show", help="one mutant of the last score run: where, its diff, its verdict and why")
    _common(p)
    p.add_argument("--json", action="store_true", help="the same as one JSON object on stdout")
    p.set_defaults(run=_show)

    p = sub.add_parser("apply", help="write one mutant of the last score run into the working tree")
    _common(p)
    p.add_argument("--force", action="store_true",
                   help="write even over uncommitted changes (or a file git does not hold)")
    p.set_defaults(run=_apply)
