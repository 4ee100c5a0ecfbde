"""`score --mte FILE` and `score --html DIR`: the report as a mutation-testing-report-schema document, valid under
the schema of the pinned npm package (tests/data/mte), and the page of mutation-testing-elements that shows it."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import jsonschema
import pytest

from mu2py.cli.main import main
from mu2py.score import html, mte

DATA = Path(__file__).resolve().parents[2] / "data"
SCHEMA = json.loads((DATA / "mte" / "mutation-testing-report-schema.json").read_text())
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"  # .ci/run installs it


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, dict]:
    """tests/data/score_sample scored once, with --mte and --html: (the project root, the report, the document)."""
    root = tmp_path_factory.mktemp("mte") / "project"
    shutil.copytree(DATA / "score_sample", root)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["score", "--root", str(root), "--paths", "sample_pkg", "--tests", "tests", "--no-cache",
                     "--json", "--mte", str(root / "out" / "mte.json"), "--html", str(root / "html")]) == 0
    return root, json.loads(out.getvalue()), json.loads((root / "out" / "mte.json").read_text())


def _validate(document: dict) -> None:
    jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(document)


def _squeezed(text: str) -> str:
    return "".join(text.split())


def test_the_document_is_valid_and_holds_every_mutant_with_its_verdict(scored) -> None:
    root, report, document = scored
    _validate(document)
    assert document["schemaVersion"] == "1.0" and document["projectRoot"] == str(root)
    assert document["framework"]["name"] == "mu2py"
    mutants = {m["id"]: m for f in document["files"].values() for m in f["mutants"]}
    assert set(mutants) == {m["id"] for m in report["mutants"]}
    for rel, file in document["files"].items():
        assert file["language"] == "python" and file["source"] == (root / rel).read_text()
    named = {"killed": "Killed", "survived": "Survived", "timeout": "Timeout", "no_coverage": "NoCoverage"}
    tests = {t["id"]: (path, t["name"]) for path, f in document["testFiles"].items() for t in f["tests"]}
    assert len(tests) == report["summary"]["tests"] == 12
    for m in report["mutants"]:
        got = mutants[m["id"]]
        assert got["status"] == named[m["status"]] and got["mutatorName"] == m["operator"], m
        assert got["replacement"] == m["mutated"] and got["static"] == m["at_import"]
        assert got["testsCompleted"] == m["tests_run"] and got["statusReason"]
        assert len(got["coveredBy"]) >= m["reached_by"]
        assert all(i in tests for i in got.get("killedBy", []) + got["coveredBy"])  # every id resolves
        if m["killed_by"] and not m["killed_by"].startswith("<"):
            [killer] = got["killedBy"]
            assert "::".join(tests[killer]) == m["killed_by"] and killer in got["coveredBy"]
            assert got["statusReason"].endswith(f": {m['failure']}")  # how the test failed, after which one
    # a worker the mutant crashed (os._exit(70)): killed by the suite, no test's id to give
    [crash] = [mutants[m["id"]] for m in report["mutants"] if m["line"] == 53 and m["operator"] == "negate_cond"]
    assert crash["status"] == "Killed" and "killedBy" not in crash and "exit code 70" in crash["statusReason"]
    pruned = next(mutants[m["id"]] for m in report["mutants"] if m["pruned"] == "infection")
    assert pruned["status"] == "Survived" and "not infected" in pruned["statusReason"]
    assert tests["0"] == ("tests/test_core.py", "test_sort")
    sort = next(t for t in document["testFiles"]["tests/test_core.py"]["tests"] if t["name"] == "test_sort")
    assert sort["location"]["start"] == {"line": 4, "column": 1}  # its `def`


def test_locations_are_one_based_and_hold_the_original(scored) -> None:
    """The schema counts lines and columns from 1 (mu2py's columns from 0), its end exclusive: the text at each
    location is the mutant's original."""
    _, report, document = scored
    originals = {m["id"]: m for m in report["mutants"]}
    for file in document["files"].values():
        lines = file["source"].split("\n")
        for m in file["mutants"]:
            start, end, original = m["location"]["start"], m["location"]["end"], originals[m["id"]]
            if not original["original"].startswith("("):  # else its place widens to the parentheses
                assert (start["line"], start["column"]) == (original["line"], original["column"] + 1)
            text = "\n".join(lines[start["line"] - 1:end["line"]])
            cut = len(lines[end["line"] - 1]) - (end["column"] - 1)
            text = text[start["column"] - 1:len(text) - cut]
            assert _squeezed(text) == _squeezed(original["original"]), m


def _entry(file: Path, line: int, column: int, end_column: int, original: str, **verdict: object) -> dict:
    entry = {"id": f"m:{line}:{column}", "module": "m", "file": str(file), "line": line, "column": column,
             "end_line": line, "end_column": end_column, "operator": "op", "original": original, "mutated": "x",
             "scope": "f", "site": 0, "at_import": False, "status": "killed", "killed_by": None, "tests_run": 1}
    return {**entry, **verdict}


def test_columns_count_utf16_units_and_a_node_s_parentheses(tmp_path: Path) -> None:
    """The component slices the source in UTF-16 code units: an emoji before a mutant counts 2.  libcst places an
    expression without its parentheses and a statement without its `;`, which the report's original holds."""
    source = 'def f(a):\n    s = "🙂"; return (a +\n        1)\n'
    (tmp_path / "m.py").write_text(source)
    entries = [_entry(tmp_path / "m.py", 2, 13, 10, "return (a + 1)"),  # `return` to the end of line 3
               _entry(tmp_path / "m.py", 2, 21, 9, "(a + 1)"),  # the node `a + 1`, its parentheses around it
               _entry(tmp_path / "m.py", 2, 4, 11, 's = "🙂";')]  # the statement `s = "🙂"`, its `;` after it
    entries[0]["end_line"] = entries[1]["end_line"] = 3
    converted = mte.score_document({"mutants": entries}, tmp_path)
    _validate(converted.report)
    assert not converted.left_out
    places = {m["id"]: m["location"] for m in converted.report["files"]["m.py"]["mutants"]}
    assert places["m:2:13"] == {"start": {"line": 2, "column": 15}, "end": {"line": 3, "column": 11}}
    assert places["m:2:21"] == {"start": {"line": 2, "column": 22}, "end": {"line": 3, "column": 11}}
    assert places["m:2:4"] == {"start": {"line": 2, "column": 5}, "end": {"line": 2, "column": 14}}
    assert "coveredBy" not in converted.report["files"]["m.py"]["mutants"][0]  # a report that lists no tests


def test_a_file_changed_since_the_run_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 1\n")
    (tmp_path / "n.py").write_text("y = 2\n")
    entries = [_entry(tmp_path / "m.py", 1, 4, 5, "2"), _entry(tmp_path / "n.py", 1, 4, 5, "2"),
               _entry(tmp_path / "gone.py", 1, 0, 1, "z")]
    converted = mte.score_document({"mutants": entries}, tmp_path)
    assert list(converted.report["files"]) == ["n.py"]
    assert set(converted.left_out) == {"m.py", "gone.py"} and "changed" in converted.left_out["m.py"]


def test_statuses_map_onto_the_schema_s() -> None:
    def status(**verdict: object) -> tuple[str, str, str | None]:
        return mte.status(_entry(Path("m.py"), 1, 0, 1, "x", **verdict))

    assert status(status="killed", killed_by="<compile error: invalid syntax>") == (
        "CompileError", "compile error: invalid syntax", None)
    assert status(status="killed", killed_by="<held over 512 MB of memory>")[::2] == ("Killed", None)
    assert status(status="timeout", killed_by="<suite in a fresh interpreter>") == (
        "Timeout", "suite in a fresh interpreter", None)
    assert status(status="timeout", killed_by="t.py::test_a")[::2] == ("Timeout", "t.py::test_a")
    assert status(status="no_coverage", pruned="never defined here")[:2] == (
        "NoCoverage", "its function is never defined in this interpreter")
    assert status(status="survived", tests_run=0, at_import=True)[0] == "Survived"


def test_score_merge_writes_it_too(scored, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, report, document = scored
    (tmp_path / "r.json").write_text(json.dumps(report))
    assert main(["score-merge", str(tmp_path / "r.json"), "--root", str(root), "--mte", str(tmp_path / "m.json"),
                 "--show", "0"]) == 0
    capsys.readouterr()
    assert json.loads((tmp_path / "m.json").read_text()) == document


def test_props_verdicts_by_the_weakest_reading(tmp_path: Path) -> None:
    """A mutant some property kills is Killed (by each that kills it), one reached and never killed Survived, one
    no property reaches NoCoverage; the properties are the tests, by their node ids."""
    (tmp_path / "m.py").write_text("x = 1 + 2 + 3\n")
    entries = [_entry(tmp_path / "m.py", 1, 4, 5, "1"), _entry(tmp_path / "m.py", 1, 8, 9, "2"),
               _entry(tmp_path / "m.py", 1, 12, 13, "3")]
    killed, reached, alone = (e["id"] for e in entries)
    report = {"properties": [
        {"test": "t.py::test_a", "default_kills": [killed], "new_kills": [], "survivors": [reached]},
        {"test": "t.py::C::test_b", "default_kills": [], "new_kills": [{"mutant": killed}], "survivors": []},
        {"test": "t.py::test_lost", "reached": 0, "survivors": [], "lost": "worker died"}]}
    converted = mte.props_document(report, entries, tmp_path)
    _validate(converted.report)
    tests = {t["id"]: t["name"] for t in converted.report["testFiles"]["t.py"]["tests"]}
    got = {m["id"]: m for m in converted.report["files"]["m.py"]["mutants"]}
    assert [got[i]["status"] for i in (killed, reached, alone)] == ["Killed", "Survived", "NoCoverage"]
    assert [tests[i] for i in got[killed]["killedBy"]] == ["test_a", "C::test_b"] == [
        tests[i] for i in got[killed]["coveredBy"]]
    assert [tests[i] for i in got[reached]["coveredBy"]] == ["test_a"] and "killedBy" not in got[reached]
    assert got[alone]["coveredBy"] == [] and set(tests.values()) == {"test_a", "C::test_b", "test_lost"}


SORT = "targets.insertion_sort.driver:sort"


def test_mutate_and_fuzz_write_it_too_their_inputs_as_the_tests(tmp_path, monkeypatch, capsys) -> None:
    """`mutate --mte` and `fuzz --mte`: the same statuses as their reports (a kill by a timeout is Timeout), each
    kill by the input that made it, the inputs under the driver's name in `testFiles`; `--html DIR` the page of
    that document, as `score --html` writes it."""
    monkeypatch.chdir(DATA.parents[1])  # the repository: the target's path relative to it
    assert main(["mutate", SORT, "--value", "[3, 2, 1]", "--value", "[1]", "--json", "--mte",
                 str(tmp_path / "mutate.json"), "--html", str(tmp_path / "mutate-html")]) == 0
    report = json.loads(capsys.readouterr().out)  # stdout holds the JSON report alone
    assert main(["fuzz", SORT, "--trials", "40", "--quiet", "--out", str(tmp_path / "out"), "--mte",
                 str(tmp_path / "fuzz.json"), "--html", str(tmp_path / "fuzz-html")]) == 0
    assert f"HTML report: {tmp_path / 'fuzz-html' / 'index.html'}" in capsys.readouterr().out.splitlines()
    for name, command in (("mutate", "mutate"), ("fuzz", "fuzz")):
        folder = tmp_path / f"{name}-html"
        index = (folder / "index.html").read_text()
        assert (folder / html.SCRIPT).read_bytes() == (html.VENDOR / html.SCRIPT).read_bytes()
        inlined = json.loads(index.split("<script id='mu2py-report' type='application/json'>")[1].split("</script>")[0])
        document = json.loads((tmp_path / f"{name}.json").read_text())
        # the page's document is the --mte one, but for the absolute root (a page names no folder of this machine)
        assert inlined == {k: v for k, v in document.items() if k != "projectRoot"}
        assert str(DATA.parents[1]) not in index
        assert f"<code>mu2py {command} {SORT}</code>: 30 mutants" in index
    page = (tmp_path / "mutate-html" / "index.html").read_text()
    assert f"Mutation score: {report['summary']['killed'] / report['summary']['total']:.1%}" in page
    for name, source in (("mutate.json", report), ("fuzz.json", json.loads((tmp_path / "out" / "mutants.json")
                                                                           .read_text()))):
        document = json.loads((tmp_path / name).read_text())
        _validate(document)
        [(rel, file)] = document["files"].items()
        assert rel == "targets/insertion_sort/sort.py" and file["source"] == Path(rel).read_text()
        inputs = {t["id"]: t["name"] for t in document["testFiles"][SORT]["tests"]}
        by_id = {m["id"]: m for m in file["mutants"]}
        assert set(by_id) == {m["id"] for m in source["mutants"]}
        for m in source["mutants"]:
            got = by_id[m["id"]]
            want = {"output": "Killed", "exception": "Killed", "crash": "Killed", "timeout": "Timeout"}.get(
                m["reason"], "Survived" if m["reached"] else "NoCoverage")
            assert got["status"] == want and [inputs[i] for i in got.get("killedBy", [])] == [m["input"]] * (
                m["status"] == "killed"), (m, got)
    assert json.loads((tmp_path / "mutate.json").read_text())["testFiles"][SORT]["tests"] == [
        {"id": "0", "name": "--value [3, 2, 1]"}, {"id": "1", "name": "--value [1]"}]


def test_the_page_inlines_the_document_and_loads_the_vendored_component(scored) -> None:
    root, _, document = scored
    folder = root / "html"
    index = (folder / "index.html").read_text()
    assert (folder / html.SCRIPT).read_bytes() == (html.VENDOR / html.SCRIPT).read_bytes()
    assert "Apache License" in (folder / html.LICENSE).read_text()
    assert f"<script src='{html.SCRIPT}'></script>" in index and "http://" not in index.split("<body>")[0]
    inlined = index.split("<script id='mu2py-report' type='application/json'>")[1].split("</script>")[0]
    assert json.loads(inlined) == {k: v for k, v in document.items() if k != "projectRoot"}
    assert str(root) not in index  # names no folder of this machine
    assert "Mutation score: 51.2%" in index and "survivors, most worth a look first" in index
    assert "href='#mutant/core.py'" in index  # the component's path: the folder all files share left out
    assert html.component_paths(["a/b/c.py", "a/b/d/e.py"]) == {"a/b/c.py": "c.py", "a/b/d/e.py": "d/e.py"}
    assert html.component_paths(["a/c.py", "b/c.py"]) == {"a/c.py": "a/c.py", "b/c.py": "b/c.py"}


# counts, in each file's view of the component, the mutants it draws (spans marked with their ids, inside shadow
# roots), and writes them into the light DOM, where --dump-dom shows them
PROBE = """<script>
function deep(root, selector, found) {
  root.querySelectorAll(selector).forEach(e => found.push(e));
  root.querySelectorAll("*").forEach(e => { if (e.shadowRoot) deep(e.shadowRoot, selector, found); });
  return found;
}
const pause = ms => new Promise(done => setTimeout(done, ms));
(async () => {
  const drawn = {};
  for (const path of PATHS) {
    location.hash = "#mutant/" + path;
    await pause(400);
    drawn[path] = new Set(deep(document, "[data-mutant-id]", []).map(e => e.dataset.mutantId)).size;
  }
  const out = document.createElement("pre");
  out.id = "mte-probe";
  out.textContent = JSON.stringify(drawn);
  document.body.append(out);
})();
</script>"""


@pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)")
def test_the_page_draws_every_mutant_in_headless_chromium(scored) -> None:
    """From a file:// URL, offline: each file's view draws each of its mutants."""
    root, _, document = scored
    shown = html.component_paths(list(document["files"]))
    page = (root / "html" / "index.html").read_text()
    probe = root / "html" / "probe.html"  # the page, and a script that reads what the component drew
    probe.write_text(page.replace("</body>", PROBE.replace("PATHS", json.dumps(list(shown.values()))) + "</body>"))
    with tempfile.TemporaryDirectory() as profile:
        run = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                              "--no-first-run", "--disable-background-networking", "--disable-component-update",
                              "--disable-sync", f"--user-data-dir={profile}", "--virtual-time-budget=20000",
                              "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120)
    assert "<pre id=\"mte-probe\">" in run.stdout, run.stderr[-2000:]
    drawn = json.loads(run.stdout.split("<pre id=\"mte-probe\">")[1].split("</pre>")[0])
    assert drawn == {shown[rel]: len(file["mutants"]) for rel, file in document["files"].items()}
