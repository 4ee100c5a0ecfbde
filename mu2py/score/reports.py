"""The score report (entries in triage order, totals), merged shard reports, and CI formats (JUnit, SARIF, GitHub)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mu2py.errors import UserError
from mu2py.mutants.model import one_line
from mu2py.score.plan import CUT_BY_BUDGET, OUT_OF_SCOPE
from mu2py.score.spec import SuiteSpec, test_files
from mu2py.score.verdicts import SURVIVED, Status

if TYPE_CHECKING:
    from mu2py.score.config import ScoreRun

STATUSES = ("killed", "survived", "timeout", "no_coverage")
UNDETECTED = ("survived", "no_coverage")  # what the score counts against the suite
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# characters XML 1.0 cannot hold at all (a mutated string literal may contain them)
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def score_percent(detected: int, total: int) -> str:
    """A score as every output prints it (summary line, tables, HTML, baseline, CI lines): one decimal, a half
    rounded up, computed from the counts, never from a fraction rounded already (`summary["score"]` holds four
    digits: rounding that again printed 86.4% where the table said 86.3%)."""
    if total <= 0:
        return "n/a"
    tenths = (2000 * detected + total) // (2 * total)  # round(1000 * detected / total), a half up, in integers
    return f"{tenths // 10}.{tenths % 10}%"


def summary_percent(summary: dict[str, Any]) -> str:
    """The score of a report's summary, as `score_percent` prints it."""
    return score_percent(summary["killed"] + summary["timeout"], summary["total"])


def nothing_judged(summary: dict[str, Any]) -> str | None:
    """What to say instead of a score when a run judged no mutant (`--since` on lines without any, an empty
    shard): a score of 0% would read as a suite that detects nothing.  None when there is a score."""
    if summary["total"]:
        return None
    scope = summary.get("scope") or {}
    if scope.get("since"):
        return f"no mutants on the lines changed since {scope['since']}" + (
            f" in shard {scope['shard']}" if scope.get("shard") else "")
    if scope.get("shard"):
        return f"no mutants in shard {scope['shard']}"
    return "no mutants to judge"


def triage_key(entry: dict[str, Any]) -> tuple[Any, ...]:
    """Sort key of survivors, most worth a look first: not a message, called by the tests, reached by more tests."""
    return (entry["message"], not entry["direct"], -entry["reached_by"], entry["file"], entry["line"],
            entry["column"])


def assemble(entries: list[dict[str, Any]], catalog: dict[str, int], summary: dict[str, Any]) -> dict[str, Any]:
    """The report from its mutant entries: totals, score, per-file counts and the triage order.

    `catalog` counts, per file, the mutants a complete run scores (those out of this run's scope included);
    `summary` holds the run's own figures (seconds, tests, skipped...), completed here with the totals.
    """
    per_file: dict[str, dict[str, int]] = {}
    for entry in entries:
        per_file.setdefault(entry["file"], dict.fromkeys(STATUSES, 0))[entry["status"]] += 1
    totals = {s: sum(1 for e in entries if e["status"] == s) for s in STATUSES}
    detected = totals["killed"] + totals["timeout"]
    survivors = sorted((e for e in entries if e["status"] == "survived"), key=triage_key)
    # the score over mutants in function bodies alone: what mutmut and most peers mutate (module-level code, tables
    # and constants make up most of some packages' mutants)
    bodies = [e for e in entries if not e.get("at_import")]
    return {
        "summary": {"total": len(entries), **totals, **summary,
                    "function_bodies": {"total": len(bodies), "detected": sum(
                        1 for e in bodies if e["status"] in ("killed", "timeout"))},
                    "out_of_scope": sum(catalog.values()) - len(entries),
                    "pruned_infection": sum(1 for e in entries if e.get("pruned") == "infection"),
                    "cached": sum(1 for e in entries if e.get("cached")),
                    "score": round(detected / len(entries), 4) if entries else None},
        "files": per_file,
        "catalog": catalog,
        "mutants": entries,
        "triage": [e["id"] for e in survivors],
    }


def site_ranges(sites: Iterable[int]) -> str:
    """Site indices as runs (`0-4,7,9-12`): a test reaches most sites of the functions it runs, numbered in source
    order, so a report lists each test's reach in a few characters where a list of numbers would take a line each."""
    runs: list[list[int]] = []
    for site in sorted(set(sites)):
        if runs and site == runs[-1][1] + 1:
            runs[-1][1] = site
        else:
            runs.append([site, site])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def parse_site_ranges(text: str) -> set[int]:
    """The site indices `site_ranges` wrote."""
    sites: set[int] = set()
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("-")
        sites.update(range(int(first), int(last or first) + 1))
    return sites


