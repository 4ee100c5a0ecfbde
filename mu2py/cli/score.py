"""The `mu2py score` and `score-merge` subcommands: options, progress, the readable summary and CI outputs."""

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

from mu2py.cli.argtypes import add_project_arguments, percent, positive_int
from mu2py.cli.progress import Meter, below_fail_under
from mu2py.cli.report import relative
from mu2py.errors import UserError
from mu2py.mutants.model import one_line
from mu2py.score.reports import nothing_judged, score_percent, summary_percent
from mu2py.score.scope import shard_arg


def summary_table(report: dict[str, Any], root: Path) -> Table:
    """The per-file table of a score report (paths relative to `root`), as `mu2py score` prints it."""
    table = Table(title="mutation score by file")
    longest = max((len(relative(f, root)) for f in report["files"]), default=4)
    table.add_column("file", justify="left", no_wrap=True, min_width=longest)  # a path cut short names nothing
    for col in ("mutants", "killed", "timeout", "survived", "no coverage", "score"):
        table.add_column(col, justify="right")
    for file, counts in sorted(report["files"].items()):
        total = sum(counts.values())
        detected = counts["killed"] + counts["timeout"]
        table.add_row(relative(file, root), str(total), *(str(counts[k]) for k in ("killed", "timeout", "survived")),
                      str(counts["no_coverage"]), score_percent(detected, total))
    return table


def score_line(s: dict[str, Any]) -> str:
    """The one line summing up a report's `summary` (`score 91.2%: ... killed, ...; N mutants, M tests, ...`)."""
    bodies = s.get("function_bodies")  # absent from a report older than the figure
    in_bodies = (f" (function bodies {score_percent(bodies['detected'], bodies['total'])} of {bodies['total']})"
                 if bodies and bodies["total"] and bodies["total"] != s["total"] else "")
    return (f"score {summary_percent(s)}{in_bodies}: {s['killed']} killed, {s['timeout']} timed out, "
            f"{s['survived']} survived ({s['pruned_infection']} proved without running), {s['no_coverage']} not "
            f"covered by any test; {s['total']} mutants, {s['tests']} tests, {s['seconds']} s ({s['cached']} cached)"
            + (f"; {s['skipped_import_time']} import-time mutants skipped" if s["skipped_import_time"] else ""))


def time_line(s: dict[str, Any]) -> str | None:
    """Where a run's time went (`time: baseline 1.2 s; 9 function mutants, code swapped in place 0.1 s; ...`), from a
    report's `summary`; None when no mutant ran (a merged report, everything from the cache)."""
    spent = s.get("time") or {}
    parts = [f"{v['mutants']} {name} {v['seconds']} s" for name, v in spent.items() if "mutants" in v]
    if not parts:
        return None
    why = "; ".join(f"{n} {reason}" for reason, n in list(spent.get("why fresh", {}).items())[:3])
    recorded = next((f"; {name} {v['seconds']} s" for name, v in spent.items() if name.startswith("recording")), "")
    return (f"time: baseline {spent['baseline']['seconds']} s; " + "; ".join(parts) + recorded
            + (f" (why fresh: {why})" if why else ""))


def survivor_note(m: dict[str, Any]) -> str:
    """Why a survivor is worth a look and how it was judged: `reached by 2 tests; called by the tests; 2 tests ran`."""
    if m["pruned"]:
        how = "proved by infection analysis" if m["pruned"] == "infection" else f"pruned: {m['pruned']}"
    else:
        how = "whole suite in a fresh interpreter" if m["mode"] == "isolated" else f"{m['tests_run']} tests ran"
    what = [f"reached by {m['reached_by']} tests" if m["reached_by"] else "module level",
            *(["called by the tests"] if m["direct"] else []), *(["a message"] if m["message"] else []), how]
    return "; ".join(what)


def _score(args: argparse.Namespace, console: Console) -> int:
    from mu2py.api import ScoreProgress, score

    _check_ci_arguments(args)

    def line(p: ScoreProgress) -> str:
        so_far = p.tally()
        judged = f"[{p.phase}] {p.judged}/{p.total} mutants judged ({p.cached} from cache)"
        return judged + (f"; {so_far}" if so_far else "")

    run = partial(score, args.root, package=args.package, paths=args.paths, tests=args.tests, skip=args.skip,
                  pytest_args=args.pytest_args, workers=args.workers, cluster=args.cluster,
                  timeout_factor=args.timeout_factor, opt=args.opt, import_time=args.import_time, cache=args.cache,
                  no_cache=args.no_cache, since=args.since, shard=args.shard, fail_under=args.fail_under)
    # no terminal (a CI log, a pipe), or --json: plain lines, one per phase change and then every few seconds, to
    # stderr when stdout carries the JSON report
    meter = Meter(console, "loading", unit="mutants judged", live=console.is_terminal and not args.json,
                  out=sys.stderr if args.json else sys.stdout)

    def show(p: ScoreProgress) -> None:
        if p.phase.startswith("Dask"):
            # a note for people following the run: on stderr, stdout carries only the report (--json)
            print(p.phase, file=sys.stderr, flush=True)
        meter.update(description=p.phase, completed=p.judged, total=p.total,
                     note=", ".join(part for part in (p.tally(), f"{p.cached} from cache" if p.cached else "")
                                    if part))
        meter.plain(lambda: f"{line(p)}, {meter.elapsed:.0f} s", p.phase)

    with meter:
        result = run(progress=show)
    args.fail_under = result.fail_under  # the command line's, else [tool.mu2py.score]'s
    return _present(result.report, args, result.root, console)


