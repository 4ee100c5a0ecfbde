"""Tests run without pytest's per-test protocol (`mu2py.score.lean`) judge mutants as pytest's protocol does.

tests/data/score_lean: table-driven tests (lean), a test that passes only under pytest's own
protocol (it reads PYTEST_CURRENT_TEST), a `filterwarnings("error")` test, a plain class's test, a fixture test
(never lean) and a unittest class; and a mutant that fills memory inside C code.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from mu2py.cli.main import main
from mu2py.score import lean

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "score_lean"
TESTS = "tests/test_words.py::"


# the sample scored end to end (half a minute) once, on 3.11: CI runs the 3.11 and 3.13 suites side by side
ON_311 = pytest.mark.skipif(sys.version_info >= (3, 13), reason="the lean sample scored once, on 3.11: CI's time")


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The sample scored once: its mutants by (line, original, mutated)."""
    root = tmp_path_factory.mktemp("lean") / "project"
    shutil.copytree(SAMPLE, root)
    capture = root / "report.json"
    assert main(["score", "--root", str(root), "--paths", "lean_pkg", "--tests", "tests", "--no-cache",
                 "--report", str(capture)]) == 0
    return {(m["line"], m["original"], m["mutated"]): m for m in json.loads(capture.read_text())["mutants"]}


@ON_311
def test_a_lean_failure_kills_only_when_pytest_s_protocol_fails_too(scored):
    # test_runs_under_pytest fails on every run without the protocol: the "aeiou" mutants it cannot tell
    # apart from the original survive, and the ones it does catch under the protocol are killed by it
    for mutated in ('"XXaeiouXX"', '"AEIOU"'):
        assert scored[(23, '"aeiou"', mutated)]["status"] == "survived"
    killed = scored[(23, '"a"', '"XXaXX"')]
    assert (killed["status"], killed["killed_by"]) == ("killed", TESTS + "test_runs_under_pytest")


@ON_311
def test_table_driven_tests_kill_and_time_out_as_under_pytest(scored):
    # the first test in collection order that fails
    assert scored[(13, 'word + "s"', 'word - "s"')]["killed_by"] == TESTS + "test_plural[cat-cats]"
    assert scored[(12, '"es"', '"XXesXX"')]["killed_by"] == TESTS + "test_plural[bus-buses]"
    # the loop that never ends under the mutant: the alarm cuts the lean call short
    looping = scored[(30, "times -= 1", "times += 1")]
    assert (looping["status"], looping["killed_by"]) == ("timeout", TESTS + "test_repeat[2]")
    assert scored[(5, '"child"', '"XXchildXX"')]["status"] == "survived"  # no test asks for a child


@ON_311
def test_a_mutant_filling_memory_inside_c_costs_its_worker_not_the_run(scored):
    # zip(itertools.repeat("-")) never ends, and "".join gathers it inside C, where no alarm reaches: the
    # worker is killed once it holds twice the original suite's peak memory and a GiB more, or at its deadline
    # 10 s past the test's timeout, whichever comes first (on a loaded machine memory fills more slowly;
    # tests/mu2py/engine/test_workers.py checks the limit itself)
    endless = scored[(37, 'zip(word, itertools.repeat("-"))', 'zip(itertools.repeat("-"))')]
    assert (endless["status"], endless["killed_by"][:8]) in (("killed", "<held ov"), ("timeout", "<overran")), endless
    # the time it cost shows: both attempts (the second on another worker), until each worker was killed
    assert endless["seconds"] > 0.5, endless


@ON_311
def test_a_warning_the_test_s_filters_make_an_error_kills(scored):
    # `if word:` makes shout("a") warn; test_shout_quietly's filterwarnings("error") turns that into its
    # failure, in pytest's protocol and in a lean call alike (it was a survivor when the worker called
    # pytest's protocol function without the warnings plugin's wrapper)
    mutant = scored[(17, "not word", "word")]
    assert (mutant["status"], mutant["killed_by"]) == ("killed", TESTS + "test_shout_quietly")


class _Items:
    """Collects a session's items and asks `lean` about each inside the session (the run loop)."""

    def __init__(self) -> None:
        self.eligible: dict[str, bool] = {}
        self.outcomes: dict[str, str] = {}

    def pytest_runtestloop(self, session: Any) -> bool:
        for item in session.items:
            name = item.nodeid.split("::", 1)[1]
            self.eligible[name] = lean.eligible(item)
            if self.eligible[name]:
                self.outcomes[name] = lean.call(item)
        return True


def test_which_tests_run_lean_and_what_a_lean_call_says(tmp_path, monkeypatch):
    root = tmp_path / "project"
    shutil.copytree(SAMPLE, root)
    (root / "tests" / "test_skips.py").write_text(
        "import pytest\n\n\ndef test_skipped_inside():\n    pytest.skip('not here')\n\n\n"
        "@pytest.mark.skip\ndef test_marked():\n    pass\n")
    (root / "tests" / "test_cases.py").write_text(UNITTEST_CASES)
    monkeypatch.chdir(root)
    monkeypatch.syspath_prepend(str(root))
    items = _Items()
    pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "tests"], plugins=[items])
    assert items.eligible == {
        "test_plural[cat-cats]": True, "test_plural[bus-buses]": True, "test_plural[person-people]": True,
        "test_runs_under_pytest": True, "test_repeat[0]": True, "test_repeat[2]": True,
        "test_shout_quietly": True,  # filterwarnings: applied by the lean call too
        "test_shout_in": False,  # a fixture (tmp_path)
        "TestShout::test_word": True,  # a plain class's method
        "TestWithSetup::test_plural": False,  # its setup_method is an autouse fixture
        "TestUnit::test_shout": True,  # unittest's: its class set up and torn down around it
        "TestCases::test_uses_class_setup": True, "TestCases::test_skipped": True, "TestCases::test_expected": True,
        "TestCases::test_unexpected_success": True, "TestCases::test_subtest": True,
        "test_dashed": True, "test_skipped_inside": True,
        "test_marked": False,  # a mark other than parametrize / filterwarnings
    }
    assert items.outcomes["test_plural[bus-buses]"] == "passed"
    assert items.outcomes["test_runs_under_pytest"] == "failed"  # no protocol, no PYTEST_CURRENT_TEST
    assert items.outcomes["test_skipped_inside"] == "skipped"
    # unittest's outcomes as pytest reads them: an expected failure is no failure, an unexpected success and a
    # failing subtest are
    assert {name.split("::")[1]: outcome for name, outcome in items.outcomes.items() if name.startswith("TestCases")} \
        == {"test_uses_class_setup": "passed", "test_skipped": "skipped", "test_expected": "skipped",
            "test_unexpected_success": "failed", "test_subtest": "failed"}


UNITTEST_CASES = """import unittest


class TestCases(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ready = True

    @classmethod
    def tearDownClass(cls):
        del cls.ready

    def test_uses_class_setup(self):
        self.assertTrue(self.ready)

    @unittest.skip("not here")
    def test_skipped(self):
        raise AssertionError

    @unittest.expectedFailure
    def test_expected(self):
        self.assertEqual(1, 2)

    @unittest.expectedFailure
    def test_unexpected_success(self):
        pass

    def test_subtest(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertLess(i, 2)
"""