def covering_tests(report: dict[str, Any]) -> dict[int, list[str]]:
    """Per site, the ids of the tests that reach it (in the report's test order); empty for a report without tests
    (written before they were kept, or merged from such reports)."""
    covering: dict[int, list[str]] = {}
    for test in report.get("tests", ()):
        for site in parse_site_ranges(test.get("reached", "")):
            covering.setdefault(site, []).append(test["id"])
    return covering


def file_scores(report: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """Per file every mutant of which the report judged: (detected, mutants)."""
    scores = {}
    for file, counts in report["files"].items():
        total = sum(counts.values())
        if total and total == report.get("catalog", {}).get(file, total):
            scores[file] = (counts["killed"] + counts["timeout"], total)
    return scores


def relative(file: str, root: Path) -> str:
    """`file` relative to `root` with forward slashes (as CI systems want), or as given when outside it."""
    path = Path(file)
    return path.relative_to(root).as_posix() if path.is_absolute() and path.is_relative_to(root) else file


def load_report(path: Path) -> dict[str, Any]:
    """A JSON report written by `score --report`; UserError when unreadable."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
        report["mutants"], report["summary"]  # the shape check
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{path}: not a score report ({exc})") from exc
    return report


def merge(reports: list[dict[str, Any]], root: Path) -> dict[str, Any]:
    """One report from the reports of shards (or of any runs of the same sources), paths moved under `root`.

    Each report's files are taken relative to the root it was made in, so shards run in different
    checkouts merge.  Reports that disagree on a file's mutant count come from different sources: UserError.
    """
    entries: dict[str, dict[str, Any]] = {}
    catalog: dict[str, int] = {}
    tests: dict[str, dict[str, Any]] = {}  # every shard ran the same baseline: the first report's entry stands
    summary: dict[str, Any] = {"skipped_import_time": 0, "skipped_unimportable": 0, "unimportable": {},
                               "tests": 0, "seconds": 0.0, "baseline_seconds": 0.0, "scope": {"merged": 0}}
    for report in reports:
        base = Path(report.get("root") or root)

        def moved(file: str, base: Path = base) -> str:
            return str(root / relative(file, base)) if Path(file).is_relative_to(base) else file

        for file, count in report.get("catalog", {}).items():
            file = moved(file)
            if catalog.setdefault(file, count) != count:
                raise UserError(f"the reports disagree on the mutants of {relative(file, root)} "
                                f"({catalog[file]} and {count}): were they made from the same sources?")
        for entry in report["mutants"]:
            entries.setdefault(entry["id"], dict(entry, file=moved(entry["file"])))
        for test in report.get("tests", ()):
            tests.setdefault(test["id"], test)
        s = report["summary"]
        for key in ("skipped_import_time", "skipped_unimportable", "tests"):
            summary[key] = max(summary[key], s.get(key, 0))
        # shards run side by side: the merged run took as long as its slowest shard
        for key in ("seconds", "baseline_seconds"):
            summary[key] = max(summary[key], s.get(key, 0.0))
        summary["unimportable"].update(s.get("unimportable", {}))
        summary["scope"]["merged"] += 1
    # in place order, as one run lists them, whatever order the shards came in
    ordered = sorted(entries.values(), key=lambda e: (e["file"], e["line"], e["column"], e["id"]))
    merged = assemble(ordered, catalog, summary)
    merged["tests"] = list(tests.values())
    merged["root"] = str(root)
    return merged


def _undetected(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in report["mutants"] if m["status"] in UNDETECTED]


def _what(m: dict[str, Any]) -> str:
    why = "no test reaches it" if m["status"] == "no_coverage" else (
        f"{m.get('tests_run', 0)} tests ran and passed" if m.get("tests_run") else "no test's values change with it")
    what = "mutant not covered" if m["status"] == "no_coverage" else "mutant survived"
    return f"{what}: {m['original']} -> {m['mutated']} ({m['operator']}; {why}) [{m['id']}]"


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def junit(report: dict[str, Any], root: Path) -> str:
    """JUnit XML: a test suite per source file, a test case per mutant; survivors and uncovered mutants fail."""
    suites = ET.Element("testsuites", name="mu2py score")
    by_file: dict[str, list[dict[str, Any]]] = {}
    for m in report["mutants"]:
        by_file.setdefault(m["file"], []).append(m)
    for file, mutants in sorted(by_file.items()):
        rel = relative(file, root)
        failed = sum(1 for m in mutants if m["status"] in UNDETECTED)
        suite = ET.SubElement(suites, "testsuite", name=rel, tests=str(len(mutants)), failures=str(failed),
                              errors="0", skipped="0", time=f"{sum(m.get('seconds') or 0 for m in mutants):.3f}")
        for m in sorted(mutants, key=lambda m: (m["line"], m["column"], m["id"])):
            case = ET.SubElement(suite, "testcase", classname=m["module"], name=_xml_text(m["id"]), file=rel,
                                 line=str(m["line"]), time=f"{m.get('seconds') or 0:.3f}")
            if m["status"] in UNDETECTED:
                failure = ET.SubElement(case, "failure", type=m["status"],
                                        message=_xml_text(f"{rel}:{m['line']}: {_what(m)}"))
                failure.text = _xml_text(m.get("diff") or f"{rel}:{m['line']}:{m['column']}: {m['original']} -> "
                                         f"{m['mutated']}")
            else:
                ET.SubElement(case, "system-out").text = _xml_text(
                    f"{m['status']} by {m.get('killed_by') or 'its tests'}"
                    + (f": {m['failure']}" if m.get("failure") else ""))
    suites.set("tests", str(len(report["mutants"])))
    suites.set("failures", str(len(_undetected(report))))
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def sarif(report: dict[str, Any], root: Path) -> str:
    """SARIF 2.1.0: one result per survivor (and uncovered mutant), its region the mutated span."""
    from mu2py import __version__

    rules = [{"id": "mu2py/survived", "name": "SurvivingMutant",
              "shortDescription": {"text": "A mutant no test detects: the tests run this code and still pass"}},
             {"id": "mu2py/no_coverage", "name": "UncoveredMutant",
              "shortDescription": {"text": "A mutant no test reaches"}}]
    results = []
    for m in _undetected(report):
        results.append({
            "ruleId": f"mu2py/{m['status']}", "ruleIndex": 0 if m["status"] == "survived" else 1,
            "level": "warning", "message": {"text": _what(m)},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": relative(m["file"], root), "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": m["line"], "startColumn": m["column"] + 1, "endLine": m["end_line"],
                           "endColumn": m["end_column"] + 1}}}],
            "partialFingerprints": {"mu2pyMutant/v1": m["id"]},
        })
    document = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "mu2py", "version": __version__, "rules": rules}},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": root.as_uri() + "/"}},
        "results": results}]}
    return json.dumps(document, indent=1) + "\n"


def _escape(text: str, prop: bool = False) -> str:
    # GitHub's workflow-command escaping: % and line breaks always, : and , inside properties
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def github(report: dict[str, Any], root: Path) -> list[str]:
    """GitHub Actions workflow commands, one `::warning` per survivor (and uncovered mutant) on its line."""
    rows = []
    for m in _undetected(report):
        props = (f"file={_escape(relative(m['file'], root), True)},line={m['line']},endLine={m['end_line']},"
                 f"title={_escape('mu2py: ' + m['status'].replace('_', ' '), True)}")
        rows.append(f"::warning {props}::{_escape(_what(m))}")
    return rows


def identifiers(spec: SuiteSpec) -> frozenset[str]:
    """The identifiers the test files use (a survivor in a function they name is marked direct)."""
    names: set[str] = set()
    for path in test_files(spec):
        try:
            names.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return frozenset(names)


# a string handed to a translation or logging call: a maintainer looks at it last (the words, not the logic)
_MESSAGE_CALL = re.compile(r"(?:\b(?:_|N_|P_|_?n?p?gettext|_?ngettext|_?pgettext|print)|\blog(?:ger|ging)?\.\w+"
                           r"|\.(?:debug|info|warning|warn|error|exception|critical)|\bwarnings\.warn)\s*\(")


def _mark(state: ScoreRun, entries: list[dict[str, Any]]) -> None:
    """Mark each entry for the survivors' triage (see `reports.triage_key`): a message (a string handed to a
    translation or logging call), and direct (in a function the tests name, so call directly)."""
    lines = {info.name: info.source.splitlines() for info in state.program.target.modules}
    for e in entries:
        text = lines.get(e["module"], [])
        source = text[e["line"] - 1] if 0 < e["line"] <= len(text) else ""
        e["message"] = e["operator"] == "string" and bool(_MESSAGE_CALL.search(source))
        parts = [p for p in e["scope"].split(".") if not p.startswith("<")]
        e["direct"] = any(p in state.test_names for p in parts)


# how each mode of judging a mutant is named where the report says where the time went
_MODES = {"mutant": "function mutants, code swapped in place",
          "reexec": "module body re-run in place (import-time mutants, functions it calls)",
          "isolated": "mutants judged in a fresh interpreter"}


RECORD = "recording the code each test runs (once per worker that re-runs module bodies)"


WHY_CHARS = 80  # a reason for a fresh interpreter, as the time table groups it (cut with "…")


def time_spent(entries: list[dict[str, Any]], baseline: float, recorded: float = 0.0) -> dict[str, Any]:
    """Where this run's worker time went: the baseline, then per way of judging a mutant its mutants and seconds
    (deadlines of lost units included), the workers' record of what each test runs (`recorded` seconds), and why
    mutants needed a fresh interpreter (cached verdicts left out)."""
    spent: dict[str, Any] = {"baseline": {"seconds": round(baseline, 2)}}
    if recorded:
        spent[RECORD] = {"seconds": round(recorded, 2)}
    why: dict[str, int] = {}
    for e in entries:
        # a mutant pruned before any unit ran has mode `pruned`; one pruned in its unit (not run at import) cost it
        if e.get("cached") or e.get("mode") not in _MODES:
            continue
        part = spent.setdefault(_MODES[e["mode"]], {"mutants": 0, "seconds": 0.0})
        part["mutants"] += 1
        part["seconds"] += e.get("seconds") or 0.0
        if e["mode"] == "isolated":
            # counts and durations grouped as one reason ("3 tests cannot..."); digits inside a name stay (test_rfc3339)
            because = str(e.get("isolated_because") or "--import-time fresh")
            reason = one_line(re.sub(r"\b\d+(?:\.\d+)?\b", "N", because), WHY_CHARS)
            why[reason] = why.get(reason, 0) + 1
    for name in _MODES.values():
        if name in spent:
            spent[name]["seconds"] = round(spent[name]["seconds"], 2)
    if why:
        spent["why fresh"] = dict(sorted(why.items(), key=lambda item: -item[1]))
    return spent


def report(state: ScoreRun) -> dict[str, Any]:
    """The JSON report: a summary, per-file totals, one entry per mutant, the survivors in triage order, and the
    tests with the sites each reaches."""
    entries = []
    catalog: dict[str, int] = {}  # per file: the mutants a complete run scores (out of this run's scope included)
    skipped = unimportable = cut = 0
    reached: dict[int, int] = {}
    infected: dict[int, int] = {}  # per mutant index: the tests whose values it changes (`show` says why it survived)
    for test in state.tests:
        for site in test.reached:
            reached[site] = reached.get(site, 0) + 1
        for mutant in test.infected:
            infected[mutant] = infected.get(mutant, 0) + 1
    for index, m in enumerate(state.program.mutants):
        verdict = state.verdicts.get(index, SURVIVED)
        if verdict.status is Status.SKIPPED:  # --import-time skip, or a module no test can import: not scored
            if verdict.mode == "unimportable":
                unimportable += 1
            elif verdict.mode == CUT_BY_BUDGET.mode:  # the deadline came first: not scored, not out of scope
                cut += 1
            elif verdict.mode == OUT_OF_SCOPE.mode:
                catalog[m.file] = catalog.get(m.file, 0) + 1
            else:
                skipped += 1
            continue
        entry = m.to_json()
        entry.update(status=verdict.status.value, killed_by=verdict.killed_by, failure=verdict.failure,
                     tests_run=verdict.tests_run, pruned=verdict.pruned, cached=verdict.cached, mode=verdict.mode,
                     isolated_because=verdict.isolated_because, seconds=verdict.seconds,
                     reached_by=reached.get(m.site, 0), infected_by=infected.get(index, 0))
        entries.append(entry)
        catalog[m.file] = catalog.get(m.file, 0) + 1
    _mark(state, entries)
    result = assemble(entries, catalog, {
        "time": time_spent(entries, state.baseline_seconds, sum(
            v.record_seconds for v in state.verdicts.values() if not v.cached)),
        "skipped_import_time": skipped, "skipped_unimportable": unimportable, "unimportable": state.unimportable,
        "cut_by_budget": cut,
        "tests": len(state.tests), "seconds": round(state.seconds, 2),
        "baseline_seconds": round(state.baseline_seconds, 2), "scope": state.scope})
    # the suite's tests, in pytest's order, and the sites each reaches (a mutant's `site`): who covers a mutant
    result["tests"] = [{"id": t.nodeid, "seconds": round(t.seconds, 4), "reached": site_ranges(t.reached)}
                       for t in state.tests]
    return result