def _present(result: dict[str, Any], args: argparse.Namespace, root: Path, console: Console) -> int:
    """Write the reports asked for, print the summary (or the JSON), and return the exit code."""
    from mu2py.score.html import write_html

    if args.html:
        index = write_html(result, Path(args.html), root)
        if not args.json:
            console.print(f"HTML report: {index}")
    if args.json:
        code = _ci_outputs(result, args, root, console)
        print(json.dumps(result, indent=1))
        return max(code, _below(result, args))
    s = result["summary"]
    nothing = nothing_judged(s)
    if nothing is None:
        console.print(summary_table(result, root))
    by_id = {m["id"]: m for m in result["mutants"]}
    survivors = [by_id[i] for i in result["triage"]]
    if survivors:
        console.print("survivors, most worth a look first (reached by more tests, in functions the tests call, "
                      "messages last):", highlight=False)
    for m in survivors[: args.show]:
        where = escape(relative(m["file"], root))
        console.print(f"[bold]{where}:{m['line']}[/bold] {escape(one_line(m['original']))} → "
                      f"{escape(one_line(m['mutated']))} ({escape(survivor_note(m))})", markup=True, highlight=False)
    if len(survivors) > args.show:
        console.print(f"... and {len(survivors) - args.show} more survivors (--json or --html for all)")
    if nothing:
        console.print(nothing, markup=False, highlight=False)
    else:
        head, _, rest = score_line(s).partition(":")
        console.print(f"[bold]{head}[/bold]:{rest}", markup=True)
    spent = time_line(s)
    if spent:
        console.print(spent, markup=False, highlight=False)
    if s.get("out_of_scope"):
        scope = s.get("scope") or {}
        why = [f"on lines unchanged since {scope['since']}" if scope.get("since") else "",
               f"in other shards than {scope['shard']}" if scope.get("shard") else ""]
        console.print(f"{s['out_of_scope']} mutants not judged by this run ({' or '.join(filter(None, why))})"
                      if any(why) else f"{s['out_of_scope']} mutants not in the merged reports", markup=False)
    for module, why in s.get("unimportable", {}).items():
        console.print(f"skipped {module}: it cannot be imported here ({why}); its mutants are not scored",
                      markup=False)
    return max(_ci_outputs(result, args, root, console), _below(result, args))


def _ci_outputs(result: dict[str, Any], args: argparse.Namespace, root: Path, console: Console) -> int:
    """Write --report, --junit, --sarif, --mte, print --github annotations, apply --baseline; 1 when a file's score
    fell below its baseline (one line on stderr per file), else 0."""
    from mu2py.score import baseline, reports
    from mu2py.store.atomic import write_atomic, write_json

    if args.report:
        write_json(Path(args.report), result)
    if args.junit:
        write_atomic(Path(args.junit), reports.junit(result, root))
    if args.sarif:
        write_atomic(Path(args.sarif), reports.sarif(result, root))
    if args.mte:
        from mu2py.cli.report import write_score_mte

        write_score_mte(args.mte, result, root)
    if args.github:
        for row in reports.github(result, root):
            print(row, flush=True)
    if not args.baseline:
        return 0
    path = Path(args.baseline)
    if args.update_baseline:
        written = baseline.update(result, root, path)
        if not args.json:
            console.print(f"baseline {path}: scores of {written} files written", markup=False, highlight=False)
        return 0
    drops, compared = baseline.check(result, root, path)
    for drop in drops:
        print(f"mu2py: {drop.line()}", file=sys.stderr)
    if not args.json:
        console.print(f"baseline {path}: {compared} files compared, {len(drops)} below", markup=False,
                      highlight=False)
    return 1 if drops else 0


def _below(result: dict[str, Any], args: argparse.Namespace) -> int:
    """Exit code 1 (as `mutate`) with one line on stderr when the score is under `--fail-under` (else 0)."""
    s = result["summary"]
    # from the counts: the summary's `score` is rounded to four digits already
    score = 100 * (s["killed"] + s["timeout"]) / s["total"] if s["total"] else None
    shortfall = below_fail_under(score, args.fail_under)
    if shortfall:
        print(f"mu2py: {shortfall}", file=sys.stderr)
    return 1 if shortfall else 0


