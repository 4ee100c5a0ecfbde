"""The `mu2py score` subcommand: options, `[tool.mu2py]` configuration, and the readable summary."""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import json
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mu2py.argtypes import percent, positive_int
from mu2py.errors import UserError
from mu2py.target import modules_at, package_root

PROGRESS_EVERY = 5.0  # seconds between progress lines when stdout is not a terminal


def load_config(root: Path) -> dict[str, Any]:
    """The `[tool.mu2py]` table of `root/pyproject.toml` (empty when absent)."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        return dict(tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("mu2py", {}))
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: {exc}") from exc


def modules_from_paths(paths: list[str], root: Path, skip: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Dotted module names and files for source paths (files or package folders), and the sys.path entries they need."""
    names: list[str] = []
    found: list[str] = []
    sys_path: list[str] = []
    for raw in paths:
        path = (root / raw).resolve()
        if not path.exists():
            raise UserError(f"no such source path: {raw}")
        base = str(package_root(path))
        if base not in sys_path:
            sys_path.append(base)
        for name, file in modules_at(path):
            if any(fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(str(file), pattern) for pattern in skip):
                continue
            if name not in names:
                names.append(name)
                found.append(str(file))
    if not names:
        raise UserError(f"no Python modules to mutate under {', '.join(paths)}")
    return names, found, sys_path


