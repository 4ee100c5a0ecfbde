"""`mu2py score` end to end on a small package with its own pytest suite (tests/data/score_sample)."""

import json
import shutil
from pathlib import Path

import pytest

from mu2py.cli.main import main

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "score_sample"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("score") / "project"
    shutil.copytree(SAMPLE, root)
    (root / "pyproject.toml").write_text('[tool.mu2py]\npaths = ["sample_pkg"]\ntests = ["tests"]\n')
    return root


def _score(root, capsys, *extra):
    assert main(["score", "--root", str(root), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _by_key(report):
    return {(Path(m["file"]).name, m["line"], m["operator"], m["mutated"]): m for m in report["mutants"]}


@pytest.fixture(scope="module")
def first(project):
    """The first scoring run (2 workers), shared by the tests that read it."""
    import io
    import sys

    out = io.StringIO()
    saved, sys.stdout = sys.stdout, out
    try:
        assert main(["score", "--root", str(project), "--json", "--workers", "2",
                     "--html", str(project / "html")]) == 0
    finally:
        sys.stdout = saved
    return json.loads(out.getvalue())


def test_verdicts_on_the_sample(first):
    s = first["summary"]
    assert s["total"] == len(first["mutants"]) and s["tests"] == 12
    m = _by_key(first)
    assert m[("core.py", 13, "boundary", "> 0")]["status"] == "killed"
    assert m[("core.py", 13, "boundary", "> 0")]["killed_by"].endswith("test_sort")
    assert m[("core.py", 15, "aug_to_assign", "i = 1")]["status"] == "timeout"  # the infinite loop
    assert m[("core.py", 23, "return_value", "return None")]["status"] == "no_coverage"  # clamp's `return x`
    assert m[("core.py", 37, "return_value", "return None")]["status"] == "no_coverage"  # the getter
    survivor = m[("core.py", 33, "assign_value", "self._n = None")]
    assert survivor["status"] == "survived" and survivor["tests_run"] == 1
    assert "-        self._n = start" in survivor["diff"]
    static = m[("core.py", 6, "constant", "101")]
    assert static["mode"] == "reexec" and static["status"] == "killed"  # module body re-run in place
    default = m[("core.py", 32, "constant", "1")]  # `start=0`: merged into the live function, which survives
    assert default["mode"] == "reexec" and default["status"] == "survived"
    crash = [x for x in first["mutants"] if x["line"] == 53 and x["operator"] == "negate_cond"]
    assert crash and crash[0]["status"] == "killed" and "exit code 70" in crash[0]["killed_by"]
    assert not any(x["line"] == 49 for x in first["mutants"])  # `# pragma: no mutate`
    scale = m[("extra.py", 7, "constant", "4")]  # nobody imports SCALE by name: re-run in place is enough
    assert scale["status"] == "survived" and scale["mode"] == "reexec"
    assert scale["tests_run"] == 0  # no test runs code that reads SCALE: nothing to run after the reload
    assert s["pruned_infection"] >= 2
    assert s["killed"] + s["survived"] + s["timeout"] + s["no_coverage"] == s["total"]
    bodies = [x for x in first["mutants"] if not x["at_import"]]
    assert 0 < len(bodies) < s["total"]  # the sample has module-level mutants too
    assert s["function_bodies"] == {"total": len(bodies),
                                    "detected": sum(x["status"] in ("killed", "timeout") for x in bodies)}


def test_the_score_line_names_the_function_body_score() -> None:
    """What mutmut and most peers score, beside the score of every mutant: both from the counts."""
    from mu2py.cli.score import score_line

    summary = {"total": 10, "killed": 6, "timeout": 1, "survived": 2, "no_coverage": 1, "pruned_infection": 0,
               "tests": 3, "seconds": 1.0, "cached": 0, "skipped_import_time": 0,
               "function_bodies": {"total": 6, "detected": 5}}
    assert score_line(summary).startswith("score 70.0% (function bodies 83.3% of 6): 6 killed, 1 timed out")
    assert score_line({**summary, "function_bodies": {"total": 10, "detected": 7}}).startswith("score 70.0%: ")


def test_import_time_mutants_are_reloaded_in_place(first):
    """Constants imported by value, lambdas in a table, class attributes and instances: judged without a fresh
    interpreter; so is a default another module of the package computed at import from the constant (that
    module's body is re-run in place after the mutant's)."""
    m = _by_key(first)

    def verdict(line, operator, mutated):
        found = m[("formats.py", line, operator, mutated)]
        # an isolated mutant's reason shows in the failure: a doubt that comes and goes is a process-state leak
        mode = found["mode"] if found["mode"] != "isolated" else f"isolated: {found['isolated_because']}"
        return mode, found["status"], (found["killed_by"] or "").split("::")[-1]

    assert verdict(4, "constant", "11") == ("reexec", "killed", "test_units")  # `from formats import UNIT` patched
    assert verdict(8, "lambda", "lambda n: None") == ("reexec", "killed", "test_render")
    assert verdict(7, "arithmetic", '"%02d" / n') == ("mutant", "killed", "test_render")  # a lambda in a dict
    # a class attribute, merged into the live class (both tests read it; the faster runs first)
    assert verdict(13, "constant", "3")[:2] == ("reexec", "killed")
    assert verdict(13, "constant", "3")[2] in ("test_scale", "test_scaled")
    assert verdict(15, "constant", "2") == ("reexec", "killed", "test_scaled")  # `DEFAULT = Scale()` re-made
    sep = m[("formats.py", 3, "string", '"XX-XX"')]
    # report.py's `def join(a, b, sep=SEP)`: report is re-run after formats, its `join` takes the new default
    assert (sep["mode"], sep["status"], sep["killed_by"].split("::")[-1]) == ("reexec", "killed", "test_join")
    assert not any(x["mode"] == "isolated" for x in first["mutants"] if x["module"] != "sample_pkg.formats")


def test_import_time_mutants_can_be_skipped(first, project, capsys):
    skipped = _score(project, capsys, "--import-time", "skip", "--no-cache")
    s = skipped["summary"]
    assert s["skipped_import_time"] > 0 and s["total"] + s["skipped_import_time"] == first["summary"]["total"]
    # a function its module's body calls is judged with that body re-run, skipped or not
    assert not any(m["mode"] == "skipped" or (m["mode"] == "reexec" and m["at_import"]) for m in skipped["mutants"])
    assert {m["id"] for m in skipped["mutants"]} < {m["id"] for m in first["mutants"]}


def test_html_report(first, project):
    index = (project / "html" / "index.html").read_text()
    assert "Mutation score" in index and "core.py" in index
    assert str(project) not in index and "sample_pkg/core.py" in index  # paths relative to the project
    # triage rows link to the file's view in the component (the folder every file is in left out)
    assert "Survivors, most worth a look first" in index
    assert "<a href='#mutant/core.py'>sample_pkg/core.py:33</a>" in index
    # the component's report, inlined: the survivor of line 33 (`self._n = None`) on its line
    inlined = json.loads(index.split("<script id='mu2py-report' type='application/json'>")[1].split("</script>")[0])
    survivors = [m for m in inlined["files"]["sample_pkg/core.py"]["mutants"] if m["status"] == "Survived"]
    assert any(m["location"]["start"]["line"] == 33 and m["replacement"] == "self._n = None" for m in survivors)
    assert (project / "html" / "mutation-test-elements.js").is_file()


def test_infection_pruning_is_sound(first, project, capsys):
    """Every mutant infection analysis proved a survivor also survives when its reaching tests run."""
    plain = _score(project, capsys, "--opt", "execution", "--no-cache")
    assert plain["summary"]["pruned_infection"] == 0
    pruned = [k for k, x in _by_key(first).items() if x["pruned"] == "infection"]
    assert pruned
    statuses = _by_key(plain)
    assert all(statuses[k]["status"] == "survived" and statuses[k]["tests_run"] > 0 for k in pruned)


def test_cache_resumes_and_edits_rerun_only_their_module(first, project, capsys):
    again = _score(project, capsys)
    ran = [x for x in again["mutants"] if x["mode"] != "pruned"]  # pruned verdicts come from the baseline
    assert ran and all(x["cached"] for x in ran) and again["summary"]["cached"] == len(ran)
    assert [x["status"] for x in again["mutants"]] == [x["status"] for x in first["mutants"]]
    extra = project / "sample_pkg" / "extra.py"
    extra.write_text(extra.read_text().replace("return x * 2", "return x * 2  # edited"))
    edited = _score(project, capsys)
    fresh = [x for x in edited["mutants"] if not x["cached"] and x["mode"] != "pruned"]
    assert fresh and all(x["module"] == "sample_pkg.extra" for x in fresh)


def test_bad_input(tmp_path, project, capsys):
    failing = tmp_path / "failing"
    shutil.copytree(SAMPLE, failing)
    test_file = failing / "tests" / "test_core.py"
    test_file.write_text(test_file.read_text().replace("== [1, 2, 3]", "== [3, 2, 1]"))
    assert main(["score", "--root", str(failing), "--paths", "sample_pkg", "--tests", "tests"]) == 2
    err = capsys.readouterr().err
    assert "fails on the original code" in err and "test_sort" in err
    empty = tmp_path / "empty"
    shutil.copytree(SAMPLE, empty)
    shutil.rmtree(empty / "tests")
    (empty / "tests").mkdir()
    assert main(["score", "--root", str(empty), "--paths", "sample_pkg", "--tests", "tests", "--no-cache"]) == 2
    assert "no tests" in capsys.readouterr().err
    assert main(["score", "--root", str(project), "--package", "no_such_pkg_xyz"]) == 2
    assert "no_such_pkg_xyz" in capsys.readouterr().err


DATAFILE = Path(__file__).resolve().parents[2] / "data" / "score_datafile"


def _journal_lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_killed_mid_run_resumes_and_leaves_the_project_as_found(tmp_path, capsys, monkeypatch):
    """kill -9 in the middle of the mutants: the verdicts reached are on disk and come back on the next run,
    which also removes the killed run's scratch copies of the project; a mutant that deletes the data file
    the tests read leaves it in place and misjudges no later mutant; an edited data file judges every mutant
    anew; --fail-under and the plain progress lines."""
    import os
    import signal
    import subprocess
    import sys
    import tempfile
    import time

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    root = tmp_path / "project"
    shutil.copytree(DATAFILE, root)
    cache = root / ".mu2py-cache" / "score.json"
    journal = cache.with_name("score.json.journal")
    args = ["score", "--root", str(root), "--paths", "data_pkg", "--tests", "tests"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[3]),
                                                       os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "mu2py", *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while _journal_lines(journal) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its workers, as a crash would
    proc.wait()
    assert (root / "tests" / "greeting.txt").read_text() == "hello\n"
    left = list(scratch.glob(f"mu2py-score-{proc.pid}-*"))
    assert left  # the killed run could not remove its workers' copies of the project
    saved = _journal_lines(journal)
    assert saved >= 3 and not cache.exists()  # never saved whole: the journal alone holds them
    resumed = _score(root, capsys, "--paths", "data_pkg", "--tests", "tests")
    assert resumed["summary"]["cached"] >= saved - 1  # a torn last line at most is lost
    assert not any(path.exists() for path in left) and not list(scratch.glob("mu2py-score-*"))
    assert cache.exists() and not journal.exists()
    assert (root / "tests" / "greeting.txt").read_text() == "hello\n"
    found = {(m["line"], m["mutated"]): m for m in resumed["mutants"]}
    # `if keep:` deletes greeting.txt: a plain pytest run then fails test_greeting, which ran after it
    assert found[(12, "keep")]["status"] == "killed" and found[(12, "keep")]["killed_by"].endswith("test_greeting")
    # pad's dots are checked by no test: alive, whatever ran before them (were "<corrupts shared state>")
    assert found[(18, '"XX.XX"')]["status"] == "survived"
    for m in resumed["mutants"]:
        assert m["status"] != "killed" or (m["tests_run"] > 0 and not m["killed_by"].startswith("<")), m
    # survivors in triage order: the ones the tests reach most come first
    reach = [found_m["reached_by"] for i in resumed["triage"] for found_m in resumed["mutants"] if found_m["id"] == i]
    assert reach and reach[0] == max(reach)

    (root / "tests" / "greeting.txt").write_text("hello\n\n")  # same text once stripped: verdicts stand, not cache
    code = main([*args, "--fail-under", "99", "--show", "3"])
    out, err = capsys.readouterr()
    assert code == 1 and err.strip().startswith("mu2py: mutation score") and "below --fail-under 99%" in err
    assert "[baseline]" in out and "[mutants]" in out  # plain progress lines: stdout is not a terminal
    assert "(0 cached)" in out  # the data file the suite reads is part of the cache key
    assert "survivors, most worth a look first" in out


def test_the_score_table_of_pyproject_sets_options_and_the_command_line_wins(first, project, tmp_path, capsys):
    """`[tool.mu2py.score] fail_under = 99.9` fails the run (was ignored without a word); `--fail-under 0` wins; a
    misspelt key is one line and exit 2 (the verdicts come from the cache `first` filled)."""
    root = tmp_path / "project"
    shutil.copytree(project, root)
    base = '[tool.mu2py]\npaths = ["sample_pkg"]\ntests = ["tests"]\n\n[tool.mu2py.score]\n'
    (root / "pyproject.toml").write_text(base + "fail_under = 99.9\nworkers = 2\n")
    assert main(["score", "--root", str(root), "--show", "0"]) == 1
    assert "below --fail-under 99.9%" in capsys.readouterr().err
    assert main(["score", "--root", str(root), "--show", "0", "--fail-under", "0"]) == 0
    capsys.readouterr()
    (root / "pyproject.toml").write_text(base + "fail_undr = 50\n")
    assert main(["score", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mu2py: error:") and "did you mean fail_under?" in err
