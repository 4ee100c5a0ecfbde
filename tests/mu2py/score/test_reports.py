"""Reports CI reads (JUnit XML, SARIF 2.1.0, GitHub annotations) and shards merged into one report."""

from __future__ import annotations

import contextlib
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mu2py.cli.main import main
from mu2py.score import reports
from tests.mu2py.score.conftest import make_calc_project

UNDETECTED = {("calc/ops.py", 6), ("calc/ops.py", 8), ("calc/ops.py", 9)}  # two boundaries, an untested branch


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, str]:
    """The project, its whole score run's report (--report, --junit, --sarif written), and what it printed."""
    root = make_calc_project(tmp_path_factory.mktemp("reports") / "project")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["score", "--root", str(root), "--report", str(root / "full.json"), "--junit",
                     str(root / "out" / "mutants.xml"), "--sarif", str(root / "out" / "survivors.sarif"),
                     "--github"]) == 0
    return root, json.loads((root / "full.json").read_text()), out.getvalue()


def test_junit_sarif_and_github_annotations(full) -> None:
    root, report, printed = full
    assert report["summary"]["total"] == 13 and report["root"] == str(root)
    suites = ET.parse(root / "out" / "mutants.xml").getroot()
    cases = suites.findall("./testsuite/testcase")
    assert suites.tag == "testsuites" and len(cases) == 13 and suites.get("failures") == "3"
    assert {c.get("name") for c in cases} == {m["id"] for m in report["mutants"]}
    failed = {(c.get("file"), int(c.get("line"))): c.find("failure") for c in cases if c.find("failure") is not None}
    assert set(failed) == UNDETECTED
    assert failed[("calc/ops.py", 6)].get("message").startswith("calc/ops.py:6: mutant survived: < low -> <= low")
    assert failed[("calc/ops.py", 9)].get("type") == "no_coverage"
    assert "-    if x < low:" in failed[("calc/ops.py", 6)].text  # the survivor's diff
    assert {s.get("name"): s.get("failures") for s in suites} == {"calc/ops.py": "3", "calc/text.py": "0"}
    # a kill's output names the test, and how it failed
    killed = {m["id"]: m for m in report["mutants"] if m["status"] == "killed"}
    for case in cases:
        if case.get("name") in killed:
            m = killed[case.get("name")]
            assert case.find("system-out").text == f"killed by {m['killed_by']}: {m['failure']}" and m["failure"]

    sarif = json.loads((root / "out" / "survivors.sarif").read_text())
    assert sarif["version"] == "2.1.0" and "$schema" in sarif
    [run] = sarif["runs"]
    assert run["tool"]["driver"]["name"] == "mu2py"
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    places = set()
    for result in run["results"]:
        assert result["message"]["text"] and rules[result["ruleIndex"]] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        places.add((location["artifactLocation"]["uri"], location["region"]["startLine"]))
    assert places == UNDETECTED

    annotations = [row for row in printed.splitlines() if row.startswith("::warning ")]
    assert len(annotations) == 3
    assert annotations[0].startswith("::warning file=calc/ops.py,line=6,endLine=6,title=mu2py%3A survived::")


