"""unittest subtests judge mutants (tests/data/score_subtest): a failing `self.subTest` fails its test.

pytest 9 reports each subtest on its own and leaves the test's own call report passed;
reading only that report counted every mutant these tests catch as a survivor.
"""

import json
import shutil
from pathlib import Path

from mu2py.cli.main import main

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "score_subtest"
DOUBLE = "tests/test_calc.py::TestCalc::test_double"


def _score(root, capsys, *extra):
    assert main(["score", "--root", str(root), "--paths", "sub_pkg", "--tests", "tests", "--no-cache", "--json",
                 *extra]) == 0
    return {m["id"]: m for m in json.loads(capsys.readouterr().out)["mutants"]}


def test_a_failing_subtest_kills_the_mutant(tmp_path, capsys):
    root = tmp_path / "project"
    shutil.copytree(SAMPLE, root)
    found = _score(root, capsys)
    # `n / FACTOR` and `FACTOR = 3` pass the first subtest (n=0) and fail a later one
    for mutant in ("sub_pkg.calc:7:11:arithmetic", "sub_pkg.calc:7:4:return_value"):
        assert found[mutant]["status"] == "killed" and found[mutant]["killed_by"] == DOUBLE, found[mutant]
    assert found["sub_pkg.calc:3:9:constant"]["mode"] == "reexec"
    assert found["sub_pkg.calc:3:9:constant"]["status"] == "killed"
    assert found["sub_pkg.calc:13:11:call_arg#2"]["killed_by"] == "tests/test_calc.py::TestCalc::test_clamp"
    # `<= low` is equivalent on these cases (clamp(0, 0, 10) is 0 either way): a survivor, the only one
    assert [m for m in found.values() if m["status"] != "killed"] == [found["sub_pkg.calc:11:8:boundary"]]
    for m in found.values():
        assert m["status"] != "killed" or m["tests_run"] >= 1
    # how it failed names the subtest and the test's line (not unittest's own assertEqual)
    assert found["sub_pkg.calc:7:11:arithmetic"]["failure"] == \
        "subtest (n=1): AssertionError: 0.5 != 2 (tests/test_calc.py:11)"
    assert found["sub_pkg.calc:13:11:call_arg"]["failure"] == ("subtest (n=5): TypeError: '<' not supported between "
                                                               "instances of 'int' and 'NoneType' (sub_pkg/calc.py:13,"
                                                               " from tests/test_calc.py:16)")


def test_a_failing_subtest_kills_in_a_fresh_interpreter(tmp_path, capsys):
    """The fresh interpreter's verdict is read from pytest's summary: a subtest's line names its test; how it failed
    is the line the session's own hook wrote, as in place."""
    root = tmp_path / "project"
    shutil.copytree(SAMPLE, root)
    found = _score(root, capsys, "--import-time", "fresh")
    constant = found["sub_pkg.calc:3:9:constant"]
    assert (constant["mode"], constant["status"], constant["killed_by"]) == ("isolated", "killed", DOUBLE)
    assert constant["failure"] == "subtest (n=1): AssertionError: 3 != 2 (tests/test_calc.py:11)"


def test_a_subtest_failing_on_the_original_stops_the_score(tmp_path, capsys):
    root = tmp_path / "project"
    shutil.copytree(SAMPLE, root)
    test_file = root / "tests" / "test_calc.py"
    test_file.write_text(test_file.read_text().replace("(3, 6)", "(3, 7)"))
    assert main(["score", "--root", str(root), "--paths", "sub_pkg", "--tests", "tests", "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert "fails on the original code" in err and "test_double" in err and "test_clamp" not in err


def test_a_test_judging_a_mutant_stops_at_its_first_failing_subtest(tmp_path, capsys, monkeypatch):
    """Data-driven tests with hundreds of subtests: once one fails the verdict is decided, the rest is not run."""
    root = tmp_path / "project"
    shutil.copytree(SAMPLE, root)
    log = tmp_path / "subtests.log"
    monkeypatch.setenv("SUBTEST_LOG", str(log))
    test_file = root / "tests" / "test_calc.py"
    test_file.write_text("import os\n" + test_file.read_text().replace(
        "                self.assertEqual(double(n), want)",
        "                with open(os.environ['SUBTEST_LOG'], 'a') as f:\n"
        "                    f.write(f'{n} {double(n)}\\n')\n"
        "                self.assertEqual(double(n), want)"))
    found = _score(root, capsys)
    assert found["sub_pkg.calc:7:11:arithmetic"]["status"] == "killed"  # n / FACTOR: its subtest n=1 fails
    seen = log.read_text().split("\n")
    assert "1 0.5" in seen  # the failing subtest ran under the mutant
    assert "3 1.5" not in seen  # and the one after it did not
    assert "3 6" in seen  # the original's runs went through every subtest
