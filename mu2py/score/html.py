"""The HTML report of `mu2py score --html DIR`: the mutation-testing-elements web component (vendored, see
`vendor/README.md`) showing the report's mutation-testing-report-schema document, under mu2py's summary and its
survivors in triage order; and of `mutate --html DIR` and `fuzz --html DIR`, the inputs standing for the tests.

DIR gets `index.html`, with the document inlined, and the component's script (and its licence) beside it: the page
works offline, from a file:// URL, and names no folder of the machine it was made on.  The component shows each
file's source highlighted, every mutant on its line with its status, the test that killed it and the tests that
cover it, filters by status, and the tests' own view.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from mu2py.mutants.model import one_line
from mu2py.score.mte import ELEMENTS_VERSION, Document, mutate_document, score_document
from mu2py.score.reports import relative, score_percent, summary_percent
from mu2py.store.atomic import write_atomic

VENDOR = Path(__file__).resolve().parent / "vendor"
SCRIPT = "mutation-test-elements.js"
LICENSE = "mutation-test-elements.LICENSE"  # the Apache-2.0 text, beside the script the page copies
STYLE = """
body { margin: 0; font-family: system-ui, sans-serif; }
#mu2py { padding: 1em 2em 0; color: #1f2328; } body.dark #mu2py { color: #e6edf3; }
#mu2py h1 { margin: 0 0 .3em; font-size: 1.6em; } #mu2py p { margin: .3em 0; }
#mu2py table { border-collapse: collapse; margin: .5em 0; }
#mu2py td, #mu2py th { padding: 2px 10px; text-align: left; }
#mu2py a { color: #0969da; } body.dark #mu2py a { color: #4493f8; }
#mu2py code { font-size: .95em; } #mu2py .note { color: #a00000; } body.dark #mu2py .note { color: #ff8182; }
"""
# sets the component's report from the inlined document, and follows its theme (light, dark) with the page's own
SETUP = """
const app = document.querySelector("mutation-test-report-app");
app.report = JSON.parse(document.getElementById("mu2py-report").textContent);
function followTheme() {
  document.body.style.backgroundColor = app.themeBackgroundColor;
  document.body.classList.toggle("dark", app.theme === "dark");
}
app.addEventListener("theme-changed", followTheme);
followTheme();
"""


def _json_in_html(document: dict[str, Any]) -> str:
    # inside <script>, `</script>` or `<!--` in a string would end or bend the element: every `<` goes escaped
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def component_paths(files: list[str]) -> dict[str, str]:
    """Per file of a document, its path in the component's links (`#mutant/PATH`): the component leaves out the
    folders every file is in (`sample_pkg/core.py` alone is `core.py`)."""
    parts = {file: [p for p in file.replace("\\", "/").split("/") if p] for file in files}
    common = min((p[:-1] for p in parts.values()), key=len, default=[])
    for p in parts.values():
        while p[:len(common)] != common:
            common = common[:-1]
    return {file: "/".join(p[len(common):]) for file, p in parts.items()}


def _triage(report: dict[str, Any], root: Path, shown: dict[str, str]) -> str:
    """The survivors, most worth a look first, each linked to its file in the component (files it shows)."""
    by_id = {m["id"]: m for m in report["mutants"]}
    rows = []
    for rank, mutant_id in enumerate(report.get("triage", []), start=1):
        m = by_id[mutant_id]
        why = [f"reached by {m['reached_by']} tests" if m.get("reached_by") else "module level",
               *(["called by the tests"] if m.get("direct") else []), *(["a message"] if m.get("message") else [])]
        rel = relative(m["file"], root)
        place = escape(f"{rel}:{m['line']}")
        if rel in shown:
            link = "/".join(quote(part, safe="") for part in shown[rel].split("/"))
            place = f"<a href='#mutant/{escape(link)}'>{place}</a>"
        rows.append(f"<tr><td>{rank}</td><td>{place}</td><td><code>{escape(one_line(m['original']))}</code> → "
                    f"<code>{escape(one_line(m['mutated']))}</code></td><td>{escape('; '.join(why))}</td></tr>")
    if not rows:
        return "<p>No survivors.</p>"
    return (f"<details><summary>{len(rows)} survivors, most worth a look first</summary><p>Survivors, most worth a "
            "look first: ranked by how many tests reach the mutant, whether the tests call its function by name, "
            "and translated or logged messages last.</p><table><tr><th>#</th><th>where</th><th>change</th>"
            "<th>why here</th></tr>" + "".join(rows) + "</table></details>")


def _page(converted: Document, title: str, heading: str, about: str, killers: str, notes: list[str],
          extra: str = "") -> str:
    """index.html: mu2py's heading, a line about the run (`killers`: what the component shows as the tests), notes
    (and `extra`), then the component showing the document (its script beside the page)."""
    notes = [*notes, *(f"<p class='note'>{escape(rel)} is not shown: {escape(why)}.</p>"
                       for rel, why in converted.left_out.items())]
    return (
        "<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>{escape(title)}</title>"
        f"<style>{STYLE}</style>"
        f"<script src='{SCRIPT}'></script></head><body>\n"
        f"<section id='mu2py'><h1>{escape(heading)}</h1>"
        f"<p>{about} Below, every mutant on its line (click one: its status, why, and the {killers}), drawn by "
        "<a href='https://github.com/stryker-mutator/mutation-testing-elements'>mutation-testing-elements</a> "
        f"{ELEMENTS_VERSION}.</p>" + "".join(notes) + extra + "</section>\n"
        "<mutation-test-report-app title-postfix='mu2py'></mutation-test-report-app>\n"
        f"<script id='mu2py-report' type='application/json'>{_json_in_html(converted.report)}</script>\n"
        f"<script>{SETUP}</script>\n</body></html>\n")


def page(report: dict[str, Any], root: Path) -> str:
    """index.html of a score report: mu2py's summary and triage, then the component showing the report."""
    converted = score_document(report, root, project_root=False)
    s = report["summary"]
    notes = []
    if s.get("skipped_import_time"):
        notes.append(f"<p class='note'><b>{s['skipped_import_time']} import-time mutants were skipped</b> "
                     "(<code>--import-time skip</code>): constants, default values and class attributes are not part "
                     "of this score.</p>")
    about = (f"{s['total']} mutants, {s['tests']} tests, {s['seconds']} s; {s['pruned_infection']} survivors proved by "
             "infection analysis without running.")
    return _page(converted, "mutation score", f"Mutation score: {summary_percent(s)}", about,
                 "tests that killed or cover it", notes,
                 _triage(report, root, component_paths(list(converted.report["files"]))))


