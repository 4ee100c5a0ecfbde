"""Score workers on a suite that cannot run each test twice in one process (tests/data/score_rerun).

Like humanize's suite: a test changes its parametrize list in place, another is given a
generator, and a test switches a per-thread "current language" and back.  Every verdict
here must match what plain pytest on the mutated file says.
"""

import json
from pathlib import Path

from mu2py.cli.main import main


def test_tests_that_cannot_rerun_never_kill_by_themselves(scored_sample):
    _, report = scored_sample("score_rerun", "rerun_pkg")
    found = {(Path(m["file"]).name, m["line"], m["mutated"]): m for m in report["mutants"]}
    # no verdict without a test run: every kill names the test that failed
    for m in report["mutants"]:
        if m["status"] == "killed":
            assert m["tests_run"] > 0 and not m["killed_by"].startswith("<"), m
    # `__all__` is read by nobody: plain pytest passes with each of these (they were "corrupts shared state")
    exported = [m for m in report["mutants"] if Path(m["file"]).name == "__init__.py" and m["line"] == 5]
    assert exported and all(m["status"] == "survived" for m in exported)
    # only the generator case has three words: it kills this mutant, in a fresh interpreter
    comma = found[("words.py", 21, '"XX, XX"')]
    assert comma["status"] == "killed" and "genexpr" in comma["killed_by"] and comma["mode"] == "isolated"
    # test_french leaves the per-thread language set to "en"; a plain run meets the default first
    default = found[("words.py", 21, 'getattr(_CURRENT, "lang", None)')]
    assert default["status"] == "killed" and "test_join" in default["killed_by"]
    # the parameter list test_describe negates in place is as collected on every run
    # its mutated body calls main(), which exits on the worker's arguments: judged, not a dead worker
    entry = found[("__main__.py", 14, '!= "__main__"')]
    assert entry["status"] == "survived" and entry["mode"] == "isolated"
    sign = found[("words.py", 25, "<= 0")]
    assert sign["status"] == "survived"
    assert found[("words.py", 26, '"XXminus XX"')]["killed_by"].split("::")[-1].startswith("test_describe")


def _src_layout(root: Path) -> Path:
    """A src layout whose package folder has no `__init__.py` (a namespace package), its tests importing it."""
    (root / "src" / "nspkg").mkdir(parents=True)
    (root / "src" / "nspkg" / "calc.py").write_text("def double(x):\n    return x * 2\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(
        "from hypothesis import given, strategies as st\n\nfrom nspkg.calc import double\n\n\n"
        "def test_double():\n    assert double(3) == 6\n\n\n"
        "@given(st.integers())\ndef test_double_is_even(x):\n    assert double(x) % 2 == 0\n")
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    return root


def test_a_file_under_a_src_layout_is_mutated_as_the_tests_import_it(tmp_path, capsys):
    """`--paths src/nspkg/calc.py` names the file `calc` (its folder has no `__init__.py`), the tests import
    `nspkg.calc`: the mutants went into a second copy no test ran, and every one was `no_coverage`."""
    root = _src_layout(tmp_path / "project")
    assert main(["score", "--root", str(root), "--paths", "src/nspkg/calc.py", "--tests", "tests", "--no-cache",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {m["module"] for m in report["mutants"]} == {"nspkg.calc"}
    assert report["summary"]["killed"] == report["summary"]["total"] > 0


def test_a_doubted_reload_runs_only_its_cheapest_tests_in_place():
    from mu2py.score.units import cheapest

    tests = [("a", 1.0, 0), ("b", 1.0, 1), ("c", 2.0, 2), ("d", 6.0, 3)]  # fastest first, by timeout
    assert cheapest(tests, 0.25) == tests[:2]  # 2.0 of 10.0
    assert cheapest([("slow", 9.0, 0), ("slower", 9.5, 1)], 0.25) == [("slow", 9.0, 0)]  # one at least
    assert cheapest([], 0.25) == []


def test_a_unit_whose_own_step_raises_is_judged_again_not_a_crash_of_the_run(monkeypatch):
    """mu2py's own step raising in a worker (a thread a test left parses source at the same time: CPython 3.11's
    "AST constructor recursion depth mismatch") asks for a new worker and a second judgement, and the worker's
    replacement; the baseline's error still ends the run."""
    import pytest

    from mu2py.processes import workers
    from mu2py.score import units
    from mu2py.score.plan import ScoreUnit, UnitKind
    from mu2py.score.verdicts import Again, Redo

    def broken(unit):
        raise SystemError("AST constructor recursion depth mismatch (before=87, after=139)")

    monkeypatch.setattr(workers, "_restart_requested", False)
    monkeypatch.setitem(units.UNITS, UnitKind.MUTANT, broken)
    monkeypatch.setitem(units.UNITS, UnitKind.BASELINE, broken)
    result = units.run_unit(ScoreUnit(UnitKind.MUTANT, 0))
    assert isinstance(result, Redo) and result.again is Again.RETRY
    assert "SystemError: AST constructor recursion depth mismatch" in result.why
    assert workers._restart_requested  # this worker is replaced after its reply
    with pytest.raises(SystemError):
        units.run_unit(ScoreUnit(UnitKind.BASELINE, 0))
