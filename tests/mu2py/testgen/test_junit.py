"""Reading pytest's JUnit XML back: every outcome, on a real pytest run."""

import subprocess
import sys

from mu2py.testgen.junit import read_junit

TESTS = '''
import pytest

def test_passes():
    assert True

def test_fails():
    assert 1 == 2, "one is not two"

@pytest.mark.parametrize("x", [1, 2])
def test_case(x):
    assert x == 1

@pytest.mark.skip(reason="not today")
def test_skipped():
    pass

@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")

def test_errs(broken):
    pass
'''


def test_every_outcome_of_a_pytest_run_is_read_back(tmp_path):
    (tmp_path / "test_mix.py").write_text(TESTS)
    xml = tmp_path / "junit.xml"
    assert read_junit(xml) is None  # pytest has not run
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml", str(xml),
                    str(tmp_path / "test_mix.py")], cwd=tmp_path, capture_output=True)
    cases = {c.name: c for c in read_junit(xml)}
    assert {n: c.outcome for n, c in cases.items()} == {
        "test_passes": "passed", "test_fails": "failure", "test_case[1]": "passed", "test_case[2]": "failure",
        "test_skipped": "skipped", "test_errs": "error"}
    assert "one is not two" in cases["test_fails"].message
    assert "fixture broke" in cases["test_errs"].message
    assert cases["test_passes"].module_stem == "test_mix"
