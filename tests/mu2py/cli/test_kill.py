"""`mu2py kill` end to end on tests/data/kill_sample: a weak suite, tests written, verified, a higher re-score."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mu2py

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 13), reason="kill end to end on kill_sample once, on 3.11: "
                                "CI's time (the 3.13 suite runs kill on ctor_sample and suite_sample)")

KILL_SAMPLE = Path(__file__).resolve().parents[2] / "data" / "kill_sample"
WORKTREE = str(Path(mu2py.__file__).resolve().parents[1])


def _env(*extra):
    # the mu2py under test (a worktree's, not the installed one), and nothing else of the caller's path
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join([*extra, WORKTREE])
    return env


def _kill(root, *args, code=0):
    proc = subprocess.run([sys.executable, "-m", "mu2py", "kill", *args], cwd=root, capture_output=True, text=True,
                          env=_env(), timeout=300)
    assert proc.returncode == code, proc.stderr + proc.stdout
    return proc


KILL_ARGS = ("--paths", "kill_pkg", "--tests", "tests", "--trials", "400", "--seed", "1")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("kill") / "project"
    shutil.copytree(KILL_SAMPLE, root)
    return root


@pytest.fixture(scope="module")
def run(project):
    """One run over the sample, shared by the tests that read its outputs."""
    proc = _kill(project, *KILL_ARGS, "--out", "out", "--mte", "mte.json")
    return proc, json.loads((project / "out" / "report.json").read_text())


def test_scores_rise_and_tests_are_written(run):
    proc, report = run
    before, after = report["scores"]["before"], report["scores"]["after"]
    assert after["all"]["detected"] > before["all"]["detected"]
    assert after["function_body"]["score"] > before["function_body"]["score"]
    tests = report["tests"]
    # mean has no hints: the suite's values drove it; halve is typed only by its .pyi stub
    assert {"test_mean_1", "test_halve_1"} <= set(tests["kill_pkg.calc"]["tests"]) | set(
        tests["kill_pkg.stubbed"]["tests"])
    claimed = {m for module in tests.values() for ids in module["tests"].values() for m in ids}
    assert claimed == set(report["killed_by_tests"])
    # the re-score counts every mutant a written test claims as detected
    assert after["all"]["detected"] >= before["all"]["detected"] + len(claimed)
    assert "score after (suite + written tests)" in proc.stdout and "likely equivalent" in proc.stdout


def test_a_mutant_of_an_exception_message_is_killed_by_a_test_matching_it(run, project):
    """mean([]) raises ValueError("mean of nothing"): the suite never calls it so, and only a test asserting the
    message kills a mutant of it (the written test's `match=`, verified in fresh interpreters)."""
    _, report = run
    source = (project / report["tests"]["kill_pkg.calc"]["file"]).read_text()
    assert "match=\"^\" + re.escape('mean of nothing') + \"$\"" in source
    message_mutants = [m for m in report["killed_by_tests"] if m.startswith("kill_pkg.calc:") and ":string" in m]
    assert message_mutants


def test_killing_inputs_are_shrunk_before_they_are_written(run, project):
    """halve raises ValueError("odd") on odd n, and fuzzing finds some large odd n first: the written test calls it
    with the simplest odd n Hypothesis' shrinker reaches, 1; clamp's `return low` is killed by x just below 0."""
    _, report = run
    stubbed = (project / report["tests"]["kill_pkg.stubbed"]["file"]).read_text()
    assert "halve(n=1)" in stubbed
    calc = (project / report["tests"]["kill_pkg.calc"]["file"]).read_text()
    assert "clamp(x=-1)" in calc


def test_written_tests_pass_on_the_original(run, project):
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "out/tests"], cwd=project,
                          capture_output=True, text=True, env=_env(str(project)))
    assert proc.returncode == 0, proc.stdout
    _, report = run
    written = sum(len(m["tests"]) for m in report["tests"].values())
    assert f"{written} passed" in proc.stdout


def test_each_test_fails_on_its_mutant_on_disk(run, project, tmp_path):
    """Independent of the verifier's import hook: the mutated file written into a copy of the package."""
    from mu2py.mutants.catalog import Program
    from mu2py.target.modules import modules_target

    _, report = run
    sys.path.insert(0, str(project))
    try:
        program = Program(modules_target("kill_pkg.calc"))
    finally:
        sys.path.remove(str(project))
        for name in [n for n in sys.modules if n.startswith("kill_pkg")]:
            del sys.modules[name]
    tests = report["tests"]["kill_pkg.calc"]
    checked = 0
    for name, ids in sorted(tests["tests"].items())[:3]:
        copy = tmp_path / name
        shutil.copytree(project / "kill_pkg", copy / "kill_pkg")
        (copy / "kill_pkg" / "calc.py").write_text(program.mutant_source(ids[0]))
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               f"{tests['file']}::{name}"], cwd=copy, capture_output=True, text=True,
                              env=_env(str(copy)))
        assert proc.returncode == 1, (name, ids[0], proc.stdout)
        checked += 1
    assert checked == 3


