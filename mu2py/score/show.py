"""One mutant of a score run as a person acts on it: `mu2py show` describes it, `mu2py apply` writes it to the tree.

Both read the report of a `score` run: the one `score` keeps in its cache folder (`LAST_REPORT`, next to the
verdict cache, which holds verdicts under hashes only), or a file written by `score --report FILE` or `--json`.
A mutant's text is made again from the module's current source (one module parsed, not the package), and only
when that source still holds the same mutant under the same id: a report never writes a stale edit.
"""

from __future__ import annotations

import difflib
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mu2py.errors import UserError
from mu2py.score.at_import import NOT_RUN
from mu2py.score.cache import make_folder
from mu2py.score.diffs import unified
from mu2py.score.reports import load_report, relative
from mu2py.store.atomic import write_atomic, write_json
from mu2py.target.modules import Target, TargetModule
from mu2py.target.project import load_config

CACHE_FOLDER = ".mu2py-cache"
LAST_REPORT = "last-report.json"  # beside the verdict cache: the last run's report, for `show` and `apply`


def last_report_path(cache: Path) -> Path:
    """Where `score` keeps its last report, given its verdict cache file."""
    return cache.with_name(LAST_REPORT)


def keep_last(result: dict[str, Any], cache: Path) -> None:
    """Keep `result` (a score report) beside the verdict cache, atomically: what `show` and `apply` read."""
    make_folder(cache.parent)
    write_json(last_report_path(cache), result)


def load(root: Path, report: Path | None) -> tuple[dict[str, Any], str]:
    """The score report to read (`report`, else the last one kept under `root`), and how to name where it came from.

    UserError, saying what to run, when there is none.
    """
    if report is not None:
        return load_report(report), str(report)
    kept = root / CACHE_FOLDER / LAST_REPORT
    if kept.is_file():
        return load_report(kept), "the last score run"
    if (root / CACHE_FOLDER / "score.json").is_file():
        raise UserError(f"{root / CACHE_FOLDER} holds cached verdicts (keyed by hashes) but no report: run "
                        "`mu2py score` again (it keeps its report there now), or give --report FILE "
                        "(from `mu2py score --report FILE`)")
    raise UserError(f"no score result under {root}: run `mu2py score` there first, or give --report FILE "
                    "(from `mu2py score --report FILE`)")


def find(report: dict[str, Any], mutant_id: str, where: str) -> dict[str, Any]:
    """The report's entry of `mutant_id`; UserError naming the nearest ids when it has none."""
    by_id = {m["id"]: m for m in report["mutants"]}
    if mutant_id in by_id:
        return by_id[mutant_id]
    # ids are module:line:column:operator: a module:line names the mutants of that line, else of the nearest
    # lines; a whole id, those spelled most alike (a typo), else those of the nearest lines
    near = [i for i in by_id if i.startswith(mutant_id)][:5]
    if not near and mutant_id.count(":") < 2:
        near = _nearest_lines(by_id, mutant_id)
    near = near or difflib.get_close_matches(mutant_id, by_id, 5, 0.6) or _nearest_lines(by_id, mutant_id)
    hint = f"; nearest: {', '.join(near)}" if near else f"; `mu2py score` lists survivors' ids ({len(by_id)} mutants)"
    raise UserError(f"no mutant {mutant_id!r} in {where}{hint}")


def _nearest_lines(by_id: dict[str, dict[str, Any]], mutant_id: str) -> list[str]:
    """The ids of the module `mutant_id` names (`module:line...`) on the lines nearest to its line."""
    module, _, rest = mutant_id.partition(":")
    line = rest.split(":")[0]
    if not line.isdigit():
        return []
    same = [m for m in by_id.values() if m["module"] == module]
    same.sort(key=lambda m: (abs(m["line"] - int(line)), m["line"], m["column"]))
    return [m["id"] for m in same[:5]]


@dataclass(frozen=True)
class Mutation:
    """A mutant made again from its module's current source: the file, its text, and the mutated text."""

    path: Path
    rel: str
    original: str
    mutated: str


def _report_root(report: dict[str, Any], root: Path) -> Path:
    return Path(report.get("root") or root)


def _located(report: dict[str, Any], entry: dict[str, Any], root: Path) -> tuple[Path, str]:
    """The file of `entry` under `root`, and its name relative to the root."""
    rel = relative(entry["file"], _report_root(report, root))
    return (Path(rel) if Path(rel).is_absolute() else root / rel), rel


def remake(report: dict[str, Any], entry: dict[str, Any], root: Path) -> Mutation:
    """The mutant of `entry` applied to its module's current source under `root` (a report made in another
    checkout is read relative to its own root); UserError when the file is gone or no longer holds it."""
    from mu2py.mutants.catalog import Program  # libcst: only for the one module, only when needed

    path, rel = _located(report, entry, root)
    try:
        source = path.read_text(encoding="utf-8")  # as `score` read it (newlines translated)
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read {rel}: {exc}") from exc
    is_package = path.name == "__init__.py"
    module = TargetModule(entry["module"], str(path), source, is_package, (str(path.parent),) if is_package else None)
    skip = tuple(load_config(root).get("skip_lines", []))
    program = Program(Target(driver=None, driver_module=None, modules=(module,), prefixes=(module.name,)),
                      skip_patterns=skip)
    index = program.index.get(entry["id"])
    found = program.mutants[index] if index is not None else None
    if found is None or (found.original, found.mutated) != (entry["original"], entry["mutated"]):
        raise UserError(f"{rel} changed since the score run: it no longer holds mutant {entry['id']} "
                        f"({entry['original']} -> {entry['mutated']}); run `mu2py score` again")
    return Mutation(path, rel, source, program.mutant_source(entry["id"]))


