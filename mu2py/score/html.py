"""The HTML report of `mu2py score --html DIR`: an index, and one page per source file with survivors inline."""

from __future__ import annotations

import hashlib
from html import escape
from pathlib import Path
from typing import Any

from mu2py.score.reports import score_percent, summary_percent
from mu2py.store.atomic import write_atomic

# the stylesheet of every page (the props report's pages share it)
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; }
table { border-collapse: collapse; } td, th { padding: 2px 10px; text-align: right; }
td:first-child, th:first-child { text-align: left; }
pre { font-size: 13px; line-height: 1.35; }
.line { display: block; } .survived { background: #ffd6d6; } .nocov { background: #eeeeee; }
.note { display: block; color: #a00000; margin-left: 4em; } .num { color: #999; user-select: none; }
"""


def page_name(file: str) -> str:
    """The page of a source file: its name and a hash of its path (two files may share a name)."""
    stem = Path(file).name.replace(".py", "")
    return f"{stem}-{hashlib.sha256(file.encode()).hexdigest()[:8]}.html"


def _rel(file: str, root: Path | None) -> str:
    path = Path(file)
    return str(path.relative_to(root)) if root is not None and path.is_relative_to(root) else file


def file_page(file: str, mutants: list[dict[str, Any]], shown: str) -> str:
    """One source file's page: every line, the survivors and uncovered mutants noted under theirs."""
    try:
        lines = Path(file).read_text(encoding="utf-8").splitlines()
    except OSError:
        lines = []
    by_line: dict[int, list[dict[str, Any]]] = {}
    for m in mutants:
        if m["status"] in ("survived", "no_coverage"):
            by_line.setdefault(m["line"], []).append(m)
    out = [f"<html><head><meta charset='utf-8'><title>{escape(shown)}</title><style>{STYLE}</style></head><body>",
           f"<h1>{escape(shown)}</h1><p><a href='index.html'>all files</a></p><pre>"]
    for number, text in enumerate(lines, start=1):
        found = by_line.get(number, [])
        css = "survived" if any(m["status"] == "survived" for m in found) else ("nocov" if found else "")
        out.append(f"<span class='line {css}' id='L{number}'><span class='num'>{number:5d}</span>  "
                   f"{escape(text)}</span>")
        for m in found:
            what = "survived" if m["status"] == "survived" else "no test reaches it"
            out.append(f"<span class='note'>{escape(m['original'])} → {escape(m['mutated'])}  "
                       f"({escape(m['operator'])}, {what}; id {escape(m['id'])})</span>")
    out.append("</pre></body></html>")
    return "\n".join(out)


def _triage_rows(report: dict[str, Any], root: Path | None, pages: dict[str, str]) -> str:
    by_id = {m["id"]: m for m in report["mutants"]}
    rows = []
    for rank, mutant_id in enumerate(report.get("triage", []), start=1):
        m = by_id[mutant_id]
        why = [f"reached by {m['reached_by']} tests" if m.get("reached_by") else "module level",
               *(["called by the tests"] if m.get("direct") else []), *(["a message"] if m.get("message") else [])]
        place = f"{_rel(m['file'], root)}:{m['line']}"
        rows.append(f"<tr><td>{rank}</td><td><a href='{pages[m['file']]}#L{m['line']}'>{escape(place)}</a></td>"
                    f"<td><code>{escape(m['original'])}</code> → <code>{escape(m['mutated'])}</code></td>"
                    f"<td>{escape('; '.join(why))}</td></tr>")
    if not rows:
        return "<p>No survivors.</p>"
    return ("<h2>Survivors, most worth a look first</h2><p>Ranked by how many tests reach the mutant, whether the "
            "tests call its function by name, and translated or logged messages last.</p>"
            "<table><tr><th>#</th><th>where</th><th>change</th><th>why here</th></tr>" + "".join(rows) + "</table>")


def write_html(report: dict[str, Any], directory: Path, root: Path | None = None) -> Path:
    """Write index.html and one page per file into `directory`; returns the index path.

    Paths are shown relative to `root` when under it; survivors are listed in the report's triage order.
    """
    files: dict[str, list[dict[str, Any]]] = {}
    for m in report["mutants"]:
        files.setdefault(m["file"], []).append(m)
    s = report["summary"]
    rows = []
    pages = {file: page_name(file) for file in files}
    for file, mutants in sorted(files.items()):
        counts = {k: sum(1 for m in mutants if m["status"] == k)
                  for k in ("killed", "timeout", "survived", "no_coverage")}
        detected = counts["killed"] + counts["timeout"]
        page = pages[file]
        write_atomic(directory / page, file_page(file, mutants, _rel(file, root)))
        rows.append(f"<tr><td><a href='{page}'>{escape(_rel(file, root))}</a></td><td>{len(mutants)}</td>"
                    + "".join(f"<td>{counts[k]}</td>" for k in counts)
                    + f"<td>{score_percent(detected, len(mutants))}</td></tr>")
    index = (f"<html><head><meta charset='utf-8'><title>mutation score</title><style>{STYLE}</style></head><body>"
             f"<h1>Mutation score: {summary_percent(s)}</h1>"
             f"<p>{s['total']} mutants, {s['tests']} tests, {s['seconds']} s; "
             f"{s['pruned_infection']} survivors proved by infection analysis without running.</p>"
             + (f"<p><b>{s['skipped_import_time']} import-time mutants were skipped</b> (<code>--import-time "
                "skip</code>): constants, default values and class attributes are not part of this score.</p>"
                if s.get("skipped_import_time") else "")
             + "<table><tr><th>file</th><th>mutants</th><th>killed</th><th>timeout</th><th>survived</th>"
             "<th>no coverage</th><th>score</th></tr>" + "".join(rows) + "</table>"
             + _triage_rows(report, root, pages) + "</body></html>")
    path = directory / "index.html"
    write_atomic(path, index)
    return path