def test_shards_merge_into_the_whole_run(full, tmp_path, capsys) -> None:
    root, whole, _ = full
    parts = []
    for i in (1, 2):
        part = tmp_path / f"shard{i}.json"
        assert main(["score", "--root", str(root), "--shard", f"{i}/2", "--report", str(part), "--no-cache"]) == 0
        parts.append(json.loads(part.read_text()))
    ids = [{m["id"] for m in p["mutants"]} for p in parts]
    assert not ids[0] & ids[1] and ids[0] | ids[1] == {m["id"] for m in whole["mutants"]}
    assert all(p["summary"]["out_of_scope"] == 13 - len(p["mutants"]) for p in parts)
    assert reports.file_scores(parts[0]) == {}  # a shard judges no file whole
    capsys.readouterr()
    assert main(["score-merge", str(tmp_path / "shard1.json"), str(tmp_path / "shard2.json"), "--root", str(root),
                 "--json", "--junit", str(tmp_path / "merged.xml")]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert {m["id"]: m["status"] for m in merged["mutants"]} == {m["id"]: m["status"] for m in whole["mutants"]}
    places = [(m["line"], m["column"]) for m in merged["mutants"] if m["file"].endswith("ops.py")]
    assert places == sorted(places)  # in place order, whichever shard judged them
    for key in ("total", "killed", "survived", "no_coverage", "score"):
        assert merged["summary"][key] == whole["summary"][key]
    assert merged["summary"]["out_of_scope"] == 0 and merged["triage"] == whole["triage"]
    assert [t["id"] for t in merged["tests"]] == [t["id"] for t in whole["tests"]]  # every shard ran them all
    assert reports.file_scores(merged) == reports.file_scores(whole)
    assert len(ET.parse(tmp_path / "merged.xml").getroot().findall("./testsuite/testcase")) == 13


def test_merge_moves_paths_and_refuses_other_sources(full, tmp_path, capsys) -> None:
    root, whole, _ = full
    other = tmp_path / "checkout"
    merged = reports.merge([whole], other)
    assert {Path(m["file"]).parent for m in merged["mutants"]} == {other / "calc"}
    changed = json.loads(json.dumps(whole))
    changed["catalog"][str(root / "calc" / "ops.py")] = 10
    (tmp_path / "a.json").write_text(json.dumps(whole))
    (tmp_path / "b.json").write_text(json.dumps(changed))
    assert main(["score-merge", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 2
    assert "disagree on the mutants of" in capsys.readouterr().err
    (tmp_path / "c.json").write_text("{}")
    assert main(["score-merge", str(tmp_path / "c.json")]) == 2
    assert "not a score report" in capsys.readouterr().err


def test_awkward_text_stays_valid(tmp_path: Path) -> None:
    """A mutated literal holding a control character or a line break: still well-formed XML, one annotation."""
    entry = {"id": "m:1:0:string", "module": "m", "file": str(tmp_path / "m.py"), "line": 1, "column": 0,
             "end_line": 1, "end_column": 5, "operator": "string", "original": '"a\x00,b"',
             "mutated": '"XX\nXX"', "status": "survived", "tests_run": 1, "seconds": 0.1}
    report = reports.assemble([dict(entry, message=False, direct=True, reached_by=1)], {entry["file"]: 1}, {})
    case = ET.fromstring(reports.junit(report, tmp_path).split("\n", 1)[1]).find("./testsuite/testcase")
    assert case.find("failure").get("message").startswith("m.py:1: mutant survived")
    [row] = reports.github(report, tmp_path)
    assert "\n" not in row and "XX%0AXX" in row and row.startswith("::warning file=m.py,line=1,")


def test_one_rounding_of_the_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """1727 of 2000 is 86.35%: the four-digit summary score rounded again read 86.4%, the table 86.3%."""
    assert [reports.score_percent(d, t) for d, t in ((1727, 2000), (1, 3), (2, 3), (0, 7), (7, 7))] == \
        ["86.4%", "33.3%", "66.7%", "0.0%", "100.0%"]
    file = str(tmp_path / "pkg" / "m.py")
    entries = [{"id": f"pkg.m:{i + 1}:0:constant", "module": "pkg.m", "file": file, "line": i + 1, "column": 0,
                "end_line": i + 1, "end_column": 1, "operator": "constant", "original": "0", "mutated": "1",
                "scope": "<module>", "status": "killed" if i < 1727 else "survived", "killed_by": None,
                "tests_run": 1, "pruned": None, "mode": "mutant", "reached_by": 1, "message": False, "direct": False}
               for i in range(2000)]
    report = reports.assemble(entries, {file: 2000}, {"tests": 1, "seconds": 1.0})
    (tmp_path / "r.json").write_text(json.dumps(dict(report, root=str(tmp_path))))
    assert main(["score-merge", str(tmp_path / "r.json"), "--root", str(tmp_path), "--show", "0"]) == 0
    out = capsys.readouterr().out
    [row] = [line for line in out.splitlines() if "pkg/m.py" in line]
    assert row.split()[-2] == "86.4%" and "score 86.4%:" in out  # the last cell, then the border


def test_no_mutant_to_judge_is_said_so() -> None:
    summary = {"total": 0, "scope": {"since": "main", "shard": None}}
    assert reports.nothing_judged(summary) == "no mutants on the lines changed since main"
    assert reports.nothing_judged({"total": 0, "scope": {"since": None, "shard": "2/3"}}) == "no mutants in shard 2/3"
    assert reports.nothing_judged({"total": 3}) is None


def test_each_test_s_reach_is_kept_in_runs_of_sites(full) -> None:
    """The report lists the suite's tests and the sites each reaches: who covers a mutant (its `site`)."""
    _, report, _ = full
    assert [t["id"] for t in report["tests"]] == ["tests/test_ops.py::test_add", "tests/test_ops.py::test_clamp",
                                                  "tests/test_text.py::test_shout"]
    covering = reports.covering_tests(report)
    for m in report["mutants"]:
        assert len(covering.get(m["site"], [])) == m["reached_by"], m
    assert reports.site_ranges([9, 0, 1, 2, 4, 5, 2, 11]) == "0-2,4-5,9,11" and reports.site_ranges([]) == ""
    assert reports.parse_site_ranges("0-2,4-5,9,11") == {0, 1, 2, 4, 5, 9, 11}
    assert reports.covering_tests({"mutants": []}) == {}  # a report from before tests were kept


def test_the_time_table_cuts_a_long_reason_and_says_so():
    """python-dotenv's "…the original list_values, set_value, get, unset, run is " was cut with no sign of it."""
    long = "cannot reload in place: the original list_values, set_value, get, unset, run is still held by a tuple"
    entries = [{"mode": "isolated", "seconds": 1.0, "isolated_because": long},
               {"mode": "isolated", "seconds": 2.0, "isolated_because": long.replace("tuple", "dict")},
               {"mode": "isolated", "seconds": 1.0, "isolated_because": "its module body raised SystemExit"}]
    why = reports.time_spent(entries, 0.5)["why fresh"]
    assert why == {"cannot reload in place: the original list_values, set_value, get, unset, run is…": 2,
                   "its module body raised SystemExit": 1}
    assert all(len(reason) <= reports.WHY_CHARS for reason in why)