def _tests(n: int) -> str:
    return f"{n} test" if n == 1 else f"{n} tests"


def outcome(entry: dict[str, Any]) -> tuple[str, list[str], str | None]:
    """(the reason of the status, the tests that killed it, why it survived) as far as the report tells."""
    status, by = entry["status"], entry.get("killed_by")
    run, reached, infected = entry.get("tests_run") or 0, entry.get("reached_by") or 0, entry.get("infected_by")
    if status in ("killed", "timeout"):
        if by and by.startswith("<"):  # no test's failure: a crash, a compile error, a whole suite's run
            return by.strip("<>"), [], None
        what = "failed" if status == "killed" else "ran over its time limit"
        after = f", after {_tests(run - 1)} that passed" if run > 1 else ""
        return f"{by} {what} (a run stops at the first failure{after})", [by] if by else [], None
    if status == "no_coverage":
        why = ("its function is never defined in this interpreter" if entry.get("pruned") == "never defined here"
               else "reached by no test")
        return why, [], why
    if entry.get("pruned") == "infection":
        why = (f"reached by {_tests(reached)} but not infected (pruned by infection): the mutated code computes the "
               "same values as the original in every run of it, so no test can tell them apart")
    elif entry.get("pruned") == NOT_RUN:
        why = ("its statement never runs when the module is imported here (a branch not taken at import: "
               "`if __name__ == \"__main__\":`, an import fallback), so no test can reach it (no test had to run)")
    elif entry.get("mode") == "isolated":
        why = f"the whole suite ran in a fresh interpreter ({_tests(run)}), none failed"
    elif run:
        seen = f"reached by {_tests(reached)}, " if reached else ""
        seen += f"infected by {infected}, " if infected else ""
        why = f"{seen}run by {_tests(run)}, none failed"
    elif entry.get("at_import"):
        why = "a change at import time that no test's code reads (no test had to run)"
    else:
        why = "no test ran it"
    return why, [], why


def describe(report: dict[str, Any], entry: dict[str, Any], root: Path) -> dict[str, Any]:
    """What `show` prints about one mutant, as a JSON-ready dict (the diff made from the source if the report
    has none)."""
    reason, killers, why = outcome(entry)
    rel = relative(entry["file"], _report_root(report, root))
    diff = entry.get("diff")
    if not diff:
        made = remake(report, entry, root)
        diff = unified(made.original, made.mutated, made.rel)
    return {"id": entry["id"], "file": rel, "line": entry["line"], "column": entry["column"],
            "end_line": entry["end_line"], "end_column": entry["end_column"], "module": entry["module"],
            "scope": entry["scope"], "operator": entry["operator"], "original": entry["original"],
            "mutated": entry["mutated"], "status": entry["status"], "reason": reason, "killed_by": killers,
            "failure": entry.get("failure"), "why_survived": why, "reached_by": entry.get("reached_by"),
            "infected_by": entry.get("infected_by"), "tests_run": entry.get("tests_run"),
            "mode": entry.get("mode"), "cached": entry.get("cached"), "diff": diff}


def render(shown: dict[str, Any]) -> list[str]:
    """`describe`'s dict as the lines `show` prints."""
    lines = [f"{shown['file']}:{shown['line']}: {shown['id']} ({shown['operator']} in {shown['scope']})",
             f"status: {shown['status'].replace('_', ' ')}: {shown['reason']}"]
    lines.extend(f"killed by: {test}" for test in shown["killed_by"])
    if shown.get("failure"):
        lines.append(f"failure: {shown['failure']}")
    return [*lines, shown["diff"]]


@dataclass(frozen=True)
class Applied:
    """What `apply` changed: the file (relative to the root), the diff, and whether git holds the original."""

    rel: str
    diff: str
    in_git: bool


def _git_state(path: Path) -> str | None:
    """What git says of `path`: "" when committed and unchanged, its `git status --porcelain` code when changed,
    "untracked" when git keeps no copy of it (new or ignored), None when it is in no git work tree (or no git)."""

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args, "--", path.name], cwd=path.parent, capture_output=True, text=True,
                              timeout=30)

    try:
        status = git("status", "--porcelain")
        if status.returncode != 0:
            return None
        if status.stdout.strip():
            return status.stdout.split()[0]
        return "" if git("ls-files", "--error-unmatch").returncode == 0 else "untracked"
    except (OSError, subprocess.SubprocessError):
        return None


def apply(report: dict[str, Any], entry: dict[str, Any], root: Path, force: bool) -> Applied:
    """Write the mutant of `entry` over its file under `root`; UserError, unless `force`, when git shows the file
    with uncommitted changes (or cannot tell: the file is in no repository), since that work would be lost."""
    path, rel = _located(report, entry, root)
    state = _git_state(path)  # first: a refusal costs no parse
    if not force:
        if state is None:
            raise UserError(f"{rel} is not in a git work tree: nothing could undo the change; "
                            "use --force to write it anyway")
        if state in ("??", "untracked"):
            raise UserError(f"{rel} is not committed in git: nothing could undo the change; "
                            "commit it, or use --force to write it anyway")
        if state:
            raise UserError(f"{rel} has uncommitted changes (git status: {state}): commit or stash them, "
                            "or use --force to write over them")
    made = remake(report, entry, root)
    raw = made.path.read_bytes()
    mutated = made.mutated.replace("\n", "\r\n") if b"\r\n" in raw else made.mutated  # keep the file's newlines
    mode = made.path.stat().st_mode
    write_atomic(made.path, mutated.encode("utf-8"))
    made.path.chmod(mode & 0o7777)  # an atomic write makes a new file: keep the old one's permissions
    return Applied(made.rel, unified(made.original, made.mutated, made.rel), state == "")