def test_likely_equivalents(run, project):
    """Listed: survivors infected and run on at least 2 distinct inputs, and not killed by the search aimed at each
    alone, with their evidence; a candidate that search kills gets a written test like any kill."""
    equivalents = json.loads((project / "out" / "equivalents.json").read_text())
    likely = equivalents["likely"]
    assert likely and all(e["survived"] >= equivalents["min_infecting"] and e["runs"] >= 1 for e in likely)
    assert [e["survived"] for e in likely] == sorted((e["survived"] for e in likely), reverse=True)
    assert all(1 <= len(e["examples"]) <= 3 and e["masked"].startswith(f"infected on {e['infected']} distinct inputs")
               for e in likely)
    proc, report = run
    assert not {e["id"] for e in likely} & set(report["killed_by_tests"])
    searches = equivalents["aimed"]["searches"]
    assert report["aimed"] == searches
    assert {e["id"] for e in likely} <= {s["id"] for s in searches if not s["killed"] and not s["error"]}
    # halve(n) raises on odd n: `n // 2` -> `n / 2` gives an equal value on every even one
    assert "kill_pkg.stubbed:7:11:arithmetic" in {e["id"] for e in likely}
    killed = [s["id"] for s in searches if s["killed"]]
    assert killed and set(killed) <= set(report["killed_by_tests"])
    assert set(equivalents["unlisted"]) == {"unreached", "uninfected", "few_inputs", "killed", "unsearched"}
    assert "likely equivalent (" in proc.stdout and "e.g. halve(n=" in proc.stdout
    assert "survivors not listed as likely equivalent: " in proc.stdout


def test_mte_document_is_the_score_after_with_the_written_tests_as_killers(run, project):
    """`--mte`: valid under the vendored schema, every mutant of the score after, each mutant a written test claims
    Killed by that test's id, the counts those of the report's figures."""
    import jsonschema

    schema = json.loads((KILL_SAMPLE.parent / "mte" / "mutation-testing-report-schema.json").read_text())
    document = json.loads((project / "mte.json").read_text())
    jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker()).validate(document)
    _, report = run
    mutants = {m["id"]: m for f in document["files"].values() for m in f["mutants"]}
    after = report["scores"]["after"]["all"]
    assert len(mutants) == after["total"]
    detected = [m for m in mutants.values() if m["status"] in ("Killed", "Timeout", "CompileError")]
    assert len(detected) == after["detected"]
    tests = {t["id"]: f"{path}::{t['name']}" for path, f in document["testFiles"].items() for t in f["tests"]}
    written, claimed = set(), set()
    for module in report["tests"].values():
        file = os.path.relpath(module["file"], project)
        assert document["testFiles"][file]["source"] == (project / file).read_text()
        written |= {f"{file}::{name}" for name in module["tests"]}
        claimed |= {m for ids in module["tests"].values() for m in ids}
    # a survivor before, killed after by a written test: the one the score ran first of those that fail on it (not
    # necessarily the one written for it)
    for mutant in claimed:
        got = mutants[mutant]
        assert got["status"] == "Killed" and {tests[i] for i in got["killedBy"]} <= written, got
    assert claimed and written <= set(tests.values())


def test_an_mte_file_that_cannot_be_written_is_named_before_the_run(tmp_path):
    (tmp_path / "blocker").write_text("")
    for command in (["kill", "--paths", "no_such_pkg", "--trials", "5"], ["props", "--trials", "5"]):
        proc = subprocess.run([sys.executable, "-m", "mu2py", *command, "--mte", "blocker/mte.json"], cwd=tmp_path,
                              capture_output=True, text=True, env=_env(), timeout=120)
        assert proc.returncode == 2 and "output directory blocker is not writable" in proc.stderr, proc.stderr


def test_errors(tmp_path):
    proc = _kill(tmp_path, "--package", "no_such_package_here", "--trials", "10", code=2)
    assert "mu2py: error: no module named 'no_such_package_here'" in proc.stderr
    strong = tmp_path / "strong"
    (strong / "strong_pkg").mkdir(parents=True)
    (strong / "strong_pkg" / "__init__.py").write_text("")
    (strong / "strong_pkg" / "inc.py").write_text("def inc(x):\n    return x + 1\n")
    (strong / "test_inc.py").write_text("from strong_pkg.inc import inc\n\n\ndef test_inc():\n"
                                        "    assert inc(1) == 2\n")
    proc = _kill(strong, "--paths", "strong_pkg", "--tests", "test_inc.py", "--trials", "10", code=2)
    assert "no surviving mutant to aim at" in proc.stderr
    (strong / "strong_pkg" / "inc.py").write_text("raise RuntimeError('no import')\n\ndef inc(x):\n    return x\n")
    proc = _kill(strong, "--paths", "strong_pkg", "--tests", "test_inc.py", "--trials", "10", code=2)
    assert proc.stderr.startswith("mu2py: error:") and "Traceback" not in proc.stderr


def test_a_budget_the_first_score_takes_starts_no_campaign(project, tmp_path):
    """Under --time 3s the first score leaves less than kill's minimum for fuzzing: every function is noted as not
    fuzzed, none starts a campaign (each would overrun the budget starting its mutant host)."""
    root = tmp_path / "project"
    shutil.copytree(KILL_SAMPLE, root)
    proc = _kill(root, "--paths", "kill_pkg", "--tests", "tests", "--time", "3s", "--seed", "1", "--out", "out")
    assert "the --time budget ended before its turn" in proc.stdout
    assert " trials, killed " not in proc.stdout
