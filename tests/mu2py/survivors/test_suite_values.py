"""The suite's constructor calls and argument values as seeds of `mu2py kill`, on tests/data/suite_sample.

`suite_pkg.shapes.Shape` takes an unhinted spec dict whose keys random values never hit, and `Shape.area` only
computes something for such a spec; the sample's own weak suite builds two (one in a fixture). With the suite's
values the method's survivors die, without them (the recording disabled) none does.
"""

import shutil
import sys
from pathlib import Path

import pytest

from mu2py.survivors.kill import KillOptions, run_kill
from mu2py.testgen.seeds import SuiteValues, infer_seeded, record_seeds

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 13),
                                reason="kill with the suite's values end to end once, on 3.11: CI's time")

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "suite_sample"
AREA = ("suite_pkg.shapes", "Shape.area")
RECT, CIRCLE = {"kind": "rect", "w": 2, "h": 3}, {"kind": "circle", "r": 2}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("suite_values") / "project"
    shutil.copytree(SAMPLE, root)
    sys.path.insert(0, str(root))
    yield root
    sys.path.remove(str(root))
    for name in [n for n in sys.modules if n == "suite_pkg" or n.startswith("suite_pkg.")]:
        del sys.modules[name]


def test_the_suite_s_constructor_calls_are_recorded_fixtures_included(project):
    values = record_seeds(str(project), ["tests"], [AREA], [str(project)])
    # Shape() leaves both arguments at their defaults: an empty call, not spec=None
    assert values.instances == {"suite_pkg.shapes.Shape": [{"spec": RECT}, {"spec": CIRCLE}, {}]}
    assert values.functions == {} and values.args == ["tests"]
    # with no test paths, pytest's testpaths (the sample's pyproject) are the suite; from a folder without a config
    # pytest collects that folder, as a plain `pytest` there does (the package's folder: no test in it)
    assert record_seeds(str(project), [], [AREA], [str(project)], auto=True) == values
    elsewhere = record_seeds(str(project / "suite_pkg"), [], [AREA], [str(project)], auto=True)
    assert not elsewhere.instances


def test_a_receiver_is_built_as_the_suite_builds_one_and_its_unhinted_argument_seeded(project):
    values = record_seeds(str(project), ["tests"], [AREA], [str(project)])
    spec = infer_seeded(values, *AREA)
    assert spec.strategy is not None
    assert "instance built as the suite builds 3 instances, or variants of that" in spec.notes
    assert spec.init_params[0].how.startswith("one of 2 values the suite passes or variants of them")
    # without values the unhinted spec (default None) is never passed: Shape() every time
    bare = infer_seeded(SuiteValues(), *AREA)
    assert bare.strategy is not None and "spec: default only (no type hint), never passed" in " ".join(bare.notes)


@pytest.fixture(scope="module")
def kills(project):
    """`mu2py kill` on the sample, with the suite's values and without them: 100 trials, seed 0."""
    def kill(out, suite_values=True):
        options = KillOptions(root=project, paths=("suite_pkg",), tests=("tests",), out=project / out, trials=100,
                              seed=0, no_cache=True, suite_values=suite_values)
        return run_kill(options, lambda _: None)

    return kill, kill("with"), kill("without", suite_values=False)


def _area(result):
    return next(f for f in result.report["functions"] if f["function"] == "suite_pkg.shapes.Shape.area")


def test_kill_kills_the_method_s_survivors_only_with_the_suite_s_values(kills):
    _, with_values, without = kills
    killed_with, killed_without = _area(with_values)["killed"], _area(without)["killed"]
    assert len(killed_with) >= 4 and killed_without == []
    assert with_values.scores["after"]["all"]["detected"] >= without.scores["after"]["all"]["detected"] + 4
    test_file = with_values.tests_out / "test_kill_suite_pkg_shapes.py"
    assert "Shape(spec={'kind': " in test_file.read_text()  # a receiver built as the suite builds one, in the test


def test_the_same_seed_and_trials_give_the_same_tests(kills):
    kill, first, _ = kills
    again = kill("again")
    assert again.written == first.written and again.killed_by_tests == first.killed_by_tests
    for name in ("test_kill_suite_pkg_shapes.py",):
        assert (again.tests_out / name).read_text() == (first.tests_out / name).read_text()