def mutants_page(report: dict[str, Any], root: Path, driver: str, command: str) -> str:
    """index.html of a `mutate` report or a fuzz campaign's (`command`): the score the inputs earn, then the
    component showing the report, the inputs standing for the tests (see `mte.mutate_document`)."""
    converted = mutate_document(report, root, driver, project_root=False)
    s = report["summary"]
    inputs = len(report.get("inputs", ()))
    about = (f"<code>mu2py {escape(command)} {escape(driver)}</code>: {s['total']} mutants"
             + (f", {inputs} inputs" if inputs else "")
             + f"; {s['killed']} killed, {s['alive']} alive ({s.get('not_reached', 0)} reached by no input).")
    return _page(converted, f"mutation score: {driver}", f"Mutation score: {score_percent(s['killed'], s['total'])}",
                 about, "input that killed it", [])


def _write_page(directory: Path, text: str) -> Path:
    """Write the component's script (and licence), then index.html, into `directory`; returns the index path."""
    write_atomic(directory / SCRIPT, (VENDOR / SCRIPT).read_bytes())
    write_atomic(directory / LICENSE, (VENDOR / "LICENSE").read_bytes())
    path = directory / "index.html"
    write_atomic(path, text)
    return path


def write_html(report: dict[str, Any], directory: Path, root: Path | None = None) -> Path:
    """Write index.html and the component's script (and licence) into `directory`; returns the index path.

    Paths are shown relative to `root` (default: the report's own root) when under it.
    """
    root = root if root is not None else Path(report.get("root") or ".").resolve()
    return _write_page(directory, page(report, root))


def write_mutants_html(report: dict[str, Any], directory: Path, root: Path, driver: str, command: str) -> Path:
    """Write the page of a `mutate` or `fuzz` report (`mutants_page`) into `directory`, as `write_html` does."""
    return _write_page(directory, mutants_page(report, root, driver, command))
