"""mu2py's reports in the field's standard format: a mutation-testing-report-schema document (the JSON Stryker,
PIT's report plugin and Infection write, and the mutation-testing-elements web component reads), from a score
report (`score_document`), a `mutate` report (`mutate_document`: the inputs play the tests) or a `props` report
(`props_document`: the @given tests' verdicts).

Each source file holds its full text and its mutants; a mutant's location is 1-based in lines and columns, its end
exclusive, columns counted in UTF-16 code units as the web component counts them (mu2py's own `column` counts
code points from 0).  Score's statuses map onto the schema's: killed → Killed (a worker the mutant crashed or filled
with memory too: the suite noticed, and the score counts it), timeout → Timeout, survived → Survived, no_coverage →
NoCoverage, and a mutant that does not compile → CompileError (no test judged it; the schema's metrics leave it out
of the score, where mu2py's count it killed).  Tests are defined under `testFiles` with short ids, as Stryker writes
them, so `killedBy` and `coveredBy` stay small.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mu2py.score.reports import covering_tests, relative
from mu2py.score.show import outcome

ELEMENTS_VERSION = "3.8.4"  # mutation-testing-elements in vendor/, and the schema version it reads
SCHEMA_VERSION = "1.0"  # the report's `schemaVersion`, as Stryker writes it
THRESHOLDS = {"high": 80, "low": 60}  # Stryker's defaults: the page colours scores from them


@dataclass
class Document:
    """A mutation-testing-report-schema document, and the files it leaves out with the reason (unreadable, or
    changed since the run: its mutants are no longer where the report puts them)."""

    report: dict[str, Any]
    left_out: dict[str, str] = field(default_factory=dict)


def status(entry: dict[str, Any]) -> tuple[str, str, str | None]:
    """(the schema's status, its reason, the killing test's id or None) of a score report entry."""
    reason, _, _ = outcome(entry)
    if entry.get("failure"):  # how the killing test failed: the line a person reads first
        reason = f"{reason}: {entry['failure']}"
    by = entry.get("killed_by") or ""
    if entry["status"] == "killed" and by.startswith("<compile error"):
        return "CompileError", reason, None
    test = by if by and not by.startswith("<") and entry["status"] in ("killed", "timeout") else None
    named = {"killed": "Killed", "timeout": "Timeout", "survived": "Survived", "no_coverage": "NoCoverage"}
    return named.get(entry["status"], "Ignored"), reason, test


def _squeezed(text: str) -> str:
    return "".join(text.split())


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class _Source:
    """A file's text as the report shows it, and mutant spans in it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")  # libcst's lines: the text was read with universal newlines

    def span(self, line: int, column: int, end_line: int, end_column: int) -> str | None:
        """The text between two (1-based line, 0-based code point column) places; None when outside the file."""
        if not (1 <= line <= end_line <= len(self.lines)) or column > len(self.lines[line - 1]):
            return None
        if end_column > len(self.lines[end_line - 1]) or (line == end_line and end_column < column):
            return None
        if line == end_line:
            return self.lines[line - 1][column:end_column]
        return "\n".join([self.lines[line - 1][column:], *self.lines[line:end_line - 1],
                          self.lines[end_line - 1][:end_column]])

    def _before(self, line: int, column: int) -> tuple[int, int]:
        """The place before the blanks (line breaks too) that end at (line, column)."""
        while True:
            row = self.lines[line - 1]
            while column > 0 and row[column - 1] in " \t\f":
                column -= 1
            if column > 0 or line == 1:
                return line, column
            line, column = line - 1, len(self.lines[line - 2])

    def _after(self, line: int, column: int) -> tuple[int, int]:
        """The place after the blanks (line breaks too) that start at (line, column)."""
        while True:
            row = self.lines[line - 1]
            while column < len(row) and row[column] in " \t\f":
                column += 1
            if column < len(row) or line == len(self.lines):
                return line, column
            line, column = line + 1, 0

    def _widened(self, where: tuple[int, int, int, int], parens: int,
                 semicolon: bool) -> tuple[int, int, int, int] | None:
        """`where` with `parens` more parentheses around it and a `;` after, blanks between allowed; None when the
        text around it does not hold them."""
        line, column, end_line, end_column = where
        for closing in [")"] * parens + [";"] * semicolon:
            if closing == ")":
                line, column = self._before(line, column)
                if column == 0 or self.lines[line - 1][column - 1] != "(":
                    return None
                column -= 1
            end_line, end_column = self._after(end_line, end_column)
            row = self.lines[end_line - 1]
            if end_column == len(row) or row[end_column] != closing:
                return None
            end_column += 1
        return line, column, end_line, end_column

    def place(self, entry: dict[str, Any]) -> tuple[int, int, int, int] | None:
        """Where the entry's `original` is, as (line, column, end line, end column) in mu2py's counting; None when
        the text there is not the original (the file changed since the run).  The report's `original` holds what
        libcst's node holds, its place does not: the parentheses around an expression, a statement's `;`."""
        where = (entry["line"], entry["column"], entry["end_line"], entry["end_column"])
        text = self.span(*where)
        if text is None:
            return None
        want, have = _squeezed(entry["original"]), _squeezed(text)
        if want == have:
            return where
        semicolon = want.endswith(";") and not have.endswith(";")
        want = want[:-1] if semicolon else want
        parens = (len(want) - len(have)) // 2
        if parens >= 0 and want == "(" * parens + have + ")" * parens:
            return self._widened(where, parens, semicolon)
        return None

    def location(self, line: int, column: int, end_line: int, end_column: int) -> dict[str, Any]:
        """The schema's location: 1-based, columns in UTF-16 code units."""
        return {"start": {"line": line, "column": _utf16(self.lines[line - 1][:column]) + 1},
                "end": {"line": end_line, "column": _utf16(self.lines[end_line - 1][:end_column]) + 1}}


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _test_lines(source: str) -> dict[str, tuple[int, int]]:
    """Per test name in a file (`test_f`, `TestC::test_m`): the (line, column) of its `def`, both 1-based."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    found: dict[str, tuple[int, int]] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}::")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(prefix + node.name, (node.lineno, node.col_offset + 1))

    visit(tree.body, "")
    return found


def _test_files(ids: dict[str, str], root: Path, group: Callable[[str], tuple[str, str]]) -> dict[str, Any]:
    """The schema's `testFiles`: per file of the tests (`group` gives a test's file and name), its source when it is
    a Python file under `root`, and its tests, each at its `def` when the source has one of its name."""
    files: dict[str, Any] = {}
    places: dict[str, dict[str, tuple[int, int]]] = {}
    for key, short in ids.items():
        file, name = group(key)
        if file not in files:
            files[file] = {"tests": []}
            source = _read(root / file) if file.endswith(".py") else None
            if source is not None:
                files[file]["source"] = source
            places[file] = _test_lines(source) if source is not None else {}
        test: dict[str, Any] = {"id": short, "name": name}
        where = places[file].get(name.split("[", 1)[0])
        if where is not None:
            test["location"] = {"start": {"line": where[0], "column": where[1]}}
        files[file]["tests"].append(test)
    return files


@dataclass(frozen=True)
class Verdict:
    """A mutant's outcome in the schema's terms: its status and why, the tests (or inputs) that killed it, and those
    that cover it (None when the run does not know them)."""

    status: str
    reason: str
    killed_by: tuple[str, ...] = ()
    covered_by: tuple[str, ...] | None = None


def build(entries: list[dict[str, Any]], root: Path, verdict: Callable[[dict[str, Any]], Verdict], *,
          tests: Iterable[str] = (), group: Callable[[str], tuple[str, str]], project_root: bool = True) -> Document:
    """The document of mutant entries (mu2py's JSON shape: file, line, column, end_line, end_column, original,
    mutated, operator, at_import...), paths relative to `root`; `verdict` says what became of each.

    `tests` are the known tests (or inputs) in their run order; `group` gives a test's file and name in `testFiles`.
    `project_root` False leaves the absolute root out (a page meant to be shared names no local folder).
    """
    from mu2py import __version__

    ids: dict[str, str] = {}  # test -> the document's short id, in run order

    def short(test: str) -> str:
        return ids.setdefault(test, str(len(ids)))

    for test in tests:
        short(test)
    by_file: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        by_file.setdefault(entry["file"], []).append(entry)
    files: dict[str, Any] = {}
    left_out: dict[str, str] = {}
    for file, in_file in sorted(by_file.items()):
        rel = relative(file, root)
        text = _read(Path(file))
        if text is None:
            left_out[rel] = "cannot be read"
            continue
        source = _Source(text)
        mutants = []
        for entry in sorted(in_file, key=lambda e: (e["line"], e["column"], e["id"])):
            place = source.place(entry)
            if place is None:
                break
            judged = verdict(entry)
            mutant: dict[str, Any] = {
                "id": entry["id"], "mutatorName": entry["operator"], "replacement": entry["mutated"],
                "location": source.location(*place), "status": judged.status, "statusReason": judged.reason,
                "static": bool(entry.get("at_import"))}
            if entry.get("tests_run") is not None:
                mutant["testsCompleted"] = entry["tests_run"]
            if judged.killed_by:
                mutant["killedBy"] = [short(t) for t in judged.killed_by]
            if judged.covered_by is not None:  # the killers too: a test that killed it ran it
                covered = [short(t) for t in judged.covered_by]
                mutant["coveredBy"] = covered + [i for i in mutant.get("killedBy", ()) if i not in covered]
            if entry.get("seconds") is not None:
                mutant["duration"] = round(1000 * entry["seconds"], 1)
            mutants.append(mutant)
        else:
            files[rel] = {"language": "python", "source": text, "mutants": mutants}
            continue
        left_out[rel] = "changed since the run (its mutants are no longer where the report says)"
    document: dict[str, Any] = {
        "schemaVersion": SCHEMA_VERSION, "thresholds": dict(THRESHOLDS), "files": files,
        "testFiles": _test_files(ids, root, group), "framework": {"name": "mu2py", "version": __version__}}
    if project_root:
        document["projectRoot"] = str(root)
    return Document(document, left_out)


def _nodeid_parts(nodeid: str) -> tuple[str, str]:
    file, _, name = nodeid.partition("::")
    return file, name or nodeid


def score_document(result: dict[str, Any], root: Path, *, project_root: bool = True) -> Document:
    """The document of a score report (`score --json`): the suite's tests under `testFiles` by their files, each
    mutant covered by the tests that reach it (when the report lists them)."""
    covering = covering_tests(result) if "tests" in result else None

    def verdict(entry: dict[str, Any]) -> Verdict:
        state, reason, killer = status(entry)
        covered = tuple(covering.get(entry.get("site", -1), ())) if covering is not None else None
        return Verdict(state, reason, (killer,) if killer else (), covered)

    return build(result["mutants"], root, verdict, tests=[t["id"] for t in result.get("tests", ())],
                 group=_nodeid_parts, project_root=project_root)


_HOW = {"output": "its output differed from the original's", "exception": "it raised where the original did not, or "
        "raised another exception", "timeout": "it ran over its time limit", "crash": "it crashed the process",
        "warning": "it emitted other warnings (category, message or the line they point at) than the original"}


def mutate_document(result: dict[str, Any], root: Path, driver: str, *, project_root: bool = True) -> Document:
    """The document of a `mutate --json` report (or a fuzz campaign's mutants.json): the inputs play the tests,
    under `testFiles` as the driver's; a mutant killed by a timeout is Timeout, by any other difference Killed; one
    no input reached is NoCoverage.  `project_root` as for `build`."""

    def verdict(entry: dict[str, Any]) -> Verdict:
        if entry["status"] == "killed":
            how = _HOW.get(entry.get("reason") or "", f"it differed ({entry.get('reason')})")
            state = "Timeout" if entry.get("reason") == "timeout" else "Killed"
            label = entry.get("input")
            return Verdict(state, f"on input {label}: {how}" if label else how, (label,) if label else ())
        if entry.get("reached") is False:
            return Verdict("NoCoverage", "no input reached it")
        return Verdict("Survived", "no input told it apart from the original")

    return build(result["mutants"], root, verdict, tests=result.get("inputs", ()),
                 group=lambda label: (driver, label), project_root=project_root)


def props_document(report: dict[str, Any], mutants: list[dict[str, Any]], root: Path) -> Document:
    """The document of a `props --json` report over the mutants it judged (`mutants`, mu2py's JSON shape), by the
    weakest reading: Killed when some @given test's inputs (its default run's or fuzzed) kill it, Survived when some
    reaches it and none kills it, NoCoverage when none reaches it; `killedBy` and `coveredBy` those tests."""
    killers: dict[str, list[str]] = {}
    reachers: dict[str, list[str]] = {}
    for prop in report["properties"]:
        killed = {*prop.get("default_kills", ()), *(k["mutant"] for k in prop.get("new_kills", ()))}
        for mutant in killed:
            killers.setdefault(mutant, []).append(prop["test"])
        for mutant in killed | set(prop["survivors"]):
            reachers.setdefault(mutant, []).append(prop["test"])

    def verdict(entry: dict[str, Any]) -> Verdict:
        by, reached = tuple(killers.get(entry["id"], ())), tuple(reachers.get(entry["id"], ()))
        if by:
            return Verdict("Killed", f"the inputs of {len(by)} of the {len(reached)} @given tests reaching it kill it",
                           by, reached)
        if reached:
            return Verdict("Survived", f"reached by {len(reached)} @given tests, killed by none", (), reached)
        return Verdict("NoCoverage", "no @given test reaches it", (), ())

    return build(mutants, root, verdict, tests=[p["test"] for p in report["properties"]], group=_nodeid_parts)
