"""The `mu2py props` subcommand: options, the terminal table, `--json`, `--html` and `--mte`."""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mu2py.cli.argtypes import add_project_arguments, count, parse_duration, positive_int
from mu2py.cli.progress import Meter
from mu2py.cli.report import relative
from mu2py.mutants.model import TABLE_CELL, one_line
from mu2py.steps import Step


def _table(report: dict[str, Any]) -> Table:
    table = Table(title="properties under mutation")
    for col in ("test", "reached", "killed (default)", "killed (fuzzed)", "survivors", "trials"):
        table.add_column(col, justify="left" if col == "test" else "right", overflow="fold")
    for e in report["properties"]:
        table.add_row(e["test"], str(e["reached"]), str(e["killed_default"]), str(e["killed"]),
                      str(len(e["survivors"])), str(e.get("trials", "-")))
    return table


def entries_reached_nothing(report: dict[str, Any]) -> bool:
    """Whether there were properties and none reached a mutant (the code mutated is not the code tested)."""
    return bool(report["properties"]) and report["summary"]["reached"] == 0


def print_report(console: Console, report: dict[str, Any], show: int = 10) -> None:
    """The table, the new `@example` lines, weak properties with their survivors, bugs and skipped tests."""
    console.print(_table(report))
    mutants = report["mutants"]
    for e in report["properties"]:
        if e.get("examples"):
            console.print(f"[bold]{escape(e['test'])}[/bold]: add these examples (each kills mutants the default run "
                          "missed)", markup=True)
            for line in e["examples"]:
                console.print(f"    {line}", markup=False)
    for e in report["properties"]:
        if e["survivors"]:
            console.print(f"[bold]weak:[/bold] {escape(e['test'])} reaches {len(e['survivors'])} mutants it never "
                          "kills:", markup=True)
            for mid in e["survivors"][:show]:
                m = mutants[mid]
                change = f"{one_line(m['original'], TABLE_CELL)} → {one_line(m['mutated'], TABLE_CELL)}"
                console.print(f"    {relative(m['file'], Path.cwd())}:{m['line']} {change}", markup=False)
            if len(e["survivors"]) > show:
                console.print(f"    ... and {len(e['survivors']) - show} more (--json for all)")
    for bug in report["bugs"]:
        console.print("[bold red]bug:[/bold red] ", end="", markup=True)
        console.print(f"{bug['test']} fails on the original code: {bug.get('error') or bug.get('exception')}\n"
                      f"    {bug.get('example')}", markup=False)
    for s in report["skipped"]:
        console.print(f"skipped {s['test']}: {s['why']}", markup=False)
    s = report["summary"]
    for module, why in s.get("unimportable", {}).items():
        console.print(f"skipped {module}: it cannot be imported here ({why}); its mutants are not judged",
                      markup=False)
    if s.get("not_saved"):
        console.print(f"killing inputs of {len(s['not_saved'])} tests not saved: their settings have no example "
                      "database (Hypothesis's 'ci' profile, loaded when a CI variable such as CI is set, turns "
                      "it off); the @example lines above keep them", markup=False)
    if entries_reached_nothing(report):
        console.print("no mutant was reached: the properties ran none of the code being mutated; check that "
                      "--paths/--package (or [tool.mu2py]) names the code these tests import", markup=False)
    console.print(f"[bold]{s['killed']}[/bold] of {s['reached']} reached mutants killed after fuzzing "
                  f"({s['killed_default']} by the default runs); {s['properties']} properties, "
                  f"{len(s['weak'])} weak, {s['failing_on_original']} failing on the original; {s['seconds']} s",
                  markup=True)


def _props(args: argparse.Namespace, console: Console) -> int:
    from mu2py.api import props
    from mu2py.cli.report import check_mte

    check_mte(args.mte)  # named now, not after the run
    seconds = parse_duration(args.time) if args.time else None
    # no terminal, or --json: plain lines at each phase and then every few seconds (on stderr under --json)
    meter = Meter(console, "loading", live=console.is_terminal and not args.json,
                  out=sys.stderr if args.json else sys.stdout)
    with meter:
        judged: list[dict[str, Any]] | None = [] if args.mte else None
        result = props(args.root, args.tests, package=args.package, paths=args.paths, trials=args.trials,
                       time=args.time, seed=args.seed, workers=args.workers, cluster=args.cluster,
                       guidance=args.guidance, per_input=args.per_input, no_save=args.no_save, html=args.html,
                       judged=judged,
                       progress=partial(_show, meter, seconds, args.workers))
    if args.mte and judged is not None:
        from mu2py.cli.report import write_props_mte

        write_props_mte(args.mte, result.report, judged, Path(args.root).resolve())
    if result.html is not None and not args.json:
        console.print(f"HTML report: {result.html}")
    if args.json:
        print(json.dumps(result.report, indent=1))
    else:
        print_report(console, result.report)
    return result.exit_code


def _show(meter: Meter, seconds: float | None, workers: int, line: str) -> None:
    """One step of the run on the meter: its phase; while fuzzing, the tests fuzzed of all and, under --time, the
    fuzzing phase's budget (each test's time, once per round of `workers` tests)."""
    step = line if isinstance(line, Step) else Step(line, line)
    if not step.phase:  # a note (the Dask dashboard's address): printed as it is (on stderr under --json)
        meter.say(step)
        return
    if step.phase == "fuzzing" and step.done == 0 and step.total:
        started = meter.elapsed
        rounds = -(-step.total // max(workers, 1))
        meter.set_budget(None if seconds is None else seconds * rounds, "fuzzing budget",
                         lambda: meter.elapsed - started)
    if step.counts:
        meter.update(description=step.phase, unit=step.unit, completed=step.done, total=step.total)
    else:
        meter.update(description=step.phase, unit="", completed=0, total=0)
    counted = f"{step.done}/{step.total} {step.unit}, " if step.counts else ""
    meter.plain(lambda: f"[{step.phase}] {counted}{meter.stamp()}", step.phase)


def add_props_command(sub: Any) -> None:
    """Register `props` on the top-level subparsers."""
    p = sub.add_parser("props", help="score and strengthen the @given tests of a suite under mutation guidance")
    p.add_argument("tests", nargs="*", metavar="TESTS", help="test files or node ids (default: the whole suite)")
    add_project_arguments(p, tests=None)
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--time", help="fuzzing time per test, e.g. 30s, 5m")
    budget.add_argument("--trials", type=positive_int, help="fuzzing trials per test (reproducible)")
    p.add_argument("--seed", type=int, default=0, help="seeds fuzzing and the default runs (--hypothesis-seed)")
    p.add_argument("--workers", type=positive_int, default=1, help="worker processes (tests are fuzzed in parallel)")
    p.add_argument("--cluster", metavar="ADDRESS", help="fuzz the tests on Dask: tcp://HOST:8786 or local:N")
    p.add_argument("--guidance", choices=("mutation", "coverage"), default="mutation",
                   help="mutation: kills are feedback (default); coverage: lines, targets, events only")
    p.add_argument("--per-input", type=count, default=8, metavar="K",
                   help="mutants run per fuzzed input, least-executed first (default 8; 0: every infected one)")
    p.add_argument("--no-save", action="store_true", help="do not save killing inputs to the example database")
    p.add_argument("--json", action="store_true", help="the report as JSON on stdout")
    p.add_argument("--html", metavar="DIR", help="write an HTML report")
    p.add_argument("--mte", metavar="FILE",
                   help="write each mutant judged (killed by some @given test, reached only, or by none) as "
                        "mutation-testing-report-schema JSON")
    p.set_defaults(run=_props)
