"""The HTML report of `mu2py props --html DIR`: the properties table, and a page per source file with its survivors."""

from __future__ import annotations

import hashlib
from html import escape
from pathlib import Path
from typing import Any

from mu2py.store.atomic import write_atomic

# the stylesheet of every page
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


def _shown(file: str) -> str:
    """A source path as a page shows it: relative to the current directory (the project) when under it."""
    path = Path(file)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return file


def write_html(report: dict[str, Any], directory: Path) -> Path:
    """Write index.html (per property: counts, survivors, new `@example` lines) and one page per source file."""
    mutants = report["mutants"]
    by_file: dict[str, list[dict[str, Any]]] = {}
    for mid, m in mutants.items():
        by_file.setdefault(m["file"], []).append(dict(m, id=mid, status="survived"))
    for file, survivors in by_file.items():
        write_atomic(directory / page_name(file), file_page(file, survivors, _shown(file)))
    rows, details = [], []
    for e in report["properties"]:
        rows.append(f"<tr><td>{escape(e['test'])}</td><td>{e['reached']}</td><td>{e['killed_default']}</td>"
                    f"<td>{e['killed']}</td><td>{len(e['survivors'])}</td></tr>")
        items = [f"<li><a href='{page_name(mutants[mid]['file'])}'>{escape(Path(mutants[mid]['file']).name)}:"
                 f"{mutants[mid]['line']}</a> {escape(mutants[mid]['original'])} → {escape(mutants[mid]['mutated'])}"
                 "</li>" for mid in e["survivors"]]
        examples = "".join(f"<li><code>{escape(line)}</code></li>" for line in e.get("examples", ()))
        details.append(f"<h2>{escape(e['test'])}</h2>"
                       + (f"<p>examples that kill mutants the default run missed:</p><ul>{examples}</ul>"
                          if examples else "")
                       + (f"<p>weak: reaches {len(items)} mutants it never kills</p><ul>{''.join(items)}</ul>"
                          if items else "<p>kills every mutant it reaches</p>"))
    bugs = "".join(f"<li>{escape(b['test'])}: {escape(str(b.get('error') or b.get('exception')))} "
                   f"<pre>{escape(str(b.get('example')))}</pre></li>" for b in report["bugs"])
    s = report["summary"]
    index = (f"<html><head><meta charset='utf-8'><title>properties under mutation</title><style>{STYLE}</style>"
             f"</head><body><h1>Properties under mutation</h1><p>{s['killed']} of {s['reached']} reached mutants "
             f"killed after fuzzing, {s['killed_default']} by the default runs; {s['seconds']} s.</p>"
             "<table><tr><th>test</th><th>reached</th><th>killed (default)</th><th>killed (fuzzed)</th>"
             "<th>survivors</th></tr>" + "".join(rows) + "</table>"
             + (f"<h2>bugs (failing on the original)</h2><ul>{bugs}</ul>" if bugs else "")
             + "".join(details) + "</body></html>")
    path = directory / "index.html"
    write_atomic(path, index)
    return path