def add_score_command(sub: Any) -> None:
    """Register `score` on the top-level subparsers."""
    p = sub.add_parser("score", help="mutation score of an existing pytest suite")
    add_project_arguments(p, tests="test paths given to pytest (default: pytest's own)")
    p.add_argument("--workers", type=positive_int, help="worker processes running mutants (default: 1)")
    p.add_argument("--cluster", metavar="ADDRESS", help="run mutants on Dask: tcp://HOST:8786 or local:N")
    p.add_argument("--timeout-factor", type=float,
                   help="a test's timeout is F x its baseline time + 1s (default: 10)")
    p.add_argument("--opt", choices=("execution", "infection"), help="pruning (default: infection, both kinds)")
    p.add_argument("--import-time", choices=("reload", "fresh", "skip"),
                   help="import-time mutants (constants, defaults, class attributes): reload the module in place "
                        "(default), run each in a fresh interpreter (slow; a cross-check), or skip them")
    p.add_argument("--skip", nargs="+", metavar="GLOB", help="module names or files not to mutate")
    p.add_argument("--pytest-args", nargs=argparse.REMAINDER, help="everything after goes to pytest")
    p.add_argument("--cache", help="verdict cache file (default: ROOT/.mu2py-cache/score.json)")
    p.add_argument("--no-cache", action="store_true", help="judge every mutant again")
    p.add_argument("--json", action="store_true", help="the full report as JSON on stdout")
    p.add_argument("--html", metavar="DIR", help="write an HTML report (offline: open DIR/index.html): every mutant "
                   "on its line in the file's source, with its status and the tests that killed or cover it")
    p.add_argument("--show", type=int, default=20, help="survivors to list in the terminal (most worth a look first)")
    p.add_argument("--fail-under", type=percent, metavar="PCT",
                   help="exit with code 1 when the score (in percent) is below PCT (for CI)")
    p.add_argument("--since", metavar="REF",
                   help="judge only the mutants on lines changed since the git REF (working tree against it)")
    p.add_argument("--shard", type=shard_arg, metavar="I/N",
                   help="judge shard I of N (a deterministic split; merge the --report files with score-merge)")
    _ci_arguments(p)
    p.set_defaults(run=_score)

    m = sub.add_parser("score-merge", help="merge the --report files of score shards into one report")
    m.add_argument("reports", nargs="+", metavar="REPORT", help="JSON reports written by score --report")
    m.add_argument("--root", default=".", help="project root the merged paths are under (default: current directory)")
    m.add_argument("--json", action="store_true", help="the merged report as JSON on stdout")
    m.add_argument("--html", metavar="DIR", help="write an HTML report (offline: open DIR/index.html)")
    m.add_argument("--show", type=int, default=20, help="survivors to list in the terminal")
    m.add_argument("--fail-under", type=percent, metavar="PCT", help="exit with code 1 when the score is below PCT")
    _ci_arguments(m)
    m.set_defaults(run=_merge)


def _ci_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--report", metavar="FILE", help="write the JSON report to FILE (atomically)")
    p.add_argument("--junit", metavar="FILE", help="write JUnit XML: a test case per mutant, survivors failing")
    p.add_argument("--sarif", metavar="FILE", help="write SARIF 2.1.0: a result per survivor, on its line")
    p.add_argument("--mte", metavar="FILE",
                   help="write the mutation-testing-report-schema JSON (Stryker's format: every mutant, its file's "
                        "source, the tests), which mutation-testing-elements and the Stryker dashboard read")
    p.add_argument("--github", action="store_true", help="print a GitHub Actions ::warning per survivor")
    p.add_argument("--baseline", metavar="FILE",
                   help="per-file ratchet: exit 1 when a file's score is below its score in FILE")
    p.add_argument("--update-baseline", action="store_true",
                   help="write the scores of this run's files into the --baseline FILE instead of checking")


def _check_ci_arguments(args: argparse.Namespace) -> None:
    # checked before any test runs: a typo must not cost a whole scoring run
    if args.json and args.github:
        raise UserError("--github prints annotations on stdout, where --json prints the report: keep one "
                        "(--report FILE writes the JSON report to a file)")
    if args.update_baseline and not args.baseline:
        raise UserError("--update-baseline needs --baseline FILE")
    if args.baseline and not args.update_baseline:
        from mu2py.score.baseline import load

        load(Path(args.baseline))  # a missing or corrupt baseline is named now, not after the run
    _check_outputs(args)


def _check_outputs(args: argparse.Namespace) -> None:
    """An output folder that cannot be written (read-only, not a directory) is named now, not after the run."""
    from mu2py.store.atomic import ensure_writable

    files = [args.report, args.junit, args.sarif, args.mte, args.baseline if args.update_baseline else None]
    for folder in dict.fromkeys([*(Path(f).parent for f in files if f), *([Path(args.html)] if args.html else [])]):
        ensure_writable(folder)


def _merge(args: argparse.Namespace, console: Console) -> int:
    from mu2py.score.reports import load_report, merge

    _check_ci_arguments(args)
    root = Path(args.root).resolve()
    return _present(merge([load_report(Path(r)) for r in args.reports], root), args, root, console)
