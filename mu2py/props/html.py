"""The HTML report of `mu2py props --html DIR`: the properties table, and score's per-file pages of survivors."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from mu2py.score.html import STYLE, file_page, page_name
from mu2py.store.atomic import write_atomic


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