def modules_from_package(package: str, root: Path, skip: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Module names of an importable package (imported from `root` first), with the sys.path entry it needs."""
    import importlib.util

    sys.path.insert(0, str(root))
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError) as exc:
        raise UserError(f"cannot import package {package!r}: {exc}") from exc
    finally:
        sys.path.remove(str(root))
    if spec is None or not spec.origin:
        raise UserError(f"no module named {package!r} (from {root})")
    location = Path(spec.origin).parent if spec.submodule_search_locations else Path(spec.origin)
    return modules_from_paths([str(location)], root, skip)


def _diff(program: Any, mutant_id: str) -> str:
    m = program.mutants[program.index[mutant_id]]
    original = program.module_of(mutant_id).source
    mutated = program.mutant_source(mutant_id)
    lines = difflib.unified_diff(original.splitlines(), mutated.splitlines(), m.file, m.file, n=1, lineterm="")
    return "\n".join(lines)


def _rel(file: str, root: Path) -> str:
    path = Path(file)
    return str(path.relative_to(root)) if path.is_relative_to(root) else file


def _summary_table(report: dict[str, Any], root: Path) -> Table:
    table = Table(title="mutation score by file")
    longest = max((len(_rel(f, root)) for f in report["files"]), default=4)
    table.add_column("file", justify="left", no_wrap=True, min_width=longest)  # a path cut short names nothing
    for col in ("mutants", "killed", "timeout", "survived", "no coverage", "score"):
        table.add_column(col, justify="right")
    for file, counts in sorted(report["files"].items()):
        total = sum(counts.values())
        detected = counts["killed"] + counts["timeout"]
        table.add_row(_rel(file, root), str(total), *(str(counts[k]) for k in ("killed", "timeout", "survived")),
                      str(counts["no_coverage"]), f"{100 * detected / total:.1f}%")
    return table


def modules_to_mutate(root: Path, config: dict[str, Any], package: str | None, paths: list[str] | None,
                      skip: list[str]) -> tuple[list[str], list[str], list[str]]:
    """The modules, files and sys.path entries to mutate: from the command line, else `[tool.mu2py]`.

    The two forms (package, paths) exclude each other; UserError when neither is given.
    """
    if not package and not paths:
        package, paths = config.get("package"), config.get("paths")
    if package and paths:
        raise UserError("[tool.mu2py] gives both package and paths: keep one")
    if package:
        return modules_from_package(package, root, skip)
    if paths:
        return modules_from_paths(list(paths), root, skip)
    raise UserError("say what to mutate: --package PKG or --paths SRC... (or [tool.mu2py] in pyproject.toml)")


def _score(args: argparse.Namespace, console: Console) -> int:
    from rich.live import Live

    from mu2py.score.html import write_html
    from mu2py.score.scoring import ScoreConfig, report, score
    from mu2py.score.suite import SuiteSpec

    root = Path(args.root).resolve()
    config = load_config(root)
    skip = list(config.get("skip", [])) + list(args.skip or [])
    # the command line wins over [tool.mu2py]; the two forms exclude each other
    modules, files, sys_path = modules_to_mutate(root, config, args.package, args.paths, skip)
    tests = args.tests or config.get("tests") or []
    pytest_args = [*tests, *config.get("pytest_args", []), *(args.pytest_args or [])]
    spec = SuiteSpec(root=str(root), pytest_args=tuple(pytest_args), modules=tuple(modules), files=tuple(files),
                     sys_path=tuple(sys_path), skip_patterns=tuple(config.get("skip_lines", [])))
    cache = None if args.no_cache else Path(args.cache) if args.cache else root / ".mu2py-cache" / "score.json"
    score_config = ScoreConfig(workers=args.workers, pruning=args.opt, timeout_factor=args.timeout_factor,
                               cache=cache, cluster=args.cluster, import_time=args.import_time)
    live_wanted = console.is_terminal and not args.json

    def line(state: Any, phase: str) -> str:
        if phase.startswith("Dask"):
            console.print(phase)
        done = len(state.verdicts)
        return f"[{phase}] {done}/{len(state.program.mutants)} mutants judged ({state.cached} from cache)"

    if live_wanted:
        with Live("loading", console=console, refresh_per_second=2, transient=True) as live:
            state = score(spec, score_config, lambda s, phase: live.update(line(s, phase)))
    else:
        # no terminal (a CI log, a pipe): plain lines, one per phase change and then every few seconds,
        # to stderr when stdout carries the JSON report
        stream = sys.stderr if args.json else sys.stdout
        started = time.monotonic()
        last = {"at": -1e9, "phase": ""}

        def plain(s: Any, phase: str) -> None:
            now = time.monotonic()
            if phase == last["phase"] and now - last["at"] < PROGRESS_EVERY:
                return
            last.update(at=now, phase=phase)
            print(f"{line(s, phase)}, {now - started:.0f} s", file=stream, flush=True)

        state = score(spec, score_config, plain)
    result = report(state)
    for entry in result["mutants"]:
        if entry["status"] == "survived":
            entry["diff"] = _diff(state.program, entry["id"])
    if args.html:
        index = write_html(result, Path(args.html), root)
        if not args.json:
            console.print(f"HTML report: {index}")
    if args.json:
        print(json.dumps(result, indent=1))
        return _below(result, args)
    console.print(_summary_table(result, root))
    by_id = {m["id"]: m for m in result["mutants"]}
    survivors = [by_id[i] for i in result["triage"]]
    if survivors:
        console.print("survivors, most worth a look first (reached by more tests, in functions the tests call, "
                      "messages last):", highlight=False)
    for m in survivors[: args.show]:
        how = ("proved by infection analysis" if m["pruned"] else "whole suite in a fresh interpreter"
               if m["mode"] == "isolated" else f"{m['tests_run']} tests ran")
        what = [f"reached by {m['reached_by']} tests" if m["reached_by"] else "module level",
                *(["called by the tests"] if m["direct"] else []), *(["a message"] if m["message"] else []), how]
        console.print(f"[bold]{escape(_rel(m['file'], root))}:{m['line']}[/bold] {escape(m['original'])} → "
                      f"{escape(m['mutated'])} ({'; '.join(what)})", markup=True, highlight=False)
    if len(survivors) > args.show:
        console.print(f"... and {len(survivors) - args.show} more survivors (--json or --html for all)")
    s = result["summary"]
    console.print(
        f"[bold]score {100 * (s['score'] or 0):.1f}%[/bold]: {s['killed']} killed, {s['timeout']} timed out, "
        f"{s['survived']} survived ({s['pruned_infection']} proved without running), {s['no_coverage']} not "
        f"covered by any test; {s['total']} mutants, {s['tests']} tests, {s['seconds']} s ({s['cached']} cached)"
        + (f"; {s['skipped_import_time']} import-time mutants skipped" if s["skipped_import_time"] else ""),
        markup=True)
    for module, why in s.get("unimportable", {}).items():
        console.print(f"skipped {module}: it cannot be imported here ({why}); its mutants are not scored",
                      markup=False)
    return _below(result, args)


def _below(result: dict[str, Any], args: argparse.Namespace) -> int:
    """Exit code 1 (as `mutate`) with one line on stderr when the score is under `--fail-under` (else 0)."""
    if args.fail_under is None:
        return 0
    score = 100 * (result["summary"]["score"] or 0)
    if score < args.fail_under:
        print(f"mu2py: score {score:.1f}% is below --fail-under {args.fail_under:g}%", file=sys.stderr)
        return 1
    return 0


def add_score_command(sub: Any) -> None:
    """Register `score` on the top-level subparsers."""
    p = sub.add_parser("score", help="mutation score of an existing pytest suite")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--package", help="importable package to mutate")
    what.add_argument("--paths", nargs="+", metavar="SRC", help="source files or package folders to mutate")
    p.add_argument("--tests", nargs="+", metavar="TESTS", help="test paths given to pytest (default: pytest's own)")
    p.add_argument("--root", default=".", help="project root: pytest runs here (default: current directory)")
    p.add_argument("--workers", type=positive_int, default=1, help="worker processes running mutants")
    p.add_argument("--cluster", metavar="ADDRESS", help="run mutants on Dask: tcp://HOST:8786 or local:N")
    p.add_argument("--timeout-factor", type=float, default=10.0, help="a test's timeout is F x its baseline time + 1s")
    p.add_argument("--opt", choices=("execution", "infection"), default="infection", help="pruning (default: both)")
    p.add_argument("--import-time", choices=("reload", "fresh", "skip"), default="reload",
                   help="import-time mutants (constants, defaults, class attributes): reload the module in place "
                        "(default), run each in a fresh interpreter (slow; a cross-check), or skip them")
    p.add_argument("--skip", nargs="+", metavar="GLOB", help="module names or files not to mutate")
    p.add_argument("--pytest-args", nargs=argparse.REMAINDER, help="everything after goes to pytest")
    p.add_argument("--cache", help="verdict cache file (default: ROOT/.mu2py-cache/score.json)")
    p.add_argument("--no-cache", action="store_true", help="judge every mutant again")
    p.add_argument("--json", action="store_true", help="the full report as JSON on stdout")
    p.add_argument("--html", metavar="DIR", help="write an HTML report: one page per source file")
    p.add_argument("--show", type=int, default=20, help="survivors to list in the terminal (most worth a look first)")
    p.add_argument("--fail-under", type=percent, metavar="PCT",
                   help="exit with code 1 when the score (in percent) is below PCT (for CI)")
    p.set_defaults(run=_score)
