"""`mu2py corpus` seeded by the package's own suite, found as pytest finds it, on tests/data/suite_sample.

`suite_pkg.shapes.Shape.area` only computes something for a spec dict with the keys the sample's suite builds
shapes with; with the suite's values (its pytest testpaths) the corpus kills its mutants, without them it does not.
"""

import shutil
import sys
from pathlib import Path

import pytest

from mu2py.testgen.corpus import CorpusOptions, run_corpus
from mu2py.testgen.seeds import corpus_suite

pytestmark = pytest.mark.skipif(sys.version_info < (3, 13),
                                reason="corpus with the suite's values end to end once, on 3.13: CI's time")

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "suite_sample"
AREA = "suite_pkg.shapes.Shape.area"


def _forget():
    for name in [n for n in sys.modules if n == "suite_pkg" or n.startswith("suite_pkg.")]:
        del sys.modules[name]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Run `mu2py corpus suite_pkg` (120 trials, seed 0, no scoring) in a copy of the sample (`pyproject`: with its
    pytest testpaths): its steps and result."""
    base = tmp_path_factory.mktemp("corpus_suite")
    shutil.copytree(SAMPLE, base / "project")
    shutil.copytree(SAMPLE, base / "bare")
    (base / "bare" / "pyproject.toml").unlink()  # no pytest testpaths: no suite unless given

    def run(out, *, suite_values=True, suite=None, pyproject=True, workers=1):
        root = base / ("project" if pyproject else "bare")
        lines = []
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(root)
            patch.syspath_prepend(str(root))
            try:
                options = CorpusOptions(target="suite_pkg", trials=120, seed=0, out=root / out, no_score=True,
                                        suite_values=suite_values, suite=suite, workers=workers)
                result = run_corpus(options, lines.append)
            finally:
                _forget()
        return lines, result

    return run


def test_the_suite_is_found_as_pytest_finds_it(tmp_path):
    assert corpus_suite(tmp_path, None) == ([], True, "found as pytest finds it")
    # the tests an earlier corpus wrote under the project are not the package's suite
    out = tmp_path / "mu2py-corpus"
    assert corpus_suite(tmp_path, None, out) == ([f"--ignore={out.resolve()}"], True, "found as pytest finds it")
    (tmp_path / "pyproject.toml").write_text('[tool.mu2py]\ntests = ["t"]\npytest_args = ["-x"]\n')
    assert corpus_suite(tmp_path, None) == (["t", "-x"], False, "[tool.mu2py] tests (t)")
    assert corpus_suite(tmp_path, ("s",)) == (["s", "-x"], False, "--suite s")


def test_corpus_kills_the_method_s_mutants_only_with_the_suite_s_values(corpus):
    run = corpus
    lines, with_values = run("with")
    assert "the suite's values (found as pytest finds it: tests) seed 1 of 1 functions" in lines
    _, without = run("without", suite_values=False)
    seeded, bare = with_values.outcomes[AREA], without.outcomes[AREA]
    assert seeded.own_total == bare.own_total
    assert seeded.own_killed >= bare.own_killed + 10 and seeded.cases > bare.cases
    params = next(s for s in with_values.specs if s.qualname == AREA).init_params
    assert params[0].how.startswith("one of 2 values the suite passes")


def test_the_same_seed_and_trials_give_the_same_tests(corpus):
    """Also when the function is fuzzed in a worker process: the values reach it pickled, it infers the same
    strategy, and the parent decodes what it saved."""
    run = corpus
    _, first = run("first")
    _, again = run("again", workers=2)
    assert [f.name for f in first.files] == [f.name for f in again.files] == ["test_corpus_suite_pkg_shapes.py"]
    assert first.files[0].read_text() == again.files[0].read_text()
    # the fuzzing (in the worker too) drew the receivers the suite builds
    assert "pytest.param({'self': {'spec': {'kind': 'rect', 'w': 2, 'h': 3}}}, 6" in first.files[0].read_text()


def test_without_a_config_the_suite_is_what_pytest_collects_there_and_an_explicit_suite_seeds_too(corpus):
    run = corpus
    lines, result = run("none", pyproject=False)
    [found] = [line for line in lines if line.phase == "recording the suite's values"][1:]
    # no testpaths: pytest collects the working directory, the project's tests/ included (and not the tests the
    # earlier runs wrote under it)
    assert found.startswith("the suite's values (found as pytest finds it: ") and found.endswith(
        ") seed 1 of 1 functions")
    lines, given = run("given", pyproject=False, suite=("tests",))
    assert "the suite's values (--suite tests: tests) seed 1 of 1 functions" in lines
    assert given.outcomes[AREA].own_killed == result.outcomes[AREA].own_killed
    assert "--suite tests" in given.report["command"]


def test_no_union_of_scores_the_budget_cut():
    from mu2py.testgen.corpus import union

    generated = {"tests": "generated", "detected_ids": ["a", "b"], "total": 3}
    suite = {"tests": "suite", "detected_ids": ["b", "c"], "total": 3}
    assert union([generated, suite]) == {"detected": 3, "only_generated": 1, "only_suite": 1, "total": 3}
    # the suite's score cut by the --time budget: its "0 only by the suite" would be no finding
    assert union([generated, dict(suite, detected_ids=[], cut_by_budget=3)]) is None
