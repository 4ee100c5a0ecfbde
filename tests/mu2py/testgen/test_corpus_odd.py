"""`mu2py corpus` end to end on tests/data/corpus_odd, the shapes it once failed on in real packages.

semver (a parser as output, methods as the API), python-slugify (an Iterable parameter, a
function re-exported under its submodule's name) and humanize (hints naming aliases defined
under `if TYPE_CHECKING:`, huge and non-finite outputs).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mu2py

pytestmark = pytest.mark.skipif(sys.version_info < (3, 13),
                                reason="corpus on corpus_odd end to end once, on 3.13: CI's time")

ODD = Path(__file__).resolve().parents[2] / "data" / "corpus_odd"


def _env(with_mu2py=False):
    """The environment of a fresh process: no PYTHONPATH, or only the root of the mu2py under test."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if with_mu2py:
        env["PYTHONPATH"] = str(Path(mu2py.__file__).resolve().parents[2])
    return env


def _corpus(root, *args):
    proc = subprocess.run([sys.executable, "-m", "mu2py", "corpus", *args], cwd=root, capture_output=True,
                          text=True, env=_env(with_mu2py=True), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-3000:]
    return proc, json.loads((root / args[args.index("--out") + 1] / "report.json").read_text())


@pytest.fixture(scope="module")
def odd_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("odd") / "project"
    shutil.copytree(ODD, root)
    proc, report = _corpus(root, "odd_pkg", "--trials", "160", "--seed", "0", "--out", "out", "--no-score")
    return root, proc, report


def _functions(report):
    return {f.get("qualname") or f["function"]: f for f in report["functions"]}


def test_methods_iterables_and_type_checking_hints_are_fuzzed(odd_run):
    _, _, report = odd_run
    functions = _functions(report)
    for name in ("odd_pkg.shapes.Rect.area", "odd_pkg.shapes.Rect.square", "odd_pkg.words.words",
                 "odd_pkg.numbers.widen", "odd_pkg.numbers.scale", "odd_pkg.cli.make_parser"):
        assert not functions[name].get("skipped") and not functions[name]["error"], functions[name]
        assert functions[name]["inputs"] > 0


def test_generated_tests_pass_in_a_fresh_interpreter(odd_run):
    root, _, report = odd_run
    cases = sum(f.get("cases", 0) for f in report["functions"])
    notes = [n for f in report["functions"] for n in f.get("notes", [])]
    assert not any("fresh interpreter" in n for n in notes), notes
    assert _functions(report)["odd_pkg.words.words"]["cases"] > 0  # `odd_pkg.words` is the function
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "out/tests"], cwd=root,
                          capture_output=True, text=True, env=_env(), timeout=120)
    assert proc.returncode == 0 and f"{cases} passed" in proc.stdout, proc.stdout[-2000:]


def test_generated_files_are_ones_a_person_would_commit(odd_run):
    from mu2py.testgen.render import MAX_STORED, WIDTH

    root, _, _ = odd_run
    tests = root / "out" / "tests"
    for path in tests.glob("*.py"):
        source = path.read_text()
        assert max(len(line) for line in source.splitlines()) <= WIDTH, path
        assert "Regenerate with: mu2py corpus odd_pkg --trials 160 --seed 0" in source
    for path in tests.glob("*.pickle"):
        assert path.stat().st_size <= 4 * MAX_STORED, path
    numbers = (tests / "test_corpus_odd_pkg_numbers.py").read_text().replace("\n#   ", " ")
    assert "-byte bound" in numbers  # widen's output of up to 100,000 repetitions is left out, not stored


def test_time_budget_slots_end_at_the_budget():
    from mu2py.testgen.regression import slot_ends

    assert slot_ends(100.0, None, 2, 1) == [None, None]
    assert slot_ends(100.0, 30.0, 3, 1) == [110.0, 120.0, 130.0]
    assert slot_ends(100.0, 30.0, 3, 2) == [115.0, 115.0, 130.0]


def test_time_budget_covers_choosing_and_fuzzing(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(ODD, root)
    proc, report = _corpus(root, "odd_pkg.shapes", "--time", "4s", "--out", "out", "--no-score")
    phases = report["phases"]
    assert set(phases) == {"choose", "fuzz", "record", "write and verify"} and "time: choose" in proc.stdout
    # choosing comes out of the budget; the slack is for setting up the last function on a loaded machine
    assert phases["choose"] + phases["fuzz"] <= 4 + 10


def test_under_time_the_fuzzing_leaves_the_verification_and_a_share_for_scoring():
    from mu2py.testgen.corpus import after_fuzzing

    assert after_fuzzing(60.0, True) > after_fuzzing(60.0, False) > 0
    assert after_fuzzing(2.0, True) == 1.0  # never more than half the budget
